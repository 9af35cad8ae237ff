import { statSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { appendEntry, GENESIS, verifyLedger, type LedgerEntry } from './ledger.ts'
import { pruneChecks, retentionCutoff } from './retention.ts'
import { createHash, generateKeyPairSync, sign } from 'node:crypto'
import {
  currentSigner,
  publicKeys,
  recordedRoot,
  rotateSigningKey,
  signingDir,
  trustPins,
} from './signing.ts'

let ctx: TestContext
beforeEach(async () => {
  ctx = await createTestContext({ now: '2026-11-15T12:00:00Z' })
})
afterEach(() => ctx.close())

let n = 0
function entry(accountId: number, at: number): LedgerEntry {
  const id = `chk_test${String(++n).padStart(12, '0')}`
  return {
    kind: 'check',
    chain: 'live',
    id,
    checkId: id,
    accountId,
    apiKeyId: 1,
    dotNumber: 1000001,
    reference: null,
    verdict: 'pass',
    createdAt: at,
    document: JSON.stringify({
      type: 'check',
      check_id: id,
      account_id: accountId,
      dot_number: '1000001',
      verdict: 'pass',
      api_key: { id: 1, mode: 'live' },
    }),
  }
}

const signer = () => currentSigner(ctx.deps.db, ctx.config.paths.dataDir, ctx.clock().getTime())
const append = (accountId: number, at = ctx.clock().getTime()) =>
  appendEntry(ctx.deps.db, signer(), entry(accountId, at))

describe('the signed chain', () => {
  test('each account has its own chain from GENESIS; the key file is 0600', () => {
    const a1 = append(1)
    const a2 = append(1)
    const b1 = append(2)
    expect(a1.prevHash).toBe(GENESIS)
    expect(a2.prevHash).toBe(a1.hash)
    expect(b1.prevHash).toBe(GENESIS)
    expect(verifyLedger(ctx.deps.db)).toMatchObject({
      ok: true,
      accounts: 2,
      rows: 3,
      first_break: null,
    })
    const [key] = publicKeys(ctx.deps.db)
    expect(
      statSync(`${signingDir(ctx.config.paths.dataDir)}/${key?.key_id ?? ''}.pem`).mode & 0o777,
    ).toBe(0o600)
  })

  test('a changed document, a changed column, a deleted or reordered row is the first break', () => {
    const rows = [append(1), append(1), append(1), append(1)]
    const db = ctx.deps.db
    const [r0, r1, r2] = rows as [(typeof rows)[0], (typeof rows)[0], (typeof rows)[0]]
    db.prepare('UPDATE checks SET document = replace(document, ?, ?) WHERE seq = ?').run(
      '"pass"',
      '"fail"',
      r1.seq,
    )
    expect(verifyLedger(db).first_break).toMatchObject({
      seq: r1.seq,
      problem: expect.stringContaining('document was changed'),
    })
    db.prepare('UPDATE checks SET document = ? WHERE seq = ?').run(r1.document, r1.seq)
    expect(verifyLedger(db).ok).toBe(true)

    db.prepare("UPDATE checks SET verdict = 'fail' WHERE seq = ?").run(r0.seq)
    expect(verifyLedger(db).first_break).toMatchObject({
      seq: r0.seq,
      problem: expect.stringContaining('indexed columns'),
    })
    db.prepare("UPDATE checks SET verdict = 'pass' WHERE seq = ?").run(r0.seq)

    db.prepare('DELETE FROM checks WHERE seq = ?').run(r1.seq)
    expect(verifyLedger(db).first_break).toMatchObject({
      seq: r2.seq,
      problem: expect.stringContaining('deleted'),
    })
  })

  test('a forged signature or an unknown key is a break', () => {
    const r = append(1)
    const db = ctx.deps.db
    db.prepare('UPDATE checks SET signature = ? WHERE seq = ?').run(
      Buffer.alloc(64).toString('base64'),
      r.seq,
    )
    expect(verifyLedger(db).first_break?.problem).toBe('signature does not verify')
    db.prepare(
      "UPDATE checks SET signature = ?, signing_key_id = 'ffffffffffffffff' WHERE seq = ?",
    ).run(r.signature, r.seq)
    expect(verifyLedger(db).first_break?.problem).toContain('unknown or unproven signing key')
  })

  test('rotation: new checks use the new key, old ones keep verifying', () => {
    const before = append(1)
    const { keyId, retired } = rotateSigningKey(
      ctx.deps.db,
      ctx.config.paths.dataDir,
      ctx.clock().getTime(),
    )
    expect(retired).toEqual([before.signingKeyId])
    const after = append(1)
    expect(after.signingKeyId).toBe(keyId)
    expect(after.signingKeyId).not.toBe(before.signingKeyId)
    const keys = new Map(publicKeys(ctx.deps.db).map((k) => [k.key_id, k.retired_at]))
    expect(keys.get(before.signingKeyId)).toEqual(expect.any(String))
    expect(keys.get(keyId)).toBeNull()
    expect(verifyLedger(ctx.deps.db).ok).toBe(true)
  })

  test('retention prunes the oldest prefix and the rest still verifies from the anchor', () => {
    const YEAR = 365 * 86_400_000
    const now = ctx.clock().getTime()
    append(1, now - 9 * YEAR)
    const old = append(1, now - 8.5 * YEAR)
    const kept = append(1, now - 7 * YEAR)
    append(1, now)
    append(2, now - 9 * YEAR)
    expect(retentionCutoff(new Date('2026-11-15T12:00:00Z'), 8)).toBe(
      Date.parse('2018-11-15T12:00:00Z'),
    )
    expect(pruneChecks(ctx.deps)).toMatchObject({ deleted: 3, accounts: 2 })
    expect(kept.prevHash).toBe(old.hash)
    expect(
      ctx.deps.db
        .prepare(
          'SELECT account_id, seq, hash, pruned FROM check_chain_anchors ORDER BY account_id',
        )
        .all(),
    ).toEqual([
      { account_id: 1, seq: old.seq, hash: old.hash, pruned: 2 },
      expect.objectContaining({ account_id: 2, pruned: 1 }),
    ])
    expect(verifyLedger(ctx.deps.db)).toMatchObject({ ok: true, rows: 2 })
    // account 2's next check chains to its anchor
    const next = append(2)
    expect(verifyLedger(ctx.deps.db).ok).toBe(true)
    expect(next.prevHash).not.toBe(GENESIS)
    expect(pruneChecks(ctx.deps).deleted).toBe(0)
  })
})

describe('the key history (who can write app.db but holds no private key)', () => {
  const pins = () => trustPins(ctx.config.paths.dataDir, null)
  const sha = (d: string | Buffer) => createHash('sha256').update(d).digest('hex')

  /** An attacker's own key, introduced by itself, stored in app.db; it re-signs a row. */
  function addOwnKey(seq: number) {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519')
    const fp = sha(publicKey.export({ type: 'spki', format: 'der' }))
    const pem = String(publicKey.export({ type: 'spki', format: 'pem' }))
    const intro = JSON.stringify({
      type: 'signing_key',
      key_id: fp.slice(0, 16),
      fingerprint: fp,
      algorithm: 'Ed25519',
      public_key_pem: pem,
      created_at: '2026-11-15T12:00:00.000Z',
      previous_key_id: null,
    })
    const signHex = (hex: string) =>
      sign(null, Buffer.from(hex, 'hex'), privateKey).toString('base64')
    ctx.deps.db
      .prepare(
        `INSERT INTO check_signing_keys (key_id, public_key, created_at, fingerprint, introduction,
           introduction_signature, introduced_by) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(fp.slice(0, 16), pem, 1, fp, intro, signHex(sha(intro)), fp.slice(0, 16))
    const row = ctx.deps.db.prepare('SELECT hash FROM checks WHERE seq = ?').get(seq) as {
      hash: string
    }
    ctx.deps.db
      .prepare('UPDATE checks SET signing_key_id = ?, signature = ? WHERE seq = ?')
      .run(fp.slice(0, 16), signHex(row.hash), seq)
    return fp
  }

  test('the first key introduces itself and is recorded; a rotation is introduced by the old key', () => {
    append(1)
    ctx.clock.advance(1000)
    rotateSigningKey(ctx.deps.db, ctx.config.paths.dataDir, ctx.clock().getTime())
    append(1)
    const keys = publicKeys(ctx.deps.db)
    const first = keys.find((k) => k.introduced_by === k.key_id)
    const second = keys.find((k) => k.introduced_by !== k.key_id)
    expect(first?.introduced_by).toBe(first?.key_id)
    expect(second?.introduced_by).toBe(first?.key_id)
    expect(recordedRoot(ctx.config.paths.dataDir)).toBe(first?.fingerprint)
    const r = verifyLedger(ctx.deps.db, undefined, pins())
    expect(r).toMatchObject({ ok: true, pinned: true, key_problems: [] })
    expect(r.keys.map((k) => k.fingerprint).sort()).toEqual(
      [first?.fingerprint, second?.fingerprint].sort(),
    )
  })

  test('a key added to app.db is refused by name, pinned or not', () => {
    const row = append(1)
    const fp = addOwnKey(row.seq)
    const pinned = verifyLedger(ctx.deps.db, undefined, pins())
    expect(pinned.ok).toBe(false)
    expect(pinned.key_problems).toEqual([
      `key ${fp.slice(0, 16)} (fingerprint ${fp}) is not introduced by a trusted key`,
    ])
    expect(pinned.first_break?.problem).toContain(
      `unknown or unproven signing key ${fp.slice(0, 16)}`,
    )
    const unpinned = verifyLedger(ctx.deps.db)
    expect(unpinned.ok).toBe(false)
    expect(unpinned.key_problems[0]).toContain('more than one key introduces itself')
  })

  test('a public key replaced under the real key id is refused; CHECKS_TRUSTED_KEY must match', () => {
    append(1)
    const [real] = publicKeys(ctx.deps.db)
    const other = String(
      generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }),
    )
    ctx.deps.db.prepare('UPDATE check_signing_keys SET public_key = ?').run(other)
    const r = verifyLedger(ctx.deps.db, undefined, pins())
    expect(r.ok).toBe(false)
    expect(r.key_problems.join('\n')).toContain(
      `key ${real?.key_id ?? ''}: its public key has fingerprint`,
    )
    ctx.deps.db.prepare('UPDATE check_signing_keys SET public_key = ?').run(real?.public_key_pem)
    expect(verifyLedger(ctx.deps.db, undefined, pins()).ok).toBe(true)
    const wrong = verifyLedger(
      ctx.deps.db,
      undefined,
      trustPins(ctx.config.paths.dataDir, 'cd'.repeat(32)),
    )
    expect(wrong.key_problems[0]).toBe(`no key with the trusted fingerprint ${'cd'.repeat(32)}`)
  })

  test('a key made before introductions gets one from its private key', () => {
    append(1)
    ctx.deps.db
      .prepare(
        'UPDATE check_signing_keys SET introduction = NULL, introduction_signature = NULL, introduced_by = NULL',
      )
      .run()
    expect(verifyLedger(ctx.deps.db).key_problems[0]).toContain('has no introduction')
    append(1)
    expect(verifyLedger(ctx.deps.db, undefined, pins())).toMatchObject({ ok: true, rows: 2 })
  })
})
