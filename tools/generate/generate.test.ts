import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { FILE_COLUMNS, FILE_IDS, FILE_KEYS, type FileKey } from './columns.ts'
import { parseCsv } from './csv.ts'
import { randomCore } from './company.ts'
import { createContext } from './context.ts'
import { DEFAULT_SEED, writeSampleDataset, writeScaleDataset } from './dataset.ts'
import { SHARED_EMAIL, SHARED_PHONE, SPECIAL_DOTS as S } from './special-kit.ts'

/** The census data dictionary's 147 columns, typed out again so a change to columns.ts cannot hide here. */
const CENSUS_147 =
  `MCS150_DATE ADD_DATE STATUS_CODE DOT_NUMBER DUN_BRADSTREET_NO PHY_OMC_REGION SAFETY_INV_TERR
CARRIER_OPERATION BUSINESS_ORG_ID MCS150_MILEAGE MCS150_MILEAGE_YEAR MCS151_MILEAGE TOTAL_CARS
MCS150_UPDATE_CODE_ID PRIOR_REVOKE_FLAG PRIOR_REVOKE_DOT_NUMBER PHONE FAX CELL_PHONE
COMPANY_OFFICER_1 COMPANY_OFFICER_2 BUSINESS_ORG_DESC TRUCK_UNITS POWER_UNITS BUS_UNITS FLEETSIZE
REVIEW_ID RECORDABLE_CRASH_RATE MAIL_NATIONALITY_INDICATOR PHY_NATIONALITY_INDICATOR PHY_BARRIO
MAIL_BARRIO CARSHIP DOCKET1PREFIX DOCKET1 DOCKET2PREFIX DOCKET2 DOCKET3PREFIX DOCKET3 POINTNUM
TOTAL_INTRASTATE_DRIVERS MCSIPSTEP MCSIPDATE HM_Ind INTERSTATE_BEYOND_100_MILES
INTERSTATE_WITHIN_100_MILES INTRASTATE_BEYOND_100_MILES INTRASTATE_WITHIN_100_MILES TOTAL_CDL
TOTAL_DRIVERS AVG_DRIVERS_LEASED_PER_MONTH CLASSDEF LEGAL_NAME DBA_NAME PHY_STREET PHY_CITY
PHY_COUNTRY PHY_STATE PHY_ZIP PHY_CNTY CARRIER_MAILING_STREET CARRIER_MAILING_STATE
CARRIER_MAILING_CITY CARRIER_MAILING_COUNTRY CARRIER_MAILING_ZIP CARRIER_MAILING_CNTY
CARRIER_MAILING_UND_DATE DRIVER_INTER_TOTAL EMAIL_ADDRESS REVIEW_TYPE REVIEW_DATE SAFETY_RATING
SAFETY_RATING_DATE UNDELIV_PHY CRGO_GENFREIGHT CRGO_HOUSEHOLD CRGO_METALSHEET CRGO_MOTOVEH
CRGO_DRIVETOW CRGO_LOGPOLE CRGO_BLDGMAT CRGO_MOBILEHOME CRGO_MACHLRG CRGO_PRODUCE CRGO_LIQGAS
CRGO_INTERMODAL CRGO_PASSENGERS CRGO_OILFIELD CRGO_LIVESTOCK CRGO_GRAINFEED CRGO_COALCOKE CRGO_MEAT
CRGO_GARBAGE CRGO_USMAIL CRGO_CHEM CRGO_DRYBULK CRGO_COLDFOOD CRGO_BEVERAGES CRGO_PAPERPROD
CRGO_UTILITY CRGO_FARMSUPP CRGO_CONSTRUCT CRGO_WATERWELL CRGO_CARGOOTHR CRGO_CARGOOTHR_DESC
OWNTRUCK OWNTRACT OWNTRAIL OWNCOACH OWNSCHOOL_1_8 OWNSCHOOL_9_15 OWNSCHOOL_16 OWNBUS_16 OWNVAN_1_8
OWNVAN_9_15 OWNLIMO_1_8 OWNLIMO_9_15 OWNLIMO_16 TRMTRUCK TRMTRACT TRMTRAIL TRMCOACH TRMSCHOOL_1_8
TRMSCHOOL_9_15 TRMSCHOOL_16 TRMBUS_16 TRMVAN_1_8 TRMVAN_9_15 TRMLIMO_1_8 TRMLIMO_9_15 TRMLIMO_16
TRPTRUCK TRPTRACT TRPTRAIL TRPCOACH TRPSCHOOL_1_8 TRPSCHOOL_9_15 TRPSCHOOL_16 TRPBUS_16 TRPVAN_1_8
TRPVAN_9_15 TRPLIMO_1_8 TRPLIMO_9_15 TRPLIMO_16 DOCKET1_STATUS_CODE DOCKET2_STATUS_CODE
DOCKET3_STATUS_CODE`.split(/\s+/)

