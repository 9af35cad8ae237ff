/** app.db tables: identity and contact changes per carrier (identity/) and the blocked list (blocklist/). */
import { sql } from 'drizzle-orm'
import {
  check,
  index,
  integer,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core'
import { accounts } from './keys.ts'
import { ts } from './columns.ts'

/**
 * The history of every carrier's identity and contact fields (identity/history.ts): one row per
 * field change, new USDOT number (`field` = 'usdot_number', from null) or vanished one (to null),
 * first seen in the census version of `seen_at` (its data date). Kept outside the dataset
 * versions so it survives swaps, rollbacks and restarts; pruned after HISTORY_RETENTION_YEARS.
 */
export const identityChanges = sqliteTable(
  'identity_changes',
  {
    id: integer().primaryKey(),
    /** 'live' or 'sample' */
    channel: text().notNull(),
    dotNumber: integer().notNull(),
    field: text().notNull(),
    fromValue: text(),
    toValue: text(),
    /** YYYY-MM-DD: the data date of the census version that first showed it */
    seenAt: text().notNull(),
    comparisonId: integer().notNull(),
  },
  (t) => [
    index('identity_changes_dot').on(t.channel, t.dotNumber, t.seenAt, t.id),
    index('identity_changes_seen').on(t.seenAt),
  ],
)

/**
 * Each census comparison the history made (which version pair, with what result), and the
 * baseline (a first version, `from_version` null) from which the history runs.
 */
export const identityComparisons = sqliteTable(
  'identity_comparisons',
  {
    id: integer().primaryKey(),
    channel: text().notNull(),
    fromVersion: integer(),
    toVersion: integer().notNull(),
    fromAsOf: text(),
    toAsOf: text().notNull(),
    changed: integer().notNull(),
    added: integer().notNull(),
    removed: integer().notNull(),
    changes: integer().notNull(),
    seconds: real().notNull(),
    comparedAt: ts().notNull(),
  },
  (t) => [index('identity_comparisons_channel').on(t.channel, t.id)],
)

/** An account's own blocked identifiers (blocklist/), each with its reason and who added it. */
export const blocklistEntries = sqliteTable(
  'blocklist_entries',
  {
    id: integer().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    type: text().notNull(),
    /** normalised: USDOT digits, MC number digits, E.164 phone, lower-case e-mail, upper-case VIN */
    value: text().notNull(),
    reason: text().notNull(),
    createdAt: ts().notNull(),
    /** `key:<start>`, `user:<email>` or `cli` */
    createdBy: text().notNull(),
  },
  (t) => [
    uniqueIndex('blocklist_entries_account_value').on(t.accountId, t.type, t.value),
    index('blocklist_entries_value').on(t.type, t.value),
    check(
      'blocklist_entries_type',
      sql`${t.type} IN ('usdot','mc','phone','email','vin','officer','address')`,
    ),
  ],
)
