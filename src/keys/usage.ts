import { isoDate, nextPeriodStart, periodOf } from '../clock.ts'
import type Database from 'better-sqlite3'
import { cached, type Sqlite } from '../db/open.ts'
import type { Logger } from '../log.ts'
import { enqueueEvent } from '../db/outbox.ts'
import { currentSubscription, limitsOf, listAccounts } from './accounts.ts'
import type { Caller } from './keys.ts'

export interface Usage {
  allowed: boolean
  billed: boolean
  plan: string
  used: number
  limit: number
  remaining: number
  /** Unix seconds of 00:00 UTC on the 1st of next month */
  resetAt: number
}

const METER_SQL = `
INSERT INTO usage_counters (account_id, period, used, updated_at)
  SELECT @accountId, @period, @n, @now WHERE @hardCap = 0 OR @n <= @included
ON CONFLICT (account_id, period) DO UPDATE SET used = used + excluded.used, updated_at = excluded.updated_at
  WHERE @hardCap = 0 OR used + excluded.used <= @included
RETURNING used`

const ALERT_SQL = `
INSERT INTO quota_alerts (account_id, period, kind, used, quota_limit, created_at)
  VALUES (@accountId, @period, @kind, @used, @included, @now)
ON CONFLICT (account_id, period, kind) DO NOTHING
RETURNING id`

const REFUSED_SQL = `
INSERT INTO usage_counters (account_id, period, used, refused, updated_at) VALUES (@accountId, @period, 0, 1, @now)
ON CONFLICT (account_id, period) DO UPDATE SET refused = refused + 1, updated_at = excluded.updated_at
RETURNING used`

const CURRENT_SQL = 'SELECT used FROM usage_counters WHERE account_id = ? AND period = ?'

/** The same billed calls per UTC day (the console's daily chart). */
const DAILY_SQL = `
INSERT INTO usage_daily (account_id, day, used) VALUES (@accountId, @day, @n)
ON CONFLICT (account_id, day) DO UPDATE SET used = used + excluded.used`

/** One wrapper per connection: db.transaction() builds its four variants on every call. */
const meterTxs = new WeakMap<Sqlite, Database.Transaction<typeof meterGroup>>()

/** The statements of metering, each prepared once per connection (db/open.ts `cached`). */
const stmts = (db: Sqlite) => ({
  get meter() {
    return cached(db, METER_SQL)
  },
  get alert() {
    return cached(db, ALERT_SQL)
  },
  get refused() {
    return cached(db, REFUSED_SQL)
  },
  get current() {
    return cached(db, CURRENT_SQL)
  },
  get daily() {
    return cached(db, DAILY_SQL)
  },
  get meterTx() {
    let tx = meterTxs.get(db)
    if (!tx) meterTxs.set(db, (tx = db.transaction(meterGroup)))
    return tx
  },
})

type UsageBase = Pick<Usage, 'plan' | 'limit' | 'resetAt'>
/** A Usage from the month's used count. */
const usageOf = (base: UsageBase, used: number, allowed: boolean, billed: boolean): Usage => ({
  ...base,
  allowed,
  billed,
  used,
  remaining: Math.max(0, base.limit - used),
})

export interface MeterDeps {
  db: Sqlite
  log: Logger
}

/**
 * Counts `n` billed lookups for the caller's account in the current UTC month with one atomic,
 * conditional UPSERT: a hard-capped plan never passes its cap, whatever the concurrency, and in
 * the same transaction the 80% alert (and Free's exhausted alert) is recorded once per month.
 * Sandbox keys are never billed.
 */
export function meter(deps: MeterDeps, caller: Caller, n: number, at: Date): Usage {
  const s = stmts(deps.db)
  if (caller.mode === 'test') return sandboxUsage(s, caller, at)
  return s.meterTx.immediate([{ deps, caller, n, at }])[0] as Usage
}

/** A metered call: whom to bill, how many calls, at what instant. */
interface MeterCall {
  deps: MeterDeps
  caller: Caller
  n: number
  at: Date
}

