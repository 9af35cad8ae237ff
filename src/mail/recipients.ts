/** Who receives which kind of e-mail for an account, and the List-Unsubscribe links' effect. */
import { randomBytes } from 'node:crypto'
import type { Sqlite } from '../db/open.ts'
import { AppError } from '../errors.ts'

/** quota: 80 % and 100 % of the month's calls; watchlist: the hourly digest of changes; verdicts: a watched change flips a check's verdict */
export const RECIPIENT_KINDS = ['quota', 'watchlist', 'verdicts'] as const
export type RecipientKind = (typeof RECIPIENT_KINDS)[number]

/** Most recipients (address and kind) one account may have. */
export const MAX_RECIPIENTS_PER_ACCOUNT = 50

export interface Recipient {
  id: number
  accountId: number
  email: string
  kind: RecipientKind
  createdAt: number
}

/** A plain address (`local@domain.tld`), lower-cased; null when it is not one. */
export function parseAddress(raw: string): string | null {
  const v = raw.trim().toLowerCase()
  if (v.length > 254 || /[\s<>,;"()\\]/.test(v)) return null
  return /^[^@]{1,64}@[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$/.test(v) ? v : null
}

export const newToken = () => randomBytes(18).toString('base64url')

const COLUMNS =
  'id, account_id AS accountId, email, kind, created_at AS createdAt FROM mail_recipients'

/** The account's recipients (every account's without one), by address then kind. */
export function listRecipients(db: Sqlite, accountId?: number): Recipient[] {
  return db
    .prepare(
      `SELECT ${COLUMNS} WHERE removed_at IS NULL AND (@accountId IS NULL OR account_id = @accountId)
       ORDER BY account_id, email, kind`,
    )
    .all({ accountId: accountId ?? null }) as Recipient[]
}

/** The current recipients of one kind for an account. */
export const recipientsOf = (db: Sqlite, accountId: number, kind: RecipientKind) =>
  db
    .prepare(`SELECT ${COLUMNS} WHERE removed_at IS NULL AND account_id = ? AND kind = ?`)
    .all(accountId, kind) as Recipient[]

/** The unsubscribe token of a recipient (for its messages' List-Unsubscribe header). */
export const tokenOf = (db: Sqlite, recipientId: number): string =>
  (
    db
      .prepare('SELECT unsubscribe_token AS t FROM mail_recipients WHERE id = ?')
      .get(recipientId) as {
      t: string
    }
  ).t

/** Adds an address for some kinds (idempotently: a kind it already has is kept). */
export function addRecipient(
  db: Sqlite,
  accountId: number,
  rawEmail: string,
  kinds: readonly RecipientKind[],
  now: number,
): Recipient[] {
  const email = parseAddress(rawEmail)
  if (!email)
    throw new AppError('invalid_request', `Not an e-mail address: ${rawEmail.slice(0, 80)}`)
  if (kinds.length === 0) throw new AppError('invalid_request', 'Name at least one kind')
  if (!db.prepare('SELECT 1 FROM accounts WHERE id = ?').get(accountId))
    throw new AppError('not_found', `No account ${accountId}`)
  return db
    .transaction(() => {
      for (const kind of new Set(kinds)) {
        const exists = db
          .prepare(
            'SELECT 1 FROM mail_recipients WHERE account_id = ? AND email = ? AND kind = ? AND removed_at IS NULL',
          )
          .get(accountId, email, kind)
        if (!exists)
          db.prepare(
            'INSERT INTO mail_recipients (account_id, email, kind, unsubscribe_token, created_at) VALUES (?, ?, ?, ?, ?)',
          ).run(accountId, email, kind, newToken(), now)
      }
      const n = listRecipients(db, accountId).length
      if (n > MAX_RECIPIENTS_PER_ACCOUNT)
        throw new AppError(
          'conflict',
          `An account has at most ${MAX_RECIPIENTS_PER_ACCOUNT} recipients (address and kind); this would make ${n}`,
        )
      return listRecipients(db, accountId).filter((r) => r.email === email)
    })
    .immediate()
}

/** Removes an address (some kinds, or all of them); returns how many rows were removed. */
export function removeRecipient(
  db: Sqlite,
  accountId: number,
  rawEmail: string,
  kinds: readonly RecipientKind[] | null,
  now: number,
): number {
  const email = rawEmail.trim().toLowerCase()
  const all = kinds === null ? RECIPIENT_KINDS : kinds
  let removed = 0
  for (const kind of all)
    removed += db
      .prepare(
        'UPDATE mail_recipients SET removed_at = ? WHERE account_id = ? AND email = ? AND kind = ? AND removed_at IS NULL',
      )
      .run(now, accountId, email, kind).changes
  return removed
}

/**
 * A List-Unsubscribe link was followed: a recipient's token removes that recipient (one address
 * and kind); a contact code's token stops codes to that address. Idempotent; null for an unknown
 * token.
 */
export function unsubscribe(
  db: Sqlite,
  token: string,
  now: number,
): { email: string; what: string } | null {
  const r = db
    .prepare('SELECT id, email, kind FROM mail_recipients WHERE unsubscribe_token = ?')
    .get(token) as { id: number; email: string; kind: string } | undefined
  if (r) {
    db.prepare('UPDATE mail_recipients SET removed_at = coalesce(removed_at, ?) WHERE id = ?').run(
      now,
      r.id,
    )
    return { email: r.email, what: `${r.kind} e-mails` }
  }
  const m = db
    .prepare(
      "SELECT to_address AS email FROM mail_messages WHERE unsubscribe_token = ? AND kind = 'contact_code'",
    )
    .get(token) as { email: string } | undefined
  if (!m) return null
  db.prepare(
    'INSERT INTO mail_suppressions (email, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING',
  ).run(m.email, now)
  return { email: m.email, what: 'verification codes' }
}

export const isSuppressed = (db: Sqlite, email: string) =>
  db.prepare('SELECT 1 FROM mail_suppressions WHERE email = ?').get(email) !== undefined

/** Whether an unsubscribe token names a recipient or a sent message (the link's GET page). */
export const isUnsubscribeToken = (db: Sqlite, token: string): boolean =>
  db
    .prepare(
      'SELECT 1 FROM mail_recipients WHERE unsubscribe_token = ? UNION ALL SELECT 1 FROM mail_messages WHERE unsubscribe_token = ?',
    )
    .get(token, token) !== undefined
