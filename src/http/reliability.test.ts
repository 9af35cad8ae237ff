/** Storage outages, hostile JSON, bounded echoes, Retry-After on every 503, counters that agree. */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { VerifyResponse } from '../carriers/batch.ts'
import { AppError, errorCodes, toAppError, type ErrorCode } from '../errors.ts'
import { usageReport } from '../keys/usage.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { liveCensusDir } from '../testing/fixture-dirs.ts'
import { jsonDepth, MAX_JSON_DEPTH } from './routes/params.ts'

let ctx: TestContext
let empty: TestContext
beforeAll(async () => {
  ctx = await createTestContext({ liveDir: liveCensusDir() })
  empty = await createTestContext()
})
afterAll(() => {
  ctx.close()
  empty.close()
})

async function errorBody(res: Response, status: number, code: string) {
  expect(res.status).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  const body = (await res.json()) as Record<string, unknown>
  expect(body).toMatchObject({ status, code, request_id: res.headers.get('x-request-id') })
  return body
}

describe('a storage failure is an outage, not a bug', () => {
  test('a real SQLITE_FULL, SQLITE_READONLY and ENOSPC map to storage_unavailable; others do not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cvk-full-'))
    const db = new Database(join(dir, 'small.db'))
    try {
      db.exec('CREATE TABLE t (x BLOB)')
      db.pragma(`max_page_count = ${String(db.pragma('page_count', { simple: true }))}`)
      let full: unknown
      try {
        db.prepare('INSERT INTO t VALUES (randomblob(100000))').run()
      } catch (err) {
        full = err
      }
      expect((full as { code: string }).code).toBe('SQLITE_FULL')
      expect(toAppError(full)?.code).toBe('storage_unavailable')
      db.pragma('query_only = ON')
      let readonly: unknown
      try {
        db.prepare('INSERT INTO t VALUES (1)').run()
      } catch (err) {
        readonly = err
      }
      expect((readonly as { code: string }).code).toBe('SQLITE_READONLY')
      expect(toAppError(readonly)?.code).toBe('storage_unavailable')
    } finally {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    }
    const enospc = Object.assign(new Error('write failed'), { code: 'ENOSPC' })
    expect(toAppError(new Error('wrapped', { cause: enospc }))?.code).toBe('storage_unavailable')
    expect(toAppError(Object.assign(new Error('x'), { code: 'SQLITE_IOERR_WRITE' }))?.code).toBe(
      'storage_unavailable',
    )
    expect(toAppError(Object.assign(new Error('x'), { code: 'SQLITE_CONSTRAINT' }))).toBeNull()
    expect(toAppError(new TypeError('bug'))).toBeNull()
  })

  test('app.db not writable: billed lookups answer 503 storage_unavailable with Retry-After, /readyz fails, then recovers', async () => {
    const key = ctx.account('starter').key()
    expect((await ctx.get('/v1/carrier/344554', key)).status).toBe(200)
    ctx.deps.db.pragma('query_only = ON') // every write now fails with SQLITE_READONLY
    try {
      for (const res of [
        await ctx.get('/v1/carrier/344554', key),
        await ctx.post('/v1/verify', { dot_numbers: [344554] }, key),
      ]) {
        const body = await errorBody(res, 503, 'storage_unavailable')
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
        expect(JSON.stringify(body)).not.toMatch(/sqlite|readonly database/i)
      }
      const ready = await ctx.get('/readyz')
      expect(ready.status).toBe(503)
      expect(Number(ready.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(await ready.json()).toEqual({
        status: 'not_ready',
        checks: { dataset: true, app_db: false },
        data: 'mirror',
      })
    } finally {
      ctx.deps.db.pragma('query_only = OFF')
    }
    expect((await ctx.get('/readyz')).status).toBe(200)
    expect((await ctx.get('/v1/carrier/344554', key)).status).toBe(200)
  })

  test('the readiness probe is a real commit', async () => {
    expect((await ctx.get('/readyz')).status).toBe(200)
    const row = ctx.deps.db.prepare('SELECT checked_at FROM health_probe WHERE id = 1').get() as {
      checked_at: number
    }
    expect(row.checked_at).toBe(ctx.clock().getTime())
  })

  test('/metrics exports the free and total space of the data directory', async () => {
    const text = await (await ctx.get('/metrics')).text()
    const free = Number(/^cvk_data_dir_free_bytes (\d+)/m.exec(text)?.[1])
    const size = Number(/^cvk_data_dir_size_bytes (\d+)/m.exec(text)?.[1])
    expect(free).toBeGreaterThan(0)
    expect(size).toBeGreaterThanOrEqual(free)
  })
})