const baseOf = ({ caller, at }: Pick<MeterCall, 'caller' | 'at'>): UsageBase => ({
  plan: caller.plan,
  limit: caller.included,
  resetAt: Math.floor(nextPeriodStart(at).getTime() / 1000),
})

const paramsOf = ({ caller, n, at }: MeterCall): MeterParams => ({
  accountId: caller.accountId,
  period: periodOf(at),
  n,
  now: at.getTime(),
  hardCap: caller.hardCap ? 1 : 0,
  included: caller.included,
})

/** A sandbox key's usage: the month's count, never billed. */
function sandboxUsage(s: ReturnType<typeof stmts>, caller: Caller, at: Date): Usage {
  const used =
    (s.current.get(caller.accountId, periodOf(at)) as { used: number } | undefined)?.used ?? 0
  return usageOf(baseOf({ caller, at }), used, true, false)
}

/** Calls waiting for their connection's next group commit, with how each is answered. */
interface Waiting extends MeterCall {
  resolve: (u: Usage) => void
  reject: (err: unknown) => void
}
const waiting = new WeakMap<Sqlite, Waiting[]>()
/** When each connection's last group was committed (performance.now() ms). */
const lastCommit = new WeakMap<Sqlite, number>()

/**
 * A group is committed in the turn of the event loop its first call came in, unless the previous
 * group was committed less than BUSY_MS before and the caller says other calls are on their way
 * (`busy`: records still being assembled for other lookups): the server is then answering a
 * stream of lookups, and the group gathers for GATHER_MS more, so a transaction's fixed cost is
 * paid by more calls. A lone call is committed at once. When nothing is owed (every lookup
 * answered from the record cache) nothing would arrive to gather but the next requests, so the
 * group commits in its turn.
 */
const BUSY_MS = 2
const GATHER_MS = 1

/**
 * `meter()` with group commit: the calls made on one connection in the same turn of the event
 * loop (the lookups answered in one poll of the sockets and the record workers), or while the
 * server is busy within GATHER_MS, are metered in one IMMEDIATE transaction, each by its own
 * conditional UPSERT in the order they came, so a hard-capped plan still never passes its cap,
 * across processes too. A transaction's fixed cost (BEGIN, COMMIT and its WAL write) is paid
 * once per group instead of once per call (README, Decisions). The call resolves once its group is committed; if the commit fails, every call
 * of the group fails with its error and none of them is counted (a lookup then answers 503
 * storage_unavailable, as a lone call's failure does).
 */
export function meterGrouped(
  deps: MeterDeps,
  caller: Caller,
  n: number,
  at: Date,
  busy = true,
): Promise<Usage> {
  if (caller.mode === 'test') return Promise.resolve(sandboxUsage(stmts(deps.db), caller, at))
  let queue = waiting.get(deps.db)
  if (!queue) waiting.set(deps.db, (queue = []))
  const group = queue
  return new Promise((resolve, reject) => {
    group.push({ deps, caller, n, at, resolve, reject })
    if (group.length > 1) return
    if (busy && performance.now() - (lastCommit.get(deps.db) ?? -Infinity) < BUSY_MS)
      setTimeout(commitGroup, GATHER_MS, deps.db, group)
    else setImmediate(commitGroup, deps.db, group)
  })
}

/** Meters every call waiting on a connection in one transaction and answers each. */
function commitGroup(db: Sqlite, queue: Waiting[]): void {
  const calls = queue.splice(0)
  let usages: Usage[]
  try {
    usages = stmts(db).meterTx.immediate(calls)
  } catch (err) {
    for (const c of calls) c.reject(err)
    return
  } finally {
    lastCommit.set(db, performance.now())
  }
  calls.forEach((c, i) => c.resolve(usages[i] as Usage))
}

/**
 * The transaction body of `meter()` (a group of one) and `commitGroup()` (prepared once per
 * connection as `meterTx`). Accounts' counters are independent, so each account's calls are
 * metered together, in the order they came: with one conditional UPSERT for all of them when
 * they can be (`meterRun`), else each by its own.
 */
