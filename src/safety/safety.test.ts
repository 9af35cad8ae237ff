/**
 * The safety block end to end: fixture files in the real formats (test/fixtures/safety/README.md
 * says what each company shows) are built by the real pipeline into a temp app.db, then looked up.
 */
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { getCompanyRecord } from '../carriers/record.ts'
import { SafetyJson } from './schema.ts'
import { fixedClock } from '../clock.ts'
import { openAppDb } from '../db/app-db.ts'
import { DatasetRegistry, type DataView } from '../db/datasets.ts'
import { silentLogger } from '../log.ts'
import { filesInDir, importDir, inputsFor, runBuild, type PipelineDeps } from '../sync/pipeline.ts'
import { PARSE_WORKER_MIN_BYTES } from '../ingest/parallel.ts'
import { activeVersion } from '../db/versions.ts'
import { oosDataset } from './oos.ts'
import { getSafety, isRateReliable, type SafetyFacts } from './record.ts'
import { SMS_FILES, smsDataset } from './sms.ts'

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/safety/', import.meta.url))
const AS_OF = '2026-08-31'
const TODAY = '2026-09-10'

interface Env {
  dir: string
  deps: PipelineDeps
  registry: DatasetRegistry
  db: ReturnType<typeof openAppDb>['sqlite']
  close(): void
}
const envs: Env[] = []
afterEach(() => {
  for (const e of envs.splice(0)) e.close()
})

