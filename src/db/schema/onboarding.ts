/** app.db tables: spreadsheet onboardings and their rows (onboarding/). */
import { sql } from 'drizzle-orm'
import { check, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { ts } from './columns.ts'

/**
 * Spreadsheet onboarding (onboarding/): one job per uploaded list of companies. `draft` is a
 * console upload shown for preview; `queued` and `running` are picked up by the onboarding job (at
 * most one of them per account); `done` and `failed` are final.
 */
export const onboardings = sqliteTable(
  'onboardings',
  {
    id: text().primaryKey(),
    accountId: integer().notNull(),
    /** the API key that started it; null when started from the console */
    apiKeyId: integer(),
    /** live | test: which data the checks read and whether they are billed */
    mode: text().notNull(),
    status: text().notNull(),
    /** the uploaded file's name, or null for a JSON request */
    fileName: text(),
    /** the accepted rows */
    rows: integer().notNull(),
    /** JSON array of the rows that could not be read: {row, input, reason} */
    rejected: text().notNull(),
    /** why a failed onboarding stopped (quota, account suspended) */
    error: text(),
    createdBy: text(),
    createdAt: ts().notNull(),
    startedAt: ts(),
    finishedAt: ts(),
  },
  (t) => [
    index('onboardings_account').on(t.accountId, t.createdAt),
    index('onboardings_status').on(t.status),
    check(
      'onboardings_status_check',
      sql`${t.status} IN ('draft','queued','running','done','failed')`,
    ),
    check('onboardings_mode', sql`${t.mode} IN ('live','test')`),
  ],
)

/** One company of an onboarding, with its outcome once processed. */
export const onboardingRows = sqliteTable(
  'onboarding_rows',
  {
    onboardingId: text().notNull(),
    /** the row number in the file (1 = the first data row) or the index in the JSON list + 1 */
    row: integer().notNull(),
    /** dot | mc */
    kind: text().notNull(),
    /** the normalised identifier (USDOT digits, or the docket as given: MC-123456) */
    value: text().notNull(),
    reference: text(),
    /** pending | claimed (in flight) | checked | not_found | error */
    status: text().notNull(),
    /** when it was claimed (ms): a check stored after it belongs to this row after a crash */
    claimedAt: ts(),
    checkId: text(),
    verdict: text(),
    /** JSON array of the reasons of the rules that did not pass */
    reasons: text(),
    message: text(),
  },
  (t) => [
    primaryKey({ columns: [t.onboardingId, t.row] }),
    index('onboarding_rows_status').on(t.onboardingId, t.status),
    check('onboarding_rows_kind', sql`${t.kind} IN ('dot','mc')`),
    check(
      'onboarding_rows_status_check',
      sql`${t.status} IN ('pending','claimed','checked','not_found','error')`,
    ),
  ],
)
