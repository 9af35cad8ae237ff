/**
 * What turns into e-mail, read from app.db by the mail job (so the paths that cause it, metering
 * and the watchlist monitor, stay as they are): quota alerts (quota_alerts, and the month's
 * counter reaching the plan's included calls), `carrier.changed` events of the outbox (gathered
 * into one digest per account and hour) and the checks whose verdict such a change would flip
 * (the event's `checks`, sent at once). Each source is read from a cursor in one transaction with
 * the messages it makes, so nothing is mailed twice or lost across a restart.
 */
import { HOUR, DAY, periodOf } from '../clock.ts'
import type { Sqlite } from '../db/open.ts'
import { currentSubscription, limitsOf } from '../keys/accounts.ts'
import { compose, type Block } from './compose.ts'
import type { MailDeps } from './mail-deps.ts'
import { enqueueMail, unsubscribePath, type MessageKind } from './queue.ts'
import { recipientsOf, tokenOf, type RecipientKind } from './recipients.ts'

/** At most one watchlist digest per account in this long. */
export const DIGEST_INTERVAL_MS = HOUR
/** Changes listed in one digest (the rest are counted). */
const DIGEST_MAX_ROWS = 200
/** Events older than this when first read are not mailed (the queue started after them). */
const MAX_EVENT_AGE_MS = DAY

const cursor = (db: Sqlite, source: string): number =>
  (
    db.prepare('SELECT position FROM mail_cursors WHERE source = ?').get(source) as
      { position: number } | undefined
  )?.position ?? 0
const setCursor = (db: Sqlite, source: string, position: number) =>
  db
    .prepare(
      'INSERT INTO mail_cursors (source, position) VALUES (?, ?) ON CONFLICT (source) DO UPDATE SET position = excluded.position',
    )
    .run(source, position)
/** Marks a once-only fact (a quota threshold of one month); true the first time. */
const once = (db: Sqlite, key: string): boolean =>
  db
    .prepare('INSERT INTO mail_cursors (source, position) VALUES (?, 1) ON CONFLICT DO NOTHING')
    .run(key).changes === 1

/** Queues one message per recipient of `kind` for the account; returns how many. */
function toRecipients(
  deps: MailDeps,
  accountId: number,
  kind: RecipientKind & MessageKind,
  build: (unsubscribeUrl: string) => ReturnType<typeof compose>,
  now: number,
): number {
  const base = deps.config.publicUrl.replace(/\/+$/, '')
  let n = 0
  for (const r of recipientsOf(deps.db, accountId, kind)) {
    const token = tokenOf(deps.db, r.id)
    enqueueMail(
      deps.db,
      {
        accountId,
        recipientId: r.id,
        kind,
        to: r.email,
        composed: build(`${base}${unsubscribePath(token)}`),
        unsubscribeToken: token,
      },
      now,
    )
    n++
  }
  return n
}

const accountName = (db: Sqlite, id: number) =>
  (db.prepare('SELECT name FROM accounts WHERE id = ?').get(id) as { name: string } | undefined)
    ?.name ?? `account ${id}`

function quotaMail(
  deps: MailDeps,
  accountId: number,
  period: string,
  percent: 80 | 100,
  used: number,
  limit: number,
  hardCap: boolean,
  now: number,
): number {
  if (!once(deps.db, `quota${percent}:${accountId}:${period}`)) return 0
  const name = accountName(deps.db, accountId)
  const after =
    percent === 80
      ? 'Nothing changes yet.'
      : hardCap
        ? 'Further calls are refused (429 quota_exceeded) until the quota resets on the 1st of next month (UTC) or the plan is upgraded.'
        : 'Calls keep being answered; each one past the included calls is billed as overage.'
  return toRecipients(
    deps,
    accountId,
    'quota',
    (unsubscribeUrl) =>
      compose({
        subject: `[carrier-verify] ${name}: ${percent} % of this month's API calls used`,
        heading: `${percent} % of the monthly quota used`,
        blocks: [
          { p: `${name} has used ${used} of ${limit} included calls in ${period} (UTC).` },
          { p: after },
        ],
        footer: `You receive quota alerts for ${name}.`,
        unsubscribeUrl,
      }),
    now,
  )
}

/** New quota_alerts rows, and counters of plans without a cap that reached their included calls. */
function collectQuota(deps: MailDeps, now: number): number {
  const { db } = deps
  const period = periodOf(new Date(now))
  let n = 0
  const from = cursor(db, 'quota_alerts')
  const alerts = db
    .prepare(
      `SELECT id, account_id AS accountId, period, kind, used, quota_limit AS quotaLimit, created_at AS createdAt
       FROM quota_alerts WHERE id > ? ORDER BY id LIMIT 500`,
    )
    .all(from) as {
    id: number
    accountId: number
    period: string
    kind: string
    used: number
    quotaLimit: number
    createdAt: number
  }[]
  for (const a of alerts) {
    if (a.period === period)
      n += quotaMail(
        deps,
        a.accountId,
        a.period,
        a.kind === 'exhausted' ? 100 : 80,
        a.used,
        a.quotaLimit,
        a.kind === 'exhausted',
        now,
      )
    setCursor(db, 'quota_alerts', a.id)
  }
  // the plans that bill overage never refuse a call, so 100 % is read from the month's counter
  const accounts = db
    .prepare(
      `SELECT DISTINCT r.account_id AS accountId, c.used FROM mail_recipients r
         JOIN usage_counters c ON c.account_id = r.account_id AND c.period = ?
       WHERE r.kind = 'quota' AND r.removed_at IS NULL`,
    )
    .all(period) as { accountId: number; used: number }[]
  for (const a of accounts) {
    const sub = currentSubscription(db, a.accountId)
    if (!sub) continue
    const limits = limitsOf(sub)
    if (limits.included > 0 && a.used >= limits.included)
      n += quotaMail(deps, a.accountId, period, 100, a.used, limits.included, limits.hardCap, now)
  }
  return n
}

