/**
 * Property-based tests (fast-check) over request bodies, paths, query strings and headers: whatever
 * arrives, the answer is never a 5xx, and every error is the JSON shape {status, error, code,
 * request_id} with status = the HTTP status. Runs are bounded (numRuns) and seeded by fast-check
 * (a failure prints its seed and the shrunk counterexample to replay).
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { errorCodes } from '../errors.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { liveCensusDir } from '../testing/fixture-dirs.ts'

let ctx: TestContext
let key: string
beforeAll(async () => {
  ctx = await createTestContext({ liveDir: liveCensusDir() })
  key = ctx.account('enterprise').key()
})
afterAll(() => ctx.close())

const RUNS = 150

/** No 5xx; an error is the one JSON shape with a known code. */
async function expectSound(res: Response): Promise<void> {
  expect(res.status).toBeLessThan(500)
  if (res.status < 400) return
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  const body = (await res.json()) as Record<string, unknown>
  expect(body.status).toBe(res.status)
  expect(typeof body.error).toBe('string')
  expect(body.request_id).toBe(res.headers.get('x-request-id'))
  const code = body.code as keyof typeof errorCodes
  expect(errorCodes[code]?.status).toBe(res.status)
}

/** JSON values, including deep and odd ones. */
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.string(),
    fc.constantFrom('344554', 'MC-421775', '1000001', '0', '-1', '1e5', ' 12 ', '１２'),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.constantFrom('dot', 'mc', 'crosscheck', 'x', '__proto__'), tie('value'), {
      maxKeys: 4,
    }),
  ),
})).value

const body = fc.oneof(
  jsonValue.map((v) => JSON.stringify(v)),
  fc.record({ companies: fc.array(jsonValue, { maxLength: 120 }) }).map((v) => JSON.stringify(v)),
  fc.record({ dot_numbers: fc.array(jsonValue, { maxLength: 120 }) }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 300 }),
  fc.nat({ max: 2000 }).map((n) => `{"companies":[{"dot":${'['.repeat(n)}1${']'.repeat(n)}}]}`),
  fc.string({ maxLength: 50 }).map((s) => `{"companies":[{"dot":"${s}"`), // cut short
)

describe('property: no 5xx, one error shape', () => {
  test('POST /v1/verify with any body and content type', async () => {
    await fc.assert(
      fc.asyncProperty(
        body,
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'application/problem+json',
          'text/plain',
          'application/x-www-form-urlencoded',
          '',
          'application/json; charset=latin1',
        ),
        fc.constantFrom('', '?crosscheck=false', '?crosscheck=maybe', '?x=%ZZ'),
        async (b, type, query) => {
          const headers: Record<string, string> = { authorization: `Bearer ${key}` }
          if (type) headers['content-type'] = type
          const res = await ctx.app.request(`/v1/verify${query}`, {
            method: 'POST',
            body: b,
            headers,
          })
          await expectSound(res)
        },
      ),
      { numRuns: RUNS },
    )
  })

  test('GET on any path, with any segment and query', async () => {
    const segment = fc.oneof(
      fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(s)),
      fc.constantFrom('%', '%00', '%ZZ', '..', '.', '%2F', '344554', 'MC-421775', ';', '%C0%AF'),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          '/v1/carrier/',
          '/v1/broker/',
          '/v1/bond/',
          '/api/v1/carrier/',
          '/v1/search',
          '/v1/',
          '/',
          '/readyz/',
          '/docs/',
        ),
        segment,
        fc.string({ maxLength: 60 }),
        fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'),
        async (base, seg, query, method) => {
          const q = `?q=${encodeURIComponent(query)}&limit=${encodeURIComponent(query.slice(0, 3))}&cursor=${encodeURIComponent(query)}`
          const res = await ctx.app.request(`${base}${seg}${q}`, {
            method,
            headers: { authorization: `Bearer ${key}` },
          })
          if (method === 'HEAD') expect(res.status).toBeLessThan(500)
          else await expectSound(res)
        },
      ),
      { numRuns: RUNS },
    )
  })

  test('any Authorization, X-Request-Id and Content-Type header', async () => {
    const headerValue = fc
      .string({ maxLength: 120, unit: 'binary-ascii' })
      .map((s) => s.replace(/[\r\n\0]/g, ''))
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          headerValue,
          headerValue.map((s) => `Bearer ${s}`),
          fc.constant(`Bearer ${'cvk_live_'}${'A'.repeat(43)}`),
          fc.constant(`bearer   ${key}   `),
        ),
        headerValue,
        headerValue,
        fc.constantFrom('/v1/carrier/344554', '/v1/search?q=hull', '/v1/verify'),
        async (auth, requestId, type, path) => {
          const res = await ctx.app.request(path, {
            method: path === '/v1/verify' ? 'POST' : 'GET',
            body: path === '/v1/verify' ? '{"dot_numbers":[344554]}' : undefined,
            headers: { authorization: auth, 'x-request-id': requestId, 'content-type': type },
          })
          await expectSound(res)
          const id = res.headers.get('x-request-id') ?? ''
          expect(id.length).toBeLessThanOrEqual(64)
        },
      ),
      { numRuns: RUNS },
    )
  })
})
