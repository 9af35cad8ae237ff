/** POST /v1/contact-verifications/{id}/confirm — check the code the company received. */
import { Hono } from 'hono'
import { confirmVerification } from '../../mail/contact.ts'
import { ConfirmJson, ConfirmRequest, VerificationId } from '../../mail/schema.ts'
import type { AppEnv } from '../env.ts'
import type { RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { honoPath, type Endpoint } from './endpoint.ts'
import { readJson } from './params.ts'

const doc: RouteDoc = {
  method: 'post',
  path: '/v1/contact-verifications/{id}/confirm',
  operationId: 'confirmContactVerification',
  summary: 'Confirm a one-time code',
  description:
    'Answers `verified` when the code is the one sent (and stays verified), `wrong_code` otherwise (each wrong code uses one of 5 tries; the fifth locks the verification: `too_many_attempts`), or `expired` after 15 minutes. Not billed.',
  tags: ['checks'],
  auth: true,
  billing: 'not billed.',
  params: [
    {
      name: 'id',
      in: 'path',
      required: true,
      description: 'the `id` returned by POST /v1/contact-verifications',
      schema: VerificationId,
      example: 'cv_3q2xY0mZbq1Kd9f8',
    },
  ],
  body: {
    name: 'ConfirmRequest',
    schema: ConfirmRequest,
    description: '`{"code": "123456"}`',
    example: { code: '123456' },
  },
  responses: {
    200: { description: 'The outcome', schema: ConfirmJson, name: 'ContactVerificationResult' },
  },
  errors: [
    'invalid_request',
    'unauthorized',
    'payment_required',
    'not_found',
    'payload_too_large',
    'unsupported_media_type',
  ],
}

export const contactVerificationsConfirmEndpoint: Endpoint = {
  docs: [doc],
  routes: (deps) =>
    new Hono<AppEnv>().post(honoPath(doc), async (c) => {
      const id = parseOr(VerificationId, c.req.param('id'), 'invalid_request')
      const req = parseOr(
        ConfirmRequest,
        await readJson(c, '{"code": "123456"}'),
        'invalid_request',
      )
      return c.json(confirmVerification(deps, c.get('caller').accountId, id, req.code), 200)
    }),
}
