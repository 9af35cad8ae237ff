/**
 * Before the mirror's live census is active a live key reads the bundled sample: its misses answer
 * 503 mirror_not_ready (never billed), never a false 404; sandbox keys keep their 404; once a live
 * census activates, a live key's miss is a 404 again.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { pipelineDeps } from '../deps.ts'
import { importDir } from '../sync/pipeline.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { sampleCensusDir } from '../testing/fixture-dirs.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'

type Json = Record<string, unknown>
let ctx: TestContext
let live = ''
let sandbox = ''
let accountId = 0

const used = () =>
  (
    ctx.deps.db
      .prepare('SELECT coalesce(sum(used), 0) AS n FROM usage_counters WHERE account_id = ?')
      .get(accountId) as { n: number }
  ).n

async function expectNotReady(res: Response): Promise<Json> {
  expect(res.status).toBe(503)
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
  expect(res.headers.get('ratelimit-limit')).not.toBeNull()
  const body = (await res.json()) as Json
  expect(body).toMatchObject({ status: 503, code: 'mirror_not_ready' })
  expect(String(body.error)).toContain('not mirrored yet')
  expect(String(body.error)).toContain('only the 2 sample companies are loaded')
  return body
}

beforeAll(async () => {
  ctx = await createTestContext({ sampleDir: sampleCensusDir(), now: '2026-11-15T12:00:00Z' })
  const a = ctx.account('starter')
  accountId = a.account.id
  live = a.key()
  sandbox = a.key('test')
}, 60_000)
afterAll(() => ctx.close())

describe('before the mirror is built', () => {
  test('/readyz answers 200 and says the sample is served', async () => {
    const res = await ctx.get('/readyz')
    expect(res.status).toBe(200)
    const body = (await res.json()) as Json
    expect(body).toMatchObject({ status: 'ready', data: 'sample' })
    expect(String(body.message)).toContain('not mirrored yet')
  })

  test('a live key: an unknown USDOT or docket answers 503 mirror_not_ready, not billed', async () => {
    const before = used()
    const body = await expectNotReady(await ctx.get('/v1/carrier/2233445', live))
    expect(String(body.error)).toContain('USDOT number 2233445')
    await expectNotReady(await ctx.get('/v1/bond/2233445', live))
    await expectNotReady(await ctx.get('/v1/broker/MC-223344', live))
    await expectNotReady(await ctx.post('/v1/checks', { dot: '2233445' }, live))
    await expectNotReady(await ctx.post('/v1/checks', { mc: 'MC-223344' }, live))
    expect(used()).toBe(before)
  })

  test('a live key: a sample company answers 200 from the sample, never verified', async () => {
    const res = await ctx.get('/v1/carrier/9000001', live)
    expect(res.status).toBe(200)
    const body = (await res.json()) as {
      meta: { source: string }
      trust: { trust_verified: boolean }
    }
    expect(body.meta.source).toBe('sample')
    expect(body.trust.trust_verified).toBe(false)
  })

  test('a batch answers 200 with the missing item as 503 mirror_not_ready', async () => {
    const before = used()
    const res = await ctx.post('/v1/verify', { dot_numbers: [9000001, 2233445] }, live)
    expect(res.status).toBe(200)
    const body = (await res.json()) as {
      results: Json[]
      summary: Json
    }
    expect(body.results[0]).toMatchObject({ status: 200 })
    expect(body.results[1]).toMatchObject({ status: 503, code: 'mirror_not_ready' })
    expect(body.summary).toMatchObject({ found: 1, not_found: 0, not_ready: 1, billed: 1 })
    expect(used()).toBe(before + 1)
  })

  test('an empty search says only the sample was searched', async () => {
    const res = await ctx.get('/v1/search?q=nothing+like+this', live)
    expect(res.status).toBe(200)
    const body = (await res.json()) as { results: unknown[]; meta: Json }
    expect(body.results).toEqual([])
    expect(String(body.meta.notice)).toContain('not mirrored yet')
  })

  test('a sandbox key lives in the sample: its misses stay 404', async () => {
    const res = await ctx.get('/v1/carrier/2233445', sandbox)
    expect(res.status).toBe(404)
    expect(((await res.json()) as Json).code).toBe('not_found')
    const batch = await ctx.post('/v1/verify', { dot_numbers: [2233445] }, sandbox)
    expect(((await batch.json()) as { results: Json[] }).results[0]).toMatchObject({
      status: 404,
      code: 'not_found',
    })
    const search = (await (await ctx.get('/v1/search?q=nothing', sandbox)).json()) as {
      meta: Json
    }
    expect(search.meta.notice).toBeUndefined()
  })
})

describe('after a live census activates', () => {
  beforeAll(async () => {
    const done = await importDir(pipelineDeps(ctx.deps), LICENSING_FIXTURES, {
      channel: 'live',
      trigger: 'test',
      signal: AbortSignal.timeout(30_000),
    })
    expect(done.every((r) => r.status === 'activated')).toBe(true)
  }, 60_000)

  test('a live key gets 404 for the unknown USDOT and /readyz says mirror', async () => {
    const res = await ctx.get('/v1/carrier/2233445', live)
    expect(res.status).toBe(404)
    expect(((await res.json()) as Json).code).toBe('not_found')
    const ready = (await (await ctx.get('/readyz')).json()) as Json
    expect(ready).toMatchObject({ status: 'ready', data: 'mirror' })
    expect(ready.message).toBeUndefined()
  })
})
