/**
 * GET /broker/:mc (the record by docket), GET /bond/:dot (the bond or trust fund and insurance on
 * file) and POST /verify (up to 100 companies per call), with their schemas and OpenAPI docs.
 */
import { Hono, type Context } from 'hono'
import { z } from 'zod'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { AppEnv } from '../http/env.ts'
import type { RouteDoc } from '../http/openapi.ts'
import { parseOr } from '../http/validate.ts'
import type { Caller } from '../keys/keys.ts'
import { peekUsage, quotaExceeded, rateLimitHeaders, type Usage } from '../keys/usage.ts'
import { DATASET_NAMES } from '../db/names.ts'
import { BondJson, BondResponseJson, toBondJson, toBondResponseJson } from './bond.ts'
import {
  identifierKey,
  identifierProblem,
  parseIdentifier,
  resolveIdentifier,
  type Identifier,
  type IdentifierMatch,
} from './docket.ts'
import { toMetaJson } from './json.ts'
import {
  billAndShape,
  CrosscheckQuery,
  DotParam,
  findRecord,
  meterItem,
  notFoundForDot,
  notFoundWithUsage,
  shapeMetered,
} from './lookup.ts'
import type { CompanyRecord } from './record.ts'
import { dotLookupRoutes } from './routes.ts'
import { CarrierJson, MetaJson } from './schema.ts'

/** Most companies per POST /verify (seed §8.1 rule 8). */
export const MAX_BATCH = 100
const MAX_ID_LENGTH = 40

/** `mc` path parameter and batch `mc` values: a docket or USDOT-suffix identifier. */
export const McParam = z
  .string()
  .max(MAX_ID_LENGTH)
  .transform((v, ctx): Identifier => {
    const id = parseIdentifier(v)
    if (id) return id
    ctx.addIssue({ code: 'custom', message: identifierProblem(v) ?? 'invalid docket' })
    return z.NEVER
  })
  .meta({
    description:
      'An MC/FF/MX docket (`MC-123456`, `MC123456`, `mc 0123456`, `123456` = MC, `FF-12345`, `MX-12345`) or a USDOT-suffix identifier (`1234567B`, `1234567-B`, `USDOT 1234567-B`).',
  })

/** How an identifier was resolved (broker answers and batch items given by `mc`). */
export const DocketLookupJson = z.object({
  query: z.string().meta({ description: 'the identifier as given' }),
  identifier: z.string().meta({ description: 'canonical form: MC-123456, FF-1234 or 1234567-B' }),
  kind: z.enum(['docket', 'usdot_suffix']),
  resolved_via: z.enum(['licensing', 'census', 'qcmobile', 'usdot']).meta({
    description:
      'licensing (Motus/legacy L&I), census (DOCKETn columns), qcmobile (the regulator, when the mirror has no holder) or usdot (suffix identifiers)',
  }),
  other_dot_numbers: z.array(z.string()).meta({
    description:
      'other USDOT numbers holding the same docket; the record shown is the one with active authority, then an active USDOT, then the most recent',
  }),
})
export type DocketLookupJson = z.infer<typeof DocketLookupJson>

/** GET /v1/broker/{mc}: the verification record plus the bond view and how the docket resolved. */
export const BrokerJson = CarrierJson.extend({ bond: BondJson, lookup: DocketLookupJson })
export type BrokerJson = z.infer<typeof BrokerJson>

const DotValue = z
  .union([z.string().max(MAX_ID_LENGTH), z.number()])
  .meta({ description: 'USDOT number, as a string or a number' })

/** One batch item: exactly one of dot or mc, and an optional per-item cross-check. */
export const VerifyCompany = z.union([
  z.strictObject({ dot: DotValue, crosscheck: z.boolean().optional() }),
  z.strictObject({ mc: z.string().max(MAX_ID_LENGTH), crosscheck: z.boolean().optional() }),
])
export type VerifyCompany = z.infer<typeof VerifyCompany>

/** POST /v1/verify body: `companies` (dot or mc items) or `dot_numbers`, 1–100 entries. */
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