const REPO = join(import.meta.dirname, '../..')
const tmp = mkdtempSync(join(tmpdir(), 'cv-generate-'))
const sampleA = join(tmp, 'a')
const sampleB = join(tmp, 'b')

beforeAll(async () => {
  await writeSampleDataset(sampleA)
  await writeSampleDataset(sampleB)
})
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const text = (dir: string, key: FileKey) => readFileSync(join(dir, `${FILE_IDS[key]}.csv`), 'utf8')
const records = (dir: string, key: FileKey): string[][] => parseCsv(text(dir, key))
/** Data records (header dropped) of one file of the sample. */
const rows = (key: FileKey) => records(sampleA, key).slice(1)
/** The USDOT column of each file. */
const DOT_COLUMN: Record<FileKey, number> = Object.fromEntries(
  FILE_KEYS.map((k) => [
    k,
    FILE_COLUMNS[k].findIndex((c) => /^(dot_number|usdot_number)$/i.test(c)),
  ]),
) as Record<FileKey, number>
const dotsIn = (key: FileKey) => new Set(rows(key).map((r) => r[DOT_COLUMN[key]] ?? ''))
const unpadded = (dot: number) => String(dot)
const padded = (dot: number) => String(dot).padStart(8, '0')
const LEGACY: FileKey[] = [
  'legacyCarrier',
  'legacyActPendInsur',
  'legacyInsHist',
  'legacyAuthHist',
  'legacyRevocation',
  'legacyBoc3',
]

