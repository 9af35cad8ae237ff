import { createHash, randomBytes } from 'node:crypto'
import type { Statement } from 'better-sqlite3'
import type { Sqlite } from '../db/open.ts'
import { AppError } from '../errors.ts'
import { getAccount, hasAccess, limitsOf, mustGetAccount } from './accounts.ts'
import type { PlanName } from './plans.ts'

export type KeyMode = 'live' | 'test'

/** `cvk_live_` or `cvk_test_` + 32 random bytes in base64url (43 chars). */
export const generateSecret = (mode: KeyMode) =>
  `cvk_${mode}_${randomBytes(32).toString('base64url')}`
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex')
export const SECRET_PATTERN = /^cvk_(live|test)_[A-Za-z0-9_-]{43}$/
const START_LENGTH = 13

/** Who is calling: resolved from the key on every request. */
export interface Caller {
  keyId: number
  accountId: number
  mode: KeyMode
  plan: PlanName
  included: number
  hardCap: boolean
  overageMills: number
  webhooks: boolean
}

export type VerifyResult =
  | { ok: true; caller: Caller }
  | { ok: false; reason: 'unknown' | 'revoked' | 'expired' | 'no_subscription' | 'suspended' }

interface KeyRow {
  id: number
  accountId: number
  mode: KeyMode
  expiresAt: number | null
  revokedAt: number | null
}

const stmts = new WeakMap<Sqlite, { byHash: Statement; touch: Statement }>()
function prepared(db: Sqlite) {
  let s = stmts.get(db)
  if (!s) {
    s = {
      byHash: db.prepare(
        'SELECT id, account_id AS accountId, mode, expires_at AS expiresAt, revoked_at AS revokedAt FROM api_keys WHERE hash = ?',
      ),
      touch: db.prepare(
        'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
      ),
    }
    stmts.set(db, s)
  }
  return s
}

/** Resolves a secret to its caller by its SHA-256 (an index hit; no secret is compared in JS). */
export function verifyKey(db: Sqlite, secret: string, now: number): VerifyResult {
  const s = prepared(db)
  const key = s.byHash.get(hashSecret(secret)) as KeyRow | undefined
  if (!key) return { ok: false, reason: 'unknown' }
  if (key.revokedAt !== null && key.revokedAt <= now) return { ok: false, reason: 'revoked' }
  if (key.expiresAt !== null && key.expiresAt <= now) return { ok: false, reason: 'expired' }
  const account = getAccount(db, key.accountId)
  if (!account) return { ok: false, reason: 'unknown' }
  if (account.suspendedAt !== null) return { ok: false, reason: 'suspended' }
  const sub = account.subscription
  if (!sub || !hasAccess(sub, now)) return { ok: false, reason: 'no_subscription' }
  // last-used is kept to the minute: at most one write per key per minute
  s.touch.run(now, key.id, now - 60_000)
  const limits = limitsOf(sub)
  return {
    ok: true,
    caller: {
      keyId: key.id,
      accountId: key.accountId,
      mode: key.mode,
      plan: sub.plan,
      included: limits.included,
      hardCap: limits.hardCap,
      overageMills: limits.overageMills,
      webhooks: limits.plan.webhooks,
    },
  }
}

export interface KeyInfo {
  id: number
  accountId: number
  mode: KeyMode
  start: string
  name: string | null
  createdAt: number
  expiresAt: number | null
  revokedAt: number | null
  lastUsedAt: number | null
  rotatedFromId: number | null
}

const KEY_COLS = `id, account_id AS accountId, mode, start, name, created_at AS createdAt, expires_at AS expiresAt,
  revoked_at AS revokedAt, last_used_at AS lastUsedAt, rotated_from_id AS rotatedFromId`

export function getKey(db: Sqlite, id: number): KeyInfo | null {
  return (
    (db.prepare(`SELECT ${KEY_COLS} FROM api_keys WHERE id = ?`).get(id) as KeyInfo | undefined) ??
    null
  )
}

export function listKeys(db: Sqlite, accountId?: number): KeyInfo[] {
  return (
    accountId === undefined
      ? db.prepare(`SELECT ${KEY_COLS} FROM api_keys ORDER BY id`).all()
      : db
          .prepare(`SELECT ${KEY_COLS} FROM api_keys WHERE account_id = ? ORDER BY id`)
          .all(accountId)
  ) as KeyInfo[]
}

/** Creates a key; the secret is returned only here and stored only as its SHA-256. */
export function createKey(
  db: Sqlite,
  input: { accountId: number; mode: KeyMode; name?: string | null; rotatedFromId?: number | null },
  now: number,
): { key: KeyInfo; secret: string } {
  mustGetAccount(db, input.accountId)
  const secret = generateSecret(input.mode)
  const id = Number(
    db
      .prepare(
        `INSERT INTO api_keys (account_id, mode, hash, start, name, created_at, rotated_from_id)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        input.accountId,
        input.mode,
        hashSecret(secret),
        secret.slice(0, START_LENGTH),
        input.name ?? null,
        now,
        input.rotatedFromId ?? null,
      ).lastInsertRowid,
  )
  const key = getKey(db, id)
  if (!key) throw new AppError('internal')
  return { key, secret }
}

function mustGetLiveKey(db: Sqlite, id: number, now: number): KeyInfo {
  const key = getKey(db, id)
  if (!key) throw new AppError('not_found', `No API key with id ${id}`)
  if (key.revokedAt !== null && key.revokedAt <= now)
    throw new AppError('conflict', `API key ${id} is revoked`)
  return key
}

/**
 * Replaces a key with a new secret of the same account and mode. The old secret keeps working
 * for `graceMs` (so deployed clients can switch over), then answers 401.
 */
export function rotateKey(
  db: Sqlite,
  id: number,
  now: number,
  graceMs: number,
): { key: KeyInfo; secret: string; oldExpiresAt: number } {
  return db
    .transaction(() => {
      const old = mustGetLiveKey(db, id, now)
      if (old.expiresAt !== null && old.expiresAt <= now)
        throw new AppError('conflict', `API key ${id} has expired`)
      const oldExpiresAt = Math.min(old.expiresAt ?? Infinity, now + graceMs)
      db.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?').run(oldExpiresAt, id)
      const created = createKey(
        db,
        { accountId: old.accountId, mode: old.mode, name: old.name, rotatedFromId: id },
        now,
      )
      return { ...created, oldExpiresAt }
    })
    .immediate()
}

/** Revokes a key at once. Rows are never deleted. */
export function revokeKey(db: Sqlite, id: number, now: number): KeyInfo {
  mustGetLiveKey(db, id, now)
  db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(now, id)
  const k = getKey(db, id)
  if (!k) throw new AppError('internal')
  return k
}
