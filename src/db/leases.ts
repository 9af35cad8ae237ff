import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Clock } from '../clock.ts'
import type { Sqlite } from './open.ts'

export interface Lease {
  readonly name: string
  readonly holder: string
  /** Pushes the expiry out and beats the heartbeat; false if another holder took the lease. */
  renew(): boolean
  release(): void
}

/** Who holds a lease (for messages and `sync status`). */
export interface LeaseHolder {
  name: string
  holder: string
  pid: number | null
  host: string | null
  acquiredAt: number
  expiresAt: number
  heartbeatAt: number | null
}

/** How often a heartbeating lease beats, and after how long without a beat it is free. */
export const HEARTBEAT_MS = 10_000
export const HEARTBEAT_STALE_MS = 60_000

/**
 * This process's identity in holder strings. A lease recorded with this process's pid but another
 * instance id belongs to an earlier process that had the same pid (a restarted container's pid 1).
 */
const INSTANCE = randomUUID()
const HOST = hostname()

const COLS = `name, holder, pid, host, acquired_at AS acquiredAt, expires_at AS expiresAt,
  heartbeat_at AS heartbeatAt`

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: the process exists but belongs to someone else
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Why a recorded lease no longer protects anything, or null while its holder is alive: expired;
 * its process is gone (same host: the pid is not alive, or it is this pid in an earlier process);
 * or, for a heartbeating lease, no beat for HEARTBEAT_STALE_MS.
 */
export function leaseStaleReason(l: LeaseHolder, now: number): string | null {
  if (l.expiresAt < now) return 'expired'
  if (l.host === HOST && l.pid !== null) {
    if (l.pid === process.pid) {
      if (!l.holder.startsWith(`${INSTANCE}:`)) return `process ${l.pid} is gone (restarted)`
    } else if (!pidAlive(l.pid)) return `process ${l.pid} is gone`
  }
  if (l.heartbeatAt !== null && l.heartbeatAt < now - HEARTBEAT_STALE_MS)
    return `no heartbeat for ${Math.round((now - l.heartbeatAt) / 1000)} s`
  return null
}

export function getLease(db: Sqlite, name: string): LeaseHolder | null {
  return (
    (db.prepare(`SELECT ${COLS} FROM leases WHERE name = ?`).get(name) as
      LeaseHolder | undefined) ?? null
  )
}

export function listLeases(db: Sqlite): LeaseHolder[] {
  return db.prepare(`SELECT ${COLS} FROM leases ORDER BY name`).all() as LeaseHolder[]
}

/** Deletes the lease if it is still the given (stale) holder's. */
export function dropLease(db: Sqlite, l: Pick<LeaseHolder, 'name' | 'holder'>): boolean {
  return (
    db.prepare('DELETE FROM leases WHERE name = ? AND holder = ?').run(l.name, l.holder).changes ===
    1
  )
}

export interface LeaseOptions {
  ttlMs: number
  /**
   * Beat every HEARTBEAT_MS while held (a timer, stopped by release); a lease whose beats stop
   * is free after HEARTBEAT_STALE_MS whatever its TTL. `onLost` is told when a beat finds the
   * lease taken by another holder.
   */
  heartbeat?: { onLost(): void }
}

/**
 * Takes a named lease in app.db, safe across processes: in one write transaction it inserts the
 * lease, or takes over one whose holder is gone (leaseStaleReason). Returns null while another
 * holder's lease is live.
 */
export function acquireLease(
  db: Sqlite,
  name: string,
  clock: Clock,
  opts: LeaseOptions,
): Lease | null {
  const holder = `${INSTANCE}:${randomUUID()}`
  const beats = opts.heartbeat !== undefined
  const take = db.transaction((now: number): boolean => {
    const cur = getLease(db, name)
    if (cur && leaseStaleReason(cur, now) === null) return false
    db.prepare(
      `INSERT INTO leases (name, holder, acquired_at, expires_at, pid, host, heartbeat_at)
       VALUES (@name, @holder, @now, @exp, @pid, @host, @beat)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, acquired_at = excluded.acquired_at,
         expires_at = excluded.expires_at, pid = excluded.pid, host = excluded.host,
         heartbeat_at = excluded.heartbeat_at`,
    ).run({
      name,
      holder,
      now,
      exp: now + opts.ttlMs,
      pid: process.pid,
      host: HOST,
      beat: beats ? now : null,
    })
    return true
  })
  if (!take.immediate(clock().getTime())) return null
  const renew = () => {
    const now = clock().getTime()
    return (
      db
        .prepare(
          `UPDATE leases SET expires_at = ?, heartbeat_at = CASE WHEN heartbeat_at IS NULL THEN NULL ELSE ? END
           WHERE name = ? AND holder = ?`,
        )
        .run(now + opts.ttlMs, now, name, holder).changes === 1
    )
  }
  let timer: NodeJS.Timeout | undefined
  if (opts.heartbeat) {
    const lost = opts.heartbeat
    timer = setInterval(() => {
      if (!db.open) return
      try {
        if (!renew()) {
          clearInterval(timer)
          lost.onLost()
        }
      } catch {
        // app.db busy for a moment: the next beat tries again
      }
    }, HEARTBEAT_MS)
    timer.unref()
  }
  return {
    name,
    holder,
    renew,
    release: () => {
      clearInterval(timer)
      if (db.open) db.prepare('DELETE FROM leases WHERE name = ? AND holder = ?').run(name, holder)
    },
  }
}
