/** The e-mail queue in app.db: writing messages (inside the transaction that causes them) and the delivery log. */
import type { Sqlite } from '../db/open.ts'
import type { Composed } from './compose.ts'

export const MESSAGE_KINDS = ['quota', 'watchlist', 'verdicts', 'contact_code', 'test'] as const
export type MessageKind = (typeof MESSAGE_KINDS)[number]

export const MESSAGE_STATUSES = ['pending', 'sending', 'sent', 'failed', 'abandoned'] as const
export type MessageStatus = (typeof MESSAGE_STATUSES)[number]

/** The path of the List-Unsubscribe link under PUBLIC_URL (served by the console). */
export const unsubscribePath = (token: string) => `/console/unsubscribe/${token}`

export interface NewMessage {
  accountId: number | null
  recipientId: number | null
  kind: MessageKind
  to: string
  composed: Composed
  unsubscribeToken: string | null
  expiresAt?: number | null
}

/** Queues one message, due now; returns its id. */
export function enqueueMail(db: Sqlite, m: NewMessage, now: number): number {
  return Number(
    db
      .prepare(
        `INSERT INTO mail_messages (account_id, recipient_id, kind, to_address, subject, text, html,
           unsubscribe_token, status, attempts, next_attempt_at, expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
      )
      .run(
        m.accountId,
        m.recipientId,
        m.kind,
        m.to,
        m.composed.subject,
        m.composed.text,
        m.composed.html,
        m.unsubscribeToken,
        now,
        m.expiresAt ?? null,
        now,
      ).lastInsertRowid,
  )
}

export interface MailAttemptInfo {
  attemptedAt: number
  error: string | null
  response: string | null
  durationMs: number | null
}

export interface MessageInfo {
  id: number
  accountId: number | null
  kind: MessageKind
  to: string
  subject: string
  status: MessageStatus
  attempts: number
  nextAttemptAt: number | null
  lastAttemptAt: number | null
  lastError: string | null
  lastResponse: string | null
  createdAt: number
  attemptLog: MailAttemptInfo[]
}

/** Newest messages first, each with its attempts (oldest first); never the bodies. */
export function listMessages(
  db: Sqlite,
  opts: { accountId?: number; status?: MessageStatus; kind?: MessageKind; limit?: number } = {},
): MessageInfo[] {
  const rows = db
    .prepare(
      `SELECT id, account_id AS accountId, kind, to_address AS "to", subject, status, attempts,
         next_attempt_at AS nextAttemptAt, last_attempt_at AS lastAttemptAt, last_error AS lastError,
         last_response AS lastResponse, created_at AS createdAt
       FROM mail_messages
       WHERE (@accountId IS NULL OR account_id = @accountId) AND (@status IS NULL OR status = @status)
         AND (@kind IS NULL OR kind = @kind)
       ORDER BY id DESC LIMIT @limit`,
    )
    .all({
      accountId: opts.accountId ?? null,
      status: opts.status ?? null,
      kind: opts.kind ?? null,
      limit: opts.limit ?? 50,
    }) as Omit<MessageInfo, 'attemptLog'>[]
  const attempts = db.prepare(
    `SELECT attempted_at AS attemptedAt, error, response, duration_ms AS durationMs
     FROM mail_attempts WHERE message_id = ? ORDER BY id`,
  )
  return rows.map((r) => ({ ...r, attemptLog: attempts.all(r.id) as MailAttemptInfo[] }))
}
