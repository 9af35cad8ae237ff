import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { carrierRow, writeCensus } from '../../testing/census-fixture.ts'
import { createTestContext, type TestContext } from '../../testing/context.ts'
import { sampleCensusDir } from '../../testing/fixture-dirs.ts'
import { LICENSING_FIXTURES } from '../../testing/fmcsa-server.ts'
import { VerifyResponse } from '../../carriers/batch.ts'
import { BondResponseJson } from '../../carriers/bond.ts'
import { BrokerJson } from './broker.ts'

const NOW = '2026-11-15T12:00:00Z'

let ctx: TestContext
/** census-only mirror where two USDOTs list one docket */
let shared: TestContext
beforeAll(async () => {
  ctx = await createTestContext({
    liveDir: LICENSING_FIXTURES,
    sampleDir: sampleCensusDir(),
    now: NOW,
  })
  const dir = mkdtempSync(join(tmpdir(), 'cvk-broker-'))
  writeCensus(join(dir, 'az4n-8mr2.csv'), [
    carrierRow(2000001, {
      LEGAL_NAME: 'OLD HOLDER TRUCKING',
      STATUS_CODE: 'I',
      DOCKET1: '555555',
      ADD_DATE: '19950101',
    }),
    carrierRow(2000002, {
      LEGAL_NAME: 'NEW HOLDER TRUCKING',
      DOCKET1: '555555',
      ADD_DATE: '20200101',
    }),
    carrierRow(2000003, { LEGAL_NAME: 'THIRD INACTIVE', STATUS_CODE: 'I', DOCKET1: '555555' }),
    carrierRow(2000010, { LEGAL_NAME: 'FORWARDER ONE', DOCKET1PREFIX: 'FF', DOCKET1: '7777' }),
    carrierRow(2000011, { LEGAL_NAME: 'MEXICO ONE', DOCKET1PREFIX: 'MX', DOCKET1: '88888' }),
  ])
  shared = await createTestContext({ liveDir: dir, now: NOW })
})
afterAll(() => {
  ctx.close()
  shared.close()
})

const json = async (res: Response) => (await res.json()) as Record<string, unknown>
const used = (c: TestContext, accountId: number) =>
  (
    c.deps.db
      .prepare("SELECT used FROM usage_counters WHERE account_id = ? AND period = '2026-11'")
      .get(accountId) as { used: number } | undefined
  )?.used ?? 0
const setUsed = (c: TestContext, accountId: number, n: number) =>
  c.deps.db
    .prepare(
      "INSERT INTO usage_counters (account_id, period, used) VALUES (?, '2026-11', ?) ON CONFLICT DO UPDATE SET used = excluded.used",
    )
    .run(accountId, n)

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  const body = await json(res)
  expect(body).toMatchObject({ status, code })
  expect(body.request_id).toBe(res.headers.get('x-request-id'))
  return body
}

