import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CarrierJson } from '../../carriers/schema.ts'
import { carrierRow, writeCensus, type CensusFields } from '../../testing/census-fixture.ts'
import { createTestContext, type TestContext } from '../../testing/context.ts'
import { LICENSING_FIXTURES } from '../../testing/fmcsa-server.ts'
import { encodeCursor } from '../../search/query.ts'
import { SearchResponse } from '../../search/page.ts'

const NOW = '2026-11-15T12:00:00Z'

/** Similar names, on purpose: ranking must tell them apart. */
const NAMED: [number, CensusFields][] = [
  [3000001, { LEGAL_NAME: 'ACME TRUCKING LLC', PHY_STATE: 'TX' }],
  [3000002, { LEGAL_NAME: 'ACME TRUCKING & LOGISTICS INC', PHY_STATE: 'CA' }],
  [3000003, { LEGAL_NAME: 'NEW ACME TRUCKING CO', PHY_STATE: 'TX' }],
  [3000004, { LEGAL_NAME: 'ACME', STATUS_CODE: 'I', PHY_STATE: 'TX' }],
  [
    3000005,
    { LEGAL_NAME: 'ACMÉ FREIGHT', PHY_STATE: 'ON', PHY_COUNTRY: 'CA', PHY_CITY: 'TORONTO' },
  ],
  [
    3000006,
    { LEGAL_NAME: 'ACMEX FORWARDING', DOCKET1PREFIX: 'FF', CLASSDEF: '', POWER_UNITS: '0' },
  ],
  [3000007, { LEGAL_NAME: 'ACME TRUCKING LLC', STATUS_CODE: 'I', PHY_STATE: 'OK' }],
  [3000008, { LEGAL_NAME: 'ZZ HOLDINGS INC', DBA_NAME: 'ACME EXPRESS' }],
  [3000009, { LEGAL_NAME: "O'BRIEN AND SONS" }],
  [3000010, { LEGAL_NAME: 'AT&T LOGISTICS' }],
  [3000011, { LEGAL_NAME: 'NEAR OR NOT AND' }],
  [3000012, { LEGAL_NAME: 'MEXICANA DE CARGA SA', PHY_STATE: 'NL', PHY_COUNTRY: 'MX' }],
  // holds docket MC-3000001: "3000001" is both this company's docket and another's USDOT
  [3000020, { LEGAL_NAME: 'DOCKET HOLDER INC', DOCKET1: '3000001' }],
]
/** 40 more TRUCKING names for paging */
const FILLER: [number, CensusFields][] = Array.from({ length: 40 }, (_, i) => [
  3000100 + i,
  { LEGAL_NAME: `FILLER ${i} TRUCKING`, POWER_UNITS: String(100 - i) },
])

/** 260 carriers then one forwarder sharing a word: more than one request's evaluation budget */
const HAULING: [number, CensusFields][] = [
  ...Array.from({ length: 260 }, (_, i): [number, CensusFields] => [
    3001000 + i,
    { LEGAL_NAME: `BULK ${i} HAULING`, POWER_UNITS: String(500 - i) },
  ]),
  [
    3002000,
    { LEGAL_NAME: 'ZED HAULING FORWARDERS', DOCKET1PREFIX: 'FF', CLASSDEF: '', POWER_UNITS: '0' },
  ],
  // after the 260 others in static order (beyond the first ranked block): starts with the word
  [3003000, { LEGAL_NAME: 'HAULING SPECIALISTS INC', POWER_UNITS: '3' }],
  // the same, after leading punctuation
  [3003001, { LEGAL_NAME: '"HAULING" PROS', POWER_UNITS: '2' }],
]

let ctx: TestContext
let lic: TestContext
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cvk-search-'))
  writeCensus(
    join(dir, 'az4n-8mr2.csv'),
    [...NAMED, ...FILLER, ...HAULING].map(([dot, f]) => carrierRow(dot, f)),
  )
  ctx = await createTestContext({ liveDir: dir, now: NOW })
  lic = await createTestContext({ liveDir: LICENSING_FIXTURES, now: NOW })
})
afterAll(() => {
  ctx.close()
  lic.close()
})

