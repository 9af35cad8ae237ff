/** Fans outbox events out to the endpoints that should receive them, as delivery rows. */
import type { Sqlite } from '../db/open.ts'
import { receivesWebhooks } from '../keys/accounts.ts'
import type { EventType } from '../db/outbox.ts'

/**
 * Endpoints that may receive an event: enabled, not removed, created no later than the event, of
 * the event's account (or, for a broadcast, any account) and with the account's id; whether the
 * account receives webhooks now is asked of its owner (keys/accounts.ts `receivesWebhooks`).
 */
const ENDPOINTS_SQL = `
SELECT e.id, e.events, e.account_id AS accountId FROM webhook_endpoints e
WHERE e.status = 'enabled' AND e.removed_at IS NULL AND e.created_at <= @createdAt
  AND (@accountId IS NULL OR e.account_id = @accountId)
ORDER BY e.id`

export interface DispatchResult {
  events: number
  deliveries: number
}

/**
 * Turns up to `limit` undispatched outbox events into pending deliveries (one per event and
 * matching endpoint) and marks the events dispatched, in one transaction: safe to run from any
 * number of processes at once, and an event is fanned out exactly once.
 */
export function dispatchEvents(db: Sqlite, now: number, limit = 500): DispatchResult {
  const pending = db.prepare(
    'SELECT id, account_id AS accountId, type, created_at AS createdAt FROM webhook_events WHERE dispatched_at IS NULL ORDER BY created_at, rowid LIMIT ?',
  )
  const endpoints = db.prepare(ENDPOINTS_SQL)
  const insert = db.prepare(
    `INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts, next_attempt_at, created_at)
     VALUES (?, ?, 'pending', 0, ?, ?) ON CONFLICT (event_id, endpoint_id) DO NOTHING`,
  )
  const done = db.prepare(
    'UPDATE webhook_events SET dispatched_at = ? WHERE id = ? AND dispatched_at IS NULL',
  )
  return db
    .transaction((): DispatchResult => {
      const events = pending.all(limit) as {
        id: string
        accountId: number | null
        type: EventType
        createdAt: number
      }[]
      let deliveries = 0
      for (const ev of events) {
        const targets = endpoints.all({
          accountId: ev.accountId,
          createdAt: ev.createdAt,
        }) as { id: number; events: string | null; accountId: number }[]
        for (const t of targets) {
          if (!receivesWebhooks(db, t.accountId, now)) continue
          const types = t.events === null ? null : (JSON.parse(t.events) as string[])
          if (types !== null && !types.includes(ev.type)) continue
          deliveries += insert.run(ev.id, t.id, now, now).changes
        }
        done.run(now, ev.id)
      }
      return { events: events.length, deliveries }
    })
    .immediate()
}
