/** POST /v1/verify — batch verification of up to 100 companies (the engine is carriers/batch.ts). */
import { Hono } from 'hono'
import { z } from 'zod'
import {
  DotValue,
  MAX_BATCH,
  VerifyCompany,
  VerifyResponse,
  verifyBatch,
  verifyResponseBytes,
} from '../../carriers/batch.ts'
import { rateLimitHeaders } from '../../keys/billing.ts'
import type { AppEnv } from '../env.ts'
import type { RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { honoPath, type Endpoint } from './endpoint.ts'
import { CROSSCHECK_PARAM, CrosscheckQuery, readJson } from './params.ts'

/** POST /v1/verify body as documented: `companies` (dot or mc items) or `dot_numbers`, 1–100. */
export const VerifyRequest = z.union([
  z.strictObject({ companies: z.array(VerifyCompany).min(1).max(MAX_BATCH) }),
  z.strictObject({ dot_numbers: z.array(DotValue).min(1).max(MAX_BATCH) }),
])

/** The envelope as validated: items are checked one by one so each problem lands in its slot. */
const VerifyEnvelope = z
  .strictObject({
    companies: z.array(z.unknown()).optional(),
    dot_numbers: z.array(z.unknown()).optional(),
  })
  .refine((b) => (b.companies === undefined) !== (b.dot_numbers === undefined), {
    message: 'give either "companies" or "dot_numbers"',
  })
  .pipe(
    z.object({
      companies: z
        .array(z.unknown())
        .min(1, 'companies must list at least 1 company')
        .max(MAX_BATCH, `at most ${MAX_BATCH} companies per request`)
        .optional(),
      dot_numbers: z
        .array(z.unknown())
        .min(1, 'dot_numbers must list at least 1 USDOT number')
        .max(MAX_BATCH, `at most ${MAX_BATCH} USDOT numbers per request`)
        .optional(),
    }),
  )

const doc: RouteDoc = {
  method: 'post',
  path: '/v1/verify',
  operationId: 'verifyBatch',
  summary: 'Batch verification of up to 100 companies',
  description: `Looks up 1–${MAX_BATCH} companies by \`dot\` or \`mc\` and answers each in its slot, in input order: 200 with the record, 404, 400 (an invalid item, or \`duplicate\`: a company already named by an earlier item, answered once and billed once), or 429 (past a capped plan's quota). The HTTP status is 200 whenever the envelope is valid. An empty list, more than ${MAX_BATCH} items, both or neither of \`companies\`/\`dot_numbers\`, or a body that is not JSON is a 400; a body over 64 KiB is 413; a Content-Type other than JSON is 415 (no Content-Type is read as JSON). \`?crosscheck=true\` cross-checks every found item; an item's own \`crosscheck\` wins.`,
  tags: ['companies'],
  auth: true,
  billing:
    'one call per item found, metered in input order. On the Free plan the items past the cap get 429 in their slot (not billed); if the quota is already used up before the batch, the whole request is 429.',
  params: [CROSSCHECK_PARAM],
  body: {
    name: 'VerifyRequest',
    schema: VerifyRequest,
    description:
      '`{"companies": [{"dot": "123"}, {"mc": "MC-1"}]}` or `{"dot_numbers": [123, "456"]}`',
    example: { companies: [{ dot: '344554' }, { mc: 'MC-421775', crosscheck: true }] },
  },
  responses: {
    200: {
      description: 'One result per item',
      schema: VerifyResponse,
      name: 'VerifyResponse',
      rateLimited: true,
    },
  },
  errors: [
    'invalid_request',
    'unauthorized',
    'payment_required',
    'payload_too_large',
    'unsupported_media_type',
    'quota_exceeded',
    'dataset_unavailable',
    'storage_unavailable',
  ],
}

const BODY_EXAMPLE = '{"companies": [{"dot": "123"}, {"mc": "MC-123456"}]}'

export const verifyEndpoint: Endpoint = {
  docs: [doc],
  routes: (deps) =>
    new Hono<AppEnv>().post(honoPath(doc), async (c) => {
      const crosscheck = parseOr(CrosscheckQuery, c.req.query('crosscheck'), 'invalid_request')
      const env = parseOr(VerifyEnvelope, await readJson(c, BODY_EXAMPLE), 'invalid_request')
      const { body, usage } = await verifyBatch(deps, c.get('caller'), {
        items: env.companies ?? env.dot_numbers ?? [],
        fromDotNumbers: env.dot_numbers !== undefined,
        crosscheck,
        requestId: c.get('requestId'),
      })
      return c.body(verifyResponseBytes(body), 200, {
        'Content-Type': 'application/json',
        ...rateLimitHeaders(usage, deps.clock()),
      })
    }),
}