function meterGroup(calls: readonly MeterCall[]): Usage[] {
  if (calls.length === 1) return [meterOne(calls[0] as MeterCall)]
  const byAccount = new Map<number, number[]>()
  calls.forEach((c, i) => {
    const indexes = byAccount.get(c.caller.accountId)
    if (indexes) indexes.push(i)
    else byAccount.set(c.caller.accountId, [i])
  })
  const usages: Usage[] = new Array<Usage>(calls.length)
  for (const indexes of byAccount.values()) {
    const run = indexes.map((i) => calls[i] as MeterCall)
    meterRun(run).forEach((u, j) => (usages[indexes[j] as number] = u))
  }
  return usages
}

/** One call by its own conditional UPSERT. */
const meterOne = (c: MeterCall): Usage =>
  meterInTransaction(c.deps, c.caller, paramsOf(c), baseOf(c), c.at)

/**
 * One account's calls of a group, in their order, as exactly as one by one but with one UPSERT
 * of the month's counter and one of the day's for all of them: the counter after each call is
 * the count before the run plus the calls up to it, and the 80 % alert is the first call's that
 * reached it. When the calls differ in day, cap or quota (a plan changed within the turn), or a
 * hard cap refuses the whole run, each call is metered by its own UPSERT against the cap.
 */
function meterRun(run: readonly MeterCall[]): Usage[] {
  const first = run[0] as MeterCall
  const last = run[run.length - 1] as MeterCall
  const day = isoDate(first.at)
  const uniform = run.every(
    (c) =>
      c.caller.hardCap === first.caller.hardCap &&
      c.caller.included === first.caller.included &&
      isoDate(c.at) === day,
  )
  if (run.length === 1 || !uniform) return run.map(meterOne)
  const s = stmts(first.deps.db)
  const n = run.reduce((sum, c) => sum + c.n, 0)
  const params = paramsOf({ ...last, n })
  const row = s.meter.get(params) as { used: number } | undefined
  if (!row) return run.map(meterOne)
  s.daily.run({ accountId: first.caller.accountId, day, n })
  let used = row.used - n
  const usages = run.map((c) => usageOf(baseOf(c), (used += c.n), true, true))
  const crossing = usages.findIndex((u) => reached80(u.used, first.caller.included))
  if (crossing >= 0) {
    const c = run[crossing] as MeterCall
    alertOnce(c.deps, c.caller, paramsOf(c), 'threshold_80', (usages[crossing] as Usage).used)
  }
  return usages
}

type MeterParams = {
  accountId: number
  period: string
  n: number
  now: number
  hardCap: number
  included: number
}

/** One call of `meterGroup`'s transaction. */
function meterInTransaction(
  deps: MeterDeps,
  caller: Caller,
  params: MeterParams,
  base: UsageBase,
  at: Date,
): Usage {
  const s = stmts(deps.db)
  const row = s.meter.get(params) as { used: number } | undefined
  if (!row) {
    const used = (s.refused.get(params) as { used: number }).used
    alertOnce(deps, caller, params, 'exhausted', used)
    return usageOf(base, used, false, false)
  }
  s.daily.run({ accountId: caller.accountId, day: isoDate(at), n: params.n })
  const used = row.used
  if (reached80(used, caller.included)) alertOnce(deps, caller, params, 'threshold_80', used)
  return usageOf(base, used, true, true)
}

/** Whether a month's count has reached 80 % of the plan's included calls. */
const reached80 = (used: number, included: number) => used * 5 >= included * 4

/**
 * Records a quota alert once per account, month and kind (at the count `used`); the first time,
 * logs it and sends its webhook event.
 */
function alertOnce(
  deps: MeterDeps,
  caller: Caller,
  params: MeterParams,
  kind: 'threshold_80' | 'exhausted',
  used: number,
): void {
  const fired = stmts(deps.db).alert.get({ ...params, kind, used }) as { id: number } | undefined
  if (fired)
    onAlert(
      deps,
      caller,
      kind === 'exhausted' ? 'quota.exhausted' : 'quota.threshold_reached',
      params.period,
      used,
      params.now,
    )
}

