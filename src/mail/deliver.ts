/**
 * The mail delivery job: claims due messages, sends each through the account owner's SMTP server
 * and records every attempt, as webhook deliveries do. A claim is a lease (status 'sending' until
 * `next_attempt_at`): a process that dies mid-send leaves a claim that expires and is retried; a
 * result is written only while the claim is still ours. Nothing is sent from a request: an API
 * answer never waits for the mail server.
 */
import { performance } from 'node:perf_hooks'
import { DAY } from '../clock.ts'
import { collectMail } from './collect.ts'
import type { MailDeps } from './mail-deps.ts'
import { compose } from './compose.ts'
import { enqueueMail, unsubscribePath } from './queue.ts'
import { parseAddress } from './recipients.ts'
import { AppError } from '../errors.ts'
import { SendError, smtpTransport, type MailTransport } from './transport.ts'

/** A message is given up once this long has passed since its first attempt. */
export const RETRY_WINDOW_MS = 3 * DAY
/** A message the server refused with a 5xx answer is given up after this many attempts. */
export const PERMANENT_FAILURE_ATTEMPTS = 3
const CONCURRENCY = 2
/** The body of a contact code once it is sent or given up: the code itself is kept only hashed. */
export const REDACTED = '[the one-time code is removed from the queue once sent]'

/**
 * Delay before retry number `attempts` (1 after the first failure): ×4 from 30 s (30 s, 2 min,
 * 8 min, 32 min, 2.1 h, 8.5 h, then daily), capped at a day, ±20% jitter.
 */
export const retryDelayMs = (attempts: number, random: () => number) =>
  Math.round(Math.min(DAY, 30_000 * 4 ** Math.max(0, attempts - 1)) * (0.8 + 0.4 * random()))

interface Claimed {
  id: number
  kind: string
  to: string
  subject: string
  text: string
  html: string
  unsubscribeToken: string | null
  attempts: number
  firstAttemptAt: number
  expiresAt: number | null
}

const claimUntil = (deps: MailDeps, now: number) => now + 3 * deps.config.mail.timeoutMs + 60_000

/** Claims one due message (an expired claim is taken over and its lost attempt recorded). */
function claimOne(deps: MailDeps, onlyId: number | null = null): Claimed | null {
  const { db } = deps
  const now = deps.clock().getTime()
  return db
    .transaction((): Claimed | null => {
      // a code nobody can use any more is not sent
      db.prepare(
        `UPDATE mail_messages SET status = 'abandoned', next_attempt_at = NULL,
           last_error = 'expired before it could be sent', text = @redacted, html = @redacted
         WHERE status IN ('pending', 'failed') AND expires_at <= @now`,
      ).run({ now, redacted: REDACTED })
      const due = db
        .prepare(
          `SELECT id, status, attempts, last_attempt_at AS lastAttemptAt FROM mail_messages
           WHERE status IN ('pending', 'failed', 'sending') AND next_attempt_at <= @now
             AND (@onlyId IS NULL OR id = @onlyId)
           ORDER BY next_attempt_at, id LIMIT 1`,
        )
        .get({ now, onlyId }) as
        { id: number; status: string; attempts: number; lastAttemptAt: number | null } | undefined
      if (!due) return null
      if (due.status === 'sending')
        db.prepare(
          'INSERT INTO mail_attempts (message_id, attempted_at, error) VALUES (?, ?, ?)',
        ).run(
          due.id,
          due.lastAttemptAt ?? now,
          'interrupted: no result was recorded before the claim expired (process stopped?)',
        )
      const changed = db
        .prepare(
          `UPDATE mail_messages SET status = 'sending', attempts = attempts + 1, next_attempt_at = ?,
             first_attempt_at = coalesce(first_attempt_at, ?), last_attempt_at = ?
           WHERE id = ? AND status = ? AND attempts = ?`,
        )
        .run(claimUntil(deps, now), now, now, due.id, due.status, due.attempts).changes
      if (changed !== 1) return null
      return db
        .prepare(
          `SELECT id, kind, to_address AS "to", subject, text, html, unsubscribe_token AS unsubscribeToken,
             attempts, first_attempt_at AS firstAttemptAt, expires_at AS expiresAt
           FROM mail_messages WHERE id = ?`,
        )
        .get(due.id) as Claimed
    })
    .immediate()
}

type Result =
  | { ok: true; response: string; durationMs: number }
  | { ok: false; error: string; response: string | null; permanent: boolean; durationMs: number }

