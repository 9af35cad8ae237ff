/**
 * Server-side console sessions. The cookie carries a random 32-byte token; app.db keeps only its
 * SHA-256, the per-session CSRF token, the address and the times. A session ends after 12 hours,
 * or 2 hours without a request, or at sign-out.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { HOUR } from '../clock.ts'
import type { Sqlite } from '../db/open.ts'
import { getUser, tokenHash, type ConsoleUser } from './users.ts'

export const SESSION_MAX_MS = 12 * HOUR
export const SESSION_IDLE_MS = 2 * HOUR

export interface Session {
  id: string
  user: ConsoleUser
  csrfToken: string
  createdAt: number
  expiresAt: number
}

export function createSession(
  db: Sqlite,
  userId: number,
  address: string | null,
  now: number,
): { token: string; session: Session } {
  const token = randomBytes(32).toString('base64url')
  const csrf = randomBytes(32).toString('base64url')
  db.prepare(
    `INSERT INTO console_sessions (id, user_id, csrf_token, address, created_at, last_seen_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(tokenHash(token), userId, csrf, address, now, now, now + SESSION_MAX_MS)
  const session = getSession(db, token, now)
  if (!session) throw new Error('session vanished')
  return { token, session }
}

interface Row {
  id: string
  userId: number
  csrfToken: string
  createdAt: number
  lastSeenAt: number
  expiresAt: number
}

/** The live session of a cookie token (its idle clock restarted), or null. */
export function getSession(db: Sqlite, token: string, now: number): Session | null {
  const id = tokenHash(token)
  const r = db
    .prepare(
      `SELECT id, user_id AS userId, csrf_token AS csrfToken, created_at AS createdAt,
         last_seen_at AS lastSeenAt, expires_at AS expiresAt FROM console_sessions WHERE id = ?`,
    )
    .get(id) as Row | undefined
  if (!r) return null
  const user = getUser(db, r.userId)
  if (
    r.expiresAt <= now ||
    r.lastSeenAt + SESSION_IDLE_MS <= now ||
    !user ||
    user.disabledAt !== null
  ) {
    db.prepare('DELETE FROM console_sessions WHERE id = ?').run(id)
    return null
  }
  // the idle clock restarts at most once a minute (one write per minute per session)
  if (now - r.lastSeenAt > 60_000)
    db.prepare('UPDATE console_sessions SET last_seen_at = ? WHERE id = ?').run(now, id)
  return { id, user, csrfToken: r.csrfToken, createdAt: r.createdAt, expiresAt: r.expiresAt }
}

export function deleteSession(db: Sqlite, id: string): void {
  db.prepare('DELETE FROM console_sessions WHERE id = ?').run(id)
}

/** Removes ended sessions (housekeeping). */
export function purgeSessions(db: Sqlite, now: number): number {
  return db
    .prepare('DELETE FROM console_sessions WHERE expires_at <= ? OR last_seen_at <= ?')
    .run(now, now - SESSION_IDLE_MS).changes
}

/** A message for the next page of this session. */
export function setFlash(db: Sqlite, id: string, message: string): void {
  db.prepare('UPDATE console_sessions SET flash = ? WHERE id = ?').run(message, id)
}

export function takeFlash(db: Sqlite, id: string): string | null {
  return db.transaction(() => {
    const r = db.prepare('SELECT flash FROM console_sessions WHERE id = ?').get(id) as
      { flash: string | null } | undefined
    if (!r?.flash) return null
    db.prepare('UPDATE console_sessions SET flash = NULL WHERE id = ?').run(id)
    return r.flash
  })()
}

/** Constant-time comparison of a submitted CSRF token with the session's. */
export function csrfMatches(
  session: Pick<Session, 'csrfToken'>,
  submitted: string | undefined,
): boolean {
  if (!submitted) return false
  const a = Buffer.from(session.csrfToken)
  const b = Buffer.from(submitted)
  return a.length === b.length && timingSafeEqual(a, b)
}
