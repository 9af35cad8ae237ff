import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { HOUR } from '../clock.ts'
import { cancelSubscription, suspendAccount } from '../keys/accounts.ts'
import { createKey, revokeKey, rotateKey } from '../keys/keys.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { liveCensusDir, sampleCensusDir } from '../testing/fixture-dirs.ts'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext({ liveDir: liveCensusDir(), sampleDir: sampleCensusDir() })
})
afterAll(() => ctx.close())

const now = () => ctx.clock().getTime()

describe('API key authentication', () => {
  const cases: [string, () => Record<string, string>, number, string][] = [
    ['no Authorization header', () => ({}), 401, 'unauthorized'],
    ['wrong scheme (Basic)', () => ({ authorization: 'Basic dXNlcjpwYXNz' }), 401, 'unauthorized'],
    ['Bearer with nothing', () => ({ authorization: 'Bearer ' }), 401, 'unauthorized'],
    ['malformed key', () => ({ authorization: 'Bearer cvk_live_short' }), 401, 'unauthorized'],
    [
      'wrong prefix',
      () => ({ authorization: `Bearer sk_live_${'a'.repeat(43)}` }),
      401,
      'unauthorized',
    ],
    [
      'unknown well-formed key',
      () => ({ authorization: `Bearer cvk_live_${'A'.repeat(43)}` }),
      401,
      'unauthorized',
    ],
    [
      'revoked key',
      () => {
        const { key, secret } = createKey(
          ctx.deps.db,
          { accountId: ctx.account('starter').account.id, mode: 'live' },
          now(),
        )
        revokeKey(ctx.deps.db, key.id, now())
        return { authorization: `Bearer ${secret}` }
      },
      401,
      'unauthorized',
    ],
    [
      'old key past its rotation grace period',
      () => {
        const { key, secret } = createKey(
          ctx.deps.db,
          { accountId: ctx.account('starter').account.id, mode: 'live' },
          now() - 48 * HOUR,
        )
        rotateKey(ctx.deps.db, key.id, now() - 25 * HOUR, 24 * HOUR)
        return { authorization: `Bearer ${secret}` }
      },
      401,
      'unauthorized',
    ],
    [
      'old key within its rotation grace period',
      () => {
        const { key, secret } = createKey(
          ctx.deps.db,
          { accountId: ctx.account('starter').account.id, mode: 'live' },
          now(),
        )
        rotateKey(ctx.deps.db, key.id, now() - HOUR, 24 * HOUR)
        return { authorization: `Bearer ${secret}` }
      },
      200,
      '',
    ],
    [
      'suspended account',
      () => {
        const a = ctx.account('starter')
        const k = a.key()
        suspendAccount(ctx.deps.db, a.account.id, 'unpaid', now())
        return { authorization: `Bearer ${k}` }
      },
      402,
      'payment_required',
    ],
    [
      'cancelled monthly subscription past its period end',
      () => {
        const a = ctx.account('starter')
        const k = a.key()
        ctx.deps.db
          .prepare('UPDATE subscriptions SET period_end = ? WHERE account_id = ?')
          .run(now() - 1000, a.account.id)
        cancelSubscription(ctx.deps.db, a.account.id, now() - 2000)
        return { authorization: `Bearer ${k}` }
      },
      402,
      'payment_required',
    ],
    [
      'cancelled yearly subscription still inside the paid year',
      () => {
        const a = ctx.account('scale', { interval: 'yearly' })
        const k = a.key()
        cancelSubscription(ctx.deps.db, a.account.id, now())
        return { authorization: `Bearer ${k}` }
      },
      200,
      '',
    ],
    [
      'past_due subscription',
      () => {
        const a = ctx.account('starter')
        const k = a.key()
        ctx.deps.db
          .prepare("UPDATE subscriptions SET status = 'past_due' WHERE account_id = ?")
          .run(a.account.id)
        return { authorization: `Bearer ${k}` }
      },
      402,
      'payment_required',
    ],
    [
      'valid live key',
      () => ({ authorization: `Bearer ${ctx.account('starter').key()}` }),
      200,
      '',
    ],
    [
      'valid key, lower-case scheme',
      () => ({ authorization: `bearer ${ctx.account('starter').key()}` }),
      200,
      '',
    ],
    [
      'valid sandbox key',
      () => ({ authorization: `Bearer ${ctx.account('free').key('test')}` }),
      404,
      'not_found',
    ],
  ]

  test.each(cases)('%s → %i %s', async (_name, headers, status, code) => {
    const res = await ctx.get('/v1/carrier/344554', undefined, headers())
    expect(res.status).toBe(status)
    const body = (await res.json()) as { code?: string; status?: number }
    if (status !== 200) {
      expect(body.code).toBe(code)
      expect(body.status).toBe(status)
    }
    if (status === 401) expect(res.headers.get('www-authenticate')).toContain('Bearer')
  })

  test('unknown and revoked keys get the same answer', async () => {
    const { key, secret } = createKey(
      ctx.deps.db,
      { accountId: ctx.account('starter').account.id, mode: 'live' },
      now(),
    )
    revokeKey(ctx.deps.db, key.id, now())
    const a = (await (await ctx.get('/v1/carrier/344554', secret)).json()) as Record<
      string,
      unknown
    >
    const b = (await (
      await ctx.get('/v1/carrier/344554', `cvk_live_${'B'.repeat(43)}`)
    ).json()) as Record<string, unknown>
    expect({ ...a, request_id: '' }).toEqual({ ...b, request_id: '' })
  })

  test('operational routes need no key', async () => {
    expect((await ctx.get('/healthz')).status).toBe(200)
    expect((await ctx.get('/readyz')).status).toBe(200)
    expect((await ctx.get('/metrics')).status).toBe(200)
  })
})