describe('GET /v1/broker/{mc}', () => {
  test.each([
    ['MC-100002'],
    ['MC100002'],
    ['mc 0100002'],
    ['mc%200100002'],
    ['100002'],
    ['MC-0000100002'],
    ['MC%23100002'],
  ])('%s → the broker holding MC-100002, billed once', async (mc) => {
    const { account, key } = ctx.account('starter')
    const res = await ctx.get(`/v1/broker/${mc}`, key())
    expect(res.status).toBe(200)
    const body = BrokerJson.parse(await res.json())
    expect(body).toMatchObject({
      dot_number: '1000002',
      mc_number: 'MC-100002',
      entity_type: 'broker',
      lookup: {
        identifier: 'MC-100002',
        kind: 'docket',
        resolved_via: 'licensing',
        other_dot_numbers: [],
      },
      bond: {
        on_file: true,
        form: 'BMC-84',
        type: 'surety_bond',
        amount: 75_000,
        surety: 'XYZ SURETY CO',
      },
      meta: { quota_used: 1, billed: true },
    })
    expect(body.authority.broker_authority).toBe('A')
    expect(used(ctx, account.id)).toBe(1)
    expect(res.headers.get('ratelimit-remaining')).toBe(String(10_000 - 1))
  })

  test('the lookup block echoes the identifier as given', async () => {
    const res = await ctx.get('/v1/broker/mc%200100002', ctx.account().key())
    expect((await json(res)).lookup).toMatchObject({ query: 'mc 0100002', identifier: 'MC-100002' })
  })

  test('an FF docket finds the forwarder', async () => {
    const res = await ctx.get('/v1/broker/FF-100050', ctx.account().key())
    expect(res.status).toBe(200)
    expect(await json(res)).toMatchObject({ dot_number: '1000050', entity_type: 'forwarder' })
  })

  test('FF and MX dockets resolve through the census too', async () => {
    const key = shared.account().key()
    expect(await json(await shared.get('/v1/broker/FF7777', key))).toMatchObject({
      dot_number: '2000010',
      lookup: { identifier: 'FF-7777', resolved_via: 'census' },
    })
    expect(await json(await shared.get('/v1/broker/mx-088888', key))).toMatchObject({
      dot_number: '2000011',
      lookup: { identifier: 'MX-88888' },
    })
  })

  test.each([
    ['1000002B'],
    ['1000002-B'],
    ['USDOT%201000002-B'],
    ['usdot1000002b'],
    ['DOT%23%201000002%20B'],
  ])('USDOT-suffix identifier %s → that USDOT when it holds broker authority', async (id) => {
    const res = await ctx.get(`/v1/broker/${id}`, ctx.account().key())
    expect(res.status).toBe(200)
    expect(await json(res)).toMatchObject({
      dot_number: '1000002',
      lookup: { identifier: '1000002-B', kind: 'usdot_suffix', resolved_via: 'usdot' },
    })
  })

  test('a suffix naming an authority the company does not hold → 404, not billed', async () => {
    const { account, key } = ctx.account('starter')
    const body = await expectError(await ctx.get('/v1/broker/1000002-C', key()), 404, 'not_found')
    expect(body.error).toMatch(/no property carrier authority/)
    expect(used(ctx, account.id)).toBe(0)
  })

  test('a docket’s one holder is answered as the carrier record, its bond block and the lookup, in that order', async () => {
    const key = ctx.account('starter').key()
    const res = await ctx.get('/v1/broker/MC-100002', key)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('ratelimit-remaining')).toBe('9999')
    const text = await res.text()
    const broker = JSON.parse(text) as BrokerJson
    const carrier = (await (await ctx.get('/v1/carrier/1000002', key)).json()) as Record<
      string,
      unknown
    >
    const bond = BondResponseJson.parse(await (await ctx.get('/v1/bond/1000002', key)).json()).bond
    const { meta: _meta, ...record } = carrier
    // the same text the shaped object gave before (and still gives a cross-checked lookup)
    expect(text).toBe(JSON.stringify({ ...record, bond, lookup: broker.lookup, meta: broker.meta }))
    expect(broker.meta).toMatchObject({ quota_used: 1, billed: true })
    expect(broker.lookup).toEqual({
      query: 'MC-100002',
      identifier: 'MC-100002',
      kind: 'docket',
      resolved_via: 'licensing',
      other_dot_numbers: [],
    })
  })

  test('several USDOTs on one docket: active one shown, the others listed', async () => {
    const res = await shared.get('/v1/broker/MC-555555', shared.account().key())
    expect(res.status).toBe(200)
    const body = BrokerJson.parse(await res.json())
    expect(body.dot_number).toBe('2000002')
    expect(body.lookup).toMatchObject({ resolved_via: 'census' })
    expect(body.lookup.other_dot_numbers.sort()).toEqual(['2000001', '2000003'])
  })

  test.each([
    ['letters', 'ABC'],
    ['a plain USDOT', 'USDOT%201000002'],
    ['an unknown authority letter', '1000002Q'],
    ['too many digits', 'MC-123456789'],
    ['zero', 'MC-0'],
    ['another prefix', 'XX-123456'],
    ['too long', 'M'.repeat(60)],
  ])('%s → 400 invalid_docket', async (_, mc) => {
    await expectError(await ctx.get(`/v1/broker/${mc}`, ctx.account().key()), 400, 'invalid_docket')
  })

  test('the plain-USDOT message points at /v1/carrier', async () => {
    const body = await expectError(
      await ctx.get('/v1/broker/USDOT%201000002', ctx.account().key()),
      400,
      'invalid_docket',
    )
    expect(body.error).toMatch(/\/v1\/carrier/)
  })

  test.each([['/v1/broker'], ['/v1/broker/'], ['/api/v1/broker/']])(
    'missing docket %s → 400 invalid_docket',
    async (path) => {
      await expectError(await ctx.get(path, ctx.account().key()), 400, 'invalid_docket')
    },
  )

  test('no holder → 404 not billed, with RateLimit headers', async () => {
    const { account, key } = ctx.account('starter')
    const body = await expectError(await ctx.get('/v1/broker/MC-999998', key()), 404, 'not_found')
    expect(body.error).toBe('No company found for docket MC-999998')
    expect(used(ctx, account.id)).toBe(0)
  })

  test('/api/v1 alias answers the same', async () => {
    const key = ctx.account().key()
    const a = await json(await ctx.get('/v1/broker/MC-100002', key))
    const b = await json(await ctx.get('/api/v1/broker/MC-100002', key))
    const strip = (x: Record<string, unknown>) => ({ ...x, meta: null })
    expect(strip(b)).toEqual(strip(a))
  })

  test('401 without a key, 429 on Free at its cap (with Retry-After)', async () => {
    await expectError(await ctx.get('/v1/broker/MC-100002'), 401, 'unauthorized')
    const { account, key } = ctx.account('free')
    setUsed(ctx, account.id, 250)
    const res = await ctx.get('/v1/broker/MC-100002', key())
    await expectError(res, 429, 'quota_exceeded')
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
  })

  test('bad crosscheck value → 400 invalid_request', async () => {
    await expectError(
      await ctx.get('/v1/broker/MC-100002?crosscheck=maybe', ctx.account().key()),
      400,
      'invalid_request',
    )
  })

  test('a sandbox key reads the sample and is never billed', async () => {
    const { account, key } = ctx.account('free')
    setUsed(ctx, account.id, 250)
    // sample company 9000001 holds MC-1 (census DOCKET1); the live broker is not in the sample
    const res = await ctx.get('/v1/broker/MC-1', key('test'))
    expect(res.status).toBe(200)
    expect(await json(res)).toMatchObject({
      dot_number: '9000001',
      meta: { source: 'sample', billed: false },
    })
    expect((await ctx.get('/v1/broker/MC-100002', key('test'))).status).toBe(404)
    expect(used(ctx, account.id)).toBe(250)
  })
})

