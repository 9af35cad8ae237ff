/**
 * The Ed25519 keys that sign checks. Private halves are PEM files in `DATA_DIR/signing/` (mode
 * 0600, directory 0700); public halves are in app.db (`check_signing_keys`) so verification and
 * exports never need a private key. `rotateSigningKey` retires the current key (its public half
 * stays, so old checks keep verifying) and makes a new one.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Sqlite } from '../db/open.ts'

export interface Signer {
  keyId: string
  sign(hashHex: string): string
}

export interface PublicKeyInfo {
  key_id: string
  algorithm: 'Ed25519'
  public_key_pem: string
  created_at: string
  retired_at: string | null
}

export const signingDir = (dataDir: string) => join(dataDir, 'signing')
const privatePath = (dataDir: string, keyId: string) => join(signingDir(dataDir), `${keyId}.pem`)

/** First 16 hex digits of the sha256 of the public key (SPKI DER). */
export const keyIdOf = (pub: KeyObject) =>
  createHash('sha256')
    .update(pub.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16)

function createKey(db: Sqlite, dataDir: string, now: number): string {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const keyId = keyIdOf(publicKey)
  mkdirSync(signingDir(dataDir), { recursive: true, mode: 0o700 })
  const path = privatePath(dataDir, keyId)
  writeFileSync(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), {
    mode: 0o600,
    flag: 'wx',
  })
  chmodSync(path, 0o600)
  db.prepare(
    'INSERT INTO check_signing_keys (key_id, public_key, created_at) VALUES (?, ?, ?)',
  ).run(keyId, publicKey.export({ type: 'spki', format: 'pem' }), now)
  return keyId
}

const signerOf = (keyId: string, key: KeyObject): Signer => ({
  keyId,
  sign: (hashHex) => sign(null, Buffer.from(hashHex, 'hex'), key).toString('base64'),
})

/** Parsed private keys by file path: a key file never changes once written. */
const loaded = new Map<string, Signer>()

function load(dataDir: string, keyId: string): Signer {
  const path = privatePath(dataDir, keyId)
  let s = loaded.get(path)
  if (!s) {
    s = signerOf(keyId, createPrivateKey(readFileSync(path)))
    loaded.set(path, s)
  }
  return s
}

/** The current signing key (created on first use). */
export function currentSigner(db: Sqlite, dataDir: string, now: number): Signer {
  const rows = db
    .prepare(
      'SELECT key_id AS keyId FROM check_signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC, key_id',
    )
    .all() as { keyId: string }[]
  for (const { keyId } of rows) {
    if (loaded.has(privatePath(dataDir, keyId)) || existsSync(privatePath(dataDir, keyId)))
      return load(dataDir, keyId)
  }
  const keyId = db.transaction(() => createKey(db, dataDir, now)).immediate()
  return load(dataDir, keyId)
}

/** Retires every current key and creates a new one; returns the new key id. */
export function rotateSigningKey(
  db: Sqlite,
  dataDir: string,
  now: number,
): { keyId: string; retired: string[] } {
  return db
    .transaction(() => {
      const retired = (
        db
          .prepare('SELECT key_id AS keyId FROM check_signing_keys WHERE retired_at IS NULL')
          .all() as {
          keyId: string
        }[]
      ).map((r) => r.keyId)
      db.prepare('UPDATE check_signing_keys SET retired_at = ? WHERE retired_at IS NULL').run(now)
      return { keyId: createKey(db, dataDir, now), retired }
    })
    .immediate()
}

export function publicKeys(db: Sqlite): PublicKeyInfo[] {
  return (
    db
      .prepare(
        'SELECT key_id AS keyId, public_key AS pem, created_at AS createdAt, retired_at AS retiredAt FROM check_signing_keys ORDER BY created_at, key_id',
      )
      .all() as { keyId: string; pem: string; createdAt: number; retiredAt: number | null }[]
  ).map((r) => ({
    key_id: r.keyId,
    algorithm: 'Ed25519',
    public_key_pem: r.pem,
    created_at: new Date(r.createdAt).toISOString(),
    retired_at: r.retiredAt === null ? null : new Date(r.retiredAt).toISOString(),
  }))
}

/** A public key from its PEM (null when it is not one). */
export function publicKeyOf(pem: string): KeyObject | null {
  try {
    return createPublicKey(pem)
  } catch {
    return null
  }
}

/** Checks an Ed25519 signature (base64) over a hash (hex). */
export function verifySignature(key: KeyObject, hashHex: string, signature: string): boolean {
  try {
    return verify(null, Buffer.from(hashHex, 'hex'), key, Buffer.from(signature, 'base64'))
  } catch {
    return false
  }
}
