/**
 * The shared path of every billed lookup: find the record, charge the call (counting it in
 * /metrics), cross-check, shape. `meterCall` is the one place a call is metered and counted.
 */
import { isoDate } from '../clock.ts'
import { maybeCrosscheck } from '../crosscheck/crosscheck.ts'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Caller } from '../keys/keys.ts'
import {
  meter,
  meterGrouped,
  peekUsage,
  quotaExceeded,
  rateLimitHeaders,
  recordRefusal,
  type Usage,
} from '../keys/usage.ts'
import { dataReasons } from './data-check.ts'
import { reviewedDots } from '../reviews/reviews.ts'
import { toCarrierJson } from './json.ts'
import type { DataView } from '../db/datasets.ts'
import { answerOf, loadRecordAnswer, type RecordAnswer, type RecordAnswerReader } from './answer.ts'
import {
  crosscheckInputOf,
  getCompanyRecord,
  loadCompanyRecord,
  type CompanyRecord,
  type RecordDataReader,
  type RecordDeps,
} from './record.ts'
import type { CarrierJson } from './schema.ts'

/** The record for a USDOT in the caller's view (sandbox keys read the sample), or null. */
export function findRecord(deps: Deps, caller: Caller, dot: number): CompanyRecord | null {
  return recordReader(deps, caller)(dot)
}

/**
 * `findRecord` for a request that can wait: where the record is not cached, its dataset part is
 * assembled by a record worker thread (record-workers.ts) when the server runs them.
 */
export async function loadRecord(
  deps: Deps,
  caller: Caller,
  dot: number,
): Promise<CompanyRecord | null> {
  return recordLoaders(deps, caller).record(dot)
}

/** How a request reads records, every one at the same instant (`recordLoaders`, `batchLoaders`). */
export interface RecordLoaders {
  /** the caller's view at that instant (the files every record is read from) */
  readonly view: DataView
  /** the record as an object (an item named by MC number, or cross-checked) */
  readonly record: (dot: number) => Promise<CompanyRecord | null>
  /** the record's answer text (every other item), with its bond block's when `bond` */
  readonly answer: (dot: number, bond?: boolean) => Promise<RecordAnswer | null>
}

/**
 * The readers of one request (a single lookup, or the holders of one docket), sharing one
 * instant: the clock, the caller's view, the freshness verdict and the reviewed companies.
 */
export function recordLoaders(deps: Deps, caller: Caller): RecordLoaders {
  return loaders(deps, caller, false)
}

/**
 * The readers of a batch, sharing one instant (the clock, the caller's view, the freshness
 * verdict, the reviewed companies), records not cached read by the record workers (in that view)
 * when the server runs them, so a batch of companies never read before does not hold the main
 * thread and its record reads fill the workers' page caches, not the main thread's (an item named
 * by docket still looks up the docket's holders on the main thread). `record` gives the
 * record as `loadRecord` does. `answer` gives a record's answer text: one not cached is assembled
 * whole by a record worker, reviews and Trust Score included (answer.ts `loadRecordAnswer`), so
 * the main thread neither parses, scores nor serialises it again; the worker reads the reviews of
 * a company only when it is on the batch's list of reviewed companies, as the main thread does.
 */
export function batchLoaders(deps: Deps, caller: Caller): RecordLoaders {
  // a single lookup waiting for a record worker goes before the batch's records
  return loaders(deps, caller, true)
}

const answerOrNull = (r: CompanyRecord | null, bond = false) => r && answerOf(r, bond)

function loaders(deps: Deps, caller: Caller, batch: boolean): RecordLoaders {
  const { view, recordDeps } = readContext(deps, caller)
  recordDeps.reviewed = reviewedDots(deps.db)
  if (batch) recordDeps.batch = true
  const pool = deps.recordWorkers
  if (!pool) {
    const record = (dot: number) => getCompanyRecord(recordDeps, view, dot)
    return {
      view,
      record: (dot) => Promise.resolve(record(dot)),
      answer: (dot, bond) => Promise.resolve(answerOrNull(record(dot), bond)),
    }
  }
  // the pool is typed in deps.ts, below the record's layer: it reads what recordData returns
  const read = pool.read.bind(pool) as RecordDataReader
  const answer = pool.answer.bind(pool) as RecordAnswerReader
  return {
    view,
    record: (dot) => loadCompanyRecord(recordDeps, view, dot, read),
    answer: (dot, bond) => loadRecordAnswer(recordDeps, view, dot, read, answer, bond),
  }
}

/**
 * `loadRecord` as the answer text of a single lookup without cross-check (answer.ts
 * `loadRecordAnswer`): a record not cached is assembled whole by a record worker and never
 * parsed on the main thread, which adds only the meta block (json.ts `answerText`).
 */
export async function loadAnswer(
  deps: Deps,
  caller: Caller,
  dot: number,
): Promise<RecordAnswer | null> {
  const pool = deps.recordWorkers
  if (!pool) return answerOrNull(await loadRecord(deps, caller, dot))
  const { view, recordDeps } = readContext(deps, caller)
  // the pool is typed in deps.ts, below the record's layer
  const read = pool.read.bind(pool) as RecordDataReader
  const answer = pool.answer.bind(pool) as RecordAnswerReader
  return loadRecordAnswer(recordDeps, view, dot, read, answer)
}

