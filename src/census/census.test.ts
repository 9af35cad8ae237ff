import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { pipelineDeps } from '../deps.ts'
import { importDir, runBuild } from '../sync/pipeline.ts'
import type { ActiveDataset } from '../db/datasets.ts'
import { activeVersion } from '../db/versions.ts'
import {
  carrierRow,
  censusLine,
  writeCensus,
  type CensusFields,
} from '../testing/census-fixture.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { CENSUS_COLUMNS } from './columns.ts'
import { CENSUS_ROW_COLUMNS, findCensusRow } from './read.ts'
import { censusDataset } from './census.ts'
import { pairWords } from './search-index.ts'

/** The real census row of USDOT 344554 (data.transportation.gov, verified 2026-09-14). */
function realRow(): CensusFields & { DOT_NUMBER: string } {
  const raw = JSON.parse(
    readFileSync('test/fixtures/census/socrata_rows_usdot344554_verified_2026-09-14.json', 'utf8'),
  ) as Record<string, { row: Record<string, string> }>
  const row = raw['az4n-8mr2_Company_Census_File']?.row ?? {}
  const byLower = new Map(CENSUS_COLUMNS.map((c) => [c.toLowerCase(), c]))
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(row)) {
    const col = byLower.get(k)
    if (col) out[col] = v
  }
  return out as CensusFields & { DOT_NUMBER: string }
}

let ctx: TestContext
let dir: string
beforeEach(async () => {
  ctx = await createTestContext()
  dir = mkdtempSync(join(tmpdir(), 'cvk-census-'))
})
afterEach(() => ctx.close())

const generated = (n: number, start = 2_000_000) =>
  Array.from({ length: n }, (_, i) => carrierRow(start + i))
const importLive = () =>
  importDir(pipelineDeps(ctx.deps), dir, {
    channel: 'live',
    trigger: 'test',
    signal: AbortSignal.timeout(30_000),
  })
const liveView = () => ctx.deps.datasets.view('live')
/** The pair words a census file stored (search_pair_words), in order. */
const storedPairWords = (census: ActiveDataset) =>
  census.db.prepare('SELECT term FROM search_pair_words ORDER BY term').pluck().all() as string[]