const Input = z.unknown().meta({ description: 'the item exactly as sent' })

export const VerifyFound = z.object({
  input: Input,
  status: z.literal(200),
  dot_number: z.string(),
  lookup: DocketLookupJson.nullable().meta({
    description: 'how an `mc` item resolved; null for dot',
  }),
  record: CarrierJson,
})
export const VerifyInvalid = z.object({
  input: Input,
  status: z.literal(400),
  error: z.string(),
  code: z.enum(['invalid_request', 'invalid_dot', 'invalid_docket', 'duplicate']),
  duplicate_of: z
    .number()
    .int()
    .optional()
    .meta({ description: 'index of the earlier item naming the same company' }),
})
export const VerifyNotFound = z.object({
  input: Input,
  status: z.literal(404),
  error: z.string(),
  code: z.literal('not_found'),
})
export const VerifyRefused = z.object({
  input: Input,
  status: z.literal(429),
  error: z.string(),
  code: z.literal('quota_exceeded'),
  dot_number: z.string(),
})
export const VerifyResult = z.discriminatedUnion('status', [
  VerifyFound,
  VerifyInvalid,
  VerifyNotFound,
  VerifyRefused,
])
export type VerifyResult = z.infer<typeof VerifyResult>

export const VerifyResponse = z.object({
  results: z.array(VerifyResult).meta({ description: 'one entry per item, in input order' }),
  summary: z.object({
    requested: z.number().int(),
    found: z.number().int(),
    not_found: z.number().int(),
    invalid: z.number().int(),
    refused: z.number().int(),
    billed: z.number().int().meta({ description: 'calls counted against the quota' }),
  }),
  meta: MetaJson.extend({
    billed_calls: z.number().int().meta({ description: 'calls this batch counted' }),
  }),
})
export type VerifyResponse = z.infer<typeof VerifyResponse>

/** Bills one lookup and shapes it; counts quota refusals for /metrics. */
const lookupJson = (query: string, m: IdentifierMatch): DocketLookupJson => ({
  query,
  identifier: m.identifier.display,
  kind: m.identifier.kind,
  resolved_via: m.via,
  other_dot_numbers: m.others.map(String),
})

/** JSON body of a POST: 415 for another media type, 400 for an empty or malformed body. */
async function readJson(c: Context<AppEnv>): Promise<unknown> {
  const type = c.req.header('content-type')?.trim()
  // no Content-Type at all is read as JSON (curl --data-binary); any other type is refused
  if (type && !/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(type))
    throw new AppError(
      'unsupported_media_type',
      'Content-Type must be application/json (curl: -H "Content-Type: application/json")',
    )
  const text = await c.req.text()
  if (text.trim() === '')
    throw new AppError(
      'invalid_request',
      'Request body is required: {"companies": [{"dot": "123"}, {"mc": "MC-123456"}]}',
    )
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new AppError('invalid_request', 'Request body is not valid JSON')
  }
}

type Target = { kind: 'dot'; dot: number } | { kind: 'id'; id: Identifier; query: string }
type ParsedItem =
  | { ok: true; target: Target; key: string; crosscheck: boolean | undefined }
  | { ok: false; code: 'invalid_request' | 'invalid_dot' | 'invalid_docket'; error: string }

const firstMessage = (e: z.ZodError) => e.issues[0]?.message ?? 'invalid value'

function parseDot(v: unknown): ParsedItem {
  const raw = typeof v === 'number' && Number.isInteger(v) && v >= 0 ? String(v) : v
  if (typeof raw !== 'string')
    return { ok: false, code: 'invalid_dot', error: 'USDOT number must be a string or an integer' }
  const r = DotParam.safeParse(raw)
  if (!r.success) return { ok: false, code: 'invalid_dot', error: firstMessage(r.error) }
  return {
    ok: true,
    target: { kind: 'dot', dot: r.data },
    key: `DOT${r.data}`,
    crosscheck: undefined,
  }
}

