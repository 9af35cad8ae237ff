import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { openAppDb, type AppDb } from '../db/app-db.ts'
import { createAccount, setPlan, suspendAccount, resumeAccount } from './accounts.ts'
import { createKey, revokeKey, rotateKey, verifyKey } from './keys.ts'

// Two connections to one app.db file stand for the server and a CLI in another process.
let dir: string
let server: AppDb
let cli: AppDb
const NOW = Date.parse('2026-11-15T12:00:00Z')
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cvk-keys-'))
  server = openAppDb(join(dir, 'app.db'))
  cli = openAppDb(join(dir, 'app.db'))
})
afterEach(() => {
  server.sqlite.close()
  cli.sqlite.close()
  rmSync(dir, { recursive: true, force: true })
})

function liveKey(db: AppDb) {
  const account = createAccount(db.sqlite, { name: 'acme', plan: 'starter' }, NOW)
  return { account, ...createKey(db.sqlite, { accountId: account.id, mode: 'live' }, NOW) }
}

describe('the caller cache', () => {
  test('a key revoked by another connection fails on the very next call', () => {
    const { key, secret } = liveKey(cli)
    expect(verifyKey(server.sqlite, secret, NOW).ok).toBe(true)
    expect(verifyKey(server.sqlite, secret, NOW + 1).ok).toBe(true) // served from the cache
    revokeKey(cli.sqlite, key.id, NOW + 2)
    expect(verifyKey(server.sqlite, secret, NOW + 3)).toEqual({ ok: false, reason: 'revoked' })
  })

  test('suspension, resumption and a plan change from another connection apply at once', () => {
    const { account, secret } = liveKey(cli)
    const first = verifyKey(server.sqlite, secret, NOW)
    expect(first.ok && first.caller.plan).toBe('starter')
    suspendAccount(cli.sqlite, account.id, 'unpaid', NOW + 1)
    expect(verifyKey(server.sqlite, secret, NOW + 2)).toEqual({
      ok: false,
      reason: 'suspended',
      accountId: account.id,
      mode: 'live',
    })
    resumeAccount(cli.sqlite, account.id)
    setPlan(cli.sqlite, account.id, 'professional', undefined, NOW + 3)
    const after = verifyKey(server.sqlite, secret, NOW + 4)
    expect(after.ok && after.caller.plan).toBe('professional')
  })

  test('a rotated key keeps working through its grace period and not one millisecond after', () => {
    const { key, secret } = liveKey(cli)
    expect(verifyKey(server.sqlite, secret, NOW).ok).toBe(true)
    const rotated = rotateKey(cli.sqlite, key.id, NOW, 60_000)
    expect(verifyKey(server.sqlite, secret, NOW + 59_999).ok).toBe(true)
    expect(verifyKey(server.sqlite, secret, NOW + 60_000)).toEqual({ ok: false, reason: 'expired' })
    expect(verifyKey(server.sqlite, rotated.secret, NOW + 60_000).ok).toBe(true)
  })

  test('last_used_at is written at most once a minute and does not empty the cache', () => {
    const { key, secret } = liveKey(cli)
    const lastUsed = () =>
      cli.sqlite.prepare('SELECT last_used_at FROM api_keys WHERE id = ?').pluck().get(key.id) as
        number | null
    const epoch = () => cli.sqlite.prepare('SELECT epoch FROM auth_epoch').pluck().get() as number
    verifyKey(server.sqlite, secret, NOW)
    expect(lastUsed()).toBe(NOW)
    const e = epoch()
    verifyKey(server.sqlite, secret, NOW + 30_000)
    expect(lastUsed()).toBe(NOW)
    verifyKey(server.sqlite, secret, NOW + 60_001)
    expect(lastUsed()).toBe(NOW + 60_001)
    expect(epoch()).toBe(e)
  })
})
