/** The audit log: every console action and user administration, with who, what, when and where. */
import type { Sqlite } from '../db/open.ts'

export interface AuditInput {
  userId: number | null
  /** the user's e-mail, or `cli` */
  actor: string
  action: string
  accountId?: number | null
  target?: string | null
  detail?: Record<string, unknown> | null
  address?: string | null
}

export interface AuditEntry {
  id: number
  at: string
  user_id: number | null
  actor: string
  action: string
  account_id: number | null
  target: string | null
  detail: Record<string, unknown> | null
  address: string | null
}

export function recordAudit(db: Sqlite, e: AuditInput, now: number): void {
  db.prepare(
    `INSERT INTO audit_log (at, user_id, actor, action, account_id, target, detail, address)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    now,
    e.userId,
    e.actor,
    e.action,
    e.accountId ?? null,
    e.target ?? null,
    e.detail ? JSON.stringify(e.detail) : null,
    e.address ?? null,
  )
}

interface Row {
  id: number
  at: number
  userId: number | null
  actor: string
  action: string
  accountId: number | null
  target: string | null
  detail: string | null
  address: string | null
}

/** Newest first. */
export function listAudit(
  db: Sqlite,
  opts: { limit?: number; accountId?: number } = {},
): AuditEntry[] {
  const rows = db
    .prepare(
      `SELECT id, at, user_id AS userId, actor, action, account_id AS accountId, target, detail, address
       FROM audit_log ${opts.accountId === undefined ? '' : 'WHERE account_id = @accountId'}
       ORDER BY id DESC LIMIT @limit`,
    )
    .all({
      limit: opts.limit ?? 200,
      ...(opts.accountId === undefined ? {} : { accountId: opts.accountId }),
    }) as Row[]
  return rows.map((r) => ({
    id: r.id,
    at: new Date(r.at).toISOString(),
    user_id: r.userId,
    actor: r.actor,
    action: r.action,
    account_id: r.accountId,
    target: r.target,
    detail: r.detail ? (JSON.parse(r.detail) as Record<string, unknown>) : null,
    address: r.address,
  }))
}
