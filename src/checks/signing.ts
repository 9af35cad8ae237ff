/**
 * The Ed25519 keys that sign checks. Private halves are PEM files in `DATA_DIR/signing/` (mode
 * 0600, directory 0700); public halves are in app.db (`check_signing_keys`) so verification and
 * exports never need a private key.
 *
 * Every key is introduced by a signed document (`introduction`): the first key by itself, each
 * later key by the key it replaces. `proveKeys` follows that history from a trusted first key (the
 * fingerprint in CHECKS_TRUSTED_KEY, else the one recorded in `DATA_DIR/signing/trusted-root` when
 * the first key was made), so a public key added or replaced in app.db by someone without a private
 * key is refused by name. The export's verify.mjs applies the same rules to public-keys.json.
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
  fingerprint: string
  sign(hashHex: string): string
}

export interface PublicKeyInfo {
  key_id: string
  /** sha256 hex of the SPKI DER public key */
  fingerprint: string
  algorithm: 'Ed25519'
  public_key_pem: string
  created_at: string
  retired_at: string | null
  /** the signed introduction (JSON text); null for a key made before introductions existed */
  introduction: string | null
  /** base64 Ed25519 signature of sha256(introduction) by `introduced_by` */
  introduction_signature: string | null
  introduced_by: string | null
}

/** The signed text that introduces a key. */
export interface KeyIntroduction {
  type: 'signing_key'
  key_id: string
  fingerprint: string
  algorithm: 'Ed25519'
  public_key_pem: string
  created_at: string
  /** the key this one replaces and which signed this introduction; null for the first key */
  previous_key_id: string | null
}

export const signingDir = (dataDir: string) => join(dataDir, 'signing')
const privatePath = (dataDir: string, keyId: string) => join(signingDir(dataDir), `${keyId}.pem`)
const rootPath = (dataDir: string) => join(signingDir(dataDir), 'trusted-root')

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')

/** sha256 hex of the public key (SPKI DER): what a third party pins. */
export const fingerprintOf = (pub: KeyObject) =>
  sha256Hex(pub.export({ type: 'spki', format: 'der' }))

/** First 16 hex digits of the fingerprint. */
export const keyIdOf = (pub: KeyObject) => fingerprintOf(pub).slice(0, 16)

/** A fingerprint as typed by a person (colons, spaces, upper case) in its stored form. */
export const normalizeFingerprint = (v: string) => v.replaceAll(/[\s:]/g, '').toLowerCase()

/** Groups of four hex digits, for reading aloud and printing. */
export const formatFingerprint = (fp: string) => fp.replaceAll(/(.{4})(?=.)/g, '$1 ')

const signerOf = (keyId: string, fingerprint: string, key: KeyObject): Signer => ({
  keyId,
  fingerprint,
  sign: (hashHex) => sign(null, Buffer.from(hashHex, 'hex'), key).toString('base64'),
})

/** Parsed private keys by file path: a key file never changes once written. */
const loaded = new Map<string, Signer>()

function load(dataDir: string, keyId: string): Signer {
  const path = privatePath(dataDir, keyId)
  let s = loaded.get(path)
  if (!s) {
    const priv = createPrivateKey(readFileSync(path))
    s = signerOf(keyId, fingerprintOf(createPublicKey(priv)), priv)
    loaded.set(path, s)
  }
  return s
}

const hasPrivate = (dataDir: string, keyId: string) =>
  loaded.has(privatePath(dataDir, keyId)) || existsSync(privatePath(dataDir, keyId))

function introduce(
  pub: KeyObject,
  createdAt: number,
  previous: string | null,
): { text: string; intro: KeyIntroduction } {
  const fingerprint = fingerprintOf(pub)
  const intro: KeyIntroduction = {
    type: 'signing_key',
    key_id: fingerprint.slice(0, 16),
    fingerprint,
    algorithm: 'Ed25519',
    public_key_pem: String(pub.export({ type: 'spki', format: 'pem' })),
    created_at: new Date(createdAt).toISOString(),
    previous_key_id: previous,
  }
  return { text: JSON.stringify(intro), intro }
}

export interface NewKey {
  keyId: string
  fingerprint: string
  /** the key that signed its introduction (null: it introduced itself, a first key) */
  introducedBy: string | null
}

