import { hash, randomBytes } from 'node:crypto'
import { cached, type Sqlite } from '../db/open.ts'
import { AppError } from '../errors.ts'
import { getAccount, hasAccess, limitsOf, mustGetAccount, type Account } from './accounts.ts'
import type { PlanName } from './plans.ts'

export type KeyMode = 'live' | 'test'

/** `cvk_live_` or `cvk_test_` + 32 random bytes in base64url (43 chars). */
export const generateSecret = (mode: KeyMode) =>
  `cvk_${mode}_${randomBytes(32).toString('base64url')}`
export const hashSecret = (secret: string) => hash('sha256', secret, 'hex')
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
  | { ok: false; reason: 'unknown' | 'revoked' | 'expired' }
  /** a valid key of an account that may not call: its refusal is counted (keys/billing.ts) */
  | { ok: false; reason: 'no_subscription' | 'suspended'; accountId: number; mode: KeyMode }

interface KeyRow {
  id: number
  accountId: number
  mode: KeyMode
  expiresAt: number | null
  revokedAt: number | null
}

interface Resolved {
  key: KeyRow
  account: Account | null
  /** last_used_at as this process last wrote or read it (ms), to write it at most once a minute */
  touchedAt: number
}

const BY_HASH_SQL =
  'SELECT id, account_id AS accountId, mode, expires_at AS expiresAt, revoked_at AS revokedAt, last_used_at AS lastUsedAt FROM api_keys WHERE hash = ?'
const TOUCH_SQL =
  'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)'
const AUTH_EPOCH_SQL = 'SELECT epoch FROM auth_epoch WHERE id = 1'

interface AuthCache {
  /** auth_epoch when `callers` was filled; any key, account or subscription write moves it */
  seen: number
  callers: Map<string, Resolved>
}

/** Resolved keys kept per connection; the whole map is dropped when auth_epoch moves. */
const MAX_CACHED_KEYS = 10_000
const caches = new WeakMap<Sqlite, AuthCache>()
function authCache(db: Sqlite): AuthCache {
  let s = caches.get(db)
  if (!s) {
    s = {
      seen: -1,
      callers: new Map(),
    }
    caches.set(db, s)
  }
  return s
}

/**
 * The key and its account for a hash: from the cache while auth_epoch has not moved (one indexed
 * read of a one-row table per request), else from the tables. Unknown hashes are not cached.
 */
function resolve(db: Sqlite, hash: string): Resolved | null {
  const s = authCache(db)
  const epoch = cached(db, AUTH_EPOCH_SQL).pluck().get() as number
  if (epoch !== s.seen) {
    s.callers.clear()
    s.seen = epoch
  }
  const hit = s.callers.get(hash)
  if (hit) return hit
  const key = cached(db, BY_HASH_SQL).get(hash) as
    (KeyRow & { lastUsedAt: number | null }) | undefined
  if (!key) return null
  const resolved = { key, account: getAccount(db, key.accountId), touchedAt: key.lastUsedAt ?? 0 }
  if (s.callers.size >= MAX_CACHED_KEYS) s.callers.clear()
  s.callers.set(hash, resolved)
  return resolved
}

/**
 * Resolves a secret to its caller by its SHA-256 (an index hit, or the cache; no secret is
 * compared in JS). Revocation, expiry, suspension and subscription access are judged on every call
 * against `now`; a write to keys, accounts or subscriptions (from any process) empties the cache.
 */
export function verifyKey(db: Sqlite, secret: string, now: number): VerifyResult {
  const resolved = resolve(db, hashSecret(secret))
  if (!resolved) return { ok: false, reason: 'unknown' }
  const { key, account } = resolved
  if (key.revokedAt !== null && key.revokedAt <= now) return { ok: false, reason: 'revoked' }
  if (key.expiresAt !== null && key.expiresAt <= now) return { ok: false, reason: 'expired' }
  if (!account) return { ok: false, reason: 'unknown' }
  const who = { accountId: key.accountId, mode: key.mode }
  if (account.suspendedAt !== null) return { ok: false, reason: 'suspended', ...who }
  const sub = account.subscription
  if (!sub || !hasAccess(sub, now)) return { ok: false, reason: 'no_subscription', ...who }
  // last-used is kept to the minute: at most one write per key per minute
  if (now - resolved.touchedAt > 60_000) {
    cached(db, TOUCH_SQL).run(now, key.id, now - 60_000)
    resolved.touchedAt = now
  }
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
  input: {
    accountId: number
    mode: KeyMode
    name?: string | null
    rotatedFromId?: number | null
    /** permissions beyond lookups, e.g. `override` */
    scopes?: readonly string[]
  },
  now: number,
): { key: KeyInfo; secret: string } {
  mustGetAccount(db, input.accountId)
  const secret = generateSecret(input.mode)
  const id = Number(
    db
      .prepare(
        `INSERT INTO api_keys (account_id, mode, hash, start, name, created_at, rotated_from_id, scopes)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        input.accountId,
        input.mode,
        hashSecret(secret),
        secret.slice(0, START_LENGTH),
        input.name ?? null,
        now,
        input.rotatedFromId ?? null,
        (input.scopes ?? []).join(' '),
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
        {
          accountId: old.accountId,
          mode: old.mode,
          name: old.name,
          rotatedFromId: id,
          // a rotated key keeps its permissions
          scopes: (
            db.prepare('SELECT scopes FROM api_keys WHERE id = ?').get(id) as { scopes: string }
          ).scopes
            .split(' ')
            .filter(Boolean),
        },
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
