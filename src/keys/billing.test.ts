/**
 * Every kind of refused call is counted once, the same, in app.db's usage (what the usage report
 * and the CLI print), in /metrics and in the console's usage panel.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { periodOf } from '../clock.ts'
import { liveUsage } from '../console/account.tsx'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { cancelSubscription, mustGetAccount, suspendAccount } from './accounts.ts'
import { usageReport } from './usage.ts'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext({ sampleDir: 'data/sample' })
}, 120_000)
afterAll(() => ctx.close())

async function metric(name: string, reason?: string): Promise<number> {
  const text = await (await ctx.get('/metrics')).text()
  const labels = reason === undefined ? '' : `\\{reason="${reason}"\\}`
  return Number(new RegExp(`^${name}${labels} (\\d+)`, 'm').exec(text)?.[1] ?? 0)
}

/** A free account's live key, its month's quota (250 calls) used up when `spent`. */
function freeAccount(spent: boolean) {
  const { account, key } = ctx.account('free')
  if (spent)
    ctx.deps.db
      .prepare('INSERT INTO usage_counters (account_id, period, used) VALUES (?, ?, 250)')
      .run(account.id, periodOf(ctx.clock()))
  return { id: account.id, key: key('live') }
}

type Kind = 'quota' | 'plan' | 'suspended'
const now = () => ctx.clock().getTime()

const cases: { name: string; reason: Kind; call: () => Promise<{ id: number; status: number }> }[] =
  [
    {
      name: 'a lookup past a capped plan’s quota',
      reason: 'quota',
      call: async () => {
        const a = freeAccount(true)
        return { id: a.id, status: (await ctx.get('/v1/carrier/1000001', a.key)).status }
      },
    },
    {
      name: 'a batch past a capped plan’s quota',
      reason: 'quota',
      call: async () => {
        const a = freeAccount(true)
        const res = await ctx.post('/v1/verify', { dot_numbers: [1000001, 1000002] }, a.key)
        return { id: a.id, status: res.status }
      },
    },
    {
      name: 'a check past a capped plan’s quota',
      reason: 'quota',
      call: async () => {
        const a = freeAccount(true)
        return { id: a.id, status: (await ctx.post('/v1/checks', { dot: 1000001 }, a.key)).status }
      },
    },
    {
      name: 'a call of an account with no plan',
      reason: 'plan',
      call: async () => {
        const a = freeAccount(false)
        cancelSubscription(ctx.deps.db, a.id, now())
        return { id: a.id, status: (await ctx.get('/v1/carrier/1000001', a.key)).status }
      },
    },
    {
      name: 'a call of a suspended account',
      reason: 'suspended',
      call: async () => {
        const a = freeAccount(false)
        suspendAccount(ctx.deps.db, a.id, 'unpaid', now())
        return { id: a.id, status: (await ctx.get('/v1/carrier/1000001', a.key)).status }
      },
    },
  ]

describe('a refused call is counted once in usage, /metrics and the console', () => {
  test.each(cases)('$name', async ({ reason, call }) => {
    const before = {
      refused: await metric('cvk_refused_calls_total', reason),
      quota: await metric('cvk_quota_refusals_total'),
      billed: await metric('cvk_billed_lookups_total'),
    }
    const { id, status } = await call()
    expect(status).toBe(reason === 'quota' ? 429 : 402)
    const usage = usageReport(ctx.deps.db, periodOf(ctx.clock()), id)[0]
    expect(usage?.refused_calls).toBe(1)
    expect(liveUsage(ctx.deps, mustGetAccount(ctx.deps.db, id)).refused_calls).toBe(1)
    expect((await metric('cvk_refused_calls_total', reason)) - before.refused).toBe(1)
    expect((await metric('cvk_quota_refusals_total')) - before.quota).toBe(
      reason === 'quota' ? 1 : 0,
    )
    expect(await metric('cvk_billed_lookups_total')).toBe(before.billed)
  })

  test('a sandbox key of a suspended account is refused but not counted (sandbox calls are never billed)', async () => {
    const { account, key } = ctx.account('free')
    const sandbox = key('test')
    suspendAccount(ctx.deps.db, account.id, null, now())
    const before = await metric('cvk_refused_calls_total', 'suspended')
    expect((await ctx.get('/v1/carrier/1000001', sandbox)).status).toBe(402)
    expect(await metric('cvk_refused_calls_total', 'suspended')).toBe(before)
    expect(usageReport(ctx.deps.db, periodOf(ctx.clock()), account.id)[0]?.refused_calls).toBe(0)
  })
})