/** One batch item → what to look up, or the reason it is invalid (answered in its slot). */
export function parseVerifyItem(item: unknown, fromDotNumbers: boolean): ParsedItem {
  if (fromDotNumbers) return parseDot(item)
  const shape = VerifyCompany.safeParse(item)
  if (!shape.success) return { ok: false, code: 'invalid_request', error: explainItem(item) }
  const v = shape.data
  if ('dot' in v) {
    const d = parseDot(v.dot)
    return d.ok ? { ...d, crosscheck: v.crosscheck } : d
  }
  const r = McParam.safeParse(v.mc)
  if (!r.success) return { ok: false, code: 'invalid_docket', error: firstMessage(r.error) }
  return {
    ok: true,
    target: { kind: 'id', id: r.data, query: v.mc },
    key: identifierKey(r.data),
    crosscheck: v.crosscheck,
  }
}

function explainItem(item: unknown): string {
  const hint =
    'each item is {"dot": "123"} or {"mc": "MC-123456"}, optionally with "crosscheck": true'
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return hint
  const o = item as Record<string, unknown>
  const unknownKeys = Object.keys(o).filter((k) => !['dot', 'mc', 'crosscheck'].includes(k))
  if (unknownKeys.length) return `unknown key ${JSON.stringify(unknownKeys[0])}: ${hint}`
  if ('dot' in o && 'mc' in o) return `give either dot or mc, not both: ${hint}`
  if (!('dot' in o) && !('mc' in o)) return `dot or mc is required: ${hint}`
  if ('crosscheck' in o && typeof o['crosscheck'] !== 'boolean')
    return 'crosscheck must be true or false'
  if ('mc' in o && typeof o['mc'] !== 'string') return 'mc must be a string such as "MC-123456"'
  return `dot must be a string or a number: ${hint}`
}

interface Slot {
  input: unknown
  parsed: ParsedItem
}

type Resolved =
  | { found: true; record: CompanyRecord; match: IdentifierMatch | null }
  | { found: false; error: string }

async function resolveSlot(deps: Deps, caller: Caller, t: Target): Promise<Resolved> {
  if (t.kind === 'dot') {
    const record = findRecord(deps, caller, t.dot)
    return record
      ? { found: true, record, match: null }
      : { found: false, error: notFoundForDot(t.dot).message }
  }
  const r = await resolveIdentifier(deps, caller, t.id)
  return r.ok
    ? { found: true, record: r.match.record, match: r.match }
    : { found: false, error: r.message }
}

function viewAsOf(deps: Deps, caller: Caller): Record<string, string | null> {
  const view = deps.datasets.view(caller.mode)
  return Object.fromEntries(DATASET_NAMES.map((n) => [n, view.get(n)?.asOf ?? null]))
}

/**
 * Answers a batch: every item in input order with its own status. Items are resolved first, then
 * metered one by one in input order (a capped plan refuses the items past its cap with 429 in
 * their slot), then shaped (cross-checks run in parallel).
 */