function setup(): Env {
  const dir = mkdtempSync(join(tmpdir(), 'cvk-safety-'))
  const app = openAppDb(join(dir, 'app.db'))
  const log = silentLogger()
  const registry = new DatasetRegistry(app.sqlite, log, dir)
  const deps: PipelineDeps = {
    db: app.sqlite,
    datasets: registry,
    log,
    clock: fixedClock(`${TODAY}T12:00:00Z`),
    paths: { dataDir: dir },
  }
  const env = {
    dir,
    deps,
    registry,
    db: app.sqlite,
    close() {
      registry.close()
      app.sqlite.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
  envs.push(env)
  return env
}

/** A copy of the fixture directory that a test may change. */
function fixtureCopy(env: Env, change: Record<string, string | null> = {}): string {
  const dir = mkdtempSync(join(env.dir, 'files-'))
  for (const [id, path] of filesInDir(FIXTURES)) copyFileSync(path, join(dir, `${id}.csv`))
  for (const [id, content] of Object.entries(change)) {
    if (content === null) rmSync(join(dir, `${id}.csv`))
    else writeFileSync(join(dir, `${id}.csv`), content)
  }
  return dir
}

const run = { channel: 'live', trigger: 'test', asOf: AS_OF } as const

async function loaded(): Promise<Env> {
  const env = setup()
  const results = await importDir(env.deps, FIXTURES, {
    ...run,
    signal: AbortSignal.timeout(30_000),
  })
  expect(results.map((r) => [r.dataset, r.status])).toEqual([
    ['census', 'activated'],
    ['sms', 'activated'],
    ['oos', 'activated'],
    ['violations', 'activated'],
    ['equipment', 'activated'],
  ])
  return env
}

/** The live channel, even without a live census (registry.view would fall back to the sample). */
const liveView = (env: Env): DataView => ({
  source: 'mirror',
  get: (name) => env.registry.get(name, 'live'),
  versionKey: 'test',
})

function safetyOf(env: Env, dot: number, today = TODAY): SafetyFacts {
  const facts = getSafety(liveView(env), dot, today)
  if (!facts) throw new Error('no safety facts')
  return facts
}

const basic = (f: SafetyFacts, code: string) => {
  const b = f.safety.basics.find((x) => x.code === code)
  if (!b) throw new Error(`no BASIC ${code}`)
  return b
}

describe('SMS build', () => {
  it('records the window, run date and build notes', async () => {
    const env = await loaded()
    const v = activeVersion(env.db, 'sms', 'live')
    const notes = (
      env.db
        .prepare('SELECT stats FROM sync_runs WHERE dataset = ? ORDER BY id DESC')
        .get('sms') as {
        stats: string
      }
    ).stats
    const stats = JSON.parse(notes) as { notes: Record<string, number>; rejects: number }
    expect(v?.asOf).toBe(AS_OF)
    expect(stats.rejects).toBe(0)
    // 2000008: one inspection before the window, one dated after the as-of date
    expect(stats.notes['sms.inspection.before_window']).toBe(1)
    expect(stats.notes['sms.inspection.after_as_of']).toBe(1)
    expect(stats.notes['sms.crash.outside_window']).toBe(1)
    const f = safetyOf(env, 2000001)
    // the window ends at the latest event on or before the as-of date (14-AUG-26)
    expect(f.safety.window_end).toBe('2026-08-14')
    expect(f.safety.window_start).toBe('2024-08-15')
    expect(f.safety.as_of).toBe(AS_OF)
    expect(f.asOf).toEqual({ sms: AS_OF, oos: AS_OF, violations: AS_OF })
    // the build's scratch database is gone
    const files = readdirSync(join(env.dir, 'datasets', 'live', 'sms'))
    expect(files.filter((n) => n.includes('scratch'))).toEqual([])
  })

  it('a later as-of date moves the window only as far as the data goes', async () => {
    const env = setup()
    const r = await runBuild(env.deps, smsDataset, inputsFor(smsDataset, filesInDir(FIXTURES)), {
      ...run,
      asOf: '2026-12-31',
      signal: AbortSignal.timeout(30_000),
    })
    expect(r.status).toBe('activated')
    const f = safetyOf(env, 2000008)
    // the 02-SEP-26 inspection is no longer after the as-of date: it ends the window
    expect(f.safety).toMatchObject({ window_start: '2024-09-03', window_end: '2026-09-02' })
    expect(f.safety).toMatchObject({
      inspections_total: 4,
      driver_inspections: 3,
      driver_oos_inspections: 2,
      vehicle_inspections: 3,
      vehicle_oos_inspections: 1,
      hazmat_inspections: 1,
    })
  })

  it('maps SODA exports by column name (lower case, fax moved last)', async () => {
    const env = setup()
    const soda = readFileSync(join(FIXTURES, 'soda', 'kjg3-diqy.csv'), 'utf8')
    const dir = fixtureCopy(env, { [SMS_FILES.census]: soda })
    const r = await runBuild(env.deps, smsDataset, inputsFor(smsDataset, filesInDir(dir)), {
      ...run,
      signal: AbortSignal.timeout(30_000),
    })
    expect(r.status).toBe('activated')
    const f = safetyOf(env, 1261235) // a private-only carrier of the real SODA sample, no inspections
    expect(f.privateOnly).toBe(true)
    expect(f.passengerCarrier).toBe(false)
    expect(f.countsSource).toBe('sms_census')
    expect(f.safety.driver_inspections).toBe(0)
    expect(f.safety.crash_total).toBe(0)
    // carriers of the results files still get their figures
    expect(safetyOf(env, 2000001).safety.driver_inspections).toBe(12)
  })

  it('refuses a file whose header lacks a needed column; the previous version stays active', async () => {
    const env = await loaded()
    const before = activeVersion(env.db, 'sms', 'live')
    const insp = readFileSync(join(FIXTURES, `${SMS_FILES.inspection}.csv`), 'utf8')
    const dir = fixtureCopy(env, {
      [SMS_FILES.inspection]: insp.replace('Insp_Date', 'Inspection_Dt'),
    })
    const r = await runBuild(env.deps, smsDataset, inputsFor(smsDataset, filesInDir(dir)), {
      ...run,
      signal: AbortSignal.timeout(30_000),
    })
    expect(r.status).toBe('failed')
    expect(r.status === 'failed' && r.error).toMatch(/missing INSP_DATE/)
    expect(activeVersion(env.db, 'sms', 'live')?.id).toBe(before?.id)
    // neither the partial file nor its scratch database is left behind
    expect(readdirSync(join(env.dir, 'datasets', 'live', 'sms'))).toEqual([`${before?.id}.db`])
    expect(safetyOf(env, 2000001).safety.driver_inspections).toBe(12)
  })

  it('needs the SMS census, inspection, crash and AB PassProperty files; the rest is optional', async () => {
    const env = setup()
    expect(smsDataset.files.filter((f) => f.required).map((f) => f.id)).toEqual([
      SMS_FILES.census,
      SMS_FILES.inspection,
      SMS_FILES.crash,
      SMS_FILES.abPassProperty,
    ])
    const noCrash = fixtureCopy(env, { [SMS_FILES.crash]: null })
    const failed = await runBuild(
      env.deps,
      smsDataset,
      inputsFor(smsDataset, filesInDir(noCrash)),
      {
        ...run,
        signal: AbortSignal.timeout(30_000),
      },
    )
    expect(failed.status === 'failed' && failed.error).toMatch(/4wxs-vbns/)
    const noPass = fixtureCopy(env, { [SMS_FILES.abPass]: null, [SMS_FILES.cPass]: null })
    const ok = await runBuild(env.deps, smsDataset, inputsFor(smsDataset, filesInDir(noPass)), {
      ...run,
      signal: AbortSignal.timeout(30_000),
    })
    expect(ok.status).toBe('activated')
    // a passenger carrier without its Pass row: measures, but no percentile to show
    const ud = basic(safetyOf(env, 2000002), 'unsafe_driving')
    expect(ud).toMatchObject({ measure: 0.8, percentile: null, public: true, reason: 'not_in_sms' })
  })
})

describe('safety figures', () => {
  it('property carrier: FMCSA counts and rates, hazmat from inspections, crashes once per report', async () => {
    const env = await loaded()
    const f = safetyOf(env, 2000001)
    expect(f.countsSource).toBe('sms_results')
    expect(f.passengerCarrier).toBe(false)
    expect(f.privateOnly).toBe(false)
    expect(f.safety).toMatchObject({
      inspections_total: 14,
      driver_inspections: 12,
      driver_oos_inspections: 1,
      driver_oos_rate: 8.33,
      vehicle_inspections: 10,
      vehicle_oos_inspections: 3,
      vehicle_oos_rate: 30,
      // 3 HM_Insp inspections (1 OOS) + 1 placard-required one
      hazmat_inspections: 4,
      hazmat_oos_inspections: 1,
      hazmat_oos_rate: 25,
      driver_oos_rate_national_average: 5.51,
      vehicle_oos_rate_national_average: 20.72,
      hazmat_oos_rate_national_average: 4.5,
      national_average_period: '2009-2010',
      iss_score: null,
      // IN0012345 (2 vehicles, injuries) = 1 injury crash; OH fatal; IL tow-away; TX7777777 shared
      // with 2000007 = 1 tow-away; the 2024-07-01 fatal crash is outside the window
      crash_total: 4,
      fatal_crash: 1,
      injury_crash: 1,
      towaway_crash: 2,
    })
  })

  it('property carrier BASICs: measures public, percentiles withheld, HM and Crash not public', async () => {
    const env = await loaded()
    const f = safetyOf(env, 2000001)
    expect(f.safety.basics.map((b) => [b.code, b.name])).toEqual([
      ['unsafe_driving', 'Unsafe Driving'],
      ['hos_compliance', 'HOS Compliance'],
      ['driver_fitness', 'Driver Fitness'],
      ['controlled_substances_alcohol', 'Controlled Substances/Alcohol'],
      ['vehicle_maintenance', 'Vehicle Maintenance'],
      ['hazmat_compliance', 'HazMat Compliance'],
      ['crash_indicator', 'Crash Indicator'],
    ])
    expect(basic(f, 'unsafe_driving')).toEqual({
      code: 'unsafe_driving',
      name: 'Unsafe Driving',
      measure: 0.17,
      percentile: null,
      alert: null,
      roadside_alert: null,
      acute_critical: true,
      inspections_with_violation: 2,
      run_date: AS_OF,
      public: false,
      reason: 'withheld_fast_act',
    })
    expect(basic(f, 'hos_compliance')).toMatchObject({ measure: 1.02, acute_critical: false })
    // a blank measure stays null, never 0
    expect(basic(f, 'controlled_substances_alcohol')).toMatchObject({
      measure: null,
      inspections_with_violation: 0,
    })
    for (const code of ['hazmat_compliance', 'crash_indicator'])
      expect(basic(f, code)).toEqual({
        code,
        name: code === 'hazmat_compliance' ? 'HazMat Compliance' : 'Crash Indicator',
        measure: null,
        percentile: null,
        alert: null,
        roadside_alert: null,
        acute_critical: null,
        inspections_with_violation: null,
        run_date: AS_OF,
        public: false,
        reason: 'not_public',
      })
  })

  it('passenger carrier: percentiles and alerts where published, the text where not', async () => {
    const env = await loaded()
    const f = safetyOf(env, 2000002)
    expect(f.passengerCarrier).toBe(true)
    expect(f.safety.driver_oos_rate).toBe(20)
    expect(basic(f, 'unsafe_driving')).toMatchObject({
      measure: 0.8,
      percentile: 64,
      alert: false,
      roadside_alert: false,
      public: true,
      reason: null,
    })
    expect(basic(f, 'hos_compliance')).toMatchObject({
      percentile: null,
      public: true,
      reason: 'Less than 3 inspections with violations',
    })
    expect(basic(f, 'controlled_substances_alcohol')).toMatchObject({ percentile: 0, reason: null })
    expect(basic(f, 'vehicle_maintenance')).toMatchObject({
      measure: 4.1,
      percentile: 81,
      alert: true,
      roadside_alert: true,
      acute_critical: true,
      inspections_with_violation: 2,
      public: true,
    })
    expect(basic(f, 'crash_indicator')).toMatchObject({ public: false, reason: 'not_public' })
  })

  it('intrastate (C) files: PassProperty and Pass rows are read too', async () => {
    const env = await loaded()
    const c = safetyOf(env, 2000007)
    expect(c.safety).toMatchObject({ driver_inspections: 1, vehicle_oos_rate: 100, crash_total: 1 })
    expect(c.safety.towaway_crash).toBe(1)
    const p = safetyOf(env, 2000010)
    expect(p.passengerCarrier).toBe(true)
    expect(basic(p, 'unsafe_driving')).toMatchObject({
      percentile: null,
      reason: 'Less than 5 inspections',
    })
    expect(basic(p, 'hos_compliance')).toMatchObject({
      percentile: null,
      reason: null,
      alert: false,
    })
    expect(basic(p, 'vehicle_maintenance')).toMatchObject({ percentile: 35, measure: 2 })
  })

  it('carrier with no inspections: in the SMS census, so counts are 0 and rates null', async () => {
    const env = await loaded()
    const f = safetyOf(env, 2000003)
    expect(f.countsSource).toBe('sms_census')
    expect(f.privateOnly).toBe(true)
    expect(f.safety).toMatchObject({
      inspections_total: 0,
      driver_inspections: 0,
      vehicle_inspections: 0,
      hazmat_inspections: 0,
      driver_oos_rate: null,
      vehicle_oos_rate: null,
      hazmat_oos_rate: null,
      crash_total: 0,
      fatal_crash: 0,
    })
    expect(basic(f, 'unsafe_driving')).toMatchObject({
      measure: null,
      inspections_with_violation: 0,
      public: false,
      reason: 'not_in_sms',
    })
  })

  it('fewer inspections than the minimum: the rate is published with its counts, flagged small', async () => {
    const env = await loaded()
    const f = safetyOf(env, 2000004)
    expect(f.safety).toMatchObject({
      driver_inspections: 2,
      driver_oos_inspections: 1,
      driver_oos_rate: 50,
      vehicle_inspections: 2,
      vehicle_oos_rate: 0,
    })
    expect(isRateReliable(f.safety.driver_inspections)).toBe(false)
    expect(isRateReliable(safetyOf(env, 2000001).safety.driver_inspections)).toBe(true)
    // report X100 in TX and X100 in OK are two crashes
    expect(f.safety).toMatchObject({ crash_total: 2, injury_crash: 1, towaway_crash: 1 })
  })

  it('carrier only in the inspection file: counts aggregated from its inspections in the window', async () => {
    const env = await loaded()
    const f = safetyOf(env, 2000008)
    expect(f.countsSource).toBe('inspections')
    expect(f.privateOnly).toBeNull()
    expect(f.safety).toMatchObject({
      // L1 (driver OOS, hazmat), L3, L5 (vehicle OOS); the 2024-08-10 and 2026-09-02 rows are out
      inspections_total: 3,
      driver_inspections: 2,
      driver_oos_inspections: 1,
      driver_oos_rate: 50,
      vehicle_inspections: 2,
      vehicle_oos_inspections: 1,
      hazmat_inspections: 1,
      hazmat_oos_inspections: 0,
      hazmat_oos_rate: 0,
      crash_total: 0,
    })
  })

  it('USDOT unknown to SMS: counts null, seven BASICs saying so', async () => {
    const env = await loaded()
    const f = safetyOf(env, 2000009)
    expect(f.countsSource).toBeNull()
    expect(f.safety.driver_inspections).toBeNull()
    expect(f.safety.crash_total).toBeNull()
    expect(f.safety.driver_oos_rate).toBeNull()
    expect(f.safety.driver_oos_rate_national_average).toBe(5.51)
    expect(f.safety.basics).toHaveLength(7)
    expect(basic(f, 'unsafe_driving')).toMatchObject({
      inspections_with_violation: null,
      reason: 'not_in_sms',
    })
    expect(f.oos).toBeNull()
  })

  it('national averages can be overridden', async () => {
    const env = await loaded()
    const f = getSafety(liveView(env), 2000001, TODAY, {
      nationalAverages: { driver: 6.67, period: '2024' },
    })
    expect(f?.safety).toMatchObject({
      driver_oos_rate_national_average: 6.67,
      vehicle_oos_rate_national_average: 20.72,
      national_average_period: '2024',
    })
  })

  it('no safety datasets loaded → null', () => {
    const env = setup()
    expect(getSafety(liveView(env), 2000001, TODAY)).toBeNull()
  })
})

describe('OOS orders', () => {
  it('an active order wins over an older rescinded one', async () => {
    const env = await loaded()
    const f = safetyOf(env, 2000005)
    expect(f.oos).toEqual({
      active: true,
      date: '2026-07-20',
      reason: 'IMMINENT HAZARD',
      status: 'ACTIVE',
      rescindDate: null,
    })
    expect(f.oosOrders.map((o) => [o.date, o.active])).toEqual([
      ['2026-07-20', true],
      ['2023-02-01', false],
    ])
  })

  it('a rescinded order is not active, whatever STATUS says once the rescind date has passed', async () => {
    const env = await loaded()
    expect(safetyOf(env, 2000006).oos).toMatchObject({
      active: false,
      status: 'RESCINDED',
      rescindDate: '2026-01-10',
    })
    // STATUS still ACTIVE, rescind date 06/15/2025 (MM/DD/YYYY, padded USDOT in the file)
    expect(safetyOf(env, 2000011).oos).toMatchObject({
      active: false,
      date: '2025-05-01',
      rescindDate: '2025-06-15',
    })
  })

  it('a future rescind date keeps the order active until that day', async () => {
    const env = await loaded()
    expect(safetyOf(env, 2000012).oos?.active).toBe(true)
    expect(safetyOf(env, 2000012, '2026-12-30').oos?.active).toBe(true)
    expect(safetyOf(env, 2000012, '2026-12-31').oos?.active).toBe(false)
  })

  it('maps the OOS file by column name', async () => {
    const env = setup()
    const dir = fixtureCopy(env, {
      'p2mt-9ige':
        'status,rescind_date,dot_number,legal_name,dba_name,oos_date,oos_reason\n' +
        'ACTIVE,,2000005,STOPPED CARRIER INC,,2026-07-20,IMMINENT HAZARD\n',
    })
    const r = await runBuild(env.deps, oosDataset, inputsFor(oosDataset, filesInDir(dir)), {
      ...run,
      signal: AbortSignal.timeout(30_000),
    })
    expect(r.status).toBe('activated')
    expect(safetyOf(env, 2000005).oos).toMatchObject({ active: true, date: '2026-07-20' })
  })
})

describe('large safety files', () => {
  it('a file bigger than a parse range is read whole in the worker: its header is checked once, every row loads', async () => {
    const env = setup()
    const rows = 120_000 // about 9 MB: above PARSE_WORKER_MIN_BYTES and the parallel parser's 4 MB ranges
    const lines = ['DOT_NUMBER,LEGAL_NAME,DBA_NAME,OOS_DATE,OOS_REASON,STATUS,RESCIND_DATE']
    for (let i = 0; i < rows; i++)
      lines.push(
        `${3_000_000 + i},"CARRIER NUMBER ${i}, LLC",,2026-0${1 + (i % 9)}-15,IMMINENT HAZARD,${i % 3 ? 'ACTIVE' : 'RESCINDED'},`,
      )
    const content = `${lines.join('\n')}\n`
    expect(content.length).toBeGreaterThan(PARSE_WORKER_MIN_BYTES * 2)
    const dir = fixtureCopy(env, { 'p2mt-9ige': content })
    const r = await runBuild(env.deps, oosDataset, inputsFor(oosDataset, filesInDir(dir)), {
      ...run,
      signal: AbortSignal.timeout(60_000),
    })
    expect(r.status).toBe('activated')
    if (r.status !== 'activated') return
    expect(r.stats).toMatchObject({ rows, rejects: 0 })
    expect(safetyOf(env, 3_000_001).oos).toMatchObject({ active: true })
    expect(safetyOf(env, 3_000_000 + rows - 1).oos).not.toBeNull()
  }, 90_000)
})

describe('the company record', () => {
  const recordDeps = (env: Env, today = TODAY) => ({
    db: env.db,
    today,
    maxAgeHours: 48,
    now: Date.parse(`${today}T12:00:00Z`),
  })

  it('carries the complete safety block and the OOS facts', async () => {
    const env = await loaded()
    const r = getCompanyRecord(recordDeps(env), env.registry.view('live'), 2000005)
    expect(r).not.toBeNull()
    expect(() => SafetyJson.parse(r?.safety)).not.toThrow()
    expect(r?.identity.out_of_service).toBe(true)
    expect(r?.identity.out_of_service_date).toBe('2026-07-20')
    expect(r?.authority.allowed_to_operate).toBe('N')
    expect(r?.safety).toMatchObject({
      safety_rating: 'Unsatisfactory',
      safety_rating_code: 'U',
      safety_rating_date: '2025-09-10',
      driver_inspections: 3,
      driver_oos_rate: 66.67,
      vehicle_oos_rate: 100,
    })
    expect(r?.safety.basics).toHaveLength(7)
    expect(r?.dataAsOf).toMatchObject({ sms: AS_OF, oos: AS_OF })
  })

  it('a rescinded order leaves the company in service; passenger flag from SMS', async () => {
    const env = await loaded()
    const view = env.registry.view('live')
    const rescinded = getCompanyRecord(recordDeps(env), view, 2000006)
    expect(rescinded?.identity.out_of_service).toBe(false)
    expect(rescinded?.identity.out_of_service_date).toBeNull()
    const bus = getCompanyRecord(recordDeps(env), view, 2000002)
    expect(bus?.identity.passenger_carrier).toBe(true)
    expect(bus?.safety.basics.find((b) => b.code === 'vehicle_maintenance')?.alert).toBe(true)
    const acme = getCompanyRecord(recordDeps(env), view, 2000001)
    expect(acme?.safety).toMatchObject({ safety_rating: 'Satisfactory', crash_total: 4 })
  })

  it('out_of_service is unknown (null) when no OOS dataset is loaded', async () => {
    const env = setup()
    const dir = fixtureCopy(env, { 'p2mt-9ige': null })
    await importDir(env.deps, dir, { ...run, signal: AbortSignal.timeout(30_000) })
    const r = getCompanyRecord(recordDeps(env), env.registry.view('live'), 2000001)
    expect(r?.identity.out_of_service).toBeNull()
    expect(r?.safety.driver_inspections).toBe(12)
  })
})
