import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { errorCodes } from '../errors.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { liveCensusDir } from '../testing/fixture-dirs.ts'

let ctx: TestContext
let empty: TestContext
let key: string
beforeAll(async () => {
  ctx = await createTestContext({ liveDir: liveCensusDir() })
  key = ctx.account('starter').key()
  empty = await createTestContext()
})
afterAll(() => {
  ctx.close()
  empty.close()
})

/** Every error: JSON content type, the four keys, status = HTTP status, request_id = header, no leak. */
async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  const text = await res.text()
  expect(text).not.toMatch(/<html|at [\w.]+ \(|\/work\/|node_modules|SELECT |sqlite/i)
  const body = JSON.parse(text) as Record<string, unknown>
  expect(body).toMatchObject({ status, code })
  expect(typeof body.error).toBe('string')
  expect((body.error as string).length).toBeGreaterThan(0)
  expect(body.request_id).toBe(res.headers.get('x-request-id'))
  expect(errorCodes[code as keyof typeof errorCodes].status).toBe(status)
  return body
}

describe('error contract', () => {
  test.each([
    ['letters', '/v1/carrier/abc'],
    ['zero', '/v1/carrier/0'],
    ['all zeros', '/v1/carrier/00000000'],
    ['too long', '/v1/carrier/123456789'],
    ['negative', '/v1/carrier/-5'],
    ['decimal', '/v1/carrier/12.5'],
    ['whitespace only', '/v1/carrier/%20%20'],
    ['inner whitespace', '/v1/carrier/12%2034'],
    ['hex', '/v1/carrier/0x1F'],
    ['exponent', '/v1/carrier/1e5'],
    ['unicode digits', '/v1/carrier/%D9%A1%D9%A2'],
    ['missing', '/v1/carrier/'],
    ['missing, no slash', '/v1/carrier'],
    ['missing under /api/v1', '/api/v1/carrier/'],
  ])('malformed USDOT (%s) → 400 invalid_dot', async (_n, path) => {
    await expectError(await ctx.get(path, key), 400, 'invalid_dot')
  })

  test('surrounding whitespace is trimmed, leading zeros accepted', async () => {
    expect((await ctx.get('/v1/carrier/%20344554%20', key)).status).toBe(200)
    expect((await ctx.get('/v1/carrier/00344554', key)).status).toBe(200)
  })

  test('invalid crosscheck flag → 400 invalid_request', async () => {
    await expectError(
      await ctx.get('/v1/carrier/344554?crosscheck=maybe', key),
      400,
      'invalid_request',
    )
  })

  test('no company → 404 not_found naming the USDOT', async () => {
    const body = await expectError(await ctx.get('/v1/carrier/99999999', key), 404, 'not_found')
    expect(body.error).toBe('No company found for USDOT number 99999999')
  })

  test('unknown route → 404 not_found, JSON', async () => {
    await expectError(await ctx.get('/v2/whatever', key), 404, 'not_found')
    await expectError(await ctx.get('/nowhere', key), 404, 'not_found')
    await expectError(await ctx.get('/v1/carriers/344554', key), 404, 'not_found')
  })

  test('a trailing slash is the same route, never a 405', async () => {
    for (const path of ['/v1/carrier/344554/', '/api/v1/carrier/344554/']) {
      const res = await ctx.get(path, key)
      expect(res.status, path).toBe(200)
      expect(((await res.json()) as { dot_number: string }).dot_number).toBe('344554')
    }
    expect((await ctx.get('/healthz/')).status).toBe(200)
    expect((await ctx.get('/v1/search/?q=ac', key)).status).not.toBe(405)
    const res = await ctx.app.request('/v1/carrier/344554/', {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    })
    await expectError(res, 405, 'method_not_allowed')
  })

  test('wrong method → 405 with Allow', async () => {
    const res = await ctx.app.request('/v1/carrier/344554', {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    })
    await expectError(res, 405, 'method_not_allowed')
    expect(res.headers.get('allow')).toBe('GET')
  })

  test('oversize body → 413 payload_too_large', async () => {
    const res = await ctx.post('/v1/carrier/344554', 'x'.repeat(70_000), key)
    await expectError(res, 413, 'payload_too_large')
  })

  test('missing key → 401', async () => {
    await expectError(await ctx.get('/v1/carrier/344554'), 401, 'unauthorized')
  })

  test('no subscription → 402', async () => {
    const a = ctx.account('starter')
    const k = a.key()
    ctx.deps.db
      .prepare("UPDATE subscriptions SET status = 'none' WHERE account_id = ?")
      .run(a.account.id)
    await expectError(await ctx.get('/v1/carrier/344554', k), 402, 'payment_required')
  })

  test('Free plan at its cap → 429 with Retry-After', async () => {
    const a = ctx.account('free')
    const k = a.key()
    ctx.deps.db
      .prepare("INSERT INTO usage_counters (account_id, period, used) VALUES (?, '2026-11', 250)")
      .run(a.account.id)
    const res = await ctx.get('/v1/carrier/344554', k)
    const body = await expectError(res, 429, 'quota_exceeded')
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(body.quota_limit).toBe(250)
  })

  test('no dataset loaded → 503 dataset_unavailable', async () => {
    const k = empty.account('starter').key()
    await expectError(await empty.get('/v1/carrier/344554', k), 503, 'dataset_unavailable')
    expect((await empty.get('/readyz')).status).toBe(503)
  })

  test('an unexpected exception → 500 internal without detail', async () => {
    const local = await createTestContext({ liveDir: liveCensusDir() })
    try {
      local.app.get('/boom', () => {
        throw new Error('SELECT secret FROM /work/internal')
      })
      const body = await expectError(await local.get('/boom'), 500, 'internal')
      expect(body.error).toBe('Internal server error')
    } finally {
      local.close()
    }
  })

  test('a well-formed incoming X-Request-Id is kept', async () => {
    const res = await ctx.get('/v1/carrier/abc', key, { 'x-request-id': 'req-12345678' })
    expect(res.headers.get('x-request-id')).toBe('req-12345678')
    expect(((await res.json()) as { request_id: string }).request_id).toBe('req-12345678')
  })

  test('/api/v1 serves the same record as /v1', async () => {
    const a = (await (await ctx.get('/v1/carrier/344554', key)).json()) as {
      meta: Record<string, unknown>
    }
    const b = (await (await ctx.get('/api/v1/carrier/344554', key)).json()) as {
      meta: Record<string, unknown>
    }
    expect({ ...b, meta: {} }).toEqual({ ...a, meta: {} })
  })
})
