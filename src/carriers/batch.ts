/**
 * The batch engine of POST /v1/verify: up to 100 companies by `dot` or `mc`, each answered in its
 * slot in input order. Items are parsed one by one (an invalid item is a 400 in its slot), resolved,
 * de-duplicated (a company named twice is looked up and billed once), metered in input order (a
 * capped plan refuses the items past its cap with 429 in their slot) and shaped (cross-checks run
 * in parallel). No HTTP here: the route parses the envelope and maps the result.
 */
import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import type { DataView } from '../db/datasets.ts'
import type { Deps } from '../deps.ts'
import { clip, ECHO_LIMIT } from '../errors.ts'
import type { Caller } from '../keys/keys.ts'
import { meterCall, quotaExceeded, refuseCall } from '../keys/billing.ts'
import { peekUsage, type Usage } from '../keys/usage.ts'
import {
  DocketLookupJson,
  DotParam,
  identifierKey,
  McParam,
  resolveAnswer,
  type DocketLookup,
  resolveIdentifier,
  toDocketLookupJson,
  type Identifier,
  type IdentifierResolution,
} from './docket.ts'
import { crosscheckAnswered } from '../crosscheck/crosscheck.ts'
import type { RecordAnswer } from './answer.ts'
import { answerText, carrierJsonText, toMetaJson, viewDates } from './json.ts'
import { notFoundForDot, shapeMetered } from './lookup.ts'
import { awaitingMirror, notReadyMessage } from './mirror-state.ts'
import { openRecords, type RecordReads } from './records.ts'
import type { CompanyRecord } from './record.ts'
import { CarrierJson, MetaJson } from './schema.ts'

/** Most companies per POST /verify (seed §8.1 rule 8). */
export const MAX_BATCH = 100
const MAX_ID_LENGTH = 40

/** A `dot` value in a batch: a string or a number. */
export const DotValue = z
  .union([z.string().max(MAX_ID_LENGTH), z.number()])
  .meta({ description: 'USDOT number, as a string or a number' })

/** One batch item: exactly one of dot or mc, and an optional per-item cross-check. */
export const VerifyCompany = z.union([
  z.strictObject({ dot: DotValue, crosscheck: z.boolean().optional() }),
  z.strictObject({ mc: z.string().max(MAX_ID_LENGTH), crosscheck: z.boolean().optional() }),
])
export type VerifyCompany = z.infer<typeof VerifyCompany>

const Input = z.unknown().meta({
  description: `the item as sent; an item whose JSON text is longer than ${ECHO_LIMIT} characters is echoed as a string: its first ${ECHO_LIMIT} characters and "…"`,
})

/** The item as echoed back: as sent when small, else its JSON text cut to ECHO_LIMIT (never echo unbounded input). */
export function echoOf(input: unknown): unknown {
  const text = JSON.stringify(input) ?? 'null'
  return text.length <= ECHO_LIMIT ? input : clip(text)
}

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
export const VerifyNotReady = z
  .object({
    input: Input,
    status: z.literal(503),
    error: z.string(),
    code: z.literal('mirror_not_ready'),
  })
  .meta({
    description:
      "a live key's miss while the regulator's data is not mirrored yet (only the sample is loaded): the company may exist; not billed, ask again later",
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
  VerifyNotReady,
  VerifyRefused,
])
export type VerifyResult = z.infer<typeof VerifyResult>

export const VerifyResponse = z.object({
  results: z.array(VerifyResult).meta({ description: 'one entry per item, in input order' }),
  summary: z.object({
    requested: z.number().int(),
    found: z.number().int(),
    not_found: z.number().int(),
    not_ready: z
      .number()
      .int()
      .meta({ description: 'misses answered 503 mirror_not_ready (the mirror is not built yet)' }),
    invalid: z.number().int(),
    refused: z.number().int(),
    billed: z.number().int().meta({ description: 'calls counted against the quota' }),
  }),
  meta: MetaJson.extend({
    billed_calls: z.number().int().meta({ description: 'calls this batch counted' }),
  }),
})
export type VerifyResponse = z.infer<typeof VerifyResponse>

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
  if (unknownKeys.length)
    return `unknown key ${JSON.stringify(clip(unknownKeys[0] ?? '', 64))}: ${hint}`
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