describe('census import', () => {
  test('imports the real-format row of USDOT 344554 with every field normalised', async () => {
    writeCensus(join(dir, 'az4n-8mr2.csv'), [realRow(), ...generated(200)])
    const [r] = await importLive()
    expect(r).toMatchObject({ status: 'activated', dataset: 'census' })
    const census = liveView().get('census')
    expect(census).not.toBeNull()
    if (!census) return
    expect(findCensusRow(census, 344554)).toMatchObject({
      legal_name: 'HULL COOPERATIVE ASSOCIATION',
      status_code: 'A',
      carrier_operation: 'A',
      add_date: '1989-02-21',
      mcs150_date: '2025-04-29',
      mcs150_mileage: 531000,
      phone: '7124392831',
      email: 'accounting@hullcoop.com',
      power_units: 32,
      total_drivers: 30,
      total_cdl: 30,
      fleet_owned: 29, // OWNTRUCK 12 + OWNTRACT 17; OWNTRAIL excluded
      safety_rating: 'S',
      safety_rating_date: '2006-01-03',
      phy_zip: '51239',
      dockets: '["MC421775"]',
    })
  })

  test('a census row has every column of the table, each as SQLite gives it, for every company', async () => {
    writeCensus(join(dir, 'az4n-8mr2.csv'), [realRow(), ...generated(300)])
    await importLive()
    const census = liveView().get('census')
    if (!census) throw new Error('no census')
    const byName = census.db.prepare(
      `SELECT ${CENSUS_ROW_COLUMNS.join(', ')} FROM companies WHERE dot_number = ?`,
    )
    const dots = census.db.prepare('SELECT dot_number FROM companies').pluck().all() as number[]
    expect(dots).toHaveLength(301)
    for (const dot of dots) {
      const row = findCensusRow(census, dot)
      expect(row).toStrictEqual(byName.get(dot))
      expect(Object.keys(row ?? {})).toEqual([...CENSUS_ROW_COLUMNS])
    }
    expect(findCensusRow(census, 999_999_999)).toBeNull()
  })

  test('the record of 344554 through the API', async () => {
    writeCensus(join(dir, 'az4n-8mr2.csv'), [realRow(), ...generated(50)])
    await importLive()
    const res = await ctx.get('/v1/carrier/344554', ctx.account('starter').key())
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, Record<string, unknown>>
    expect(body.mc_number).toBe('MC-421775')
    expect(body.identity).toMatchObject({
      registration_date: '1989-02-21',
      operation_class: 'interstate',
      usdot_status: 'active',
      docket_numbers: ['MC-421775'],
      country: null,
    })
    expect(body.contact).toMatchObject({
      phone: '+17124392831',
      email: 'accounting@hullcoop.com',
      physical_address: {
        street: '805 ELM ST',
        city: 'HULL',
        state: 'IA',
        zip: '51239',
        country: null,
      },
    })
    expect(body.fleet).toMatchObject({
      power_units: 32,
      total_drivers: 30,
      fleet_owned: 29,
      cdl_indicator: true,
      hazmat_indicator: false,
      mcs150_date: '2025-04-29',
      mcs150_mileage: 531000,
      mcs150_mileage_year: 2024,
    })
    expect(body.safety).toMatchObject({
      safety_rating: 'Satisfactory',
      safety_rating_code: 'S',
      safety_rating_date: '2006-01-03',
    })
    expect(body.authority).toMatchObject({ status: 'ACTIVE', fmcsa_status_code: 'A' })
    for (const block of [
      'identity',
      'contact',
      'authority',
      'insurance',
      'fleet',
      'safety',
      'trust',
      'reviews',
      'meta',
    ])
      expect(body[block]).toBeTypeOf('object')
  })

  test('facts easy to misread: STATUS_CODE P, prior revoke link, explicit not-private, returned mail', async () => {
    const real = realRow()
    writeCensus(join(dir, 'az4n-8mr2.csv'), [
      // the real 344554 row: blank PRIOR_REVOKE_* (the census says nothing), for-hire class
      real,
      carrierRow(2_100_001, {
        STATUS_CODE: 'P',
        PRIOR_REVOKE_FLAG: 'Y',
        PRIOR_REVOKE_DOT_NUMBER: '1234567',
        CARRIER_MAILING_UND_DATE: '20260602',
        MCS150_DATE: '20210115',
      }),
      carrierRow(2_100_002, {
        PRIOR_REVOKE_FLAG: 'N',
        CLASSDEF: 'PRIVATE PROPERTY',
        DOCKET1PREFIX: '',
        DOCKET1: '',
      }),
      // nothing says what it is: no class, no fleet, no docket
      carrierRow(2_100_003, {
        CLASSDEF: '',
        POWER_UNITS: '',
        TRUCK_UNITS: '',
        DOCKET1PREFIX: '',
        DOCKET1: '',
      }),
      ...generated(20),
    ])
    await importLive()
    const key = ctx.account('starter').key()
    const get = async (dot: number) => {
      const res = await ctx.get(`/v1/carrier/${dot}`, key)
      expect(res.status).toBe(200)
      return (await res.json()) as Record<string, Record<string, unknown>>
    }
    const hull = await get(344554)
    expect(hull.identity).toMatchObject({ prior_revoke: null, private_entity: false })

    const pending = await get(2_100_001)
    expect(pending.identity).toMatchObject({
      usdot_status: 'pending',
      prior_revoke: { flag: true, dot_number: '1234567' },
      private_entity: false,
    })
    expect(pending.authority).toMatchObject({ fmcsa_status_code: 'P', allowed_to_operate: 'N' })
    expect(pending.contact).toMatchObject({
      mailing_address_undeliverable: true,
      mailing_address_undeliverable_date: '2026-06-02',
    })
    const trust = pending.trust as {
      gates: { id: string; reason: string }[]
      factors: { id: string; points: number; reason: string }[]
    }
    expect(trust.gates.map((g) => [g.id, g.reason])).toEqual([
      [
        'not_allowed_to_operate',
        'USDOT registration is pending (not active yet): not allowed to operate',
      ],
    ])
    const f = new Map(trust.factors.map((x) => [x.id, x]))
    expect(f.get('prior_revoked_usdot')?.points).toBe(-6)
    // overdue MCS-150 and returned mail: shown with their dates, information only
    expect(f.get('mcs150_outdated')).toMatchObject({ points: 0 })
    expect(f.get('mcs150_outdated')?.reason).toContain('2021-01-15')
    expect(f.get('address_undeliverable')).toMatchObject({ points: 0 })
    expect(f.get('address_undeliverable')?.reason).toContain('since 2026-06-02')

    const priv = await get(2_100_002)
    expect(priv.identity).toMatchObject({
      prior_revoke: { flag: false, dot_number: null },
      private_entity: true,
      entity_type: 'private',
    })
    expect((await get(2_100_003)).identity).toMatchObject({ private_entity: null })
  })

  test('malformed rows are rejected, counted and sampled, never silently dropped', async () => {
    const bad = [
      censusLine(carrierRow(0)).replace(/^([^,]*,[^,]*,[^,]*,)0,/, '$1ABC,'), // letters in DOT_NUMBER
      censusLine({ ...carrierRow(3_000_001), DOT_NUMBER: '' }),
      'only,three,fields',
    ]
    writeCensus(join(dir, 'az4n-8mr2.csv'), generated(1000), bad)
    const [r] = await importLive()
    expect(r?.status).toBe('activated')
    if (r?.status !== 'activated') return
    expect(r.stats.rows).toBe(1000)
    expect(r.stats.rejects).toBe(3)
    expect(r.stats.rejectSamples.map((s) => s.reason)).toEqual([
      expect.stringContaining('invalid DOT_NUMBER'),
      expect.stringContaining('invalid DOT_NUMBER'),
      'expected 147 fields, got 3',
    ])
    expect(r.stats.rejectSamples.map((s) => s.line)).toEqual([1001, 1002, 1003])
    const v = activeVersion(ctx.deps.db, 'census', 'live')
    expect(v).toMatchObject({ rows: 1000, rejects: 3 })
  })

  test.each([
    ['wrong header', () => 'DOT_NUMBER,LEGAL_NAME\n1,ACME\n', /header does not match/],
    [
      'columns reordered',
      () => [[...CENSUS_COLUMNS].reverse().join(','), censusLine(carrierRow(1))].join('\n'),
      /different order/,
    ],
    ['empty file', () => '', /empty/],
    [
      'HTML page instead of CSV',
      () => '<!DOCTYPE html><html><body>Service unavailable</body></html>',
      /HTML/,
    ],
    ['header only', () => `${CENSUS_COLUMNS.join(',')}\n`, /no rows/],
    [
      'too many rejects',
      () =>
        [
          CENSUS_COLUMNS.join(','),
          ...generated(95).map(censusLine),
          ...Array.from({ length: 10 }, () => 'x,y'),
        ].join('\n'),
      /10 of 105 rows rejected/,
    ],
  ])('%s is refused and the previous version stays active', async (_name, content, error) => {
    writeCensus(join(dir, 'az4n-8mr2.csv'), generated(100))
    await importLive()
    const before = activeVersion(ctx.deps.db, 'census', 'live')
    writeFileSync(join(dir, 'az4n-8mr2.csv'), content())
    const [r] = await importLive()
    expect(r?.status).toBe('failed')
    if (r?.status === 'failed') expect(r.error).toMatch(error)
    expect(activeVersion(ctx.deps.db, 'census', 'live')?.id).toBe(before?.id)
    const census = liveView().get('census')
    expect(census && findCensusRow(census, 2_000_000)).toBeTruthy()
    const run = ctx.deps.db
      .prepare('SELECT status, error FROM sync_runs ORDER BY id DESC LIMIT 1')
      .get() as { status: string; error: string }
    expect(run.status).toBe('failed')
    expect(run.error).toMatch(error)
  })

  test('a file that shrank by half is refused by the shrink guard', async () => {
    writeCensus(join(dir, 'az4n-8mr2.csv'), generated(1000))
    await importLive()
    writeCensus(join(dir, 'az4n-8mr2.csv'), generated(500))
    const [r] = await importLive()
    expect(r).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/less than 90% of the previous version's 1000/),
    })
  })

  test('an abort in the middle of a build removes the partial file; the old version stays', async () => {
    writeCensus(join(dir, 'az4n-8mr2.csv'), generated(100))
    await importLive()
    const before = activeVersion(ctx.deps.db, 'census', 'live')
    writeCensus(join(dir, 'az4n-8mr2.csv'), generated(30_000))
    const controller = new AbortController()
    const r = await runBuild(
      pipelineDeps(ctx.deps),
      censusDataset,
      new Map([['az4n-8mr2', join(dir, 'az4n-8mr2.csv')]]),
      {
        channel: 'live',
        trigger: 'test',
        signal: controller.signal,
        // at the first progress report (after the first batch of rows): the build thread reports
        // at most 4 times a second, and a fast build of 30,000 rows may send no later report
        onProgress: (p) => {
          if (p.rows > 0) controller.abort(new Error('stop here'))
        },
      },
    )
    expect(r).toMatchObject({ status: 'interrupted', error: 'interrupted: stop here' })
    expect(activeVersion(ctx.deps.db, 'census', 'live')?.id).toBe(before?.id)
    const files = readdirSync(join(ctx.config.paths.datasets, 'live', 'census'))
    expect(files).toEqual([`${before?.id}.db`])
  })

  test('a second import activates a new version, keeps the previous file, deletes older ones', async () => {
    for (let i = 0; i < 3; i++) {
      writeCensus(join(dir, 'az4n-8mr2.csv'), generated(100 + i))
      await importLive()
    }
    const versions = ctx.deps.db
      .prepare("SELECT id, status, path FROM dataset_versions WHERE dataset = 'census' ORDER BY id")
      .all() as { id: number; status: string; path: string }[]
    expect(versions.map((v) => v.status)).toEqual(['deleted', 'superseded', 'active'])
    expect(versions.map((v) => existsSync(join(ctx.config.paths.dataDir, v.path)))).toEqual([
      false,
      true,
      true,
    ])
    expect(liveView().get('census')?.versionId).toBe(versions[2]?.id)
  })

  test('a duplicate USDOT keeps the last row and is counted once', async () => {
    writeCensus(join(dir, 'az4n-8mr2.csv'), [
      ...generated(10),
      carrierRow(2_000_000, { LEGAL_NAME: 'RENAMED LLC' }),
    ])
    const [r] = await importLive()
    expect(r?.status === 'activated' && r.stats.rows).toBe(10)
    const census = liveView().get('census')
    expect(census && findCensusRow(census, 2_000_000)?.legal_name).toBe('RENAMED LLC')
    // one digest per company, the last row's: a census of the first row alone digests otherwise
    const digestOf = (db: ActiveDataset['db'] | undefined) =>
      db?.prepare('SELECT digest FROM companies WHERE dot_number = 2000000').pluck().get()
    expect(census?.db.prepare('SELECT count(DISTINCT digest) FROM companies').pluck().get()).toBe(
      10,
    )
    const last = digestOf(census?.db)
    writeCensus(join(dir, 'az4n-8mr2.csv'), generated(10))
    await importLive()
    expect(digestOf(liveView().get('census')?.db)).not.toBe(last)
  })

  test("the version stores each input file's SHA-256 and size, hashed beside the build", async () => {
    const file = join(dir, 'az4n-8mr2.csv')
    writeCensus(file, generated(25))
    const [r] = await importLive()
    expect(r?.status).toBe('activated')
    const files = JSON.parse(activeVersion(ctx.deps.db, 'census', 'live')?.files ?? '{}') as {
      hashes: Record<string, { file: string; sha256: string; bytes: number }>
    }
    expect(files.hashes['az4n-8mr2']).toEqual({
      file: 'az4n-8mr2.csv',
      sha256: createHash('sha256').update(readFileSync(file)).digest('hex'),
      bytes: statSync(file).size,
    })
  })

  test('the pair words are counted from every 16th USDOT as the rows load', async () => {
    // sampled USDOTs (divisible by 16) named ALPHA BRAVO, the others ZULU YANKEE: only the
    // sample's words are pair words, as pairWords reads them back from the table
    const sampled = Array.from({ length: 40 }, (_, i) => 16 * (i + 1))
    writeCensus(join(dir, 'az4n-8mr2.csv'), [
      ...sampled.map((d) => carrierRow(d, { LEGAL_NAME: `ALPHA BRAVO ${d}`, DBA_NAME: '' })),
      ...sampled.map((d) => carrierRow(d + 1, { LEGAL_NAME: 'ZULU YANKEE', DBA_NAME: '' })),
    ])
    const [r] = await importLive()
    expect(r?.status === 'activated' && r.stats.rows).toBe(80)
    const census = liveView().get('census')
    if (!census) throw new Error('no census')
    const stored = storedPairWords(census)
    expect(stored).toEqual(['alpha', 'bravo'])
    expect([...pairWords(census.db)].sort()).toEqual(stored)
  })

  test('the company count and the pair words are those of the loaded table, duplicates replaced', async () => {
    // every name sampled, then all but one renamed by later rows: a sample that kept the first
    // rows' counts would make ALPHA and BRAVO pair words
    const dots = Array.from({ length: 40 }, (_, i) => 16 * (i + 1))
    writeCensus(join(dir, 'az4n-8mr2.csv'), [
      ...dots.map((d) => carrierRow(d, { LEGAL_NAME: `ALPHA BRAVO ${d}`, DBA_NAME: '' })),
      carrierRow(99_999_999),
      ...dots.slice(1).map((d) => carrierRow(d, { LEGAL_NAME: 'CHARLIE DELTA', DBA_NAME: 'ECHO' })),
      carrierRow(99_999_999, { LEGAL_NAME: 'LAST USDOT' }),
    ])
    const [r] = await importLive()
    expect(r?.status === 'activated' && r.stats.rows).toBe(41)
    expect(r?.status === 'activated' && r.stats.notes['census.duplicate_dot_replaced']).toBe(40)
    const census = liveView().get('census')
    if (!census) throw new Error('no census')
    expect(findCensusRow(census, 99_999_999)?.legal_name).toBe('LAST USDOT')
    const stored = storedPairWords(census)
    expect(stored).toEqual(['charlie', 'delta', 'echo'])
    expect([...pairWords(census.db)].sort()).toEqual(stored)
  })
})
