/** POST /v1/checks — a stored, signed check of a company against the account's vetting policy. */
import { Hono } from 'hono'
import { z } from 'zod'
import { createCheck } from '../../checks/checks.ts'
import { CheckCreatedJson, CheckRequest } from '../../checks/schema.ts'
import { AppError } from '../../errors.ts'
import { rateLimitHeaders } from '../../keys/billing.ts'
import { getVerification } from '../../mail/contact.ts'
import { VerificationId } from '../../mail/schema.ts'
import { assertWebhooksAllowed } from '../../webhooks/endpoints.ts'
import { addToWatchlist } from '../../webhooks/watchlist.ts'
import type { AppEnv } from '../env.ts'
import { publishAs, type RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { honoPath, type Endpoint } from './endpoint.ts'
import { readJson } from './params.ts'

/** CheckRequest as published: exactly one of `dot` or `mc` (a refinement in the validating schema). */
const { dot, mc, ...rest } = CheckRequest.shape
const PublishedCheckRequest = z
  .xor([
    z.strictObject({ dot: dot.unwrap(), ...rest }),
    z.strictObject({ mc: mc.unwrap(), ...rest }),
  ])
  .meta({ description: 'A company by `dot` or by `mc` (exactly one), with optional fields.' })

const doc: RouteDoc = {
  method: 'post',
  path: '/v1/checks',
  operationId: 'createCheck',
  summary: 'Check a company against your vetting policy and keep a signed record of it',
  description:
    "Looks the company up by `dot` or `mc`, verifies the `contact` you were given against FMCSA (E.164 phone, e-mail and its registrable domain, other companies registered with them, look-alike domains), judges the record by the account policy (`pass | review | fail`, every rule with its reason) and stores the whole answer as one JSON document, signed (Ed25519) and chained to the account's previous check. The answer is that document with its signature, plus `meta` for this request. `watch: true` also adds the company to the account watchlist (paid plans): a later `carrier.changed` event names the checks whose verdict would now differ. See docs/checks.md.",
  tags: ['checks'],
  auth: true,
  billing: 'one call (as a lookup) when the company is found; 400, 404 and 503 are not billed.',
  body: {
    name: 'CheckRequest',
    schema: publishAs(CheckRequest, PublishedCheckRequest),
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
    'mirror_not_ready',
  ],
}

const EXAMPLE = '{"dot": "1000001", "reference": "LOAD-123"}'

/** The account's contact verification a check names (400 malformed, 404 unknown: not billed). */
function namedVerification(
  db: Parameters<typeof getVerification>[0],
  accountId: number,
  id: string,
) {
  const v = getVerification(db, accountId, parseOr(VerificationId, id, 'invalid_request'))
  return {
    id: v.id,
    dot_number: v.dot_number,
    channel: v.channel,
    sent_to: v.sent_to,
    verified: v.status === 'verified',
    verified_at: v.verified_at,
  }
}

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
      const named =
        req.contact_verification_id === undefined
          ? null
          : namedVerification(deps.db, caller.accountId, req.contact_verification_id)
      const { check, usage, meta } = await createCheck(deps, caller, req, c.get('requestId'), named)
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
