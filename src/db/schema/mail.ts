/** app.db tables: the e-mail queue, recipients and one-time contact codes (mail/). */
import { sql } from 'drizzle-orm'
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { accounts } from './keys.ts'
import { ts } from './columns.ts'

/** Who receives which kind of e-mail for an account (mail/recipients.ts). */
export const mailRecipients = sqliteTable(
  'mail_recipients',
  {
    id: integer().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    email: text().notNull(),
    /** quota | watchlist | verdicts */
    kind: text().notNull(),
    /** the List-Unsubscribe link's secret */
    unsubscribeToken: text().notNull(),
    createdAt: ts().notNull(),
    removedAt: ts(),
  },
  (t) => [
    index('mail_recipients_account').on(t.accountId, t.kind),
    uniqueIndex('mail_recipients_token').on(t.unsubscribeToken),
    check('mail_recipients_kind', sql`${t.kind} IN ('quota','watchlist','verdicts')`),
  ],
)

/** The e-mail queue: one row per message and recipient, sent by the mail:deliver job. */
export const mailMessages = sqliteTable(
  'mail_messages',
  {
    id: integer().primaryKey(),
    /** null: a contact code (sent to a company, not to an account's recipient) */
    accountId: integer(),
    recipientId: integer(),
    /** quota | watchlist | verdicts | contact_code | test */
    kind: text().notNull(),
    toAddress: text().notNull(),
    subject: text().notNull(),
    text: text().notNull(),
    html: text().notNull(),
    unsubscribeToken: text(),
    status: text().notNull(),
    attempts: integer().notNull().default(0),
    nextAttemptAt: ts(),
    firstAttemptAt: ts(),
    lastAttemptAt: ts(),
    lastError: text(),
    /** the server's answer to the last attempt (e.g. `250 2.0.0 OK`) */
    lastResponse: text(),
    /** past it the message is given up (a contact code's expiry) */
    expiresAt: ts(),
    createdAt: ts().notNull(),
  },
  (t) => [
    index('mail_messages_due').on(t.status, t.nextAttemptAt),
    index('mail_messages_account').on(t.accountId),
    check(
      'mail_messages_status',
      sql`${t.status} IN ('pending','sending','sent','failed','abandoned')`,
    ),
  ],
)

export const mailAttempts = sqliteTable(
  'mail_attempts',
  {
    id: integer().primaryKey(),
    messageId: integer()
      .notNull()
      .references(() => mailMessages.id),
    attemptedAt: ts().notNull(),
    error: text(),
    response: text(),
    durationMs: integer(),
  },
  (t) => [index('mail_attempts_message').on(t.messageId)],
)

/** Watchlist changes waiting for the account's next hourly digest. */
export const mailDigestItems = sqliteTable(
  'mail_digest_items',
  {
    id: integer().primaryKey(),
    accountId: integer().notNull(),
    /** the carrier.changed event's data (JSON) */
    data: text().notNull(),
    createdAt: ts().notNull(),
  },
  (t) => [index('mail_digest_items_account').on(t.accountId)],
)

/** How far the mail job has read a source (quota_alerts ids, webhook_events rowids). */
export const mailCursors = sqliteTable('mail_cursors', {
  source: text().primaryKey(),
  position: integer().notNull(),
})

/** Addresses that asked for no more contact codes (their List-Unsubscribe link). */
export const mailSuppressions = sqliteTable('mail_suppressions', {
  email: text().primaryKey(),
  createdAt: ts().notNull(),
})

/** One-time codes sent to the e-mail address on a company's FMCSA record. */
export const contactVerifications = sqliteTable(
  'contact_verifications',
  {
    id: text().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    apiKeyId: integer(),
    dotNumber: integer().notNull(),
    channel: text().notNull(),
    /** the address on file the code went to */
    sentTo: text().notNull(),
    /** HMAC-SHA256 of the code under `salt` (hex) */
    codeHash: text().notNull(),
    salt: text().notNull(),
    tries: integer().notNull().default(0),
    /** pending | verified | locked */
    status: text().notNull(),
    messageId: integer(),
    createdAt: ts().notNull(),
    expiresAt: ts().notNull(),
    verifiedAt: ts(),
  },
  (t) => [
    index('contact_verifications_dot').on(t.dotNumber, t.createdAt),
    index('contact_verifications_account').on(t.accountId, t.createdAt),
    check('contact_verifications_status', sql`${t.status} IN ('pending','verified','locked')`),
  ],
)
