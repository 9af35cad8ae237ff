/** POST /v1/checks — a stored, signed check of a company against the account's vetting policy. */
import { Hono } from 'hono'
import { createCheck } from '../../checks/checks.ts'
import { CheckCreatedJson, CheckRequest } from '../../checks/schema.ts'
import { AppError } from '../../errors.ts'
import { rateLimitHeaders } from '../../keys/billing.ts'
import { assertWebhooksAllowed } from '../../webhooks/endpoints.ts'
import { addToWatchlist } from '../../webhooks/watchlist.ts'
import type { AppEnv } from '../env.ts'
import type { RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { honoPath, type Endpoint } from './endpoint.ts'
import { readJson } from './params.ts'

const doc: RouteDoc = {
  method: 'post',
  path: '/v1/checks',
  operationId: 'createCheck',
  summary: 'Check a company against your vetting policy and keep a signed record of it',
  description:
    "Looks the company up by `dot` or `mc`, verifies the `contact` you were given against FMCSA (E.164 phone, e-mail and its registrable domain, other companies registered with them, look-alike domains), judges the record by the account policy (`pass | review | fail`, every rule with its reason) and stores the whole answer as one JSON document, signed (Ed25519) and chained to the account's previous check. The answer is that document with its signature, plus `meta` for this request. `watch: true` also adds the company to the account watchlist (paid plans): a later `carrier.changed` event names the checks whose verdict would now differ. See docs/checks.md.",
  tags: ['checks'],
  auth: true,
  billing: 'one call (as a lookup) when the company is found; 400 and 404 are not billed.',
  body: {
    name: 'CheckRequest',
    schema: CheckRequest,
    description:
      '`{"dot": "1000001", "reference": "LOAD-123", "contact": {"phone": "…", "email": "…"}}`',
    example: {
      dot: '344554',
      reference: 'LOAD-2026-1142',
      contact: { phone: '+1 712 439 2831', email: 'dispatch@example.com' },
    },
  },
  responses: {
    201: {
      description: 'The stored check',
      schema: CheckCreatedJson,
      name: 'CheckCreated',
      rateLimited: true,
    },
  },
  errors: [
    'invalid_request',
    'invalid_dot',
    'invalid_docket',
    'unauthorized',
    'payment_required',
    'forbidden',
    'not_found',
    'payload_too_large',
    'unsupported_media_type',
    'quota_exceeded',
    'dataset_unavailable',
  ],
}

const EXAMPLE = '{"dot": "1000001", "reference": "LOAD-123"}'

export const checksCreateEndpoint: Endpoint = {
  docs: [doc],
  routes: (deps) =>
    new Hono<AppEnv>().post(honoPath(doc), async (c) => {
      const req = parseOr(CheckRequest, await readJson(c, EXAMPLE), 'invalid_request')
      const caller = c.get('caller')
      if (req.watch) {
        if (caller.mode !== 'live')
          throw new AppError(
            'invalid_request',
            'watch needs a live key: sandbox data is not monitored',
          )
        assertWebhooksAllowed(deps.db, caller.accountId, deps.clock().getTime())
      }
      const { check, usage, meta } = await createCheck(deps, caller, req, c.get('requestId'))
      if (req.watch)
        addToWatchlist(
          deps.db,
          caller.accountId,
          [Number(check.dot_number)],
          deps.clock().getTime(),
        )
      return c.json({ ...check, watching: req.watch === true, meta }, 201, {
        ...rateLimitHeaders(usage, deps.clock()),
        location: `/v1/checks/${check.check_id}`,
      })
    }),
}