async function verifyBatch(
  deps: Deps,
  caller: Caller,
  requestId: string,
  slots: Slot[],
  crosscheckAll: boolean | undefined,
): Promise<{ body: VerifyResponse; usage: Usage }> {
  const keys = new Map<string, number>()
  const resolutions = await Promise.all(
    slots.map((s, i): Promise<Resolved | null> => {
      if (!s.parsed.ok) return Promise.resolve(null)
      if (keys.has(s.parsed.key)) return Promise.resolve(null)
      keys.set(s.parsed.key, i)
      return resolveSlot(deps, caller, s.parsed.target)
    }),
  )
  const answered = new Map<number, number>()
  const pending: Promise<VerifyResult>[] = []
  let billed = 0
  for (const [i, s] of slots.entries()) {
    const p = s.parsed
    const input = s.input
    if (!p.ok) {
      pending.push(Promise.resolve({ input, status: 400, code: p.code, error: p.error }))
      continue
    }
    const res = resolutions[i]
    const first = keys.get(p.key)
    if (!res || (first !== undefined && first !== i)) {
      const of = first ?? 0
      pending.push(
        Promise.resolve({
          input,
          status: 400,
          code: 'duplicate',
          error: `Duplicate of item ${of}: each company is looked up (and billed) once per batch`,
          duplicate_of: of,
        }),
      )
      continue
    }
    if (!res.found) {
      pending.push(Promise.resolve({ input, status: 404, code: 'not_found', error: res.error }))
      continue
    }
    const dot = res.record.dotNumber
    const earlier = answered.get(dot)
    if (earlier !== undefined) {
      pending.push(
        Promise.resolve({
          input,
          status: 400,
          code: 'duplicate',
          error: `Duplicate of item ${earlier} (USDOT number ${dot}): each company is looked up (and billed) once per batch`,
          duplicate_of: earlier,
        }),
      )
      continue
    }
    answered.set(dot, i)
    const usage = meterItem(deps, caller)
    if (!usage) {
      const at = deps.clock()
      pending.push(
        Promise.resolve({
          input,
          status: 429,
          code: 'quota_exceeded',
          error: quotaExceeded(peekUsage(deps.db, caller, at), at).message,
          dot_number: String(dot),
        }),
      )
      continue
    }
    if (usage.billed) billed++
    const match = res.match
    const query = p.target.kind === 'id' ? p.target.query : ''
    pending.push(
      shapeMetered(deps, res.record, usage, requestId, p.crosscheck ?? crosscheckAll).then(
        (record): VerifyResult => ({
          input,
          status: 200,
          dot_number: String(dot),
          lookup: match ? lookupJson(query, match) : null,
          record,
        }),
      ),
    )
  }
  const results = await Promise.all(pending)
  const count = (s: number) => results.filter((r) => r.status === s).length
  const at = deps.clock()
  const usage = peekUsage(deps.db, caller, at)
  const view = deps.datasets.view(caller.mode)
  return {
    usage,
    body: {
      results,
      summary: {
        requested: results.length,
        found: count(200),
        not_found: count(404),
        invalid: count(400),
        refused: count(429),
        billed,
      },
      meta: {
        ...toMetaJson(
          { dataAsOf: viewAsOf(deps, caller) },
          { usage: { ...usage, billed: billed > 0 }, requestId, source: view.source },
        ),
        billed_calls: billed,
      },
    },
  }
}

/** The three routes; mounted next to carrierRoutes in the v1 sub-app. */
export const brokerRoutes = (deps: Deps) =>
  new Hono<AppEnv>()
    .get('/broker', () => {
      throw new AppError('invalid_docket', 'Docket number is required: GET /v1/broker/{mc}')
    })
    .get('/broker/', () => {
      throw new AppError('invalid_docket', 'Docket number is required: GET /v1/broker/{mc}')
    })
    .get('/broker/:mc', async (c) => {
      c.set('route', '/v1/broker/:mc')
      const raw = c.req.param('mc')
      const id = parseOr(McParam, raw, 'invalid_docket')
      const crosscheck = parseOr(CrosscheckQuery, c.req.query('crosscheck'), 'invalid_request')
      const caller = c.var.caller
      const r = await resolveIdentifier(deps, caller, id)
      if (!r.ok) throw notFoundWithUsage(deps, caller, r.message)
      const { json, usage } = await billAndShape(
        deps,
        caller,
        r.match.record,
        c.var.requestId,
        crosscheck,
      )
      const { meta, ...rest } = json
      const body: BrokerJson = {
        ...rest,
        bond: toBondJson(json.insurance),
        lookup: lookupJson(raw, r.match),
        meta,
      }
      return c.json(body, 200, rateLimitHeaders(usage, deps.clock()))
    })
    .route('/', dotLookupRoutes(deps, 'bond', toBondResponseJson))
    .post('/verify', async (c) => {
      c.set('route', '/v1/verify')
      const crosscheckAll = parseOr(CrosscheckQuery, c.req.query('crosscheck'), 'invalid_request')
      const env = parseOr(VerifyEnvelope, await readJson(c), 'invalid_request')
      const fromDotNumbers = env.dot_numbers !== undefined
      const items = env.companies ?? env.dot_numbers ?? []
      const caller = c.var.caller
      const at = deps.clock()
      if (caller.mode === 'live' && caller.hardCap) {
        // nothing left before the batch: the whole request is 429 (DESIGN.md §1)
        const before = peekUsage(deps.db, caller, at)
        if (before.remaining <= 0) {
          deps.metrics.quotaRefusals.inc()
          throw quotaExceeded(before, at)
        }
      }
      const slots = items.map((input) => ({
        input,
        parsed: parseVerifyItem(input, fromDotNumbers),
      }))
      const { body, usage } = await verifyBatch(deps, caller, c.var.requestId, slots, crosscheckAll)
      return c.json(body, 200, rateLimitHeaders(usage, deps.clock()))
    })

