import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { HOUR } from '../clock.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { liveCensusDir } from '../testing/fixture-dirs.ts'
import { runCliCaptured } from '../testing/cli.ts'

let ctx: TestContext
beforeEach(async () => {
  ctx = await createTestContext({ liveDir: liveCensusDir() })
})
afterEach(() => ctx.close())

const cli = (...argv: string[]) => runCliCaptured(ctx, argv)

describe('CLI', () => {
  test('accounts create --json prints an object with id; keys create --json prints id and secret', async () => {
    const a = await cli(
      'accounts',
      'create',
      '--name',
      'Acme Logistics',
      '--plan',
      'starter',
      '--interval',
      'yearly',
      '--json',
    )
    expect(a.code).toBe(0)
    const acct = a.json()
    expect(acct).toMatchObject({
      id: expect.any(Number),
      name: 'Acme Logistics',
      subscription: { plan: 'starter', interval: 'yearly', status: 'active', price_usd: 990 },
    })
    const k = await cli('keys', 'create', '--account', String(acct.id), '--json')
    expect(k.code).toBe(0)
    const key = k.json()
    expect(key).toMatchObject({
      id: expect.any(Number),
      mode: 'live',
      secret: expect.stringMatching(/^cvk_live_[A-Za-z0-9_-]{43}$/),
    })
    const s = await cli('keys', 'create', '--account', String(acct.id), '--sandbox', '--json')
    expect(s.json().secret).toMatch(/^cvk_test_/)
    const res = await ctx.get('/v1/carrier/344554', key.secret as string)
    expect(res.status).toBe(200)
  })

  test('without --json the secret alone goes to stdout, messages to stderr', async () => {
    const a = await cli('accounts', 'create', '--name', 'Plain', '--plan', 'free')
    expect(a.stdout).toMatch(/^\d+\n$/)
    const k = await cli('keys', 'create', '--account', a.stdout.trim())
    expect(k.stdout).toMatch(/^cvk_live_[A-Za-z0-9_-]{43}\n$/)
    expect(k.stderr).toContain('shown only once')
  })

  test('secrets are never listed again', async () => {
    const a = ctx.account('starter')
    const secret = a.key()
    const list = await cli('keys', 'list', '--json')
    expect(list.stdout).not.toContain(secret)
    expect(list.stdout).toContain(secret.slice(0, 13))
  })

  test('keys rotate: new secret works at once, old one until the grace period ends', async () => {
    const a = ctx.account('starter')
    const old = a.key()
    const id = (
      ctx.deps.db.prepare('SELECT id FROM api_keys WHERE account_id = ?').get(a.account.id) as {
        id: number
      }
    ).id
    const r = await cli('keys', 'rotate', String(id), '--grace-hours', '2', '--json')
    expect(r.code).toBe(0)
    const fresh = r.json().secret as string
    expect((await ctx.get('/v1/carrier/344554', fresh)).status).toBe(200)
    expect((await ctx.get('/v1/carrier/344554', old)).status).toBe(200)
    ctx.clock.advance(2 * HOUR)
    expect((await ctx.get('/v1/carrier/344554', old)).status).toBe(401)
    expect((await ctx.get('/v1/carrier/344554', fresh)).status).toBe(200)
  })

  test('keys revoke takes effect at once', async () => {
    const a = ctx.account('starter')
    const secret = a.key()
    const id = (
      ctx.deps.db.prepare('SELECT id FROM api_keys WHERE account_id = ?').get(a.account.id) as {
        id: number
      }
    ).id
    expect((await cli('keys', 'revoke', String(id))).code).toBe(0)
    expect((await ctx.get('/v1/carrier/344554', secret)).status).toBe(401)
    expect((await cli('keys', 'revoke', String(id))).code).toBe(1)
  })

  test('set-plan, cancel, suspend, resume', async () => {
    const a = ctx.account('free')
    const secret = a.key()
    const id = String(a.account.id)
    expect(
      (await cli('accounts', 'set-plan', id, '--plan', 'scale', '--json')).json(),
    ).toMatchObject({ subscription: { plan: 'scale', interval: 'monthly' } })
    expect((await cli('accounts', 'suspend', id, '--reason', 'unpaid invoice')).code).toBe(0)
    expect((await ctx.get('/v1/carrier/344554', secret)).status).toBe(402)
    expect((await cli('accounts', 'resume', id)).code).toBe(0)
    expect((await ctx.get('/v1/carrier/344554', secret)).status).toBe(200)
    const c = (await cli('accounts', 'cancel', id, '--json')).json()
    expect(c).toMatchObject({ subscription: { status: 'canceled' } })
    expect((await ctx.get('/v1/carrier/344554', secret)).status).toBe(200) // paid month runs on
    ctx.clock.advance(32 * 24 * HOUR)
    expect((await ctx.get('/v1/carrier/344554', secret)).status).toBe(402)
    const show = (await cli('accounts', 'show', id, '--json')).json()
    expect(show).toMatchObject({
      id: a.account.id,
      keys: [expect.objectContaining({ mode: 'live' })],
    })
  })

  test('usage shows included, used, overage calls and charge', async () => {
    const a = ctx.account('starter')
    ctx.deps.db
      .prepare("INSERT INTO usage_counters (account_id, period, used) VALUES (?, '2026-10', 10250)")
      .run(a.account.id)
    const u = await cli('usage', '--account', String(a.account.id), '--month', '2026-10', '--json')
    expect(u.code).toBe(0)
    expect(u.json()).toMatchObject({
      period: '2026-10',
      plan: 'starter',
      included: 10000,
      used: 10250,
      overage_calls: 250,
      overage_charge_usd: 2.25,
    })
    const table = await cli('usage', '--month', '2026-10')
    expect(table.stdout).toContain('10250')
  })

  test.each([
    [['accounts', 'create', '--plan', 'starter'], 2, /name/],
    [['accounts', 'create', '--name', 'X', '--plan', 'gold'], 2, /plan must be one of/],
    [
      ['accounts', 'create', '--name', 'X', '--plan', 'free', '--interval', 'yearly'],
      2,
      /free plan has no billing interval/,
    ],
    [['accounts', 'create', '--name', 'X', '--plan', 'starter', '--bogus'], 2, /bogus/],
    [['accounts', 'show', 'abc'], 2, /^usage error: expected a number \(got "abc"\)\n$/],
    [['accounts', 'show', '999'], 1, /No account with id 999/],
    [['keys', 'create', '--account', '999'], 1, /No account/],
    [['keys', 'rotate'], 2, /expected one key id/],
    [['usage', '--month', '2026-13'], 2, /YYYY-MM/],
    [['frobnicate'], 2, /unknown command/],
    [['accounts', 'frobnicate'], 2, /unknown accounts command/],
    [['import'], 2, /--dir is required/],
    [['import', '--dir', '/nonexistent/dir'], 2, /no such directory/],
  ])('%j exits %i', async (argv, code, message) => {
    const r = await cli(...argv)
    expect(r.code).toBe(code)
    expect(r.stderr).toMatch(message)
    expect(r.stdout).toBe('')
  })

  test('--help prints usage and exits 0', async () => {
    const r = await cli('--help')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('accounts create --name NAME --plan PLAN')
    expect((await cli('keys', 'create', '--help')).stdout).toContain('--sandbox')
  })

  test.each(['keys', 'accounts', 'sync', 'webhooks'])(
    '%s --help prints the group help and exits 0',
    async (group) => {
      for (const flag of ['--help', '-h']) {
        const r = await cli(group, flag)
        expect(r.code).toBe(0)
        expect(r.stderr).toBe('')
        expect(r.stdout).toContain(`carrier-verify ${group} `)
        expect(
          r.stdout.split('\n').filter((l) => l.startsWith(`  carrier-verify ${group} `)).length,
        ).toBeGreaterThan(1)
      }
    },
  )

  test.each([
    [['accounts', 'create', '--plan', 'starter'], 'usage error: --name is required\n'],
    [['keys', 'create'], 'usage error: --account is required\n'],
    [['keys', 'create', '--account', 'x'], 'usage error: --account: expected a number (got "x")\n'],
    [
      ['keys', 'create', '--account', '0'],
      'usage error: --account: must be more than 0 (got "0")\n',
    ],
    [['keys', 'revoke', 'abc'], 'usage error: expected a number (got "abc")\n'],
  ])('%j: a one-line message naming the option', async (argv, message) => {
    const r = await cli(...argv)
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(message)
  })

  test('mutating commands print a sentence without --json and the stable object with it', async () => {
    const a = await cli('accounts', 'create', '--name', 'Sentences', '--plan', 'starter')
    const id = a.stdout.trim()
    const runs: [string[], RegExp][] = [
      [['accounts', 'set-plan', id, '--plan', 'professional'], /^Account \d+ /],
      [['accounts', 'suspend', id], /^Account \d+ /],
      [['accounts', 'resume', id], /^Account \d+ /],
      [['keys', 'create', '--account', id], /Created live key/],
      [['backup', '--out', `${ctx.dir}/b`], /Backed up app.db to /],
    ]
    for (const [argv, sentence] of runs) {
      const plain = await cli(...argv)
      expect(plain.code, argv.join(' ')).toBe(0)
      expect(plain.stderr, argv.join(' ')).toMatch(sentence)
      const withJson = await cli(...argv, '--json')
      expect(withJson.code, argv.join(' ')).toBe(0)
      expect(withJson.stdout, argv.join(' ')).toMatch(/^\{/)
      expect(typeof withJson.json(), argv.join(' ')).toBe('object')
    }
    const keys = (await cli('keys', 'list', '--account', id, '--json')).json() as unknown as {
      id: number
    }[]
    expect(keys).toHaveLength(2)
    const revoke = await cli('keys', 'revoke', String(keys[0]?.id))
    expect(revoke.stderr).toMatch(/^Revoked key \d+/)
    expect((await cli('keys', 'revoke', String(keys[1]?.id), '--json')).json()).toMatchObject({
      status: 'revoked',
    })
  })

  test('a storage failure is one line naming it, exit 1', async () => {
    ctx.deps.db.pragma('query_only = ON')
    try {
      const r = await cli('accounts', 'create', '--name', 'Full', '--plan', 'starter')
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/^error: storage unavailable \(SQLITE_READONLY\): .*free space\n$/)
    } finally {
      ctx.deps.db.pragma('query_only = OFF')
    }
  })
})
