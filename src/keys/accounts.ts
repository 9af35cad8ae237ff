import { cached, type Sqlite } from '../db/open.ts'
import { AppError } from '../errors.ts'
import { PLANS, type PlanName } from './plans.ts'

export type Interval = 'none' | 'monthly' | 'yearly'
export type SubscriptionStatus = 'active' | 'canceled' | 'past_due' | 'none'

export interface Subscription {
  id: number
  plan: PlanName
  interval: Interval
  status: SubscriptionStatus
  periodStart: number
  periodEnd: number | null
  includedOverride: number | null
  overageMillsOverride: number | null
  canceledAt: number | null
}

export interface Account {
  id: number
  name: string
  email: string | null
  suspendedAt: number | null
  suspendedReason: string | null
  createdAt: number
  subscription: Subscription | null
}

const SUB_COLS = `id, plan, interval, status, period_start AS periodStart, period_end AS periodEnd,
  included_override AS includedOverride, overage_mills_override AS overageMillsOverride, canceled_at AS canceledAt`

/** Adds one billing interval to a timestamp (calendar months in UTC). */
export function addInterval(at: number, interval: Interval): number | null {
  if (interval === 'none') return null
  const d = new Date(at)
  const months = interval === 'monthly' ? 1 : 12
  return Date.UTC(
    d.getUTCFullYear(),
    d.getUTCMonth() + months,
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
  )
}

/**
 * Whether a subscription grants access now. Active subscriptions renew at period end (the
 * appliance has no payment processor: renewal is assumed until cancelled). A cancelled one keeps
 * access to the end of the paid period; past_due and none do not.
 */
export function hasAccess(sub: Subscription | null, now: number): boolean {
  if (!sub) return false
  if (sub.status === 'active') return true
  if (sub.status === 'canceled') return sub.periodEnd !== null && now < sub.periodEnd
  return false
}

export interface CreateAccountInput {
  name: string
  email?: string | null
  plan: PlanName
  interval?: Interval
  included?: number | null
  overageMills?: number | null
}

function normalizeInterval(plan: PlanName, interval: Interval | undefined): Interval {
  if (plan === 'free') {
    if (interval && interval !== 'none')
      throw new AppError('invalid_request', 'the free plan has no billing interval')
    return 'none'
  }
  return interval && interval !== 'none' ? interval : 'monthly'
}

/** Creates an account with an active subscription, atomically. */
export function createAccount(db: Sqlite, input: CreateAccountInput, now: number): Account {
  const interval = normalizeInterval(input.plan, input.interval)
  const id = db
    .transaction(() => {
      const accountId = Number(
        db
          .prepare('INSERT INTO accounts (name, email, created_at) VALUES (?, ?, ?)')
          .run(input.name, input.email ?? null, now).lastInsertRowid,
      )
      insertSubscription(
        db,
        accountId,
        input.plan,
        interval,
        now,
        input.included ?? null,
        input.overageMills ?? null,
      )
      return accountId
    })
    .immediate()
  return mustGetAccount(db, id)
}

function insertSubscription(
  db: Sqlite,
  accountId: number,
  plan: PlanName,
  interval: Interval,
  now: number,
  included: number | null,
  overageMills: number | null,
): void {
  db.prepare(
    `INSERT INTO subscriptions (account_id, plan, interval, status, period_start, period_end,
       included_override, overage_mills_override, created_at)
     VALUES (?, ?, ?, 'active', ?, ?, ?, ?, ?)`,
  ).run(accountId, plan, interval, now, addInterval(now, interval), included, overageMills, now)
}

export function currentSubscription(db: Sqlite, accountId: number): Subscription | null {
  return (
    (cached(
      db,
      `SELECT ${SUB_COLS} FROM subscriptions WHERE account_id = ? AND ended_at IS NULL ORDER BY id DESC LIMIT 1`,
    ).get(accountId) as Subscription | undefined) ?? null
  )
}

export function getAccount(db: Sqlite, id: number): Account | null {
  const row = cached(
    db,
    `SELECT id, name, email, suspended_at AS suspendedAt, suspended_reason AS suspendedReason,
       created_at AS createdAt FROM accounts WHERE id = ?`,
  ).get(id) as Omit<Account, 'subscription'> | undefined
  if (!row) return null
  return { ...row, subscription: currentSubscription(db, id) }
}

