/** Console users: admins (every account) and members (one account). Created by the CLI or an admin. */
import { hash, randomBytes } from 'node:crypto'
import { DAY } from '../clock.ts'
import type { Sqlite } from '../db/open.ts'
import { AppError } from '../errors.ts'
import { hashPassword } from './password.ts'

export const ROLES = ['admin', 'member'] as const
export type Role = (typeof ROLES)[number]

export interface ConsoleUser {
  id: number
  email: string
  role: Role
  accountId: number | null
  hasPassword: boolean
  createdAt: number
  disabledAt: number | null
  lastSignInAt: number | null
}

/** How long a set-password link works. */
export const PASSWORD_LINK_TTL_MS = 3 * DAY

const COLS = `id, email, role, account_id AS accountId, password_hash IS NOT NULL AS hasPassword,
  created_at AS createdAt, disabled_at AS disabledAt, last_sign_in_at AS lastSignInAt`
type Row = Omit<ConsoleUser, 'hasPassword'> & { hasPassword: number }
const fromRow = (r: Row): ConsoleUser => ({ ...r, hasPassword: r.hasPassword === 1 })

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
export const tokenHash = (token: string) => hash('sha256', token, 'hex')

export function normalizeEmail(email: string): string {
  const e = email.trim().toLowerCase()
  if (!EMAIL.test(e) || e.length > 254)
    throw new AppError('invalid_request', `Not an e-mail address: ${JSON.stringify(email)}`)
  return e
}

export interface NewUser {
  email: string
  role: Role
  accountId?: number | null
}

/** Creates a user without a password (set it with setPassword or a one-time link). */
export function createUser(db: Sqlite, input: NewUser, now: number): ConsoleUser {
  const email = normalizeEmail(input.email)
  if (input.role === 'member' && (input.accountId === null || input.accountId === undefined))
    throw new AppError('invalid_request', 'A member needs an account (--account ID)')
  if (input.role === 'admin' && input.accountId != null)
    throw new AppError('invalid_request', 'An admin sees every account: give no account')
  if (
    input.accountId != null &&
    !db.prepare('SELECT 1 FROM accounts WHERE id = ?').get(input.accountId)
  )
    throw new AppError('not_found', `No account with id ${input.accountId}`)
  if (db.prepare('SELECT 1 FROM console_users WHERE email = ?').get(email))
    throw new AppError('conflict', `A console user with e-mail ${email} exists already`)
  const id = Number(
    db
      .prepare(
        'INSERT INTO console_users (email, role, account_id, created_at) VALUES (?, ?, ?, ?)',
      )
      .run(email, input.role, input.accountId ?? null, now).lastInsertRowid,
  )
  return mustGetUser(db, id)
}

export function getUser(db: Sqlite, id: number): ConsoleUser | null {
  const r = db.prepare(`SELECT ${COLS} FROM console_users WHERE id = ?`).get(id) as Row | undefined
  return r ? fromRow(r) : null
}

export function mustGetUser(db: Sqlite, id: number): ConsoleUser {
  const u = getUser(db, id)
  if (!u) throw new AppError('not_found', `No console user with id ${id}`)
  return u
}

/** The user and its password hash, for sign-in only. */
export function findForSignIn(
  db: Sqlite,
  email: string,
): { user: ConsoleUser; passwordHash: string | null } | null {
  const r = db
    .prepare(`SELECT ${COLS}, password_hash AS passwordHash FROM console_users WHERE email = ?`)
    .get(email.trim().toLowerCase()) as (Row & { passwordHash: string | null }) | undefined
  if (!r) return null
  const { passwordHash, ...row } = r
  return { user: fromRow(row), passwordHash }
}

export function listUsers(db: Sqlite, accountId?: number): ConsoleUser[] {
  const rows = (
    accountId === undefined
      ? db.prepare(`SELECT ${COLS} FROM console_users ORDER BY id`).all()
      : db
          .prepare(`SELECT ${COLS} FROM console_users WHERE account_id = ? ORDER BY id`)
          .all(accountId)
  ) as Row[]
  return rows.map(fromRow)
}

export async function setPassword(db: Sqlite, id: number, password: string): Promise<void> {
  mustGetUser(db, id)
  const hash = await hashPassword(password)
  db.prepare('UPDATE console_users SET password_hash = ? WHERE id = ?').run(hash, id)
}

export function markSignedIn(db: Sqlite, id: number, now: number): void {
  db.prepare('UPDATE console_users SET last_sign_in_at = ? WHERE id = ?').run(now, id)
}

/** Disables a user and ends its sessions at once; enabling lets it sign in again. */
export function setUserDisabled(
  db: Sqlite,
  id: number,
  disabled: boolean,
  now: number,
): ConsoleUser {
  mustGetUser(db, id)
  db.transaction(() => {
    db.prepare('UPDATE console_users SET disabled_at = ? WHERE id = ?').run(
      disabled ? now : null,
      id,
    )
    if (disabled) db.prepare('DELETE FROM console_sessions WHERE user_id = ?').run(id)
  }).immediate()
  return mustGetUser(db, id)
}

/** A one-time link token (returned once; stored as its SHA-256); older unused links stop working. */
export function createPasswordToken(db: Sqlite, userId: number, now: number): string {
  mustGetUser(db, userId)
  const token = randomBytes(32).toString('base64url')
  db.transaction(() => {
    db.prepare('UPDATE password_tokens SET used_at = ? WHERE user_id = ? AND used_at IS NULL').run(
      now,
      userId,
    )
    db.prepare(
      'INSERT INTO password_tokens (id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)',
    ).run(tokenHash(token), userId, now, now + PASSWORD_LINK_TTL_MS)
  }).immediate()
  return token
}

/** The user a set-password token is for while it is unused and unexpired, else null. */
export function passwordTokenUser(db: Sqlite, token: string, now: number): ConsoleUser | null {
  const r = db
    .prepare(
      'SELECT user_id AS userId FROM password_tokens WHERE id = ? AND used_at IS NULL AND expires_at > ?',
    )
    .get(tokenHash(token), now) as { userId: number } | undefined
  return r ? getUser(db, r.userId) : null
}

/** Sets the password through a one-time token; the token is used up; the user's sessions end. */
export async function usePasswordToken(
  db: Sqlite,
  token: string,
  password: string,
  now: number,
): Promise<ConsoleUser> {
  const user = passwordTokenUser(db, token, now)
  if (!user) throw new AppError('not_found', 'This link is unknown, used or expired')
  const hash = await hashPassword(password)
  const used = db.transaction(() => {
    const r = db
      .prepare('UPDATE password_tokens SET used_at = ? WHERE id = ? AND used_at IS NULL')
      .run(now, tokenHash(token))
    if (r.changes !== 1) return false
    db.prepare('UPDATE console_users SET password_hash = ? WHERE id = ?').run(hash, user.id)
    db.prepare('DELETE FROM console_sessions WHERE user_id = ?').run(user.id)
    return true
  })
  if (!used.immediate()) throw new AppError('not_found', 'This link is unknown, used or expired')
  return mustGetUser(db, user.id)
}
