import { statSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { appendEntry, GENESIS, verifyLedger, type LedgerEntry } from './ledger.ts'
import { pruneChecks, retentionCutoff } from './retention.ts'
import { currentSigner, publicKeys, rotateSigningKey, signingDir } from './signing.ts'

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
    expect(verifyLedger(ctx.deps.db)).toEqual({ ok: true, accounts: 2, rows: 3, first_break: null })
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
    expect(verifyLedger(db).first_break?.problem).toContain('unknown signing key')
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
