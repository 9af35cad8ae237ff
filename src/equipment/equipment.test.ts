/**
 * The equipment dataset end to end: small files in the real formats, built by the real dataset
 * run into a temp app.db, then read with sightingsOf and equipmentForCarrier.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { fixedClock } from '../clock.ts'
import { openAppDb } from '../db/app-db.ts'
import { DatasetRegistry, type ActiveDataset } from '../db/datasets.ts'
import { activeVersion } from '../db/versions.ts'
import { silentLogger } from '../log.ts'
import { filesInDir, inputsFor, runBuild, type PipelineDeps } from '../sync/pipeline.ts'
import { equipmentDataset, EQUIPMENT_FILES, windowStart } from './equipment.ts'
import { equipmentForCarrier, sightingsOf, vinLinksOf } from './read.ts'
import { vinCheckDigit } from './vin.ts'

const AS_OF = '2026-11-01'

/** A valid VIN built from a 17-character body (its check digit set). */
function vin(body: string): string {
  const v = `${body.slice(0, 8)}${vinCheckDigit(body) ?? '0'}${body.slice(9)}`
  return `${v.slice(0, 8)}${vinCheckDigit(v) ?? '0'}${v.slice(9)}`
}
const TRACTOR = vin('1XKAD49X0NJ100001')
const TRAILER = vin('1JJV532D0NL100002')
const LESSOR = vin('3AKJHHDR0PS100003')
const OTHER = vin('1FUJGLDR0MLB10004')

const SMS_HEADER =
  'Unique_ID,Report_Number,Report_State,DOT_Number,Insp_Date,Insp_level_ID,County_code_State,Time_Weight,Driver_OOS_Total,Vehicle_OOS_Total,Total_Hazmat_Sent,OOS_Total,Hazmat_OOS_Total,Hazmat_Placard_req,Unit_Type_Desc,Unit_Make,Unit_License,Unit_License_State,VIN,Unit_Decal_Number,Unit_Type_Desc2,Unit_Make2,Unit_License2,Unit_License_State2,VIN2,Unit_Decal_Number2,Unsafe_Insp,Fatigued_Insp,Dr_Fitness_Insp,Subt_Alcohol_Insp,Vh_Maint_Insp,HM_Insp,BASIC_Viol,Unsafe_Viol,Fatigued_Viol,Dr_Fitness_Viol,Subt_Alcohol_Viol,Vh_Maint_Viol,HM_Viol'

function smsRow(
  id: number,
  dot: number,
  date: string,
  state: string,
  u1: [string, string, string, string, string],
  u2?: [string, string, string, string, string],
): string {
  const [t2, m2, p2, s2, v2] = u2 ?? ['', '', '', '', '']
  return [
    id,
    `${state}${id}`,
    state,
    dot,
    date,
    1,
    state,
    1,
    0,
    0,
    0,
    0,
    0,
    'false',
    u1[0],
    u1[1],
    u1[2],
    u1[3],
    u1[4],
    '',
    t2,
    m2,
    p2,
    s2,
    v2,
    '',
    ...Array(6).fill('true'),
    ...Array(7).fill('0'),
  ].join(',')
}

const CRASH_HEADER =
  'Report_Number,Report_Seq_No,DOT_Number,Report_Date,Report_State,Fatalities,Injuries,Tow_Away,Hazmat_Released,Trafficway_Desc,Access_Control_Desc,Road_Surface_Condition_Desc,Weather_Condition_Desc,Light_Condition_Desc,Vehicle_ID_Number,Vehicle_License_Number,Vehicle_License_State,Severity_Weight,Time_Weight,Citation_Issued_Desc,Seq_Num,Not_Preventable'
const crashRow = (n: string, dot: number, date: string, v: string, plate: string, st: string) =>
  `${n},1,${dot},${date},TX,0,0,true,false,X,NO CONTROL,DRY,CLEAR,DAYLIGHT,${v},${plate},${st},1,1,NO,1,false`

const MCMIS_HEADER =
  'CHANGE_DATE,INSPECTION_ID,DOT_NUMBER,REPORT_STATE,REPORT_NUMBER,INSP_DATE,INSP_CARRIER_NAME,INSP_CARRIER_STATE,DOCKET_NUMBER'
const mcmisRow = (id: number, dot: number, ymd: string, state: string, name: string) =>
  `${ymd} 0930,${id},${dot},${state},${state}${id},${ymd},"${name}",${state},`

const UNIT_HEADER =
  'CHANGE_DATE,INSPECTION_ID,INSP_UNIT_ID,INSP_UNIT_TYPE_ID,INSP_UNIT_NUMBER,INSP_UNIT_MAKE,INSP_UNIT_COMPANY,INSP_UNIT_LICENSE,INSP_UNIT_LICENSE_STATE,INSP_UNIT_VEHICLE_ID_NUMBER,INSP_UNIT_DECAL,INSP_UNIT_DECAL_NUMBER'
