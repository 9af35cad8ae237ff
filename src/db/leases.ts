import { randomUUID } from 'node:crypto'
import type { Clock } from '../clock.ts'
import type { Sqlite } from './open.ts'

export interface Lease {
  readonly name: string
  readonly holder: string
  /** Pushes the expiry out; false if another holder took the lease meanwhile. */
  renew(): boolean
  release(): void
}

/**
 * Takes a named lease in app.db, safe across processes: one statement inserts it or takes over an
 * expired one. Returns null while another holder's lease is live.
 */
export function acquireLease(
  db: Sqlite,
  name: string,
  clock: Clock,
  opts: { ttlMs: number },
): Lease | null {
  const holder = `${process.pid}:${randomUUID()}`
  const now = clock().getTime()
  const row = db
    .prepare(
      `INSERT INTO leases (name, holder, acquired_at, expires_at) VALUES (@name, @holder, @now, @exp)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, acquired_at = excluded.acquired_at,
         expires_at = excluded.expires_at
       WHERE leases.expires_at < @now
       RETURNING holder`,
    )
    .get({ name, holder, now, exp: now + opts.ttlMs }) as { holder: string } | undefined
  if (!row) return null
  return {
    name,
    holder,
    renew: () =>
      db
        .prepare('UPDATE leases SET expires_at = ? WHERE name = ? AND holder = ?')
        .run(clock().getTime() + opts.ttlMs, name, holder).changes === 1,
    release: () => {
      db.prepare('DELETE FROM leases WHERE name = ? AND holder = ?').run(name, holder)
    },
  }
}