/**
 * Reads many records at one instant (a batch): the clock, the caller's view, whether its data
 * can be vouched for (data-check.ts) and which companies have reviews are read once, not once
 * per record.
 */
export function recordReader(deps: Deps, caller: Caller): (dot: number) => CompanyRecord | null {
  const { view, recordDeps } = readContext(deps, caller)
  recordDeps.reviewed = reviewedDots(deps.db)
  return (dot) => getCompanyRecord(recordDeps, view, dot)
}

/** The caller's view and what reading its records at this instant needs. */
function readContext(deps: Deps, caller: Caller): { view: DataView; recordDeps: RecordDeps } {
  const now = deps.clock()
  const view = deps.datasets.view(caller.mode)
  const recordDeps: RecordDeps = {
    db: deps.db,
    today: isoDate(now),
    now: now.getTime(),
    maxAgeHours: deps.config.sync.maxAgeHours,
    nationalAverages: deps.config.safety.nationalAverages,
    cacheEntries: deps.config.records.cacheEntries,
  }
  recordDeps.dataReasons = dataReasons(recordDeps, view)
  return { view, recordDeps }
}

/**
 * A capped plan refused a call: counts the refusal in /metrics and returns the 429 to throw
 * (or whose message to answer in a batch slot).
 */
export function refuseCall(
  deps: Pick<Deps, 'metrics' | 'db'>,
  caller: Caller,
  usage: Usage,
  at: Date,
): AppError {
  deps.metrics.quotaRefusals.inc()
  const used = recordRefusal(deps.db, caller, at)
  return quotaExceeded({ ...usage, used, remaining: Math.max(0, usage.limit - used) }, at)
}

/**
 * Charges one call (or `n` at once, all or none: a batch whose items all fit) and counts it in
 * /metrics: `billedLookups` when it is billed, `quotaRefusals` when a capped plan refuses it (then
 * `allowed` is false and nothing is charged). Every billed route goes through here (carrier,
 * broker, bond, search and each batch item).
 */
export function meterCall(deps: Deps, caller: Caller, at: Date = deps.clock(), n = 1): Usage {
  return counted(deps, meter(deps, caller, n, at), n)
}

/** Counts a metered call in /metrics: billed, or refused at a capped plan's quota. */
function counted(deps: Pick<Deps, 'metrics'>, usage: Usage, n: number): Usage {
  if (!usage.allowed) deps.metrics.quotaRefusals.inc()
  else if (usage.billed) deps.metrics.billedLookups.inc(n)
  return usage
}

/**
 * `meterCall` for a single-call route: a refusal is thrown as 429 quota_exceeded. Synchronous,
 * for a caller that meters inside its own transaction (a stored check); a lookup uses
 * `chargeGrouped`.
 */
export function chargeCall(deps: Deps, caller: Caller, at: Date = deps.clock()): Usage {
  return charged(meterCall(deps, caller, at), at)
}

/** A single call's usage, or its refusal thrown as 429 quota_exceeded. */
function charged(usage: Usage, at: Date): Usage {
  if (!usage.allowed) throw quotaExceeded(usage, at)
  return usage
}

/**
 * `chargeCall` with group commit (usage.ts `meterGrouped`): the lookups answered in one turn of
 * the event loop are metered in one transaction, as exactly as one by one.
 */
export async function chargeGrouped(
  deps: Deps,
  caller: Caller,
  at: Date = deps.clock(),
): Promise<Usage> {
  return charged(counted(deps, await meterGrouped(deps, caller, 1, at), 1), at)
}

export interface LookupResult {
  json: CarrierJson
  usage: Usage
}

/**
 * Bills one lookup for a found record and returns its JSON (with the cross-check when asked).
 * Throws 429 when a capped plan is out of quota.
 */
export async function billAndShape(
  deps: Deps,
  caller: Caller,
  record: CompanyRecord,
  requestId: string,
  crosscheck: boolean | undefined,
): Promise<LookupResult> {
  const usage = await chargeGrouped(deps, caller)
  return { json: await shapeMetered(deps, record, usage, requestId, crosscheck), usage }
}

/** A 404 for an unbilled miss, still carrying the caller's RateLimit headers. */
export function notFoundWithUsage(deps: Deps, caller: Caller, message: string): AppError {
  const at = deps.clock()
  return new AppError('not_found', message, {
    headers: rateLimitHeaders(peekUsage(deps.db, caller, at), at),
  })
}

/** The JSON of a record whose call is already metered (batch items): cross-check, then shape. */
export async function shapeMetered(
  deps: Deps,
  record: CompanyRecord,
  usage: Usage,
  requestId: string,
  crosscheck: boolean | undefined,
): Promise<CarrierJson> {
  const check = await maybeCrosscheck(deps, () => crosscheckInputOf(record), crosscheck)
  if (check) deps.metrics.crosschecks.inc({ status: check.status, reason: check.reason ?? 'none' })
  const source = check?.status === 'match' || check?.status === 'mismatch' ? 'live' : record.source
  return toCarrierJson(record, { usage, requestId, source }, check)
}

export function notFoundForDot(dot: number): AppError {
  return new AppError('not_found', `No company found for USDOT number ${dot}`)
}
