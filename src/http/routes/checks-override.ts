/** POST /v1/checks/{id}/override — record who decided otherwise and why; the verdict stays. */
import { Hono } from 'hono'
import { overrideCheck } from '../../checks/checks.ts'
import { CheckJson, OverrideRequest } from '../../checks/schema.ts'
import type { AppEnv } from '../env.ts'
import type { RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { CHECK_ID_PARAM, CheckId } from './checks-get.ts'
import { honoPath, type Endpoint } from './endpoint.ts'
import { readJson } from './params.ts'

const doc: RouteDoc = {
  method: 'post',
  path: '/v1/checks/{id}/override',
  operationId: 'overrideCheck',
  summary: 'Record an override of a check',
  description:
    'Records a decision that differs from the policy verdict: `by` (who), `reason` (why) and `verdict` (default `pass`). The override is its own signed document in the account chain; the check and its original verdict are never changed. Answers the check with all its overrides. Not billed.',
  tags: ['checks'],
  auth: true,
  billing: 'not billed.',
  params: [CHECK_ID_PARAM],
  body: {
    name: 'OverrideRequest',
    schema: OverrideRequest,
    description: '`{"by": "J. Smith (compliance)", "reason": "…", "verdict": "pass"}`',
    example: {
      by: 'J. Smith (compliance)',
      reason: 'Insurer confirmed the new policy by phone',
      verdict: 'pass',
    },
  },
  responses: {
    201: { description: 'The check with the override', schema: CheckJson, name: 'Check' },
  },
  errors: [
    'invalid_request',
    'unauthorized',
    'payment_required',
    'forbidden',
    'not_found',
    'payload_too_large',
    'unsupported_media_type',
  ],
}

export const checksOverrideEndpoint: Endpoint = {
  docs: [doc],
  routes: (deps) =>
    new Hono<AppEnv>().post(honoPath(doc), async (c) => {
      const id = parseOr(CheckId, c.req.param('id'), 'invalid_request')
      const req = parseOr(
        OverrideRequest,
        await readJson(c, '{"by": "…", "reason": "…"}'),
        'invalid_request',
      )
      return c.json(overrideCheck(deps, { caller: c.get('caller') }, id, req), 201)
    }),
}
