/** The shared path of every billed record lookup: find, bill, cross-check, shape. */
import { isoDate } from '../clock.ts'
import { maybeCrosscheck } from '../crosscheck/crosscheck.ts'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Caller } from '../keys/keys.ts'
import { charge, meter, peekUsage, rateLimitHeaders, type Usage } from '../keys/usage.ts'
import { toCarrierJson } from './json.ts'
import { crosscheckInputOf, getCompanyRecord, type CompanyRecord } from './record.ts'
import type { CarrierJson } from './schema.ts'
import { z } from 'zod'

/** `dot` path parameter: 1–8 digits after trimming, not zero. */
export const DotParam = z
  .string()
  .trim()
  .min(1, { error: 'USDOT number is required', abort: true })
  .regex(/^\d+$/, { error: 'USDOT number must contain digits only', abort: true })
  .regex(/^\d{1,8}$/, { error: 'USDOT number must be at most 8 digits', abort: true })
  .transform(Number)
  .refine((n) => n > 0, 'USDOT number must not be 0')

/** `?crosscheck=true|false` */
export const CrosscheckQuery = z
  .enum(['true', 'false', '1', '0'], { message: 'crosscheck must be true or false' })
  .transform((v) => v === 'true' || v === '1')
  .optional()

/** The record for a USDOT in the caller's view (sandbox keys read the sample), or null. */
export function findRecord(deps: Deps, caller: Caller, dot: number): CompanyRecord | null {
  const now = deps.clock()
  return getCompanyRecord(
    {
      db: deps.db,
      today: isoDate(now),
      now: now.getTime(),
      maxAgeHours: deps.config.sync.maxAgeHours,
      nationalAverages: deps.config.safety.nationalAverages,
    },
    deps.datasets.view(caller.mode),
    dot,
  )
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
  const at = deps.clock()
  let usage: Usage
  try {
    usage = charge(deps, caller, 1, at)
  } catch (err) {
    if (err instanceof AppError && err.code === 'quota_exceeded') deps.metrics.quotaRefusals.inc()
    throw err
  }
  if (usage.billed) deps.metrics.billedLookups.inc()
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
  const check = await maybeCrosscheck(deps, crosscheckInputOf(record), crosscheck)
  if (check) deps.metrics.crosschecks.inc({ status: check.status, reason: check.reason ?? 'none' })
  const source = check?.status === 'match' || check?.status === 'mismatch' ? 'live' : record.source
  return toCarrierJson(record, { usage, requestId, source }, check)
}

/** Meters one batch item; null when the cap refuses it. */
export function meterItem(deps: Deps, caller: Caller): Usage | null {
  const usage = meter(deps, caller, 1, deps.clock())
  if (!usage.allowed) {
    deps.metrics.quotaRefusals.inc()
    return null
  }
  if (usage.billed) deps.metrics.billedLookups.inc()
  return usage
}

export function notFoundForDot(dot: number): AppError {
  return new AppError('not_found', `No company found for USDOT number ${dot}`)
}

export { peekUsage }
