/** POST /v1/contact-verifications — a one-time code to the e-mail address on the company's FMCSA record. */
import { Hono } from 'hono'
import { rateLimitHeaders } from '../../keys/billing.ts'
import { createVerification, getVerification } from '../../mail/contact.ts'
import { ContactVerificationJson, ContactVerificationRequest } from '../../mail/schema.ts'
import type { AppEnv } from '../env.ts'
import type { RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { honoPath, type Endpoint } from './endpoint.ts'
import { readJson } from './params.ts'

const doc: RouteDoc = {
  method: 'post',
  path: '/v1/contact-verifications',
  operationId: 'createContactVerification',
  summary: 'Send a one-time code to the contact on the FMCSA record',
  description:
    "Sends a 6-digit code to the e-mail address on the company's FMCSA registration (never to an address you give) through the appliance's mail server, and answers where it went, masked. Ask the person you are dealing with for the code and confirm it with POST /v1/contact-verifications/{id}/confirm; a confirmed verification can be named in POST /v1/checks (`contact_verification_id`). The code expires after 15 minutes and allows 5 tries. At most 3 codes an hour go to one company and 30 an hour from one account (`rate_limited`). A company without an e-mail address on file answers 409 `no_contact_email`. Sandbox keys send nothing; their code is `000000`. See docs/email.md.",
  tags: ['checks'],
  auth: true,
  billing: 'one call (as a lookup) when the code is sent; 400, 404, 409 and 429 are not billed.',
  body: {
    name: 'ContactVerificationRequest',
    schema: ContactVerificationRequest,
    description: '`{"dot": "1000001", "channel": "email"}`',
    example: { dot: '344554', channel: 'email' },
  },
  responses: {
    201: {
      description: 'The code is queued for sending',
      schema: ContactVerificationJson,
      name: 'ContactVerification',
      rateLimited: true,
    },
  },
  errors: [
    'invalid_request',
    'invalid_dot',
    'unauthorized',
    'payment_required',
    'not_found',
    'no_contact_email',
    'payload_too_large',
    'unsupported_media_type',
    'quota_exceeded',
    'rate_limited',
    'dataset_unavailable',
    'mirror_not_ready',
    'mail_unavailable',
  ],
}

export const contactVerificationsCreateEndpoint: Endpoint = {
  docs: [doc],
  routes: (deps) =>
    new Hono<AppEnv>().post(honoPath(doc), async (c) => {
      const req = parseOr(
        ContactVerificationRequest,
        await readJson(c, '{"dot": "1000001", "channel": "email"}'),
        'invalid_request',
      )
      const caller = c.get('caller')
      const created = await createVerification(deps, caller, req)
      return c.json(getVerification(deps.db, caller.accountId, created.id), 201, {
        ...rateLimitHeaders(created.usage, deps.clock()),
        location: `/v1/contact-verifications/${created.id}`,
      })
    }),
}