interface ChangeData {
  dot_number: string
  legal_name: string | null
  changes: { field: string; previous: unknown; current: unknown }[]
  checks?: {
    check_id: string
    reference: string | null
    verdict: string
    verdict_now: string
    rules_changed: { rule_id: string; reason: string }[]
  }[]
}

/** A watched value (a scalar: watch snapshots hold nothing else) as text. */
const shown = (v: unknown): string =>
  v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v)

/** New carrier.changed events: digest items, and verdict-change messages at once. */
function collectChanges(deps: MailDeps, now: number): number {
  const { db } = deps
  let n = 0
  const events = db
    .prepare(
      `SELECT rowid AS position, account_id AS accountId, data, created_at AS createdAt FROM webhook_events
       WHERE rowid > ? AND type = 'carrier.changed' ORDER BY rowid LIMIT 500`,
    )
    .all(cursor(db, 'carrier.changed')) as {
    position: number
    accountId: number | null
    data: string
    createdAt: number
  }[]
  const addItem = db.prepare(
    'INSERT INTO mail_digest_items (account_id, data, created_at) VALUES (?, ?, ?)',
  )
  for (const ev of events) {
    setCursor(db, 'carrier.changed', ev.position)
    if (ev.accountId === null || now - ev.createdAt > MAX_EVENT_AGE_MS) continue
    const accountId = ev.accountId
    if (recipientsOf(db, accountId, 'watchlist').length > 0)
      addItem.run(accountId, ev.data, ev.createdAt)
    const data = JSON.parse(ev.data) as ChangeData
    if (!data.checks?.length) continue
    const name = accountName(db, accountId)
    const company = `${data.legal_name ?? 'USDOT'} (USDOT ${data.dot_number})`
    n += toRecipients(
      deps,
      accountId,
      'verdicts',
      (unsubscribeUrl) =>
        compose({
          subject: `[carrier-verify] ${company}: ${data.checks?.length} check verdict(s) would change`,
          heading: `A watched company changed and its checks would now be judged differently`,
          blocks: [
            { p: `${company} changed in the FMCSA data:` },
            {
              list: data.changes.map(
                (c) => `${c.field}: ${shown(c.previous)} → ${shown(c.current)}`,
              ),
            },
            {
              table: {
                head: ['Check', 'Reference', 'Verdict', 'Now', 'Rules'],
                rows: (data.checks ?? []).map((c) => [
                  c.check_id,
                  c.reference ?? '',
                  c.verdict,
                  c.verdict_now,
                  c.rules_changed.map((r) => `${r.rule_id}: ${r.reason}`).join('; '),
                ]),
              },
            },
            { p: 'The stored checks are unchanged; check the company again before the next load.' },
          ],
          footer: `You receive verdict changes for ${name}.`,
          unsubscribeUrl,
        }),
      now,
    )
  }
  return n
}

/** One digest per account whose last one is at least DIGEST_INTERVAL_MS old. */
function sendDigests(deps: MailDeps, now: number): number {
  const { db } = deps
  let n = 0
  const accounts = db
    .prepare('SELECT DISTINCT account_id AS accountId FROM mail_digest_items ORDER BY account_id')
    .all() as { accountId: number }[]
  for (const { accountId } of accounts) {
    const recent = db
      .prepare(
        "SELECT 1 FROM mail_messages WHERE account_id = ? AND kind = 'watchlist' AND created_at > ? LIMIT 1",
      )
      .get(accountId, now - DIGEST_INTERVAL_MS)
    if (recent) continue
    const items = db
      .prepare('SELECT id, data FROM mail_digest_items WHERE account_id = ? ORDER BY id')
      .all(accountId) as { id: number; data: string }[]
    db.prepare('DELETE FROM mail_digest_items WHERE account_id = ? AND id <= ?').run(
      accountId,
      items[items.length - 1]?.id ?? 0,
    )
    const rows: string[][] = []
    for (const it of items) {
      const d = JSON.parse(it.data) as ChangeData
      for (const c of d.changes)
        rows.push([d.dot_number, d.legal_name ?? '', c.field, shown(c.previous), shown(c.current)])
    }
    const companies = new Set(items.map((i) => (JSON.parse(i.data) as ChangeData).dot_number)).size
    const name = accountName(db, accountId)
    const blocks: Block[] = [
      {
        p: `${companies} watched compan${companies === 1 ? 'y' : 'ies'} of ${name} changed in the FMCSA data:`,
      },
      {
        table: {
          head: ['USDOT', 'Name', 'Field', 'Was', 'Now'],
          rows: rows.slice(0, DIGEST_MAX_ROWS),
        },
      },
    ]
    if (rows.length > DIGEST_MAX_ROWS)
      blocks.push({
        p: `…and ${rows.length - DIGEST_MAX_ROWS} more changes (the carrier.changed webhook has each one).`,
      })
    n += toRecipients(
      deps,
      accountId,
      'watchlist',
      (unsubscribeUrl) =>
        compose({
          subject: `[carrier-verify] ${name}: ${companies} watched compan${companies === 1 ? 'y' : 'ies'} changed`,
          heading: 'Watchlist changes',
          blocks,
          footer: `You receive the watchlist digest of ${name} (at most one an hour).`,
          unsubscribeUrl,
        }),
      now,
    )
  }
  return n
}

/** Reads every source once; returns how many messages were queued. */
export function collectMail(deps: MailDeps): number {
  const now = deps.clock().getTime()
  return deps.db
    .transaction(() => collectQuota(deps, now) + collectChanges(deps, now) + sendDigests(deps, now))
    .immediate()
}