/** The List-Unsubscribe headers (RFC 2369, and RFC 8058's one-click POST). */
export function listUnsubscribe(publicUrl: string, token: string | null): Record<string, string> {
  if (!token) return {}
  const url = `${publicUrl.replace(/\/+$/, '')}${unsubscribePath(token)}`
  return {
    'List-Unsubscribe': `<${url}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  }
}

async function send(deps: MailDeps, transport: MailTransport, c: Claimed): Promise<Result> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  try {
    const response = await transport.send({
      from: deps.config.mail.from ?? '',
      to: c.to,
      subject: c.subject,
      text: c.text,
      html: c.html,
      headers: {
        ...listUnsubscribe(deps.config.publicUrl, c.unsubscribeToken),
        'Auto-Submitted': 'auto-generated',
        'X-Carrier-Verify-Kind': c.kind,
      },
    })
    return { ok: true, response: response.slice(0, 500), durationMs: elapsed() }
  } catch (err) {
    const e = err instanceof SendError ? err : new SendError(String(err), false, null)
    return {
      ok: false,
      error: e.message,
      response: e.response,
      permanent: e.permanent,
      durationMs: elapsed(),
    }
  }
}

export interface MailOutcome {
  id: number
  status: 'sent' | 'failed' | 'abandoned'
  error: string | null
  response: string | null
  nextAttemptAt: number | null
}

/** Records an attempt and the message's new state, only while the claim is ours. */
function record(deps: MailDeps, c: Claimed, r: Result): MailOutcome {
  const { db } = deps
  const now = deps.clock().getTime()
  return db
    .transaction((): MailOutcome => {
      db.prepare(
        'INSERT INTO mail_attempts (message_id, attempted_at, error, response, duration_ms) VALUES (?, ?, ?, ?, ?)',
      ).run(c.id, now - r.durationMs, r.ok ? null : r.error, r.response, r.durationMs)
      const claim = `id = @id AND status = 'sending' AND attempts = @attempts`
      let outcome: MailOutcome
      if (r.ok)
        outcome = {
          id: c.id,
          status: 'sent',
          error: null,
          response: r.response,
          nextAttemptAt: null,
        }
      else {
        const deadline = Math.min(c.firstAttemptAt + RETRY_WINDOW_MS, c.expiresAt ?? Infinity)
        const abandon =
          c.kind === 'test' ||
          now >= deadline ||
          (r.permanent && c.attempts >= PERMANENT_FAILURE_ATTEMPTS)
        const next = abandon
          ? null
          : Math.min(now + retryDelayMs(c.attempts, deps.random), deadline)
        outcome = {
          id: c.id,
          status: abandon ? 'abandoned' : 'failed',
          error: r.error,
          response: r.response,
          nextAttemptAt: next,
        }
      }
      const redact = c.kind === 'contact_code' && outcome.status !== 'failed'
      db.prepare(
        `UPDATE mail_messages SET status = @status, next_attempt_at = @next, last_error = @error,
           last_response = @response ${redact ? ', text = @redacted, html = @redacted' : ''} WHERE ${claim}`,
      ).run({
        id: c.id,
        attempts: c.attempts,
        status: outcome.status,
        next: outcome.nextAttemptAt,
        error: outcome.error,
        response: outcome.response,
        ...(redact ? { redacted: REDACTED } : {}),
      })
      return outcome
    })
    .immediate()
}

async function attempt(deps: MailDeps, transport: MailTransport, c: Claimed): Promise<MailOutcome> {
  const outcome = record(deps, c, await send(deps, transport, c))
  const fields = { message_id: c.id, kind: c.kind, attempt: c.attempts, response: outcome.response }
  if (outcome.status === 'sent') deps.log.debug(fields, 'e-mail sent')
  else
    deps.log.warn(
      { ...fields, error: outcome.error, next_attempt_at: outcome.nextAttemptAt },
      outcome.status === 'abandoned' ? 'e-mail given up' : 'e-mail failed; retried later',
    )
  return outcome
}

export interface MailSummary {
  queued: number
  attempted: number
  sent: number
  failed: number
  abandoned: number
  /** why nothing was sent (e-mail not configured) */
  skipped?: string
}

const transportOf = (deps: MailDeps): MailTransport =>
  (deps.transport ?? ((m) => smtpTransport(m)))(deps.config.mail)

/**
 * One run of the mail job: turns new quota alerts, watchlist changes and verdict changes into
 * messages (collect.ts), then sends due messages with a few workers until none is due,
 * `maxAttempts` were made or the signal aborts. Without SMTP_URL the messages stay queued.
 */
export async function deliverMail(
  deps: MailDeps,
  opts: { signal?: AbortSignal; maxAttempts?: number } = {},
): Promise<MailSummary> {
  const signal = opts.signal ?? new AbortController().signal
  const max = opts.maxAttempts ?? 500
  const summary: MailSummary = {
    queued: collectMail(deps),
    attempted: 0,
    sent: 0,
    failed: 0,
    abandoned: 0,
  }
  if (!deps.config.mail.url || !deps.config.mail.from)
    return { ...summary, skipped: 'SMTP_URL is not set' }
  const transport = transportOf(deps)
  let started = 0
  const worker = async () => {
    while (!signal.aborted && started < max) {
      started++
      const c = claimOne(deps)
      if (!c) return
      const o = await attempt(deps, transport, c)
      summary.attempted++
      summary[o.status]++
    }
  }
  try {
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, max) }, worker))
  } finally {
    transport.close()
  }
  return summary
}

/**
 * `mail test`: queues a test message to `to` and sends it now (a single shot: a failure is logged
 * and not retried).
 */
export async function sendTestMail(
  deps: MailDeps,
  rawTo: string,
  accountId: number | null = null,
): Promise<MailOutcome> {
  const to = parseAddress(rawTo)
  if (!to) throw new AppError('invalid_request', `Not an e-mail address: ${rawTo.slice(0, 80)}`)
  if (!deps.config.mail.url || !deps.config.mail.from) throw new AppError('mail_unavailable')
  const now = deps.clock().getTime()
  const id = enqueueMail(
    deps.db,
    {
      accountId,
      recipientId: null,
      kind: 'test',
      to,
      composed: compose({
        subject: '[carrier-verify] Test message',
        heading: 'E-mail works',
        blocks: [
          {
            p: 'This test message went through the mail server set in SMTP_URL. Quota alerts, watchlist digests, verdict changes and contact codes take the same way.',
          },
        ],
        footer: 'Sent by `carrier-verify mail test`.',
        unsubscribeUrl: null,
      }),
      unsubscribeToken: null,
    },
    now,
  )
  const c = claimOne(deps, id)
  if (!c) throw new AppError('internal', 'could not claim the test message')
  const transport = transportOf(deps)
  try {
    return await attempt(deps, transport, c)
  } finally {
    transport.close()
  }
}