export function mustGetAccount(db: Sqlite, id: number): Account {
  const a = getAccount(db, id)
  if (!a) throw new AppError('not_found', `No account with id ${id}`)
  return a
}

export function listAccounts(db: Sqlite): Account[] {
  const ids = db.prepare('SELECT id FROM accounts ORDER BY id').all() as { id: number }[]
  return ids.map((r) => mustGetAccount(db, r.id))
}

/**
 * Moves an account to another plan: the current subscription ends and a new one starts now, so
 * this month's usage is measured against the new plan from this call on.
 */
export function setPlan(
  db: Sqlite,
  id: number,
  plan: PlanName,
  interval: Interval | undefined,
  now: number,
  custom: { included?: number | null; overageMills?: number | null } = {},
): Account {
  mustGetAccount(db, id)
  const iv = normalizeInterval(plan, interval ?? currentSubscription(db, id)?.interval)
  db.transaction(() => {
    db.prepare(
      'UPDATE subscriptions SET ended_at = ? WHERE account_id = ? AND ended_at IS NULL',
    ).run(now, id)
    insertSubscription(db, id, plan, iv, now, custom.included ?? null, custom.overageMills ?? null)
  }).immediate()
  return mustGetAccount(db, id)
}

/** Stops renewal: access continues to the end of the paid period (free: ends now). */
export function cancelSubscription(db: Sqlite, id: number, now: number): Account {
  const sub = mustGetAccount(db, id).subscription
  if (!sub || sub.status !== 'active')
    throw new AppError('conflict', 'The account has no active subscription to cancel')
  db.prepare(
    `UPDATE subscriptions SET status = 'canceled', canceled_at = ?, period_end = coalesce(period_end, ?) WHERE id = ?`,
  ).run(now, now, sub.id)
  return mustGetAccount(db, id)
}

/** Suspends an account: every data call answers 402 until it is resumed. */
export function suspendAccount(
  db: Sqlite,
  id: number,
  reason: string | null,
  now: number,
): Account {
  mustGetAccount(db, id)
  db.prepare('UPDATE accounts SET suspended_at = ?, suspended_reason = ? WHERE id = ?').run(
    now,
    reason,
    id,
  )
  return mustGetAccount(db, id)
}

export function resumeAccount(db: Sqlite, id: number): Account {
  mustGetAccount(db, id)
  db.prepare('UPDATE accounts SET suspended_at = NULL, suspended_reason = NULL WHERE id = ?').run(
    id,
  )
  return mustGetAccount(db, id)
}

/** Included lookups and overage price of a subscription (enterprise may override both). */
export function limitsOf(sub: Subscription) {
  const plan = PLANS[sub.plan]
  return {
    plan,
    included: sub.includedOverride ?? plan.included,
    overageMills: sub.overageMillsOverride ?? plan.overageMills,
    hardCap: plan.hardCap,
  }
}

const WEBHOOK_PLANS = Object.values(PLANS)
  .filter((p) => p.webhooks)
  .map((p) => `'${p.name}'`)
  .join(', ')

/** Not suspended, with a subscription in force on a plan with webhooks. */
const RECEIVES_WEBHOOKS_SQL = `
SELECT 1 FROM accounts a
  JOIN subscriptions s ON s.account_id = a.id AND s.ended_at IS NULL
WHERE a.id = ? AND a.suspended_at IS NULL
  AND s.plan IN (${WEBHOOK_PLANS})
  AND (s.status = 'active' OR (s.status = 'canceled' AND s.period_end > ?))
LIMIT 1`

/** Whether the account receives webhook deliveries at `now` (webhooks/dispatch.ts). */
export function receivesWebhooks(db: Sqlite, accountId: number, now: number): boolean {
  return cached(db, RECEIVES_WEBHOOKS_SQL).get(accountId, now) !== undefined
}

/** Whether an account with this id exists. */
export function accountExists(db: Sqlite, accountId: number): boolean {
  return cached(db, 'SELECT 1 FROM accounts WHERE id = ?').get(accountId) !== undefined
}