/** Makes a key, introduced by `previous` (or by itself when there is none). */
function createKey(db: Sqlite, dataDir: string, now: number, previous: Signer | null): NewKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const { text, intro } = introduce(publicKey, now, previous?.keyId ?? null)
  mkdirSync(signingDir(dataDir), { recursive: true, mode: 0o700 })
  const path = privatePath(dataDir, intro.key_id)
  writeFileSync(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), {
    mode: 0o600,
    flag: 'wx',
  })
  chmodSync(path, 0o600)
  const self = signerOf(intro.key_id, intro.fingerprint, privateKey)
  const by = previous ?? self
  db.prepare(
    `INSERT INTO check_signing_keys (key_id, public_key, created_at, fingerprint, introduction,
       introduction_signature, introduced_by) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    intro.key_id,
    intro.public_key_pem,
    now,
    intro.fingerprint,
    text,
    by.sign(sha256Hex(text)),
    by.keyId,
  )
  if (!previous && !existsSync(rootPath(dataDir)))
    writeFileSync(rootPath(dataDir), `${intro.fingerprint}\n`, { mode: 0o600 })
  return {
    keyId: intro.key_id,
    fingerprint: intro.fingerprint,
    introducedBy: previous?.keyId ?? null,
  }
}

/**
 * Gives keys made before introductions existed their introduction, signed by the key before them
 * (the first by itself), where that private key is at hand; a key that cannot be introduced stays
 * without one and is refused by `proveKeys`.
 */
export function introduceLegacyKeys(db: Sqlite, dataDir: string): number {
  const rows = db
    .prepare(
      'SELECT key_id AS keyId, public_key AS pem, created_at AS createdAt, introduction FROM check_signing_keys ORDER BY created_at, key_id',
    )
    .all() as { keyId: string; pem: string; createdAt: number; introduction: string | null }[]
  let done = 0
  let previous: string | null = null
  for (const r of rows) {
    if (r.introduction === null) {
      const by = previous ?? r.keyId
      const pub = publicKeyOf(r.pem)
      if (!pub || keyIdOf(pub) !== r.keyId || !hasPrivate(dataDir, by)) return done
      const signer = load(dataDir, by)
      const { text, intro } = introduce(pub, r.createdAt, previous)
      db.prepare(
        `UPDATE check_signing_keys SET fingerprint = ?, introduction = ?, introduction_signature = ?,
           introduced_by = ? WHERE key_id = ? AND introduction IS NULL`,
      ).run(intro.fingerprint, text, signer.sign(sha256Hex(text)), by, r.keyId)
      if (previous === null && !existsSync(rootPath(dataDir))) {
        mkdirSync(signingDir(dataDir), { recursive: true, mode: 0o700 })
        writeFileSync(rootPath(dataDir), `${intro.fingerprint}\n`, { mode: 0o600 })
      }
      done++
    }
    previous = r.keyId
  }
  return done
}

/** The current signing key (the first is made, introducing itself, on first use). */
export function currentSigner(
  db: Sqlite,
  dataDir: string,
  now: number,
  onCreate?: (k: NewKey) => void,
): Signer {
  const rows = db
    .prepare(
      'SELECT key_id AS keyId, introduction FROM check_signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC, key_id',
    )
    .all() as { keyId: string; introduction: string | null }[]
  if (rows.some((r) => r.introduction === null)) introduceLegacyKeys(db, dataDir)
  for (const { keyId } of rows) if (hasPrivate(dataDir, keyId)) return load(dataDir, keyId)
  const made = db
    .transaction(() => createKey(db, dataDir, now, latestSigner(db, dataDir)))
    .immediate()
  onCreate?.(made)
  return load(dataDir, made.keyId)
}

/** The newest key whose private half is at hand (retired or not), to introduce the next one. */
function latestSigner(db: Sqlite, dataDir: string): Signer | null {
  const rows = db
    .prepare('SELECT key_id AS keyId FROM check_signing_keys ORDER BY created_at DESC, key_id')
    .all() as { keyId: string }[]
  const at = rows.find((r) => hasPrivate(dataDir, r.keyId))
  return at ? load(dataDir, at.keyId) : null
}

/** Retires every current key and makes a new one, introduced by the newest key at hand. */
export function rotateSigningKey(
  db: Sqlite,
  dataDir: string,
  now: number,
): NewKey & { retired: string[] } {
  introduceLegacyKeys(db, dataDir)
  return db
    .transaction(() => {
      const retired = (
        db
          .prepare('SELECT key_id AS keyId FROM check_signing_keys WHERE retired_at IS NULL')
          .all() as { keyId: string }[]
      ).map((r) => r.keyId)
      const previous = latestSigner(db, dataDir)
      db.prepare('UPDATE check_signing_keys SET retired_at = ? WHERE retired_at IS NULL').run(now)
      return { ...createKey(db, dataDir, now, previous), retired }
    })
    .immediate()
}

export function publicKeys(db: Sqlite): PublicKeyInfo[] {
  return (
    db
      .prepare(
        `SELECT key_id AS keyId, public_key AS pem, created_at AS createdAt, retired_at AS retiredAt,
           introduction, introduction_signature AS sig, introduced_by AS introducedBy
         FROM check_signing_keys ORDER BY created_at, key_id`,
      )
      .all() as {
      keyId: string
      pem: string
      createdAt: number
      retiredAt: number | null
      introduction: string | null
      sig: string | null
      introducedBy: string | null
    }[]
  ).map((r) => {
    const pub = publicKeyOf(r.pem)
    return {
      key_id: r.keyId,
      fingerprint: pub ? fingerprintOf(pub) : '',
      algorithm: 'Ed25519',
      public_key_pem: r.pem,
      created_at: new Date(r.createdAt).toISOString(),
      retired_at: r.retiredAt === null ? null : new Date(r.retiredAt).toISOString(),
      introduction: r.introduction,
      introduction_signature: r.sig,
      introduced_by: r.introducedBy,
    }
  })
}

/** The first key's fingerprint the appliance recorded when it made it (null when none). */
export function recordedRoot(dataDir: string): string | null {
  try {
    return normalizeFingerprint(readFileSync(rootPath(dataDir), 'utf8')) || null
  } catch {
    return null
  }
}

/** The fingerprint(s) the key history is proven from: CHECKS_TRUSTED_KEY, else the recorded first key. */
export function trustPins(dataDir: string, trustedKey: string | null): string[] {
  const pin = trustedKey ?? recordedRoot(dataDir)
  return pin ? [pin] : []
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

export interface KeyProof {
  /** the keys proven, by key id */
  proven: Map<string, { key: KeyObject; fingerprint: string }>
  /** one line per key or key change that cannot be proven, naming it */
  problems: string[]
  /** the fingerprints trusted as the start of the history, and whether they were pinned */
  roots: string[]
  pinned: boolean
}

/**
 * Follows the key history: a key is proven when it is a trusted first key (a pinned fingerprint,
 * else the single key that introduces itself) or its introduction names it exactly and is signed
 * by a proven key. Every other key is a problem.
 */
export function proveKeys(keys: readonly PublicKeyInfo[], pins: readonly string[]): KeyProof {
  const problems: string[] = []
  const candidates = new Map<
    string,
    { key: KeyObject; fingerprint: string; intro: KeyIntroduction | null; info: PublicKeyInfo }
  >()
  for (const k of keys) {
    const key = publicKeyOf(k.public_key_pem)
    if (!key || key.asymmetricKeyType !== 'ed25519') {
      problems.push(`key ${k.key_id}: not an Ed25519 public key`)
      continue
    }
    const fingerprint = fingerprintOf(key)
    if (fingerprint.slice(0, 16) !== k.key_id) {
      problems.push(
        `key ${k.key_id}: its public key has fingerprint ${fingerprint}, not this key id (the key was replaced)`,
      )
      continue
    }
    let intro: KeyIntroduction | null = null
    try {
      intro = k.introduction === null ? null : (JSON.parse(k.introduction) as KeyIntroduction)
    } catch {
      intro = null
    }
    if (
      intro &&
      (intro.type !== 'signing_key' ||
        intro.key_id !== k.key_id ||
        intro.fingerprint !== fingerprint ||
        intro.public_key_pem !== k.public_key_pem ||
        (intro.previous_key_id ?? k.key_id) !== k.introduced_by)
    ) {
      problems.push(`key ${k.key_id}: its introduction names another key`)
      continue
    }
    candidates.set(k.key_id, { key, fingerprint, intro, info: k })
  }
  const proven = new Map<string, { key: KeyObject; fingerprint: string }>()
  const introducedBy = (id: string, by: string) => {
    const c = candidates.get(id)
    const signer = by === id ? c : proven.get(by)
    return Boolean(
      c?.info.introduction &&
      c.info.introduction_signature &&
      signer &&
      verifySignature(signer.key, sha256Hex(c.info.introduction), c.info.introduction_signature),
    )
  }
  const pinned = pins.length > 0
  let roots: string[]
  if (pinned) {
    roots = [...pins]
    for (const fp of pins) {
      const c = [...candidates.values()].find((x) => x.fingerprint === fp)
      if (!c) problems.push(`no key with the trusted fingerprint ${fp}`)
      else proven.set(c.info.key_id, c)
    }
  } else {
    const firsts = [...candidates.values()].filter(
      (c) => c.intro?.previous_key_id === null && introducedBy(c.info.key_id, c.info.key_id),
    )
    if (firsts.length > 1)
      problems.push(
        `more than one key introduces itself (${firsts.map((c) => c.info.key_id).join(', ')}): pin the genuine first key's fingerprint`,
      )
    else if (firsts[0]) proven.set(firsts[0].info.key_id, firsts[0])
    roots = firsts.length === 1 && firsts[0] ? [firsts[0].fingerprint] : []
  }
  // each pass proves the keys introduced by an already proven key
  for (let grew = true; grew;) {
    grew = false
    for (const [id, c] of candidates) {
      if (proven.has(id) || !c.intro?.previous_key_id) continue
      if (proven.has(c.intro.previous_key_id) && introducedBy(id, c.intro.previous_key_id)) {
        proven.set(id, c)
        grew = true
      }
    }
  }
  for (const [id, c] of candidates)
    if (!proven.has(id))
      problems.push(
        c.intro === null
          ? `key ${id} (fingerprint ${c.fingerprint}) has no introduction: it cannot be proven`
          : `key ${id} (fingerprint ${c.fingerprint}) is not introduced by a trusted key`,
      )
  return { proven, problems, roots, pinned }
}