const search = async (qs: string, c: TestContext = ctx, key = c.account().key()) => {
  const res = await c.get(`/v1/search?${qs}`, key)
  return { res, body: res.status === 200 ? SearchResponse.parse(await res.json()) : null }
}
const dots = async (qs: string, c: TestContext = ctx) =>
  (await search(qs, c)).body?.results.map((r) => Number(r.dot_number)) ?? []
const used = (c: TestContext, accountId: number) =>
  (
    c.deps.db
      .prepare("SELECT used FROM usage_counters WHERE account_id = ? AND period = '2026-11'")
      .get(accountId) as { used: number } | undefined
  )?.used ?? 0

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  const body = (await res.json()) as Record<string, unknown>
  expect(body).toMatchObject({ status, code })
  return body
}

describe('ranking on similar names', () => {
  test('exact name, then names starting with q, active before inactive, then q inside a name', async () => {
    expect(await dots('q=acme+trucking')).toEqual([3000001, 3000002, 3000007, 3000003])
  })

  test('an exact legal name ranks first even when inactive', async () => {
    const r = await dots('q=acme')
    expect(r[0]).toBe(3000004)
    // every ACME-prefixed name is found, DBA names included; the word inside a name comes last
    expect(new Set(r)).toEqual(
      new Set([3000004, 3000005, 3000006, 3000001, 3000008, 3000002, 3000007, 3000003]),
    )
    expect(r.at(-1)).toBe(3000003)
    expect(r.indexOf(3000001)).toBeLessThan(r.indexOf(3000007))
  })

  test('scores are between 0 and 1 and never increase down the list', async () => {
    const { body } = await search('q=acme')
    const scores = body?.results.map((r) => r.score ?? -1) ?? []
    expect(scores.every((s) => s >= 0 && s <= 1)).toBe(true)
    expect([...scores].sort((a, b) => b - a)).toEqual(scores)
    expect(body?.results[0]).toMatchObject({
      match: 'name',
      legal_name: 'ACME',
      score: expect.any(Number),
    })
  })

  test('accent-insensitive both ways', async () => {
    expect(await dots('q=acm%C3%A9+freight')).toEqual([3000005])
    expect(await dots('q=ACME+FREIGHT')).toEqual([3000005])
  })

  test('type-ahead: every prefix of "acme trucking" finds ACME TRUCKING LLC first', async () => {
    for (const q of ['acme+t', 'acme+tr', 'acme+tru', 'acme+truc', 'acme+truck', 'acme+truckin'])
      expect((await dots(`q=${q}`))[0], q).toBe(3000001)
  })

  test('a DBA name matches', async () => {
    const { body } = await search('q=acme+express')
    expect(body?.results[0]).toMatchObject({ dot_number: '3000008', dba_name: 'ACME EXPRESS' })
  })

  test("punctuated names: O'Brien and AT&T", async () => {
    expect(await dots("q=o'brien")).toEqual([3000009])
    expect(await dots('q=obrien')).toEqual([])
    expect(await dots('q=at%26t')).toEqual([3000010])
  })

  test('FTS syntax in q is just text, never an error', async () => {
    for (const q of [
      'AND',
      'near+or',
      'NOT+AND',
      '"acme',
      'acme*',
      'NEAR(acme,+2)',
      '{legal_name}:acme',
      '^acme',
      '%00acme',
      '(((',
    ])
      expect((await search(`q=${q}`)).res.status, q).toBe(200)
    expect(await dots('q=near+or+not+and')).toEqual([3000011])
  })
})