describe('sample dataset', () => {
  test('same seed → same bytes, in every file', () => {
    for (const key of FILE_KEYS) expect(text(sampleB, key), key).toBe(text(sampleA, key))
  })

  test('data/sample matches the generator (regenerate with scripts/generate-sample.ts)', () => {
    const committed = join(REPO, 'data/sample')
    for (const key of FILE_KEYS) {
      expect(readFileSync(join(committed, `${FILE_IDS[key]}.csv`), 'utf8'), key).toBe(
        text(sampleA, key),
      )
    }
    const csvs = readdirSync(committed).filter((f) => f.endsWith('.csv'))
    expect(csvs.sort()).toEqual(FILE_KEYS.map((k) => `${FILE_IDS[k]}.csv`).sort())
  })

  test('census header is exactly the 147 documented columns, in order', () => {
    expect(CENSUS_147).toHaveLength(147)
    expect(text(sampleA, 'census').split('\n')[0]).toBe(CENSUS_147.join(','))
  })

  test('every record of every file has as many fields as its header', () => {
    for (const key of FILE_KEYS) {
      const [header, ...data] = records(sampleA, key)
      expect(header, key).toEqual([...FILE_COLUMNS[key]])
      expect(data.length, key).toBeGreaterThan(0)
      for (const r of data)
        expect(r.length, `${key}: ${r.join(',')}`).toBe(FILE_COLUMNS[key].length)
    }
    expect(rows('census')).toHaveLength(300)
  })

  test('Revocation header is the documented one', () => {
    expect(text(sampleA, 'legacyRevocation').split('\n')[0]).toBe(
      'DOCKET_NUMBER,DOT_NUMBER,TYPE_LICENSE,ORDER1_SERVE_DATE,ORDER2_TYPE_DESC,order2_effective_Date',
    )
  })

  test('USDOTs are unpadded in census, Motus and SMS files and zero-padded to 8 in legacy files', () => {
    for (const key of FILE_KEYS) {
      // Inspections Per Unit has no USDOT: its rows join their inspection by INSPECTION_ID
      if (key === 'mcmisUnits') continue
      const legacy = LEGACY.includes(key)
      for (const r of rows(key)) {
        const dot = r[DOT_COLUMN[key]] ?? ''
        expect(dot, key).toMatch(legacy ? /^\d{8}$/ : /^[1-9]\d{0,7}$/)
      }
    }
  })

  test('legacy files quote every field like the fixtures, except InsHist field 9', () => {
    const F = '"(?:[^"]|"")*"'
    const quotedRecord = new RegExp(`^${F}(,${F})*$`)
    const insHist = new RegExp(`^(${F},){8}\\d+,(${F},){7}${F}$`)
    for (const key of LEGACY.filter((k) => k !== 'legacyInsHist')) {
      for (const line of text(sampleA, key).trimEnd().split('\n').slice(1))
        expect(line, key).toMatch(quotedRecord)
    }
    for (const line of text(sampleA, 'legacyInsHist').trimEnd().split('\n').slice(1)) {
      expect(line).toMatch(insHist)
    }
    // the fixture rows have the same shape
    const fixture = readFileSync(
      join(REPO, 'test/fixtures/fmcsa-samples/LI_InsHist_daily_text_rows.txt'),
      'utf8',
    )
    expect(fixture.trim()).toMatch(insHist)
  })

  test('formats: dates, money, dockets and phones as each file writes them', () => {
    const acme = rows('census').find((r) => r[3] === unpadded(S.acmeFreightLines)) ?? []
    expect(acme[0]).toMatch(/^\d{8}$/)
    expect(acme[16]).toMatch(/^\d{10}$/)
    const carrier = rows('legacyCarrier').find((r) => r[0] === 'MC100001') ?? []
    expect([carrier[18], carrier[21]]).toEqual(['00750', '01000'])
    const bond = rows('motusInsur').find((r) => r[1] === unpadded(S.blueRidgeLogistics)) ?? []
    expect([bond[2], bond[5]]).toEqual(['BMC-84', '75000.00'])
    for (const r of rows('motusRevokeSuspend')) expect(r[0]).toMatch(/^(MC|FF|MX)-\d+$/)
    for (const r of rows('legacyActPendInsur')) expect(r[2]).not.toMatch(/^BMC/)
    for (const r of rows('legacyActPendInsur')) expect(r[6]).toMatch(/^\d{2}\/\d{2}\/\d{4}$/)
    for (const r of rows('smsInspection')) expect(r[4]).toMatch(/^\d{2}-[A-Z]{3}-\d{2}$/)
    for (const r of rows('oosOrders')) expect(r[3]).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    const sms = rows('smsCensus').find((r) => r[0] === unpadded(S.acmeFreightLines)) ?? []
    expect(sms[16]).toMatch(/^\(\d{3}\) \d{3}-\d{4}$/)
  })

  /** Files each special company must (and must not) appear in. */
  const PRESENCE: [number, FileKey[], FileKey[]][] = [
    [
      S.hullCooperative,
      ['census', 'legacyCarrier', 'legacyActPendInsur', 'smsCensus', 'smsInspection'],
      ['motusCarrier'],
    ],
    [
      S.acmeFreightLines,
      [
        'census',
        'legacyCarrier',
        'legacyActPendInsur',
        'legacyInsHist',
        'legacyAuthHist',
        'legacyBoc3',
        'smsCensus',
        'smsInspection',
        'smsAbPassProperty',
      ],
      ['motusCarrier', 'oosOrders'],
    ],
    [
      S.blueRidgeLogistics,
      [
        'census',
        'legacyCarrier',
        'legacyActPendInsur',
        'motusCarrier',
        'motusInsur',
        'motusInsHist',
      ],
      ['smsCensus'],
    ],
    [
      S.summitBrokerage,
      ['census', 'legacyCarrier', 'legacyActPendInsur'],
      ['motusCarrier', 'motusInsur'],
    ],
    [S.pacificOceanForwarding, ['census', 'legacyCarrier', 'legacyActPendInsur'], ['smsCensus']],
    [S.greenValleyFarms, ['census', 'smsCensus', 'smsInspection'], ['legacyCarrier']],
    [
      S.defunctHauling,
      ['census', 'legacyCarrier', 'legacyRevocation', 'legacyAuthHist', 'legacyInsHist'],
      ['legacyActPendInsur', 'smsCensus'],
    ],
    [S.mapleLeafTransport, ['census', 'legacyCarrier', 'smsCensus'], []],
    [
      S.redlineCarriers,
      ['census', 'legacyCarrier', 'motusCarrier', 'motusInsur', 'motusInsHist'],
      [],
    ],
    [S.phoenixTrucking, ['legacyRevocation', 'legacyAuthHist', 'legacyInsHist'], ['motusCarrier']],
    [S.starlightCoachLines, ['smsCensus', 'smsAbPass', 'smsAbPassProperty'], []],
    [S.ironhorseExpress, ['oosOrders'], []],
    [S.crashworthyFreight, ['smsCrash', 'smsAbPassProperty'], []],
    [S.rescindedRoutes, ['oosOrders'], []],
    [S.dualModeLogistics, ['legacyCarrier', 'motusCarrier', 'motusInsur', 'motusInsHist'], []],
    [
      S.freshstartCarriers,
      ['census', 'motusCarrier', 'motusInsur', 'motusAuthHist', 'motusBoc3', 'smsCensus'],
      LEGACY,
    ],
    [S.transportesDelNorte, ['census', 'legacyCarrier', 'smsCensus'], []],
    [S.nobondBrokers, ['census', 'legacyCarrier'], ['legacyActPendInsur', 'motusInsur']],
    [S.sharedContactRevoked, ['legacyRevocation', 'legacyAuthHist'], []],
    [S.undeliverableAddress, ['legacyCarrier', 'motusCarrier'], []],
    [S.insuranceChurn, ['legacyInsHist', 'legacyActPendInsur', 'motusInsHist', 'motusInsur'], []],
    [S.expiredCancelLegacy, ['legacyActPendInsur'], ['motusInsur', 'motusInsHist']],
    [
      S.valleyShuttle,
      ['census', 'smsInspection', 'smsCPassProperty', 'smsCPass'],
      ['smsCensus', 'smsAbPassProperty', 'legacyCarrier'],
    ],
  ]
  test.each(PRESENCE)('special USDOT %i is in the files it should be', (dot, inFiles, notIn) => {
    for (const key of inFiles)
      expect(dotsIn(key).has(LEGACY.includes(key) ? padded(dot) : unpadded(dot)), key).toBe(true)
    for (const key of notIn)
      expect(dotsIn(key).has(LEGACY.includes(key) ? padded(dot) : unpadded(dot)), key).toBe(false)
  })

  test('every special company is in the census', () => {
    const census = dotsIn('census')
    for (const dot of Object.values(S)) expect(census.has(unpadded(dot)), String(dot)).toBe(true)
  })

  test('USDOT 344554 carries the real fixture values', () => {
    const fixture = JSON.parse(
      readFileSync(
        join(REPO, 'test/fixtures/fmcsa-samples/socrata_rows_usdot344554_verified_2026-09-14.json'),
        'utf8',
      ),
    ) as Record<string, { row: Record<string, string> }>
    const check = (key: FileKey, dotValue: string, row: Record<string, string> | undefined) => {
      const [header, ...data] = records(sampleA, key)
      const names = (header ?? []).map((h) => h.toLowerCase())
      const rec = data.find((r) => r[DOT_COLUMN[key]] === dotValue)
      expect(rec, key).toBeDefined()
      for (const [name, value] of Object.entries(row ?? {})) {
        expect(rec?.[names.indexOf(name)], `${key}.${name}`).toBe(value)
      }
    }
    check('legacyCarrier', '00344554', fixture['6eyk-hxee_Carrier_All_With_History']?.row)
    check('legacyActPendInsur', '00344554', fixture['qh9u-swkp_ActPendInsur_All_With_History']?.row)
    check('census', '344554', fixture['az4n-8mr2_Company_Census_File']?.row)
  })

  test('scenario details of the special companies', () => {
    const find = (key: FileKey, dot: number) =>
      rows(key).filter(
        (r) => r[DOT_COLUMN[key]] === (LEGACY.includes(key) ? padded(dot) : unpadded(dot)),
      )
    // pending cancellation in Motus InsHist, policy still listed in Motus Insur
    const [pending] = find('motusInsHist', S.redlineCarriers)
    expect([pending?.[3], pending?.[13]]).toEqual(['CANCEL', '20270115'])
    expect(find('motusInsur', S.redlineCarriers).map((r) => r[7])).toContain(pending?.[6])
    // active OOS order; only rescinded ones
    expect(find('oosOrders', S.ironhorseExpress)).toEqual([
      [
        unpadded(S.ironhorseExpress),
        'IRONHORSE EXPRESS INC',
        '',
        '2026-09-10',
        'NOP',
        'ACTIVE',
        '',
      ],
    ])
    expect(
      find('oosOrders', S.rescindedRoutes).every(
        (r) => (r[6] ?? '') !== '' && (r[6] ?? '') < '2026-11-01',
      ),
    ).toBe(true)
    // crashes: 6 reports in the window (7 rows: one report has two vehicles), 1 older
    const crashes = find('smsCrash', S.crashworthyFreight)
    expect(crashes).toHaveLength(8)
    expect(new Set(crashes.map((r) => `${r[4]}|${r[0]}`)).size).toBe(7)
    // legacy cancellation date now in the past
    expect(find('legacyActPendInsur', S.expiredCancelLegacy)[0]?.[10]).toBe('07/16/2026')
    // shared contact ring
    const census = rows('census')
    const ring = census.filter((r) => r[16] === SHARED_PHONE)
    expect(ring.map((r) => r[3])).toEqual(['1000023', '1000024', '1000025', '1000026', '1000027'])
    expect(ring.every((r) => r[CENSUS_147.indexOf('EMAIL_ADDRESS')] === SHARED_EMAIL)).toBe(true)
    // the passenger carrier's HOS alert
    const pass = find('smsAbPass', S.starlightCoachLines)[0] ?? []
    const col = (name: string) => pass[FILE_COLUMNS.smsAbPass.indexOf(name)]
    expect([col('HOS_DRIV_PCT'), col('HOS_DRIV_RD_ALERT'), col('HOS_DRIV_BASIC_ALERT')]).toEqual([
      '82%',
      'Y',
      'Y',
    ])
    // tiny carrier: two inspections
    expect(find('smsInspection', S.tinyTruckCo)).toHaveLength(2)
    // new entity granted in Motus
    expect(find('motusAuthHist', S.freshstartCarriers).map((r) => [r[4], r[5]])).toContainEqual([
      'Granted',
      '20261020',
    ])
  })
})