function onAlert(
  deps: MeterDeps,
  caller: Caller,
  type: 'quota.threshold_reached' | 'quota.exhausted',
  period: string,
  used: number,
  now: number,
) {
  deps.log.warn(
    {
      account_id: caller.accountId,
      plan: caller.plan,
      period,
      used,
      quota_limit: caller.included,
      alert: type,
    },
    'quota alert',
  )
  // into the outbox: the webhooks' dispatcher fans it out to the account's enabled endpoints that
  // existed at that moment, if any (webhooks/dispatch.ts), so usage never reads their table
  enqueueEvent(
    deps.db,
    {
      accountId: caller.accountId,
      type,
      data: {
        account_id: caller.accountId,
        plan: caller.plan,
        period,
        quota_used: used,
        quota_limit: caller.included,
        threshold: type === 'quota.threshold_reached' ? 0.8 : 1,
      },
    },
    now,
  )
}

/**
 * Counts one refused call (a whole request refused at a hard cap before anything was metered, or
 * a key of an account without a plan or suspended) in `usage_counters.refused`, as meter() does
 * for a refused lookup; returns the month's used count.
 */
export function recordRefusal(db: Sqlite, accountId: number, at: Date): number {
  const row = stmts(db).refused.get({
    accountId,
    period: periodOf(at),
    now: at.getTime(),
  }) as { used: number }
  return row.used
}

/** Current usage without billing anything (for meta on unbilled answers and the console). */
export function peekUsage(db: Sqlite, caller: Caller, at: Date): Usage {
  const used =
    (stmts(db).current.get(caller.accountId, periodOf(at)) as { used: number } | undefined)?.used ??
    0
  const resetAt = Math.floor(nextPeriodStart(at).getTime() / 1000)
  return usageOf({ plan: caller.plan, limit: caller.included, resetAt }, used, true, false)
}

export interface UsageReportRow {
  account_id: number
  account_name: string
  period: string
  plan: string | null
  included: number | null
  used: number
  overage_calls: number
  overage_charge_usd: number
  refused_calls: number
  alerts: { kind: string; at: string; used: number }[]
}

/** Usage per account for one month: included, used, overage calls and their price, refusals, alerts. */
export function usageReport(db: Sqlite, period: string, accountId?: number): UsageReportRow[] {
  const accounts = listAccounts(db).filter((a) => accountId === undefined || a.id === accountId)
  return accounts.map((a) => {
    const row = db
      .prepare('SELECT used, refused FROM usage_counters WHERE account_id = ? AND period = ?')
      .get(a.id, period) as { used: number; refused: number } | undefined
    const sub = a.subscription ?? currentSubscription(db, a.id)
    const limits = sub ? limitsOf(sub) : null
    const used = row?.used ?? 0
    const overage = limits && !limits.hardCap ? Math.max(0, used - limits.included) : 0
    const alerts = db
      .prepare(
        'SELECT kind, created_at AS at, used FROM quota_alerts WHERE account_id = ? AND period = ? ORDER BY id',
      )
      .all(a.id, period) as { kind: string; at: number; used: number }[]
    return {
      account_id: a.id,
      account_name: a.name,
      period,
      plan: sub?.plan ?? null,
      included: limits?.included ?? null,
      used,
      overage_calls: overage,
      overage_charge_usd: limits ? (overage * limits.overageMills) / 1000 : 0,
      refused_calls: row?.refused ?? 0,
      alerts: alerts.map((x) => ({ kind: x.kind, at: new Date(x.at).toISOString(), used: x.used })),
    }
  })
}

/** Billed calls per UTC day of one month (days without calls are absent). */
export function dailyUsage(
  db: Sqlite,
  accountId: number,
  period: string,
): { day: string; used: number }[] {
  return db
    .prepare(
      `SELECT day, used FROM usage_daily WHERE account_id = ? AND day >= ? AND day < ? ORDER BY day`,
    )
    .all(accountId, `${period}-01`, `${period}-32`) as { day: string; used: number }[]
}

/** The months (YYYY-MM, newest first) in which the account has a usage counter. */
export function usageMonths(db: Sqlite, accountId: number): string[] {
  return (
    db
      .prepare('SELECT period FROM usage_counters WHERE account_id = ? ORDER BY period DESC')
      .all(accountId) as { period: string }[]
  ).map((r) => r.period)
}