describe('exact USDOT and docket in q', () => {
  test('bare digits: the USDOT first, then the docket holder', async () => {
    const { body } = await search('q=3000001')
    expect(body?.results.map((r) => [r.dot_number, r.match])).toEqual([
      ['3000001', 'dot'],
      ['3000020', 'docket'],
    ])
  })

  test('USDOT forms', async () => {
    for (const q of ['USDOT+3000005', 'DOT%23+3000005', 'usdot3000005', '03000005'])
      expect((await search(`q=${q}`)).body?.results[0], q).toMatchObject({
        dot_number: '3000005',
        match: 'dot',
      })
  })

  test('docket forms find the holder', async () => {
    for (const q of ['MC-5', 'mc+000005', 'MC5'])
      expect((await search(`q=${q}`)).body?.results, q).toEqual([
        expect.objectContaining({
          dot_number: '3000005',
          match: 'docket',
          docket_numbers: ['MC-5'],
        }),
      ])
    expect((await search('q=FF-6')).body?.results[0]).toMatchObject({ dot_number: '3000006' })
  })

  test('licensing dockets and USDOT-suffix identifiers', async () => {
    expect((await search('q=MC-100002', lic)).body?.results[0]).toMatchObject({
      dot_number: '1000002',
      match: 'docket',
      entity_type: 'broker',
      mc_number: 'MC-100002',
    })
    expect((await search('q=1000002-B', lic)).body?.results[0]).toMatchObject({
      dot_number: '1000002',
      match: 'dot',
    })
  })

  test('filters apply to exact matches too', async () => {
    expect(await dots('q=3000005&country=US')).toEqual([])
    expect(await dots('q=3000005&country=CA')).toEqual([3000005])
  })
})

describe('filters', () => {
  test('state', async () => {
    expect(await dots('q=acme+trucking&state=tx')).toEqual([3000001, 3000003])
  })
  test('country', async () => {
    expect(await dots('q=acme&country=CA')).toEqual([3000005])
    expect(await dots('q=mexicana&country=MX')).toEqual([3000012])
  })
  test('status', async () => {
    expect(await dots('q=acme+trucking&status=inactive')).toEqual([3000007])
    expect(await dots('q=acme&status=active')).not.toContain(3000004)
  })
  test('entity_type', async () => {
    expect(await dots('q=acme&entity_type=forwarder')).toEqual([3000006])
    expect(await dots('q=acme&entity_type=broker')).toEqual([])
  })
  test('combined', async () => {
    expect(await dots('q=acme&state=TX&status=active&entity_type=carrier')).toEqual([
      3000001, 3000003,
    ])
  })
})

describe('summaries', () => {
  test('the summary shape: identity, location, dockets, match', async () => {
    const { body } = await search('q=acme+freight')
    expect(body?.results[0]).toEqual({
      dot_number: '3000005',
      mc_number: 'MC-5',
      legal_name: 'ACMÉ FREIGHT',
      dba_name: null,
      entity_type: 'carrier',
      status: 'active',
      city: 'TORONTO',
      state: 'ON',
      country: 'CA',
      docket_numbers: ['MC-5'],
      match: 'name',
      score: expect.any(Number),
    })
  })

  test('census-only data: a name match summary says what the record says (docket holders too)', async () => {
    const key = ctx.account().key()
    const all = []
    for (const q of ['acme', 'docket+holder', 'zed+hauling', 'hauling&limit=30'])
      all.push(...((await search(`q=${q}`, ctx, key)).body?.results ?? []))
    expect(all.length).toBeGreaterThan(20)
    expect(all.some((r) => r.docket_numbers.length > 0)).toBe(true)
    expect(new Set(all.map((r) => r.entity_type))).toEqual(new Set(['carrier', 'forwarder']))
    for (const s of all) {
      const rec = CarrierJson.parse(
        await (await ctx.get(`/v1/carrier/${s.dot_number}`, key)).json(),
      )
      expect(
        { e: s.entity_type, mc: s.mc_number, d: s.docket_numbers, st: s.status, c: s.city },
        s.dot_number,
      ).toEqual({
        e: rec.entity_type,
        mc: rec.mc_number,
        d: rec.identity.docket_numbers,
        st: rec.identity.usdot_status,
        c: rec.contact.physical_address?.city ?? null,
      })
    }
  })

  test('with licensing data: name matches summarise the census alone, exact matches the record', async () => {
    const key = lic.account().key()
    const { body } = await search('q=test+carrier&limit=50', lic, key)
    expect(body?.results.length).toBeGreaterThan(3)
    for (const s of body?.results ?? []) {
      const rec = CarrierJson.parse(
        await (await lic.get(`/v1/carrier/${s.dot_number}`, key)).json(),
      )
      // census dockets are a subset of the record's (licensing adds its own)
      for (const d of s.docket_numbers)
        expect(rec.identity.docket_numbers, s.dot_number).toContain(d)
    }
    // 1000002 is a broker only in licensing (census: for hire, no power units): the census cannot tell
    const broker = body?.results.find((r) => r.dot_number === '1000002')
    expect(broker).toMatchObject({ entity_type: null, mc_number: 'MC-100002', match: 'name' })
    // 1000001 is a for-hire carrier with power units: census and record agree
    expect(body?.results.find((r) => r.dot_number === '1000001')).toMatchObject({
      entity_type: 'carrier',
    })
    expect((await search('q=test+carrier&entity_type=broker', lic, key)).body?.results).toEqual([])
    // the exact docket match is summarised as the record: broker
    expect((await search('q=MC-100002', lic, key)).body?.results[0]).toMatchObject({
      dot_number: '1000002',
      match: 'docket',
      entity_type: 'broker',
    })
  })
})