type ParsedOk = Extract<ParsedItem, { ok: true }>
/** How an item named by docket was resolved (its `lookup` block); null for an item named by USDOT. */
type Lookup = DocketLookup | null
/**
 * A found company: its record (cross-checked, a USDOT-suffix identifier, or a docket several
 * USDOTs hold), or its answer text (every other item).
 */
type Found =
  | { found: true; record: CompanyRecord; match: Lookup }
  | { found: true; answer: RecordAnswer; dot: number; match: Lookup }
type Resolved = Found | { found: false; error: string }

const dotOf = (f: Found) => ('answer' in f ? f.dot : f.record.dotNumber)

/**
 * A found item's record already written as JSON text (its answer assembled whole by a record
 * worker: records.ts `openRecords`), which `verifyResponseBytes` writes as it is. `toJSON` gives
 * the object the text stands for, so `JSON.stringify` of an answer is the same text.
 */
export class RecordText {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
  toJSON(): unknown {
    return JSON.parse(this.text)
  }
}

/** A batch item's result as `verifyBatch` returns it: a found record as an object or as text. */
export type BatchResult =
  | Exclude<VerifyResult, { status: 200 }>
  | (Omit<Extract<VerifyResult, { status: 200 }>, 'record'> & { record: CarrierJson | RecordText })

/** A batch's answer (`VerifyResponse`) with its results as `verifyBatch` returns them. */
export type BatchAnswer = Omit<VerifyResponse, 'results'> & { results: BatchResult[] }

/**
 * The charge of each of `n` found items, in input order, inside the batch's write transaction.
 * When all of them fit (no hard cap, or the cap leaves room for all), one metering statement
 * charges the n calls and item j's usage is what a one-by-one charge would have reported after
 * it; otherwise each item is charged on its own, so the cap still stops exactly at its limit.
 */
function chargeItems(deps: Deps, caller: Caller, n: number): Usage[] {
  if (n === 0) return []
  const at = deps.clock()
  const fits =
    caller.mode === 'test' ||
    !caller.hardCap ||
    peekUsage(deps.db, caller, at).used + n <= caller.included
  if (!fits) return Array.from({ length: n }, () => meterCall(deps, caller, at))
  const after = meterCall(deps, caller, at, n)
  if (!after.billed) return Array.from({ length: n }, () => after)
  return Array.from({ length: n }, (_, j) => {
    const used = after.used - (n - 1 - j)
    return { ...after, used, remaining: Math.max(0, after.limit - used) }
  })
}

const missingDot = (dot: number): Resolved => ({
  found: false,
  error: notFoundForDot(dot).message,
})

async function resolveSlot(
  deps: Deps,
  caller: Caller,
  t: Target,
  read: RecordReads,
  checked: boolean,
): Promise<Resolved> {
  if (t.kind === 'dot') {
    if (!checked) {
      const answer = await read.answer(t.dot)
      return answer ? { found: true, answer, dot: t.dot, match: null } : missingDot(t.dot)
    }
    const record = await read.record(t.dot)
    return record ? { found: true, record, match: null } : missingDot(t.dot)
  }
  if (checked) return matched(await resolveIdentifier(deps, caller, t.id, read))
  const r = await resolveAnswer(deps, caller, t.id, read)
  if (!('answered' in r)) return matched(r)
  const { answer, dot, lookup } = r.answered
  return { found: true, answer, dot, match: lookup }
}

const matched = (r: IdentifierResolution): Resolved =>
  r.ok
    ? { found: true, record: r.match.record, match: r.match }
    : { found: false, error: r.message }

const viewDatesOf = (deps: Deps, caller: Caller) => viewDates(deps.datasets.view(caller.mode))