const unitRow = (id: number, n: number, v: string, plate: string, st: string) =>
  `20261020 0930,${id},${id * 10 + n},11,${n},FRHT,T${n},${plate},${st},${v},,`

const tractor = (plate = 'ABC1234'): [string, string, string, string, string] => [
  'TRUCK TRACTOR',
  'KW',
  plate,
  'TX',
  TRACTOR,
]
const trailer: [string, string, string, string, string] = [
  'SEMI-TRAILER',
  'UTIL',
  'TRL-555',
  'TX',
  TRAILER,
]

/** The scenario of every test: see each expectation. */
function files(): Record<string, string> {
  const sms = [SMS_HEADER]
  // carrier 100: its tractor and trailer, three inspections in TX and OK
  sms.push(smsRow(1, 100, '10-JAN-26', 'TX', tractor(), trailer))
  sms.push(smsRow(2, 100, '15-MAR-26', 'OK', tractor('abc-1234'), trailer))
  sms.push(smsRow(3, 100, '20-JUN-26', 'TX', tractor()))
  // carrier 200 runs the same tractor later (one VIN under two carriers)
  sms.push(smsRow(4, 200, '01-SEP-26', 'TX', tractor('XYZ9')))
  // a lessor's tractor under seven carriers
  for (let i = 0; i < 7; i++)
    sms.push(
      smsRow(10 + i, 300 + i, `0${i + 1}-FEB-26`, 'IL', [
        'TRUCK TRACTOR',
        'FRHT',
        `L${i}00`,
        'IL',
        LESSOR,
      ]),
    )
  // a placeholder VIN: only its plate is kept
  sms.push(
    smsRow(20, 400, '05-MAY-26', 'CA', ['TRUCK TRACTOR', 'VOLVO', '7PLATE7', 'CA', 'UNKNOWN']),
  )
  // older than the window
  sms.push(smsRow(21, 100, '05-MAY-24', 'TX', tractor()))
  const mcmis = [MCMIS_HEADER]
  // inspection 1 is in both files: one sighting
  mcmis.push(mcmisRow(1, 100, '20260110', 'TX', 'ACME FREIGHT LINES LLC'))
  mcmis.push(mcmisRow(2, 100, '20260315', 'OK', 'ACME FREIGHT LINES'))
  // a roadside name mismatch
  mcmis.push(mcmisRow(3, 100, '20260620', 'TX', 'QUICK CARGO EXPRESS'))
  // an MCMIS-only inspection of carrier 500 with the other VIN
  mcmis.push(mcmisRow(30, 500, '20261015', 'NM', 'DESERT HAUL INC'))
  const units = [UNIT_HEADER]
  units.push(unitRow(1, 1, TRACTOR, 'ABC 1234', 'TX'))
  units.push(unitRow(30, 1, OTHER, 'NM777', 'NM'))
  const crash = [CRASH_HEADER]
  crash.push(crashRow('TX0001', 200, '12-OCT-26', TRACTOR, 'XYZ9', 'TX'))
  return {
    [EQUIPMENT_FILES.smsInspection]: `${sms.join('\n')}\n`,
    [EQUIPMENT_FILES.smsCrash]: `${crash.join('\n')}\n`,
    [EQUIPMENT_FILES.mcmisInspection]: `${mcmis.join('\n')}\n`,
    [EQUIPMENT_FILES.mcmisUnits]: `${units.join('\n')}\n`,
  }
}

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
  const dir = mkdtempSync(join(tmpdir(), 'cvk-equipment-'))
  const app = openAppDb(join(dir, 'app.db'))
  const log = silentLogger()
  const registry = new DatasetRegistry(app.sqlite, log, dir)
  const env: Env = {
    dir,
    deps: {
      db: app.sqlite,
      datasets: registry,
      log,
      clock: fixedClock('2026-11-02T12:00:00Z'),
      paths: { dataDir: dir },
    },
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

async function build(env: Env, content: Record<string, string | null> = {}) {
  const dir = mkdtempSync(join(env.dir, 'files-'))
  for (const [id, text] of Object.entries({ ...files(), ...content }))
    if (text !== null) writeFileSync(join(dir, `${id}.csv`), text)
  return runBuild(env.deps, equipmentDataset, inputsFor(equipmentDataset, filesInDir(dir)), {
    channel: 'live',
    trigger: 'test',
    asOf: AS_OF,
    signal: AbortSignal.timeout(30_000),
  })
}

async function built(): Promise<{ env: Env; ds: ActiveDataset }> {
  const env = setup()
  const r = await build(env)
  expect(r.status).toBe('activated')
  env.registry.reconcile()
  const ds = env.registry.get('equipment', 'live')
  if (!ds) throw new Error('no equipment dataset')
  return { env, ds }
}

describe('equipment dataset', () => {
  it('holds the VIN links within the cap, crash-only carriers included, as the VIN join finds them', async () => {
    const env = setup()
    const crash = [CRASH_HEADER]
    crash.push(crashRow('TX0001', 200, '12-OCT-26', TRACTOR, 'XYZ9', 'TX'))
    crash.push(crashRow('TX0002', 600, '14-OCT-26', TRACTOR, 'XYZ9', 'TX'))
    crash.push(crashRow('TX0003', 700, '02-OCT-26', TRAILER, 'TRL555', 'TX'))
    const r = await build(env, { [EQUIPMENT_FILES.smsCrash]: `${crash.join('\n')}\n` })
    expect(r.status).toBe('activated')
    env.registry.reconcile()
    const ds = env.registry.get('equipment', 'live')
    if (!ds) throw new Error('no equipment dataset')
    // the plain join over the VINs, for any cap
    const joined = (dot: number, cap: number) =>
      ds.db
        .prepare(
          `SELECT DISTINCT b.dot FROM vin_carriers a JOIN vin_carriers b
           ON b.vin = a.vin AND b.dot <> a.dot
           WHERE a.dot = ? AND a.valid = 1 AND a.carriers > 1 AND a.carriers <= ? ORDER BY 1`,
        )
        .pluck()
        .all(dot, cap)
    const sorted = (s: Set<number>) => [...s].sort((a, b) => a - b)
    expect(sorted(vinLinksOf(ds, 100, 5))).toEqual([200, 600, 700])
    expect(sorted(vinLinksOf(ds, 600, 5))).toEqual([100, 200])
    expect(sorted(vinLinksOf(ds, 700, 5))).toEqual([100])
    for (const dot of [100, 200, 300, 301, 400, 500, 600, 700, 999])
      for (const cap of [5, 7])
        expect(sorted(vinLinksOf(ds, dot, cap)), `${dot} ${cap}`).toEqual(joined(dot, cap))
    // the lessor's tractor (seven carriers) links only when the cap admits it
    expect(vinLinksOf(ds, 300, 5).size).toBe(0)
    expect(vinLinksOf(ds, 300, 7).size).toBe(6)
  })

  it('answers a VIN under two carriers, newest first, one sighting per inspection', async () => {
    const { ds } = await built()
    const s = sightingsOf(ds, { vin: TRACTOR })
    expect(s?.vinValid).toBe(true)
    expect(s?.sharedWidely).toBe(false)
    expect(s?.window).toEqual({ from: windowStart('2026-10-15'), to: '2026-10-15' })
    expect(s?.carriers.map((c) => c.dot)).toEqual([200, 100])
    const [c200, c100] = s?.carriers ?? []
    expect(c200).toMatchObject({ inspections: 1, crashes: 1, lastSeen: '2026-10-12' })
    expect(c200?.plates).toEqual([{ plate: 'XYZ9', state: 'TX' }])
    // inspection 1 is named by the SMS file and by Inspections Per Unit: counted once; the
    // 2024 inspection is outside the window
    expect(c100).toMatchObject({
      inspections: 3,
      crashes: 0,
      firstSeen: '2026-01-10',
      lastSeen: '2026-06-20',
      unitType: 'TRUCK TRACTOR',
      make: 'KW',
    })
    // `abc-1234` and `ABC 1234` are the plate ABC1234
    expect(c100?.plates).toEqual([{ plate: 'ABC1234', state: 'TX' }])
  })

  it('marks a VIN under more than five carriers shared_widely', async () => {
    const { ds } = await built()
    const s = sightingsOf(ds, { vin: LESSOR })
    expect(s?.carriers).toHaveLength(7)
    expect(s?.sharedWidely).toBe(true)
  })

  it('never stores a placeholder VIN, keeps its plate, and finds MCMIS-only units', async () => {
    const { ds } = await built()
    expect(sightingsOf(ds, { vin: 'UNKNOWN' })).toBeNull()
    const p = sightingsOf(ds, { plate: '7PLATE7', state: 'CA' })
    expect(p?.carriers.map((c) => c.dot)).toEqual([400])
    expect(p?.vin).toBeNull()
    const o = sightingsOf(ds, { vin: OTHER })
    expect(o?.carriers.map((c) => [c.dot, c.inspections, c.make])).toEqual([[500, 1, 'FRHT']])
    expect(sightingsOf(ds, { plate: 'NOPE1', state: 'TX' })).toBeNull()
  })

  it('answers a plate with the carriers and VINs seen with it', async () => {
    const { ds } = await built()
    const p = sightingsOf(ds, { plate: 'ABC1234', state: 'TX' })
    expect(p?.vin).toBe(TRACTOR)
    expect(p?.vinValid).toBe(true)
    expect(p?.carriers.map((c) => [c.dot, c.inspections, c.vins])).toEqual([[100, 3, [TRACTOR]]])
  })

  it('gives a carrier its units, states, roadside names and mismatches', async () => {
    const { ds } = await built()
    const e = equipmentForCarrier(ds, 100, { legalName: 'ACME FREIGHT LINES LLC', dbaName: null })
    expect(e).toMatchObject({
      power_units_seen: 1,
      trailers_seen: 1,
      last_inspection_date: '2026-06-20',
      inspection_states: ['TX', 'OK'],
      // its tractor is also under 200 (two carriers, not widely shared)
      vins_seen_under_other_carriers: 1,
    })
    expect(e?.roadside).toEqual({
      inspections: 3,
      names_seen: [
        { name: 'QUICK CARGO EXPRESS', inspections: 1, last_seen: '2026-06-20' },
        { name: 'ACME FREIGHT LINES', inspections: 1, last_seen: '2026-03-15' },
        { name: 'ACME FREIGHT LINES LLC', inspections: 1, last_seen: '2026-01-10' },
      ],
      name_mismatches: 1,
      last_seen_on_road: '2026-06-20',
    })
    // a lessor's VIN is widely shared: never counted as a link
    expect(equipmentForCarrier(ds, 300)?.vins_seen_under_other_carriers).toBe(0)
    expect(equipmentForCarrier(ds, 300)?.roadside.name_mismatches).toBeNull()
    // never inspected: zeros
    expect(equipmentForCarrier(ds, 999)).toMatchObject({
      power_units_seen: 0,
      last_inspection_date: null,
      inspection_states: [],
    })
  })

  it('builds from the SMS files alone when the MCMIS files are not supplied', async () => {
    const env = setup()
    const r = await build(env, {
      [EQUIPMENT_FILES.mcmisInspection]: null,
      [EQUIPMENT_FILES.mcmisUnits]: null,
    })
    expect(r.status).toBe('activated')
  })

  it('refuses a file whose VIN column is renamed; the previous version stays active', async () => {
    const { env } = await built()
    const before = activeVersion(env.db, 'equipment', 'live')
    for (const [id, from, to] of [
      [EQUIPMENT_FILES.smsInspection, ',VIN2,', ',VIN_2,'],
      [EQUIPMENT_FILES.smsCrash, 'Vehicle_ID_Number', 'Vehicle_Ident'],
      [EQUIPMENT_FILES.mcmisUnits, 'INSP_UNIT_VEHICLE_ID_NUMBER', 'INSP_UNIT_VIN'],
    ] as const) {
      const r = await build(env, { [id]: (files()[id] ?? '').replace(from, to) })
      expect(r.status).toBe('failed')
      expect(r.status === 'failed' && r.error).toMatch(/missing/)
      expect(activeVersion(env.db, 'equipment', 'live')?.id).toBe(before?.id)
    }
    expect(readdirSync(join(env.dir, 'datasets', 'live', 'equipment'))).toEqual([
      `${before?.id}.db`,
    ])
  })

  it('refuses a file whose VIN column is missing altogether; the previous version stays active', async () => {
    const { env } = await built()
    const before = activeVersion(env.db, 'equipment', 'live')
    /** the CSV without one column, header and values (the test files quote no commas) */
    const without = (csv: string, column: string) => {
      const lines = csv.split('\n')
      const at = (lines[0] ?? '').split(',').indexOf(column)
      expect(at).toBeGreaterThanOrEqual(0)
      return lines
        .map((l) =>
          l
            ? l
                .split(',')
                .filter((_, i) => i !== at)
                .join(',')
            : l,
        )
        .join('\n')
    }
    for (const [id, column] of [
      [EQUIPMENT_FILES.smsInspection, 'VIN'],
      [EQUIPMENT_FILES.smsCrash, 'Vehicle_ID_Number'],
      [EQUIPMENT_FILES.mcmisUnits, 'INSP_UNIT_VEHICLE_ID_NUMBER'],
    ] as const) {
      const r = await build(env, { [id]: without(files()[id] ?? '', column) })
      expect(r.status, `${id} without ${column}`).toBe('failed')
      expect(r.status === 'failed' && r.error).toMatch(/missing/)
      expect(activeVersion(env.db, 'equipment', 'live')?.id).toBe(before?.id)
    }
  })
})