describe('every 503 carries Retry-After', () => {
  test('each 503 code declares it, and a dataset_unavailable answer sends it', async () => {
    for (const [code, e] of Object.entries(errorCodes))
      if (e.status === 503) expect('retryAfter' in e, code).toBe(true)
    const key = empty.account('starter').key()
    const res = await empty.get('/v1/carrier/344554', key)
    await errorBody(res, 503, 'dataset_unavailable')
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
    const ready = await empty.get('/readyz')
    expect(ready.status).toBe(503)
    expect(Number(ready.headers.get('retry-after'))).toBeGreaterThan(0)
  })

  test('the OpenAPI document lists storage_unavailable and Retry-After on 503', async () => {
    const doc = (await (await ctx.get('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
    }
    const r503 = doc.paths['/v1/carrier/{dot}']?.get?.responses['503'] as {
      description: string
      headers: Record<string, unknown>
    }
    expect(r503.description).toContain('storage_unavailable')
    expect(r503.headers).toHaveProperty('Retry-After')
  })
})

describe('hostile JSON never becomes a 500', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`

  test('jsonDepth counts brackets outside strings only', () => {
    expect(jsonDepth('{"a":[1,{"b":[]}]}')).toBe(4)
    expect(jsonDepth('{"a":"[[[[{{{{\\"[["}')).toBe(1)
    expect(jsonDepth('1')).toBe(0)
  })

  test(`a 10,000-deep value in a /v1/verify item is a 400 invalid_request at parse time`, async () => {
    const key = ctx.account('starter').key()
    const res = await ctx.post('/v1/verify', `{"companies":[{"dot":${nested(10_000)}}]}`, key)
    const body = await errorBody(res, 400, 'invalid_request')
    expect(body.error).toContain(`deeper than ${MAX_JSON_DEPTH}`)
  })

  test(`nesting up to ${MAX_JSON_DEPTH} levels is parsed; the item is answered in its slot`, async () => {
    const key = ctx.account('starter').key()
    const res = await ctx.post(
      '/v1/verify',
      `{"companies":[{"dot":${nested(MAX_JSON_DEPTH - 3)}}, {"dot":"344554"}]}`,
      key,
    )
    expect(res.status).toBe(200)
    const body = VerifyResponse.parse(await res.json())
    expect(body.results.map((r) => r.status)).toEqual([400, 200])
  })

  test('an item is echoed as sent when small, cut to 256 characters when not', async () => {
    const key = ctx.account('starter').key()
    const long = { dot: '1'.repeat(30_000) }
    const weird = { ['k'.repeat(20_000)]: 1 }
    const res = await ctx.post('/v1/verify', { companies: [{ dot: 'abc' }, long, weird] }, key)
    expect(res.status).toBe(200)
    const text = await res.text()
    expect(text.length).toBeLessThan(4_000)
    const body = VerifyResponse.parse(JSON.parse(text))
    expect(body.results[0]?.input).toEqual({ dot: 'abc' })
    for (const r of body.results.slice(1)) {
      expect(typeof r.input).toBe('string')
      expect((r.input as string).length).toBe(257)
      expect((r.input as string).endsWith('…')).toBe(true)
    }
  })

  test('error messages quoting a long path or unknown keys are bounded', async () => {
    const key = ctx.account('starter').key()
    const res = await ctx.get(`/v1/nothing/${'a'.repeat(10_000)}`, key)
    const body = await errorBody(res, 404, 'not_found')
    expect((body.error as string).length).toBeLessThan(400)
    const many = Object.fromEntries(
      Array.from({ length: 150 }, (_, i) => [`${'x'.repeat(300)}${i}`, 1]),
    )
    const r2 = await ctx.post('/v1/verify', many, key)
    const b2 = await errorBody(r2, 400, 'invalid_request')
    expect(JSON.stringify(b2).length).toBeLessThan(8_000)
    expect((b2.issues as unknown[]).length).toBeLessThanOrEqual(10)
  })
})

describe('counters agree', () => {
  test('usage, /metrics and meta.quota_used agree after a mixed sequence, whole-request 429s included', async () => {
    const { account, key: mk } = ctx.account('free')
    const key = mk()
    const before = await metricValues()
    ctx.deps.db
      .prepare(
        "INSERT INTO usage_counters (account_id, period, used) VALUES (?, '2026-11', 246) ON CONFLICT DO UPDATE SET used = excluded.used",
      )
      .run(account.id)
    const metas: number[] = []
    const meta = async (res: Response) => {
      const b = (await res.json()) as { meta?: { quota_used: number }; quota_used?: number }
      metas.push(b.meta?.quota_used ?? b.quota_used ?? -1)
      return res.status
    }
    const statuses = [
      await meta(await ctx.get('/v1/carrier/1000001', key)), // 247
      await meta(await ctx.get('/v1/carrier/99999999', key)), // 404, not billed
      // 248, 249, 250, then one refused in its slot
      await meta(
        await ctx.post(
          '/v1/verify',
          { dot_numbers: [1000002, 1000003, 99999998, 1000004, 1000005] },
          key,
        ),
      ),
      await meta(await ctx.get('/v1/carrier/1000006', key)), // refused: 429
      await meta(await ctx.post('/v1/verify', { dot_numbers: [1000007] }, key)), // whole request 429
      await meta(await ctx.post('/v1/verify', { dot_numbers: [1000008, 1000009] }, key)), // whole request 429
    ]
    expect(statuses).toEqual([200, 404, 200, 429, 429, 429])
    expect(metas).toEqual([247, -1 /* a 404 error carries no meta */, 250, 250, 250, 250])
    const report = usageReport(ctx.deps.db, '2026-11', account.id)[0]
    expect(report).toMatchObject({ used: 250, refused_calls: 4 })
    const after = await metricValues()
    expect(after.billed - before.billed).toBe(250 - 246)
    expect(after.refused - before.refused).toBe(report?.refused_calls)
  })

  async function metricValues() {
    const text = await (await ctx.get('/metrics')).text()
    const value = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0)
    return { billed: value('cvk_billed_lookups_total'), refused: value('cvk_quota_refusals_total') }
  }
})

test('app.db is created with mode 0600', () => {
  expect(statSync(ctx.config.paths.appDb).mode & 0o777).toBe(0o600)
})

test('an AppError keeps its code through toAppError', () => {
  const e = new AppError('not_found')
  expect(toAppError(e)).toBe(e)
  const code: ErrorCode = 'storage_unavailable'
  expect(errorCodes[code].status).toBe(503)
})
