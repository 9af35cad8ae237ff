/** app.db tables: console users, sessions, set-password links and the audit log (users/). */
import { sql } from 'drizzle-orm'
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { accounts } from './keys.ts'
import { ts } from './columns.ts'

/** People who sign in to the console (never API keys). A member belongs to one account. */
export const consoleUsers = sqliteTable(
  'console_users',
  {
    id: integer().primaryKey(),
    /** lower-cased */
    email: text().notNull(),
    role: text().notNull(),
    accountId: integer().references(() => accounts.id),
    /** `scrypt$N$r$p$salt$hash` (base64); null until set through a one-time link */
    passwordHash: text(),
    createdAt: ts().notNull(),
    disabledAt: ts(),
    lastSignInAt: ts(),
  },
  (t) => [
    uniqueIndex('console_users_email').on(t.email),
    check('console_users_role', sql`${t.role} IN ('admin','member')`),
    check(
      'console_users_member_account',
      sql`(${t.role} = 'admin' AND ${t.accountId} IS NULL) OR (${t.role} = 'member' AND ${t.accountId} IS NOT NULL)`,
    ),
  ],
)

/** Server-side console sessions: the cookie holds a random token, the row its SHA-256. */
export const consoleSessions = sqliteTable(
  'console_sessions',
  {
    id: text().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => consoleUsers.id),
    csrfToken: text().notNull(),
    address: text(),
    createdAt: ts().notNull(),
    lastSeenAt: ts().notNull(),
    expiresAt: ts().notNull(),
    /** one-shot message shown on the next page */
    flash: text(),
  },
  (t) => [index('console_sessions_user').on(t.userId)],
)

/** One-time set-password links (the token's SHA-256). */
export const passwordTokens = sqliteTable('password_tokens', {
  id: text().primaryKey(),
  userId: integer()
    .notNull()
    .references(() => consoleUsers.id),
  createdAt: ts().notNull(),
  expiresAt: ts().notNull(),
  usedAt: ts(),
})

/** Every console action (and user administration from the CLI): who, what, when, from where. */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer().primaryKey(),
    at: ts().notNull(),
    userId: integer(),
    /** the user's e-mail, or `cli` */
    actor: text().notNull(),
    action: text().notNull(),
    accountId: integer(),
    target: text(),
    /** JSON */
    detail: text(),
    address: text(),
  },
  (t) => [index('audit_log_at').on(t.at)],
)