describe('scale dataset', () => {
  test('is deterministic, consistent across files and well-formed', async () => {
    const a = join(tmp, 'scale-a')
    const b = join(tmp, 'scale-b')
    const ra = await writeScaleDataset(a, { censusRows: 3000 })
    await writeScaleDataset(b, { censusRows: 3000 })
    expect(ra.files.census?.rows).toBe(3000)
    const census = new Set<string>()
    for (const key of FILE_KEYS) {
      expect(text(b, key), key).toBe(text(a, key))
      const [header, ...data] = records(a, key)
      expect(header, key).toEqual([...FILE_COLUMNS[key]])
      for (const r of data) {
        expect(r.length, key).toBe(FILE_COLUMNS[key].length)
        const dot = r[DOT_COLUMN[key]] ?? ''
        if (key === 'census') census.add(dot)
        // every USDOT of every file is a census USDOT (Inspections Per Unit has none)
        else if (key !== 'mcmisUnits')
          expect(
            census.has(LEGACY.includes(key) ? dot.replace(/^0+/, '') : dot),
            `${key} ${dot}`,
          ).toBe(true)
      }
    }
    // only the census (and files derived from the core layer) when asked
    const c = join(tmp, 'scale-c')
    const rc = await writeScaleDataset(c, { censusRows: 3000, files: ['census'] })
    expect(Object.keys(rc.files)).toEqual(['census'])
    expect(readFileSync(join(c, 'az4n-8mr2.csv'), 'utf8')).toBe(text(a, 'census'))
  })

  test('company names: a large vocabulary with Zipf-like word frequencies, not a few hundred words', () => {
    const ctx = createContext(DEFAULT_SEED, 'scale')
    const counts = new Map<string, number>()
    let names = 0
    for (let dot = 1; dot <= 20_000; dot++) {
      const c = randomCore(ctx, dot)
      for (const n of [c.legalName, c.dbaName].filter(Boolean)) {
        names++
        for (const w of n.split(/[^A-Z0-9]+/).filter(Boolean))
          counts.set(w, (counts.get(w) ?? 0) + 1)
      }
    }
    const byFreq = [...counts.values()].sort((x, y) => y - x)
    // far more than the sample's ~266 words, most of them rare
    expect(counts.size).toBeGreaterThan(5_000)
    expect(byFreq.filter((n) => n === 1).length).toBeGreaterThan(counts.size / 3)
    // a head of common words (LLC, TRUCKING...): the top word in a large share of names, the
    // tenth far less common than the first
    expect((byFreq[0] ?? 0) / names).toBeGreaterThan(0.2)
    expect((byFreq[9] ?? 0) * 3).toBeLessThan(byFreq[0] ?? 0)
    for (const w of ['LLC', 'INC', 'TRUCKING', 'SMITH'])
      expect(counts.get(w) ?? 0, w).toBeGreaterThan(100)
    // the same seed and USDOT give the same names
    expect(randomCore(createContext(DEFAULT_SEED, 'scale'), 1234).legalName).toBe(
      randomCore(ctx, 1234).legalName,
    )
  })
})