/** A batch as the route validated it: the raw items and where they came from. */
export interface BatchRequest {
  /** `companies` items, or `dot_numbers` values when `fromDotNumbers` */
  items: readonly unknown[]
  fromDotNumbers: boolean
  /** `?crosscheck=`: cross-check every found item (an item's own `crosscheck` wins) */
  crosscheck: boolean | undefined
  requestId: string
}

/**
 * Answers a batch: every item in input order with its own status. When a capped plan has nothing
 * left before the batch, the whole request is refused (throws 429 quota_exceeded, the API reference, POST /v1/verify).
 */
export async function verifyBatch(
  deps: Deps,
  caller: Caller,
  req: BatchRequest,
): Promise<{ body: BatchAnswer; usage: Usage }> {
  if (caller.mode === 'live' && caller.hardCap) {
    const at = deps.clock()
    const before = peekUsage(deps.db, caller, at)
    if (before.remaining <= 0) throw refuseCall(deps, caller, before, at)
  }
  const slots: Slot[] = req.items.map((input) => ({
    input: echoOf(input),
    parsed: parseVerifyItem(input, req.fromDotNumbers),
  }))
  const keys = new Map<string, number>()
  const read = openRecords(deps, caller.mode, { batch: true })
  const mode = deps.config.crosscheck.mode
  const checked = (p: ParsedOk) => crosscheckAnswered(mode, p.crosscheck ?? req.crosscheck)
  const resolutions = await Promise.all(
    slots.map((s, i): Promise<Resolved | null> => {
      if (!s.parsed.ok) return Promise.resolve(null)
      if (keys.has(s.parsed.key)) return Promise.resolve(null)
      keys.set(s.parsed.key, i)
      return resolveSlot(deps, caller, s.parsed.target, read, checked(s.parsed))
    }),
  )
  const { pending, charged } = sortItems(deps, caller, slots, keys, resolutions, read.view)
  const billed = chargeFound(deps, caller, req, charged, pending)
  return batchAnswer(deps, caller, req, await Promise.all(pending), billed)
}

/** A found company, first named in the batch: charged one call. */
interface Charged {
  slot: number
  input: unknown
  res: Found
  p: ParsedOk
}

/**
 * Each item's answer where it has no charge (invalid, duplicate, not found, mirror not ready), and
 * the found, first-named companies in input order, each to be charged one call.
 */
function sortItems(
  deps: Deps,
  caller: Caller,
  slots: readonly Slot[],
  keys: ReadonlyMap<string, number>,
  resolutions: readonly (Resolved | null)[],
  view: DataView,
): { pending: Promise<BatchResult>[]; charged: Charged[] } {
  const answered = new Map<number, number>()
  const pending: Promise<BatchResult>[] = []
  const charged: Charged[] = []
  for (const [i, s] of slots.entries()) {
    const p = s.parsed
    const input = s.input
    if (!p.ok) {
      pending[i] = Promise.resolve({ input, status: 400, code: p.code, error: p.error })
      continue
    }
    const res = resolutions[i]
    const first = keys.get(p.key)
    if (!res || (first !== undefined && first !== i)) {
      const of = first ?? 0
      pending[i] = Promise.resolve({
        input,
        status: 400,
        code: 'duplicate',
        error: `Duplicate of item ${of}: each company is looked up (and billed) once per batch`,
        duplicate_of: of,
      })
      continue
    }
    if (!res.found) {
      pending[i] = Promise.resolve(
        awaitingMirror(view, caller)
          ? {
              input,
              status: 503,
              code: 'mirror_not_ready',
              error: notReadyMessage(deps, view, res.error),
            }
          : { input, status: 404, code: 'not_found', error: res.error },
      )
      continue
    }
    const dot = dotOf(res)
    const earlier = answered.get(dot)
    if (earlier !== undefined) {
      pending[i] = Promise.resolve({
        input,
        status: 400,
        code: 'duplicate',
        error: `Duplicate of item ${earlier} (USDOT number ${dot}): each company is looked up (and billed) once per batch`,
        duplicate_of: earlier,
      })
      continue
    }
    answered.set(dot, i)
    charged.push({ slot: i, input, res, p })
  }
  return { pending, charged }
}

