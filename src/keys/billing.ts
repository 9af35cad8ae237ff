/**
 * Billing: the one place a call is charged, refused and counted. A billed call (a lookup, a
 * search page with results, each batch item, a stored check) is metered in app.db (usage.ts) and
 * counted in /metrics in the same step; a refused call (a capped plan's quota, an account with no
 * plan or a suspended one) is counted the same way in `usage_counters.refused` (the usage report
 * and the console read it) and in /metrics (`cvk_refused_calls_total` by reason). Also here: the
 * usage fields of an answer's meta block and the RateLimit headers.
 */
import { z } from 'zod'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Caller, KeyMode } from './keys.ts'
import { meter, meterGrouped, peekUsage, recordRefusal, type Usage } from './usage.ts'

/** What billing reads of the dependency bag. */
export type BillingDeps = Pick<Deps, 'db' | 'log' | 'metrics' | 'clock'>

/** Why a call was refused before it was answered. */
export type RefusalReason = 'quota' | 'plan' | 'suspended'

/** Counts a refused call in /metrics (its app.db count is written by the caller's step). */
function countRefusal(deps: Pick<Deps, 'metrics'>, reason: RefusalReason): void {
  deps.metrics.refusedCalls.inc({ reason })
  if (reason === 'quota') deps.metrics.quotaRefusals.inc()
}

/** Counts a metered call in /metrics: billed, or refused at a capped plan's quota. */
function counted(deps: Pick<Deps, 'metrics'>, usage: Usage, n: number): Usage {
  if (!usage.allowed) countRefusal(deps, 'quota')
  else if (usage.billed) deps.metrics.billedLookups.inc(n)
  return usage
}

/**
 * Charges one call (or `n` at once, all or none: a batch whose items all fit) and counts it:
 * billed, or refused when a capped plan is out of quota (then `allowed` is false and nothing is
 * charged). Every billed call goes through here or through `chargeGrouped`/`chargeWith`.
 */
export function meterCall(
  deps: BillingDeps,
  caller: Caller,
  at: Date = deps.clock(),
  n = 1,
): Usage {
  return counted(deps, meter(deps, caller, n, at), n)
}

/** A single call's usage, or its refusal thrown as 429 quota_exceeded. */
function charged(usage: Usage, at: Date): Usage {
  if (!usage.allowed) throw quotaExceeded(usage, at)
  return usage
}

/** `meterCall` for a single call: a refusal is thrown as 429 quota_exceeded. */
export function chargeCall(deps: BillingDeps, caller: Caller, at: Date = deps.clock()): Usage {
  return charged(meterCall(deps, caller, at), at)
}

/**
 * Charges one call and, when it is allowed, runs `store` in the same transaction (a stored
 * check: a call is never billed without what it paid for, nor stored unbilled). A refusal is
 * committed and counted like any other, then thrown as 429 quota_exceeded; when `store` throws,
 * nothing is charged or counted.
 */
export function chargeWith<T>(
  deps: BillingDeps,
  caller: Caller,
  store: (usage: Usage) => T,
  at: Date = deps.clock(),
): { usage: Usage; value: T } {
  const result = deps.db.transaction((): { usage: Usage; value?: T } => {
    const usage = meter(deps, caller, 1, at)
    return usage.allowed ? { usage, value: store(usage) } : { usage }
  })()
  counted(deps, result.usage, 1)
  if (!('value' in result)) throw quotaExceeded(result.usage, at)
  return result as { usage: Usage; value: T }
}

export interface GroupedCharge {
  at?: Date
  /**
   * whether other calls are on their way (records still being assembled for other lookups): the
   * group commit then waits a little for them (usage.ts `meterGrouped`)
   */
  busy?: boolean
}

/**
 * `chargeCall` with group commit (usage.ts `meterGrouped`): the lookups answered in one turn of
 * the event loop are metered in one transaction, as exactly as one by one.
 */
export async function chargeGrouped(
  deps: BillingDeps,
  caller: Caller,
  { at = deps.clock(), busy = true }: GroupedCharge = {},
): Promise<Usage> {
  return charged(counted(deps, await meterGrouped(deps, caller, 1, at, busy), 1), at)
}

/**
 * A capped plan refused a whole request before anything was metered (a batch): counts the
 * refusal and returns the 429 to throw.
 */
export function refuseCall(deps: BillingDeps, caller: Caller, usage: Usage, at: Date): AppError {
  countRefusal(deps, 'quota')
  const used = recordRefusal(deps.db, caller.accountId, at)
  return quotaExceeded({ ...usage, used, remaining: Math.max(0, usage.limit - used) }, at)
}

/**
 * An account's key was refused before the call was answered: the account has no plan (no active
 * subscription) or is suspended. A live key's refusal is counted as a quota refusal is; a sandbox
 * key's calls are never billed, so neither are its refusals counted.
 */
export function refuseAccount(
  deps: BillingDeps,
  who: { accountId: number; mode: KeyMode },
  reason: Exclude<RefusalReason, 'quota'>,
): AppError {
  if (who.mode === 'live') {
    countRefusal(deps, reason)
    recordRefusal(deps.db, who.accountId, deps.clock())
  }
  return new AppError(
    'payment_required',
    reason === 'suspended'
      ? 'The account is suspended; contact your administrator'
      : 'The account has no active API subscription',
  )
}

/** The 429 of a capped plan whose quota is used up, with Retry-After and the RateLimit headers. */
export function quotaExceeded(usage: Usage, at: Date): AppError {
  const retryAfter = Math.max(1, usage.resetAt - Math.floor(at.getTime() / 1000))
  return new AppError(
    'quota_exceeded',
    `Monthly quota of ${usage.limit} lookups on the ${usage.plan} plan is used up; it resets on ${new Date(usage.resetAt * 1000).toISOString().slice(0, 10)} or upgrade the plan`,
    {
      headers: { 'retry-after': String(retryAfter), ...rateLimitHeaders(usage, at) },
      extra: { quota_used: usage.used, quota_limit: usage.limit, plan: usage.plan },
    },
  )
}

/** IETF RateLimit headers for the monthly quota. */
export function rateLimitHeaders(u: Usage, at: Date): Record<string, string> {
  return {
    'ratelimit-limit': String(u.limit),
    'ratelimit-remaining': String(u.remaining),
    'ratelimit-reset': String(Math.max(0, u.resetAt - Math.floor(at.getTime() / 1000))),
  }
}

/** A 404 for an unbilled miss, still carrying the caller's RateLimit headers. */
export function notFoundWithUsage(
  deps: Pick<Deps, 'db' | 'clock'>,
  caller: Caller,
  message: string,
): AppError {
  const at = deps.clock()
  return new AppError('not_found', message, {
    headers: rateLimitHeaders(peekUsage(deps.db, caller, at), at),
  })
}

/** The usage fields of an answer's meta block (schema in `UsageMetaShape`). */
export interface UsageMeta {
  quota_used: number | null
  quota_limit: number | null
  plan: string | null
  billed: boolean
}

/** The zod shape of `UsageMeta`'s fields, for the meta block's schema. */
export const UsageMetaShape = {
  quota_used: z.number().int().nullable(),
  quota_limit: z.number().int().nullable(),
  plan: z.string().nullable(),
  billed: z.boolean(),
}

/** What an answer's meta block says of its call's usage (null: a call with no key's usage). */
export const usageMeta = (usage: Usage | null): UsageMeta => ({
  quota_used: usage?.used ?? null,
  quota_limit: usage?.limit ?? null,
  plan: usage?.plan ?? null,
  billed: usage?.billed ?? false,
})