describe('GET /v1/bond/{dot}', () => {
  test('a broker with a BMC-84 surety bond', async () => {
    const { account, key } = ctx.account('starter')
    const res = await ctx.get('/v1/bond/1000002', key())
    expect(res.status).toBe(200)
    const body = BondResponseJson.parse(await res.json())
    expect(body).toMatchObject({
      dot_number: '1000002',
      entity_type: 'broker',
      bond: {
        on_file: true,
        required: true,
        type: 'surety_bond',
        form: 'BMC-84',
        amount: 75_000,
        surety: 'XYZ SURETY CO',
        status: 'active',
      },
      insurance: { bond_on_file: 75_000 },
      meta: { quota_used: 1, billed: true },
    })
    expect(body.bond.bond_number).not.toBeNull()
    expect(body.bond.history).toHaveLength(1)
    expect(used(ctx, account.id)).toBe(1)
  })

  test('a trust fund whose amount is not published: on file, amount null (never $75,000)', async () => {
    const res = await ctx.get('/v1/bond/1000012', ctx.account().key())
    const body = BondResponseJson.parse(await res.json())
    expect(body.bond).toMatchObject({
      on_file: true,
      type: 'trust_fund',
      form: 'BMC-85',
      amount: null,
    })
  })

  test('a carrier without a bond: 200, on_file not true, still billed', async () => {
    const { account, key } = ctx.account('starter')
    const res = await ctx.get('/v1/bond/1000001', key())
    expect(res.status).toBe(200)
    const body = BondResponseJson.parse(await res.json())
    expect(body.bond.on_file).not.toBe(true)
    expect(body.bond.form).toBeNull()
    expect(body.insurance.bipd_on_file).not.toBeNull()
    expect(used(ctx, account.id)).toBe(1)
  })

  test.each([['abc'], ['0'], ['123456789'], ['-1']])('%s → 400 invalid_dot', async (dot) => {
    await expectError(await ctx.get(`/v1/bond/${dot}`, ctx.account().key()), 400, 'invalid_dot')
  })

  test('/v1/bond without a USDOT → 400 invalid_dot', async () => {
    await expectError(await ctx.get('/v1/bond/', ctx.account().key()), 400, 'invalid_dot')
  })

  test('unknown USDOT → 404 not billed', async () => {
    const { account, key } = ctx.account('starter')
    await expectError(await ctx.get('/v1/bond/99999999', key()), 404, 'not_found')
    expect(used(ctx, account.id)).toBe(0)
  })
})