/**
 * Charges every found item in one write transaction: one commit per batch, not one per item (an
 * error before the end charges nothing). Fills each item's answer; returns the billed count.
 */
function chargeFound(
  deps: Deps,
  caller: Caller,
  req: BatchRequest,
  charged: readonly Charged[],
  pending: Promise<BatchResult>[],
): number {
  let billed = 0
  deps.db
    .transaction(() => {
      const usages = chargeItems(deps, caller, charged.length)
      for (const [j, { slot, input, res, p }] of charged.entries()) {
        const usage = usages[j]
        if (!usage) throw new Error(`batch item ${slot} has no charge`)
        const dot = dotOf(res)
        if (!usage.allowed) {
          const at = deps.clock()
          pending[slot] = Promise.resolve({
            input,
            status: 429,
            code: 'quota_exceeded',
            error: quotaExceeded(peekUsage(deps.db, caller, at), at).message,
            dot_number: String(dot),
          })
          continue
        }
        if (usage.billed) billed++
        const query = p.target.kind === 'id' ? p.target.query : ''
        const lookup = res.match ? toDocketLookupJson(query, res.match) : null
        if ('answer' in res) {
          const { answer } = res
          const meta = { usage, requestId: req.requestId, source: answer.source }
          pending[slot] = Promise.resolve({
            input,
            status: 200,
            dot_number: String(dot),
            lookup,
            record: new RecordText(answerText(answer.body, answer, meta)),
          })
          continue
        }
        const { record } = res
        pending[slot] = shapeMetered(
          deps,
          record,
          usage,
          req.requestId,
          p.crosscheck ?? req.crosscheck,
        ).then((json): BatchResult => ({
          input,
          status: 200,
          dot_number: String(dot),
          lookup,
          record: json,
        }))
      }
    })
    .immediate()
  return billed
}

/** The batch's answer: its results, the summary counts and the meta block. */
function batchAnswer(
  deps: Deps,
  caller: Caller,
  req: BatchRequest,
  results: BatchResult[],
  billed: number,
): { body: BatchAnswer; usage: Usage } {
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
        not_ready: count(503),
        invalid: count(400),
        refused: count(429),
        billed,
      },
      meta: {
        ...toMetaJson(viewDatesOf(deps, caller), {
          usage: { ...usage, billed: billed > 0 },
          requestId: req.requestId,
          source: view.source,
        }),
        billed_calls: billed,
      },
    },
  }
}

/**
 * `JSON.stringify(body)` for a batch answer, as UTF-8 bytes, each found record written by
 * carrierJsonText (its dataset blocks serialised once per cached record): the envelope is
 * serialised with a placeholder per record, a string no input can contain (a random UUID per
 * answer), and the bytes are the envelope's pieces and the records' texts in turn. The answer
 * (about 1 MB for 100 records) is never one JavaScript string: strings that large go straight to
 * V8's old generation and brought a full garbage collection every few batches.
 */
export function verifyResponseBytes(body: BatchAnswer): Buffer<ArrayBuffer> {
  const mark = randomUUID()
  const texts: string[] = []
  const envelope = {
    ...body,
    results: body.results.map((r) =>
      r.status === 200 ? { ...r, record: `${mark}:${texts.push(recordTextOf(r.record)) - 1}` } : r,
    ),
  }
  const json = JSON.stringify(envelope)
  const pieces: string[] = []
  let from = 0
  for (const m of json.matchAll(new RegExp(`"${mark}:(\\d+)"`, 'g'))) {
    pieces.push(json.slice(from, m.index), texts[Number(m[1])] ?? 'null')
    from = m.index + m[0].length
  }
  pieces.push(json.slice(from))
  // one buffer of the exact size, each piece encoded into it once (no buffer per piece, no concat)
  let size = 0
  for (const p of pieces) size += Buffer.byteLength(p)
  const out = Buffer.allocUnsafe(size)
  let at = 0
  for (const p of pieces) at += out.write(p, at)
  return out.subarray(0, at)
}

const recordTextOf = (r: CarrierJson | RecordText) =>
  r instanceof RecordText ? r.text : carrierJsonText(r)