const CROSSCHECK_PARAM = {
  name: 'crosscheck',
  in: 'query',
  required: false,
  description:
    '`true` also asks the regulator (QCMobile) and adds a `crosscheck` block; a regulator outage never fails the lookup',
  schema: CrosscheckQuery,
} as const

const DOT_PARAM = {
  name: 'dot',
  in: 'path',
  required: true,
  description: 'USDOT number: 1 to 8 digits, not 0',
  schema: DotParam,
  example: '344554',
} as const

/** OpenAPI entries of these routes, built from the schemas above. */
export const brokerDocs: readonly RouteDoc[] = [
  {
    method: 'get',
    path: '/v1/broker/{mc}',
    operationId: 'getBroker',
    summary: 'Broker authority, bond and reputation by docket',
    description:
      "The verification record of the company holding a docket (MC, FF, MX) or USDOT-suffix identifier, plus `bond` (the BMC-84/85 view) and `lookup` (how the identifier resolved). A docket resolves through the licensing files (Motus, then legacy L&I), then the census, then the regulator's QCMobile API when configured. When several USDOT numbers hold the docket, the one with active authority (then an active USDOT, then the most recent registration) is shown and the others are listed in `lookup.other_dot_numbers`. A USDOT-suffix identifier resolves to its USDOT and must match the authority its letter names (B broker, C/P/H carrier, F forwarder, V private).",
    tags: ['companies'],
    auth: true,
    billing: 'one call when found; a 404 is not billed.',
    params: [
      {
        name: 'mc',
        in: 'path',
        required: true,
        description: McParam.description ?? 'docket',
        schema: McParam,
        example: 'MC-421775',
      },
      CROSSCHECK_PARAM,
    ],
    responses: {
      200: {
        description: 'The record',
        schema: BrokerJson,
        name: 'BrokerRecord',
        rateLimited: true,
      },
    },
    errors: [
      'invalid_docket',
      'invalid_request',
      'unauthorized',
      'payment_required',
      'not_found',
      'quota_exceeded',
      'dataset_unavailable',
    ],
  },
  {
    method: 'get',
    path: '/v1/bond/{dot}',
    operationId: 'getBond',
    summary: 'Surety bond or trust fund, and insurance on file',
    description:
      'The BMC-84 surety bond or BMC-85 trust fund on file (amount, form, surety or trustee, bond number, effective and cancellation dates, status, and the full BMC-84/85 history) and the insurance block of the record. A company without a bond is a 200 with `bond.on_file: false`.',
    tags: ['companies'],
    auth: true,
    billing: 'one call when the company is found; a 404 is not billed.',
    params: [DOT_PARAM, CROSSCHECK_PARAM],
    responses: {
      200: {
        description: 'Bond and insurance',
        schema: BondResponseJson,
        name: 'BondResponse',
        rateLimited: true,
      },
    },
    errors: [
      'invalid_dot',
      'invalid_request',
      'unauthorized',
      'payment_required',
      'not_found',
      'quota_exceeded',
      'dataset_unavailable',
    ],
  },
  {
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
    ],
  },
]
