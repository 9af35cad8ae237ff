/** Read side of deliveries and their attempts, for `webhooks deliveries` and the console. */
import type { Sqlite } from '../db/open.ts'

export const DELIVERY_STATUSES = [
  'pending',
  'delivering',
  'succeeded',
  'failed',
  'abandoned',
] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

export interface AttemptInfo {
  id: number
  attemptedAt: number
  statusCode: number | null
  error: string | null
  durationMs: number | null
}

export interface DeliveryInfo {
  id: number
  eventId: string
  eventType: string
  endpointId: number
  accountId: number
  status: DeliveryStatus
  attempts: number
  nextAttemptAt: number | null
  firstAttemptAt: number | null
  lastAttemptAt: number | null
  lastStatusCode: number | null
  lastError: string | null
  createdAt: number
  attemptLog: AttemptInfo[]
}

/** Newest deliveries first, each with every recorded attempt (oldest first). */
export function listDeliveries(
  db: Sqlite,
  opts: { endpointId?: number; accountId?: number; status?: DeliveryStatus; limit?: number } = {},
): DeliveryInfo[] {
  const where: string[] = []
  const params: Record<string, unknown> = { limit: opts.limit ?? 50 }
  if (opts.endpointId !== undefined) {
    where.push('d.endpoint_id = @endpointId')
    params.endpointId = opts.endpointId
  }
  if (opts.accountId !== undefined) {
    where.push('e.account_id = @accountId')
    params.accountId = opts.accountId
  }
  if (opts.status !== undefined) {
    where.push('d.status = @status')
    params.status = opts.status
  }
  const rows = db
    .prepare(
      `SELECT d.id, d.event_id AS eventId, ev.type AS eventType, d.endpoint_id AS endpointId,
         e.account_id AS accountId, d.status, d.attempts, d.next_attempt_at AS nextAttemptAt,
         d.first_attempt_at AS firstAttemptAt, d.last_attempt_at AS lastAttemptAt,
         d.last_status_code AS lastStatusCode, d.last_error AS lastError, d.created_at AS createdAt
       FROM webhook_deliveries d
         JOIN webhook_events ev ON ev.id = d.event_id
         JOIN webhook_endpoints e ON e.id = d.endpoint_id
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY d.id DESC LIMIT @limit`,
    )
    .all(params) as Omit<DeliveryInfo, 'attemptLog'>[]
  const attempts = db.prepare(
    `SELECT id, attempted_at AS attemptedAt, status_code AS statusCode, error, duration_ms AS durationMs
     FROM webhook_attempts WHERE delivery_id = ? ORDER BY id`,
  )
  return rows.map((r) => ({ ...r, attemptLog: attempts.all(r.id) as AttemptInfo[] }))
}
