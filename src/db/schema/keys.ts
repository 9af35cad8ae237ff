/** app.db tables: accounts, plans, API keys and their metering (keys/). */
import { sql } from 'drizzle-orm'
import {
  check,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core'
import { ts } from './columns.ts'

export const accounts = sqliteTable('accounts', {
  id: integer().primaryKey(),
  name: text().notNull(),
  email: text(),
  suspendedAt: ts(),
  suspendedReason: text(),
  createdAt: ts().notNull(),
})

export const subscriptions = sqliteTable(
  'subscriptions',
  {
    id: integer().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    plan: text().notNull(),
    interval: text().notNull(),
    status: text().notNull(),
    periodStart: ts().notNull(),
    /** null = no end (free plan) */
    periodEnd: ts(),
    /** enterprise: custom monthly included lookups and overage price */
    includedOverride: integer(),
    overageMillsOverride: integer(),
    createdAt: ts().notNull(),
    canceledAt: ts(),
    endedAt: ts(),
  },
  (t) => [
    index('subscriptions_account').on(t.accountId, t.endedAt),
    check(
      'subscriptions_plan',
      sql`${t.plan} IN ('free','starter','professional','scale','enterprise')`,
    ),
    check('subscriptions_interval', sql`${t.interval} IN ('none','monthly','yearly')`),
    check('subscriptions_status', sql`${t.status} IN ('active','canceled','past_due','none')`),
  ],
)

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: integer().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    mode: text().notNull(),
    hash: text().notNull(),
    start: text().notNull(),
    name: text(),
    createdAt: ts().notNull(),
    expiresAt: ts(),
    revokedAt: ts(),
    lastUsedAt: ts(),
    rotatedFromId: integer(),
    /** space-separated permissions beyond lookups: `override` (may override checks) */
    scopes: text().notNull().default(''),
  },
  (t) => [
    uniqueIndex('api_keys_hash').on(t.hash),
    index('api_keys_account').on(t.accountId),
    check('api_keys_mode', sql`${t.mode} IN ('live','test')`),
  ],
)

export const usageCounters = sqliteTable(
  'usage_counters',
  {
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    /** YYYY-MM (UTC) */
    period: text().notNull(),
    used: integer().notNull(),
    /** billed calls refused at the Free cap, for the usage report */
    refused: integer().notNull().default(0),
    updatedAt: ts(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.period] })],
)

export const quotaAlerts = sqliteTable(
  'quota_alerts',
  {
    id: integer().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    period: text().notNull(),
    kind: text().notNull(),
    used: integer().notNull(),
    quotaLimit: integer().notNull(),
    createdAt: ts().notNull(),
  },
  (t) => [
    uniqueIndex('quota_alerts_once').on(t.accountId, t.period, t.kind),
    check('quota_alerts_kind', sql`${t.kind} IN ('threshold_80','exhausted')`),
  ],
)

/** Billed calls per account and UTC day, for the console's daily chart (kept with usage_counters). */
export const usageDaily = sqliteTable(
  'usage_daily',
  {
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    /** YYYY-MM-DD (UTC) */
    day: text().notNull(),
    used: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day] })],
)
