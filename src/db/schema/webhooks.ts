/** app.db tables: webhook endpoints, the event outbox, deliveries and the watchlist (webhooks/). */
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
import { accounts } from './keys.ts'
import { ts } from './columns.ts'

export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: integer().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    url: text().notNull(),
    secret: text().notNull(),
    previousSecret: text(),
    previousSecretExpiresAt: ts(),
    /** JSON array of event types; null = all */
    events: text(),
    status: text().notNull(),
    disabledReason: text(),
    consecutiveFailures: integer().notNull().default(0),
    createdAt: ts().notNull(),
    disabledAt: ts(),
    removedAt: ts(),
  },
  (t) => [
    index('webhook_endpoints_account').on(t.accountId),
    check('webhook_endpoints_status', sql`${t.status} IN ('enabled','disabled')`),
  ],
)

/** The outbox: one row per event, written in the same transaction as its cause. */
export const webhookEvents = sqliteTable(
  'webhook_events',
  {
    id: text().primaryKey(),
    accountId: integer(),
    type: text().notNull(),
    /** JSON payload `data` */
    data: text().notNull(),
    createdAt: ts().notNull(),
    /** set once deliveries have been fanned out to the account's endpoints */
    dispatchedAt: ts(),
  },
  (t) => [index('webhook_events_pending').on(t.dispatchedAt)],
)

export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: integer().primaryKey(),
    eventId: text()
      .notNull()
      .references(() => webhookEvents.id),
    endpointId: integer()
      .notNull()
      .references(() => webhookEndpoints.id),
    status: text().notNull(),
    attempts: integer().notNull().default(0),
    nextAttemptAt: ts(),
    firstAttemptAt: ts(),
    lastAttemptAt: ts(),
    lastStatusCode: integer(),
    lastError: text(),
    createdAt: ts().notNull(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_once').on(t.eventId, t.endpointId),
    index('webhook_deliveries_due').on(t.status, t.nextAttemptAt),
    check(
      'webhook_deliveries_status',
      sql`${t.status} IN ('pending','delivering','succeeded','failed','abandoned')`,
    ),
  ],
)

export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: integer().primaryKey(),
    deliveryId: integer()
      .notNull()
      .references(() => webhookDeliveries.id),
    attemptedAt: ts().notNull(),
    statusCode: integer(),
    error: text(),
    durationMs: integer(),
  },
  (t) => [index('webhook_attempts_delivery').on(t.deliveryId)],
)

export const watchlist = sqliteTable(
  'watchlist',
  {
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    dotNumber: integer().notNull(),
    note: text(),
    createdAt: ts().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.dotNumber] }),
    index('watchlist_dot').on(t.dotNumber),
  ],
)

/** Snapshot of watched facts per USDOT at the last comparison, to diff against the next version. */
export const watchSnapshots = sqliteTable('watch_snapshots', {
  dotNumber: integer().primaryKey(),
  /** JSON of the watched fields */
  facts: text().notNull(),
  versionKey: text().notNull(),
  updatedAt: ts().notNull(),
})
