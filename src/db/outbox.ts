import { randomBytes } from 'node:crypto'
import type { Sqlite } from './open.ts'

export const EVENT_TYPES = [
  'quota.threshold_reached',
  'quota.exhausted',
  'dataset.updated',
  'sync.failed',
  'carrier.changed',
  'checks.anchor',
  'webhook.test',
] as const
export type EventType = (typeof EVENT_TYPES)[number]

export const newMessageId = () => `msg_${randomBytes(16).toString('base64url')}`

/**
 * Writes an event to the outbox. Call it inside the transaction that causes the event, so the
 * event exists if and only if its cause committed. `accountId` null = every account with an
 * endpoint subscribed to the type (dataset.updated, sync.failed).
 */
export function enqueueEvent(
  db: Sqlite,
  event: { accountId: number | null; type: EventType; data: unknown },
  now: number,
): string {
  const id = newMessageId()
  db.prepare(
    'INSERT INTO webhook_events (id, account_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)',
  ).run(id, event.accountId, event.type, JSON.stringify(event.data), now)
  return id
}
