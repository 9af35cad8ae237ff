/** E-mail's health for `mail status`, `sync status` and the console (never part of /readyz). */
import { DAY } from '../clock.ts'
import type { Sqlite } from '../db/open.ts'
import type { MailDeps } from './mail-deps.ts'
import { redactUrl } from './transport.ts'

export interface MailStatus {
  configured: boolean
  /** SMTP_URL with its password hidden */
  smtp_url: string | null
  from: string | null
  queue: { pending: number; failed: number; sending: number }
  last_24h: { sent: number; abandoned: number }
  last_sent_at: string | null
  last_error: { at: string; error: string } | null
}

export function mailStatus(deps: Pick<MailDeps, 'db' | 'config' | 'clock'>): MailStatus {
  const { db } = deps
  const now = deps.clock().getTime()
  const count = (sql: string, ...p: unknown[]) => (db.prepare(sql).get(...p) as { n: number }).n
  const byStatus = (s: string) =>
    count('SELECT count(*) AS n FROM mail_messages WHERE status = ?', s)
  const since = (s: string) =>
    count(
      'SELECT count(*) AS n FROM mail_messages WHERE status = ? AND last_attempt_at > ?',
      s,
      now - DAY,
    )
  const lastSent = db
    .prepare("SELECT max(last_attempt_at) AS at FROM mail_messages WHERE status = 'sent'")
    .get() as { at: number | null }
  const lastError = lastAttemptError(db)
  const { url, from } = deps.config.mail
  return {
    configured: url !== null && from !== null,
    smtp_url: url ? redactUrl(url) : null,
    from,
    queue: {
      pending: byStatus('pending'),
      failed: byStatus('failed'),
      sending: byStatus('sending'),
    },
    last_24h: { sent: since('sent'), abandoned: since('abandoned') },
    last_sent_at: lastSent.at === null ? null : new Date(lastSent.at).toISOString(),
    last_error: lastError,
  }
}

function lastAttemptError(db: Sqlite): MailStatus['last_error'] {
  const r = db
    .prepare(
      'SELECT attempted_at AS at, error FROM mail_attempts WHERE error IS NOT NULL ORDER BY id DESC LIMIT 1',
    )
    .get() as { at: number; error: string } | undefined
  return r ? { at: new Date(r.at).toISOString(), error: r.error } : null
}

/** One line for status output: `e-mail: smtp://… from …; 2 queued, 1 failing; last sent …`. */
export function mailStatusLine(s: MailStatus): string {
  if (!s.configured)
    return `e-mail: off (SMTP_URL unset)${s.queue.pending + s.queue.failed ? `; ${s.queue.pending + s.queue.failed} messages waiting` : ''}`
  const failing = s.queue.failed
    ? `, ${s.queue.failed} failing (last error: ${s.last_error?.error ?? '?'})`
    : ''
  return `e-mail: ${s.smtp_url} from ${s.from}; ${s.queue.pending} queued${failing}; ${s.last_24h.sent} sent and ${s.last_24h.abandoned} given up in 24 h; last sent ${s.last_sent_at ?? 'never'}`
}