describe('paging', () => {
  test('next_cursor walks every result once, with the same order as one big page', async () => {
    const all = await dots('q=trucking&limit=50')
    expect(all).toHaveLength(44)
    const seen: number[] = []
    let cursor: string | null = null
    for (let page = 0; page < 20; page++) {
      const { body }: Awaited<ReturnType<typeof search>> = await search(
        `q=trucking&limit=7${cursor ? `&cursor=${cursor}` : ''}`,
      )
      seen.push(...(body?.results.map((r) => Number(r.dot_number)) ?? []))
      cursor = body?.next_cursor ?? null
      if (!cursor) break
    }
    expect(seen).toEqual(all)
  })

  test('entity_type is applied inside the index: a full first page, however many others rank first', async () => {
    // 260 carriers rank before the one forwarder sharing the word
    const first = await search('q=hauling&entity_type=forwarder&limit=5')
    expect(first.body?.results.map((r) => r.dot_number)).toEqual(['3002000'])
    expect(first.body?.next_cursor).toBeNull()
    const carriers = await search('q=hauling&entity_type=carrier&limit=50')
    expect(carriers.body?.results).toHaveLength(50)
    expect(carriers.body?.results.every((r) => r.entity_type === 'carrier')).toBe(true)
  })

  test('past the first ranked block: every match once, the same order whatever the page size', async () => {
    const walk = async (limit: number, q = 'hauling') => {
      const out: number[] = []
      let cursor: string | null = null
      for (let page = 0; page < 100; page++) {
        const { body }: Awaited<ReturnType<typeof search>> = await search(
          `q=${q}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
        )
        out.push(...(body?.results.map((r) => Number(r.dot_number)) ?? []))
        cursor = body?.next_cursor ?? null
        if (!cursor) break
      }
      return out
    }
    const big = await walk(50)
    expect(big).toHaveLength(263)
    expect(new Set(big).size).toBe(263)
    expect(await walk(7)).toEqual(big)
    // names starting with the word rank first although 260 matches precede them in static order
    // (also after leading punctuation: `"HAULING" PROS`)
    expect(big.slice(0, 2).sort()).toEqual([3003000, 3003001])
    // several words (the last one a prefix checked on the names read): the same guarantees
    const two = await walk(50, 'bulk+hau')
    expect(two).toHaveLength(260)
    expect(new Set(two).size).toBe(260)
    expect(await walk(9, 'bulk+hau')).toEqual(two)
    expect(await walk(50, 'bulk+haz')).toEqual([])
  })

  test('the last page has next_cursor null; default limit is 20', async () => {
    const { body } = await search('q=trucking')
    expect(body?.results).toHaveLength(20)
    expect(body?.next_cursor).toEqual(expect.any(String))
    expect((await search('q=acme+express')).body?.next_cursor).toBeNull()
  })

  test('a cursor from another search, another version, or garbage → 400 invalid_request', async () => {
    const { body } = await search('q=trucking&limit=5')
    const cursor = body?.next_cursor ?? ''
    await expectError((await search(`q=acme&cursor=${cursor}`)).res, 400, 'invalid_request')
    await expectError(
      (await search(`q=trucking&state=TX&cursor=${cursor}`)).res,
      400,
      'invalid_request',
    )
    // the same search with another page size is fine
    expect((await search(`q=trucking&limit=9&cursor=${cursor}`)).res.status).toBe(200)
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as {
      v: number
      o: number
      h: string
    }
    const stale = encodeCursor(decoded.v + 1, decoded.o, decoded.h)
    const err = await expectError(
      (await search(`q=trucking&cursor=${stale}`)).res,
      400,
      'invalid_request',
    )
    expect(err.error).toMatch(/data changed/)
    const deep = encodeCursor(decoded.v, 5000, decoded.h)
    await expectError((await search(`q=trucking&cursor=${deep}`)).res, 400, 'invalid_request')
    for (const bad of ['x', 'eyJ2IjoxfQ', '%FF%FE', 'a'.repeat(300)])
      await expectError((await search(`q=trucking&cursor=${bad}`)).res, 400, 'invalid_request')
  })
})

describe('billing', () => {
  test('one call when the page has results, none when it is empty', async () => {
    const { account, key } = ctx.account('starter')
    const a = await search('q=acme', ctx, key())
    expect(a.body?.meta).toMatchObject({ quota_used: 1, billed: true, source: 'mirror' })
    expect(a.res.headers.get('ratelimit-remaining')).toBe('9999')
    const b = await search('q=zzzzzz', ctx, key())
    expect(b.body).toMatchObject({
      results: [],
      next_cursor: null,
      meta: { quota_used: 1, billed: false },
    })
    expect(used(ctx, account.id)).toBe(1)
  })

  test('Free at its cap: 429 when there are results, 200 when there are none', async () => {
    const { account, key } = ctx.account('free')
    ctx.deps.db
      .prepare("INSERT INTO usage_counters (account_id, period, used) VALUES (?, '2026-11', 250)")
      .run(account.id)
    const k = key()
    const res = (await search('q=acme', ctx, k)).res
    await expectError(res, 429, 'quota_exceeded')
    expect(res.headers.get('retry-after')).toEqual(expect.any(String))
    expect((await search('q=zzzzzz', ctx, k)).res.status).toBe(200)
  })
})

describe('validation', () => {
  test.each([
    ['no q', ''],
    ['q too short', 'q=a'],
    ['q blank', 'q=+++'],
    ['q too long', `q=${'a'.repeat(101)}`],
    ['limit 0', 'q=acme&limit=0'],
    ['limit 51', 'q=acme&limit=51'],
    ['limit text', 'q=acme&limit=ten'],
    ['limit negative', 'q=acme&limit=-1'],
    ['state', 'q=acme&state=TEXAS'],
    ['country', 'q=acme&country=XX'],
    ['entity_type', 'q=acme&entity_type=shipper'],
    ['status', 'q=acme&status=dormant'],
    ['unknown parameter', 'q=acme&sort=name'],
  ])('%s → 400 invalid_request', async (_, qs) => {
    await expectError((await search(qs)).res, 400, 'invalid_request')
  })

  test('401 without a key; /api/v1 alias', async () => {
    await expectError(await ctx.get('/v1/search?q=acme'), 401, 'unauthorized')
    const key = ctx.account().key()
    const a = (await (await ctx.get('/v1/search?q=acme', key)).json()) as { results: unknown }
    const b = (await (await ctx.get('/api/v1/search?q=acme', key)).json()) as { results: unknown }
    expect(b.results).toEqual(a.results)
  })

  test('a census file built without the search index: 503 for names, exact lookups still work', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cvk-search-old-'))
    writeCensus(join(dir, 'az4n-8mr2.csv'), [carrierRow(4000001, { LEGAL_NAME: 'OLD FILE LLC' })])
    const old = await createTestContext({ liveDir: dir, now: NOW })
    try {
      const file = old.deps.datasets.get('census', 'live')?.db.name ?? ''
      const rw = new Database(file)
      rw.exec('DROP TABLE search_prefixes')
      rw.close()
      const key = old.account().key()
      await expectError(await old.get('/v1/search?q=old+file', key), 503, 'dataset_unavailable')
      expect((await old.get('/v1/search?q=USDOT+4000001', key)).status).toBe(200)
    } finally {
      old.close()
    }
  })

  test('503 when no census is loaded', async () => {
    const empty = await createTestContext({ now: NOW })
    try {
      await expectError(
        await empty.get('/v1/search?q=acme', empty.account().key()),
        503,
        'dataset_unavailable',
      )
    } finally {
      empty.close()
    }
  })
})