describe('POST /v1/verify', () => {
  const verify = (body: unknown, key: string, headers: Record<string, string> = {}) =>
    ctx.post('/v1/verify', body, key, headers)

  test('mixed batch: results in input order, a status per item, one call per found item', async () => {
    const { account, key } = ctx.account('starter')
    const items = [
      { dot: '1000001' },
      { mc: 'MC-100002' },
      { dot: 99999999 },
      { dot: 'abc' },
      { mc: 'nope' },
      { dot: 1000009 },
      { mc: 'FF-100050' },
      { mc: 'MC-999998' },
      { foo: 1 },
    ]
    const res = await verify({ companies: items }, key())
    expect(res.status).toBe(200)
    const body = VerifyResponse.parse(await res.json())
    expect(body.results.map((r) => r.status)).toEqual([200, 200, 404, 400, 400, 200, 200, 404, 400])
    expect(body.results.map((r) => r.input)).toEqual(items)
    expect(body.results[3]).toMatchObject({ code: 'invalid_dot' })
    expect(body.results[4]).toMatchObject({ code: 'invalid_docket' })
    expect(body.results[8]).toMatchObject({ code: 'invalid_request' })
    expect(body.results[1]).toMatchObject({
      dot_number: '1000002',
      lookup: { identifier: 'MC-100002', resolved_via: 'licensing' },
      record: { entity_type: 'broker' },
    })
    expect(body.results[0]).toMatchObject({ lookup: null, record: { dot_number: '1000001' } })
    expect(body.summary).toEqual({
      requested: 9,
      found: 4,
      not_found: 2,
      not_ready: 0,
      invalid: 3,
      refused: 0,
      billed: 4,
    })
    expect(body.meta).toMatchObject({ quota_used: 4, billed: true, billed_calls: 4 })
    expect(used(ctx, account.id)).toBe(4)
    // each record's meta shows the counter after its own call
    const quotas = body.results.flatMap((r) => (r.status === 200 ? [r.record.meta.quota_used] : []))
    expect(quotas).toEqual([1, 2, 3, 4])
  })

  test('dot_numbers form, numbers and strings', async () => {
    const res = await verify({ dot_numbers: [1000001, '1000009', '0'] }, ctx.account().key())
    const body = VerifyResponse.parse(await res.json())
    expect(body.results.map((r) => r.status)).toEqual([200, 200, 400])
    expect(body.results.map((r) => r.input)).toEqual([1000001, '1000009', '0'])
  })

  test('duplicates: answered once, the repeats are 400 duplicate and not billed', async () => {
    const { account, key } = ctx.account('starter')
    const res = await verify(
      {
        companies: [
          { dot: '1000002' },
          { dot: 1000002 },
          { dot: '01000002' },
          { mc: 'MC-100002' },
          { mc: '1000002B' },
          { mc: 'MC-999998' },
          { mc: 'mc 999998' },
        ],
      },
      key(),
    )
    const body = VerifyResponse.parse(await res.json())
    expect(body.results.map((r) => r.status)).toEqual([200, 400, 400, 400, 400, 404, 400])
    for (const i of [1, 2, 3, 4])
      expect(body.results[i]).toMatchObject({ code: 'duplicate', duplicate_of: 0 })
    expect(body.results[6]).toMatchObject({ code: 'duplicate', duplicate_of: 5 })
    expect(used(ctx, account.id)).toBe(1)
  })

  test('Free plan: the items past the cap get 429 in their slot, not billed', async () => {
    const { account, key } = ctx.account('free')
    setUsed(ctx, account.id, 248)
    const res = await verify(
      {
        companies: [
          { dot: 1000001 },
          { dot: 99999999 },
          { dot: 1000002 },
          { dot: 1000009 },
          { dot: 1000008 },
        ],
      },
      key(),
    )
    expect(res.status).toBe(200)
    const body = VerifyResponse.parse(await res.json())
    expect(body.results.map((r) => r.status)).toEqual([200, 404, 200, 429, 429])
    expect(body.results[3]).toMatchObject({ code: 'quota_exceeded', dot_number: '1000009' })
    expect(body.summary).toMatchObject({ found: 2, refused: 2, billed: 2 })
    expect(body.meta).toMatchObject({ quota_used: 250, quota_limit: 250 })
    expect(res.headers.get('ratelimit-remaining')).toBe('0')
    expect(used(ctx, account.id)).toBe(250)
  })

  test('Free plan with room for every item: charged together, each record shows its own count', async () => {
    const { account, key } = ctx.account('free')
    setUsed(ctx, account.id, 246)
    const res = await verify(
      { companies: [{ dot: 1000001 }, { dot: 99999999 }, { dot: 1000002 }, { dot: 1000009 }] },
      key(),
    )
    const body = VerifyResponse.parse(await res.json())
    expect(body.results.map((r) => r.status)).toEqual([200, 404, 200, 200])
    const quotas = body.results.flatMap((r) => (r.status === 200 ? [r.record.meta.quota_used] : []))
    expect(quotas).toEqual([247, 248, 249])
    expect(body.summary).toMatchObject({ found: 3, refused: 0, billed: 3 })
    expect(used(ctx, account.id)).toBe(249)
    const row = ctx.deps.db
      .prepare('SELECT refused FROM usage_counters WHERE account_id = ?')
      .get(account.id) as { refused: number }
    expect(row.refused).toBe(0)
    const daily = ctx.deps.db
      .prepare('SELECT sum(used) AS n FROM usage_daily WHERE account_id = ?')
      .get(account.id) as { n: number }
    expect(daily.n).toBe(3)
  })

  test('Free plan with nothing left: the whole request is 429 with Retry-After', async () => {
    const { account, key } = ctx.account('free')
    setUsed(ctx, account.id, 250)
    const res = await verify({ companies: [{ dot: 1000001 }] }, key())
    await expectError(res, 429, 'quota_exceeded')
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
  })

  test('a paid plan over its quota keeps answering (overage)', async () => {
    const { account, key } = ctx.account('starter')
    setUsed(ctx, account.id, 10_000)
    const body = VerifyResponse.parse(
      await (await verify({ dot_numbers: [1000001] }, key())).json(),
    )
    expect(body.results[0]?.status).toBe(200)
    expect(used(ctx, account.id)).toBe(10_001)
  })

  test('a sandbox key is never billed, even with the Free quota used up', async () => {
    const { account, key } = ctx.account('free')
    setUsed(ctx, account.id, 250)
    const res = await verify({ dot_numbers: [9000001, 1000001] }, key('test'))
    expect(res.status).toBe(200)
    const body = VerifyResponse.parse(await res.json())
    expect(body.results.map((r) => r.status)).toEqual([200, 404])
    expect(body.meta).toMatchObject({ source: 'sample', billed: false, billed_calls: 0 })
    expect(used(ctx, account.id)).toBe(250)
  })

  test.each([
    ['an empty list', { companies: [] }, /at least 1/],
    ['an empty dot_numbers', { dot_numbers: [] }, /at least 1/],
    ['101 items', { dot_numbers: Array.from({ length: 101 }, (_, i) => i + 1) }, /at most 100/],
    ['both lists', { companies: [{ dot: 1 }], dot_numbers: [1] }, /either/],
    ['neither list', { foo: [] }, /./],
    ['a list that is not an array', { companies: { dot: 1 } }, /./],
    ['an array body', [{ dot: 1 }], /./],
    ['a string body', '"hello"', /./],
    ['malformed JSON', '{"companies": [', /not valid JSON/],
    ['an empty body', '', /required/],
  ])('%s → 400 invalid_request', async (_, body, message) => {
    const res = await verify(body, ctx.account().key())
    const err = await expectError(res, 400, 'invalid_request')
    expect(err.error).toMatch(message)
  })

  test('100 items is accepted', async () => {
    const res = await verify(
      { dot_numbers: Array.from({ length: 100 }, (_, i) => 3_000_000 + i) },
      ctx.account().key(),
    )
    const body = VerifyResponse.parse(await res.json())
    expect(body.results).toHaveLength(100)
    expect(body.summary.not_found).toBe(100)
  })

  test('a body over 64 KiB → 413 payload_too_large (with and without Content-Length)', async () => {
    const key = ctx.account().key()
    const big = JSON.stringify({ companies: [{ mc: 'x'.repeat(70_000) }] })
    await expectError(await verify(big, key), 413, 'payload_too_large')
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big))
        c.close()
      },
    })
    const res = await ctx.app.request('/v1/verify', {
      method: 'POST',
      body: stream,
      duplex: 'half', // undici needs it for a stream body
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    })
    await expectError(res, 413, 'payload_too_large')
  })

  test('another Content-Type → 415; none at all is read as JSON', async () => {
    const key = ctx.account().key()
    await expectError(
      await verify('dot=1', key, { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      'unsupported_media_type',
    )
    await expectError(
      await verify({ dot_numbers: [1] }, key, { 'content-type': 'text/plain' }),
      415,
      'unsupported_media_type',
    )
    // bytes, unlike a string body, get no default Content-Type
    const res = await ctx.app.request('/v1/verify', {
      method: 'POST',
      body: new TextEncoder().encode(JSON.stringify({ dot_numbers: [1000001] })),
      headers: { authorization: `Bearer ${key}` },
    })
    expect(res.status).toBe(200)
    expect(
      (await verify({ dot_numbers: [1] }, key, { 'content-type': 'application/vnd.api+json' }))
        .status,
    ).toBe(200)
    expect(
      (
        await verify({ dot_numbers: [1000001] }, key, {
          'content-type': 'application/json; charset=utf-8',
        })
      ).status,
    ).toBe(200)
  })

  test('item crosscheck must be a boolean; top-level ?crosscheck is validated', async () => {
    const key = ctx.account().key()
    const body = VerifyResponse.parse(
      await (await verify({ companies: [{ dot: 1000001, crosscheck: 'yes' }] }, key)).json(),
    )
    expect(body.results[0]).toMatchObject({
      status: 400,
      code: 'invalid_request',
      error: /crosscheck/,
    })
    await expectError(
      await ctx.post('/v1/verify?crosscheck=maybe', { dot_numbers: [1] }, key),
      400,
      'invalid_request',
    )
  })

  test('crosscheck per item (mode on_demand, no web key: unavailable, never a failure)', async () => {
    const res = await ctx.post(
      '/v1/verify',
      { companies: [{ dot: 1000001, crosscheck: true }, { dot: 1000009 }] },
      ctx.account().key(),
    )
    const body = VerifyResponse.parse(await res.json())
    const [a, b] = body.results
    expect(a?.status === 200 && a.record.crosscheck?.status).toBe('unavailable')
    expect(b?.status === 200 && b.record.crosscheck).toBeUndefined()
  })

  test('GET /v1/verify → 405 with Allow: POST', async () => {
    const res = await ctx.get('/v1/verify', ctx.account().key())
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
  })

  test('401 before anything else is read', async () => {
    await expectError(await ctx.post('/v1/verify', { dot_numbers: [1] }), 401, 'unauthorized')
  })
})
