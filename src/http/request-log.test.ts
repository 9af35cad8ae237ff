import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'
import { createLogger } from '../log.ts'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext({ liveDir: LICENSING_FIXTURES, now: '2026-11-15T12:00:00Z' })
})
afterAll(() => ctx.close())

const setUsed = (accountId: number, n: number) =>
  ctx.deps.db
    .prepare(
      "INSERT INTO usage_counters (account_id, period, used) VALUES (?, '2026-11', ?) ON CONFLICT DO UPDATE SET used = excluded.used",
    )
    .run(accountId, n)

/** Current value of one counter series (0 when the series does not exist yet). */
async function counter(name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = await ctx.deps.metrics.registry.getSingleMetric(name)?.get()
  const match = metric?.values.find((v) =>
    Object.entries(labels).every(([k, val]) => String(v.labels[k]) === val),
  )
  return match?.value ?? 0
}

describe('route labels of logs and metrics (hono/route)', () => {
  test('the route pattern, with /api/v1 counted under /v1; unmatched 404s as unmatched', async () => {
    const key = ctx.account().key()
    const label = (route: string, status: string) =>
      counter('cvk_http_requests_total', { method: 'GET', route, status })
    const before = await label('/v1/carrier/:dot', '200')
    expect((await ctx.get('/v1/carrier/1000002', key)).status).toBe(200)
    expect((await ctx.get('/api/v1/carrier/1000002', key)).status).toBe(200)
    expect(await label('/v1/carrier/:dot', '200')).toBe(before + 2)

    // a handler's own 404 keeps its pattern; a path no route serves is `unmatched`
    const miss = await label('/v1/broker/:mc', '404')
    expect((await ctx.get('/v1/broker/MC-999999', key)).status).toBe(404)
    expect(await label('/v1/broker/:mc', '404')).toBe(miss + 1)
    const unmatched = await label('unmatched', '404')
    expect((await ctx.get('/no/such/path')).status).toBe(404)
    expect(await label('unmatched', '404')).toBe(unmatched + 1)

    const health = await label('/healthz', '200')
    await ctx.get('/healthz')
    expect(await label('/healthz', '200')).toBe(health + 1)
  })
})

describe('one call charged, one metric counted', () => {
  test('billed lookups and quota refusals are counted for single calls, batches and search', async () => {
    const { account, key } = ctx.account('free')
    const live = key()
    const billed = await counter('cvk_billed_lookups_total')
    const refused = await counter('cvk_quota_refusals_total')
    expect((await ctx.get('/v1/carrier/1000002', live)).status).toBe(200)
    expect((await ctx.get('/v1/bond/1000002', live)).status).toBe(200)
    expect((await ctx.get('/v1/broker/MC-100002', live)).status).toBe(200)
    expect((await ctx.get('/v1/search?q=1000002', live)).status).toBe(200)
    expect(await counter('cvk_billed_lookups_total')).toBe(billed + 4)

    // a batch of three found companies with one call left: one billed, two refused in their slot
    setUsed(account.id, 249)
    const batch = await ctx.post(
      '/v1/verify',
      { companies: [{ dot: 1000001 }, { dot: 1000002 }, { mc: 'MC-100002' }, { dot: 1000008 }] },
      live,
    )
    expect(batch.status).toBe(200)
    expect(await counter('cvk_billed_lookups_total')).toBe(billed + 5)
    expect(await counter('cvk_quota_refusals_total')).toBe(refused + 2)

    // at the cap: a single call and a whole batch are refused and counted
    expect((await ctx.get('/v1/carrier/1000002', live)).status).toBe(429)
    expect((await ctx.post('/v1/verify', { dot_numbers: [1000001] }, live)).status).toBe(429)
    expect((await ctx.get('/v1/search?q=1000002', live)).status).toBe(429)
    expect(await counter('cvk_quota_refusals_total')).toBe(refused + 5)
    expect(await counter('cvk_billed_lookups_total')).toBe(billed + 5)

    // a sandbox key is never billed nor refused
    expect((await ctx.get('/v1/carrier/9000001', key('test'))).status).not.toBe(429)
    expect(await counter('cvk_billed_lookups_total')).toBe(billed + 5)
  })
})

describe('the request line', () => {
  test('one line per request with its fields, never a header, body or query; a 401 has no caller', async () => {
    const lines: Record<string, unknown>[] = []
    const sink = { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) }
    const logged = await createTestContext({
      liveDir: LICENSING_FIXTURES,
      now: '2026-11-15T12:00:00Z',
      log: createLogger('info', sink),
    })
    try {
      const { account, key } = logged.account('professional')
      const secret = key()
      const res = await logged.get('/v1/carrier/1000002?crosscheck=false', secret)
      expect(res.status).toBe(200)
      const line = lines.find((l) => l.msg === 'request')
      expect(line).toMatchObject({
        level: 'info',
        service: 'carrier-verify',
        request_id: res.headers.get('x-request-id'),
        method: 'GET',
        route: '/v1/carrier/:dot',
        status: 200,
        account_id: account.id,
      })
      expect(typeof line?.duration_ms).toBe('number')
      expect(typeof line?.key_id).toBe('number')
      expect(typeof line?.time).toBe('string')
      const text = JSON.stringify(lines)
      expect(text).not.toContain(secret)
      expect(text).not.toContain('crosscheck')
      // a 401 has no caller: its line carries no account
      expect((await logged.get('/v1/carrier/1000002', 'cvk_live_' + 'x'.repeat(43))).status).toBe(
        401,
      )
      expect(lines.at(-1)).toMatchObject({ msg: 'request', status: 401, route: '/v1/*' })
      expect(lines.at(-1)).not.toHaveProperty('account_id')
    } finally {
      logged.close()
    }
  })
})
