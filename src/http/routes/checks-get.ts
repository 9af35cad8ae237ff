/** GET /v1/checks/{id} — a stored check, unchanged, with its signature and overrides. */
import { Hono } from 'hono'
import { z } from 'zod'
import { getCheck } from '../../checks/checks.ts'
import { CheckJson } from '../../checks/schema.ts'
import type { AppEnv } from '../env.ts'
import type { ParamDoc, RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { honoPath, type Endpoint } from './endpoint.ts'

export const CheckId = z.string().regex(/^chk_[A-Za-z0-9_-]{16}$/, 'a check id such as chk_…')

export const CHECK_ID_PARAM: ParamDoc = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'the `check_id` returned by POST /v1/checks',
  schema: CheckId,
  example: 'chk_3q2xY0mZbq1Kd9f8',
}

const doc: RouteDoc = {
  method: 'get',
  path: '/v1/checks/{id}',
  operationId: 'getCheck',
  summary: 'A stored check',
  description:
    "The check document exactly as stored when it was made (the record as served then, the policy and its version, the verdict and every rule), with its signature and place in the chain, and any recorded overrides. Another account's check is a 404, as is an unknown id. Not billed.",
  tags: ['checks'],
  auth: true,
  billing: 'not billed.',
  params: [CHECK_ID_PARAM],
  responses: { 200: { description: 'The check', schema: CheckJson, name: 'Check' } },
  errors: ['invalid_request', 'unauthorized', 'payment_required', 'not_found'],
}

export const checksGetEndpoint: Endpoint = {
  docs: [doc],
  routes: (deps) =>
    new Hono<AppEnv>().get(honoPath(doc), (c) => {
      const id = parseOr(CheckId, c.req.param('id'), 'invalid_request')
      return c.json(getCheck(deps, c.get('caller').accountId, id), 200)
    }),
}
