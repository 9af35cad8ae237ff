/**
 * The equipment dataset (FMCSA-DATA.md §11, docs/equipment.md): which VINs and plates were seen
 * under which USDOT numbers at the roadside and in crashes, and what the officers wrote as the
 * carrier's name. Built from the SMS inspection and crash files (their unit columns) and the MCMIS
 * Vehicle Inspection File and Inspections Per Unit, reduced to per-VIN, per-plate and per-USDOT
 * tables, so a lookup is a few primary-key reads.
 *
 * One inspection is one sighting: the SMS `Unique_ID` is the MCMIS `INSPECTION_ID`, inspections
 * are keyed by it, and each VIN or plate counts an inspection once however many files name it.
 */
import { existsSync, rmSync } from 'node:fs'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { DAY } from '../clock.ts'
import { dayToIso, isoToDay } from '../dates.ts'
import type { BuildContext, DatasetSpec } from '../ingest/types.ts'
import { rowBatches } from './read-file.ts'
import { vinStatus } from './vin.ts'

export const EQUIPMENT_FILES = {
  smsInspection: 'rbkj-cgst',
  smsCrash: '4wxs-vbns',
  mcmisInspection: 'fx4q-ay7w',
  mcmisUnits: 'wt8s-2hbx',
} as const

/** The window of sightings: 24 months, like the SMS (it ends at the latest event of the files). */
export const EQUIPMENT_WINDOW_MONTHS = 24

/** A VIN or plate under more than this many USDOT numbers in the window is `shared_widely`. */
export const SHARED_WIDELY_ABOVE = 5

/** First day of the `months`-month window that ends on `end` (both inclusive). */
export function windowStart(end: string, months = EQUIPMENT_WINDOW_MONTHS): string {
  const y = Number(end.slice(0, 4))
  const m = Number(end.slice(5, 7)) - 1 - months
  const d = Number(end.slice(8, 10))
  const lastOfMonth = new Date(Date.UTC(y, m + 1, 0)).getUTCDate()
  return dayToIso(Date.UTC(y, m, Math.min(d, lastOfMonth)) / DAY + 1)
}

/** Whether a unit type description names a trailer (SMS `Unit_Type_Desc`). */
export const isTrailerType = (type: string | null): boolean =>
  type !== null && /TRAILER|DOLLY|CONVERTER/i.test(type)

const DDL = `
CREATE TABLE vins (
  vin TEXT PRIMARY KEY, valid INTEGER NOT NULL, carriers INTEGER NOT NULL,
  shared_widely INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE TABLE vin_carriers (
  vin TEXT NOT NULL, dot INTEGER NOT NULL, first_day INTEGER NOT NULL, last_day INTEGER NOT NULL,
  inspections INTEGER NOT NULL, crashes INTEGER NOT NULL, unit_type TEXT, make TEXT,
  PRIMARY KEY (vin, dot)
) STRICT, WITHOUT ROWID;
CREATE TABLE vin_plates (
  vin TEXT NOT NULL, dot INTEGER NOT NULL, state TEXT NOT NULL, plate TEXT NOT NULL,
  PRIMARY KEY (vin, dot, state, plate)
) STRICT, WITHOUT ROWID;
CREATE TABLE plates (
  state TEXT NOT NULL, plate TEXT NOT NULL, carriers INTEGER NOT NULL,
  shared_widely INTEGER NOT NULL, PRIMARY KEY (state, plate)
) STRICT, WITHOUT ROWID;
CREATE TABLE plate_carriers (
  state TEXT NOT NULL, plate TEXT NOT NULL, dot INTEGER NOT NULL, first_day INTEGER NOT NULL,
  last_day INTEGER NOT NULL, inspections INTEGER NOT NULL, crashes INTEGER NOT NULL,
  unit_type TEXT, make TEXT, PRIMARY KEY (state, plate, dot)
) STRICT, WITHOUT ROWID;
CREATE TABLE plate_vins (
  state TEXT NOT NULL, plate TEXT NOT NULL, dot INTEGER NOT NULL, vin TEXT NOT NULL,
  last_day INTEGER NOT NULL, PRIMARY KEY (state, plate, dot, vin)
) STRICT, WITHOUT ROWID;
CREATE TABLE carrier_equipment (
  dot INTEGER PRIMARY KEY, inspections INTEGER NOT NULL, last_day INTEGER,
  power_units INTEGER NOT NULL, trailers INTEGER NOT NULL, vins_shared INTEGER NOT NULL,
  roadside_inspections INTEGER NOT NULL, last_roadside_day INTEGER
) STRICT;
CREATE TABLE carrier_states (
  dot INTEGER NOT NULL, state TEXT NOT NULL, inspections INTEGER NOT NULL,
  PRIMARY KEY (dot, state)
) STRICT, WITHOUT ROWID;
CREATE TABLE carrier_names (
  dot INTEGER NOT NULL, name TEXT NOT NULL, inspections INTEGER NOT NULL,
  last_day INTEGER NOT NULL, PRIMARY KEY (dot, name)
) STRICT, WITHOUT ROWID;
CREATE TABLE equipment_meta (key TEXT PRIMARY KEY, value TEXT) STRICT, WITHOUT ROWID;
`

const SCRATCH_DDL = `
CREATE TABLE scratch.insp (id INTEGER PRIMARY KEY, dot INTEGER NOT NULL, day INTEGER NOT NULL,
  state TEXT NOT NULL, name TEXT);
CREATE TABLE scratch.unit (insp INTEGER NOT NULL, vin TEXT NOT NULL, plate TEXT NOT NULL,
  state TEXT NOT NULL, type TEXT, make TEXT);
CREATE TABLE scratch.crash (dot INTEGER NOT NULL, day INTEGER NOT NULL, key TEXT NOT NULL,
  vin TEXT NOT NULL, plate TEXT NOT NULL, state TEXT NOT NULL);
CREATE TABLE scratch.s (vin TEXT NOT NULL, state TEXT NOT NULL, plate TEXT NOT NULL,
  dot INTEGER NOT NULL, day INTEGER NOT NULL, insp INTEGER, crash TEXT, type TEXT, make TEXT);
`

/** Reads the four files into the scratch tables; returns the latest event day up to the as-of. */
async function readInputs(ctx: BuildContext, asOfDay: number): Promise<number> {
  const { db } = ctx
  const input = (id: string) => ctx.inputs.get(id)
  let maxDay = -1
  const seen = (day: number) => {
    if (day <= asOfDay && day > maxDay) maxDay = day
  }
  const unitSql = 'INSERT INTO scratch.unit VALUES (?, ?, ?, ?, ?, ?)'
  const addUnit = db.prepare(unitSql)

  // MCMIS inspections first: they carry the officer-written name, and are the newer copy
  const mcmis = input(EQUIPMENT_FILES.mcmisInspection)
  if (mcmis) {
    const id = EQUIPMENT_FILES.mcmisInspection
    const put = db.prepare('INSERT OR REPLACE INTO scratch.insp VALUES (?, ?, ?, ?, ?)')
    await ctx.insertChunks(id, rowBatches(ctx, id, mcmis, 'mcmisInspectionRow'), (r) => {
      put.run(r)
      seen(r[2])
      ctx.accept(id)
    })
  } else ctx.note(`equipment.${EQUIPMENT_FILES.mcmisInspection}.not_supplied`)

  const smsPath = input(EQUIPMENT_FILES.smsInspection)
  if (!smsPath) throw new Error(`SMS file ${EQUIPMENT_FILES.smsInspection} is missing`)
  {
    const id = EQUIPMENT_FILES.smsInspection
    const put = db.prepare('INSERT OR IGNORE INTO scratch.insp VALUES (?, ?, ?, ?, NULL)')
    let both = 0
    await ctx.insertChunks(id, rowBatches(ctx, id, smsPath, 'smsUnitsRow'), (r) => {
      const [inspId, dot, day, state, units] = r
      if (put.run(inspId, dot, day, state).changes === 0) both++
      for (const u of units) addUnit.run(inspId, ...u)
      seen(day)
      ctx.accept(id)
    })
    if (both) ctx.note('equipment.inspection.in_sms_and_mcmis', both)
  }

  const unitsPath = input(EQUIPMENT_FILES.mcmisUnits)
  if (unitsPath) {
    const id = EQUIPMENT_FILES.mcmisUnits
    let empty = 0
    await ctx.insertChunks(id, rowBatches(ctx, id, unitsPath, 'mcmisUnitRow'), (r) => {
      const [inspId, u] = r
      if (u) addUnit.run(inspId, ...u)
      else empty++
      ctx.accept(id)
    })
    if (empty) ctx.note('equipment.unit.no_vin_or_plate', empty)
  } else ctx.note(`equipment.${EQUIPMENT_FILES.mcmisUnits}.not_supplied`)

  const crashPath = input(EQUIPMENT_FILES.smsCrash)
  if (!crashPath) throw new Error(`SMS file ${EQUIPMENT_FILES.smsCrash} is missing`)
  {
    const id = EQUIPMENT_FILES.smsCrash
    const put = db.prepare('INSERT INTO scratch.crash VALUES (?, ?, ?, ?, ?, ?)')
    await ctx.insertChunks(id, rowBatches(ctx, id, crashPath, 'crashUnitRow'), (r) => {
      const [dot, day, key, u] = r
      if (u) put.run(dot, day, key, u[0], u[1], u[2])
      seen(day)
      ctx.accept(id)
    })
  }
  return maxDay
}

/** One statement's work, timed as a build phase, with a turn of the event loop after it. */
async function step(ctx: BuildContext, name: string, sql: string, params: object = {}) {
  ctx.timed(`equipment.${name}`, () => ctx.db.prepare(sql).run(params))
  ctx.signal.throwIfAborted()
  await yieldToLoop()
}

async function aggregate(ctx: BuildContext, from: number, to: number): Promise<void> {
  const w = { from, to, above: SHARED_WIDELY_ABOVE }
  const { db } = ctx
  db.function('vin_valid', { deterministic: true }, (v: unknown) =>
    typeof v === 'string' && vinStatus(v) === 'valid' ? 1 : 0,
  )
  db.function('is_trailer', { deterministic: true }, (t: unknown) =>
    typeof t === 'string' && isTrailerType(t) ? 1 : 0,
  )
  const outside = db
    .prepare('SELECT count(*) AS n FROM scratch.insp WHERE day < @from OR day > @to')
    .get(w) as { n: number }
  if (outside.n) ctx.note('equipment.inspection.outside_window', outside.n)
  const orphans = db
    .prepare(
      'SELECT count(*) AS n FROM scratch.unit u WHERE NOT EXISTS (SELECT 1 FROM scratch.insp i WHERE i.id = u.insp)',
    )
    .get() as { n: number }
  if (orphans.n) ctx.note('equipment.unit.inspection_not_found', orphans.n)

  // every sighting in the window: inspection units, then crash vehicles
  await step(
    ctx,
    'sightings',
    `INSERT INTO scratch.s SELECT u.vin, u.state, u.plate, i.dot, i.day, i.id, NULL, u.type, u.make
     FROM scratch.unit u JOIN scratch.insp i ON i.id = u.insp WHERE i.day BETWEEN @from AND @to`,
    w,
  )
  await step(
    ctx,
    'sightings',
    `INSERT INTO scratch.s SELECT vin, state, plate, dot, day, NULL, key, NULL, NULL
     FROM scratch.crash WHERE day BETWEEN @from AND @to`,
    w,
  )
  await step(ctx, 'index', "CREATE INDEX scratch.s_vin ON s (vin, dot, day) WHERE vin <> ''")
  await step(
    ctx,
    'index',
    "CREATE INDEX scratch.s_plate ON s (state, plate, dot, day) WHERE plate <> ''",
  )

  // per VIN and carrier; the type and make of the latest sighting that has them
  await step(
    ctx,
    'vins',
    `INSERT INTO vin_carriers (vin, dot, first_day, last_day, inspections, crashes)
     SELECT vin, dot, min(day), max(day), count(DISTINCT insp), count(DISTINCT crash)
     FROM scratch.s WHERE vin <> '' GROUP BY vin, dot`,
  )
  await step(
    ctx,
    'vins',
    `UPDATE vin_carriers SET unit_type = t.type, make = t.make FROM (
       SELECT vin, dot, max(day), type, make FROM scratch.s
       WHERE vin <> '' AND (type IS NOT NULL OR make IS NOT NULL) GROUP BY vin, dot
     ) t WHERE vin_carriers.vin = t.vin AND vin_carriers.dot = t.dot`,
  )
  await step(
    ctx,
    'vins',
    `INSERT INTO vin_plates SELECT DISTINCT vin, dot, state, plate FROM scratch.s
     WHERE vin <> '' AND plate <> ''`,
  )
  await step(
    ctx,
    'vins',
    `INSERT INTO vins SELECT vin, vin_valid(vin), count(*), count(*) > @above
     FROM vin_carriers GROUP BY vin`,
    w,
  )

  // per plate and carrier
  await step(
    ctx,
    'plates',
    `INSERT INTO plate_carriers (state, plate, dot, first_day, last_day, inspections, crashes)
     SELECT state, plate, dot, min(day), max(day), count(DISTINCT insp), count(DISTINCT crash)
     FROM scratch.s WHERE plate <> '' GROUP BY state, plate, dot`,
  )
  await step(
    ctx,
    'plates',
    `UPDATE plate_carriers SET unit_type = t.type, make = t.make FROM (
       SELECT state, plate, dot, max(day), type, make FROM scratch.s
       WHERE plate <> '' AND (type IS NOT NULL OR make IS NOT NULL) GROUP BY state, plate, dot
     ) t WHERE plate_carriers.state = t.state AND plate_carriers.plate = t.plate
       AND plate_carriers.dot = t.dot`,
  )
  await step(
    ctx,
    'plates',
    `INSERT INTO plate_vins SELECT state, plate, dot, vin, max(day) FROM scratch.s
     WHERE plate <> '' AND vin <> '' GROUP BY state, plate, dot, vin`,
  )
  await step(
    ctx,
    'plates',
    `INSERT INTO plates SELECT state, plate, count(*), count(*) > @above
     FROM plate_carriers GROUP BY state, plate`,
    w,
  )

  // per carrier: inspections, states, roadside names, distinct valid VINs by class
  await step(
    ctx,
    'carriers',
    `INSERT INTO carrier_states SELECT dot, state, count(*) FROM scratch.insp
     WHERE day BETWEEN @from AND @to AND state <> '' GROUP BY dot, state`,
    w,
  )
  await step(
    ctx,
    'carriers',
    `INSERT INTO carrier_names SELECT dot, name, count(*), max(day) FROM scratch.insp
     WHERE day BETWEEN @from AND @to AND name IS NOT NULL GROUP BY dot, name`,
    w,
  )
  await step(
    ctx,
    'carriers',
    `INSERT INTO carrier_equipment
     SELECT i.dot, i.n, i.last_day,
       coalesce(v.power, 0), coalesce(v.trailers, 0), coalesce(v.shared, 0),
       i.roadside, i.last_roadside
     FROM (
       SELECT dot, count(*) AS n, max(day) AS last_day,
         count(name) AS roadside, max(CASE WHEN name IS NOT NULL THEN day END) AS last_roadside
       FROM scratch.insp WHERE day BETWEEN @from AND @to GROUP BY dot
     ) i LEFT JOIN (
       SELECT c.dot,
         sum(c.unit_type IS NOT NULL AND NOT is_trailer(c.unit_type)) AS power,
         sum(is_trailer(c.unit_type)) AS trailers,
         sum(v.carriers > 1 AND NOT v.shared_widely) AS shared
       FROM vin_carriers c JOIN vins v ON v.vin = c.vin
       WHERE v.valid = 1 GROUP BY c.dot
     ) v ON v.dot = i.dot`,
    w,
  )
}

async function buildEquipment(ctx: BuildContext): Promise<void> {
  ctx.db.exec(DDL)
  const scratchPath = `${ctx.db.name}-scratch`
  rmSync(scratchPath, { force: true })
  ctx.db.prepare('ATTACH DATABASE ? AS scratch').run(scratchPath)
  try {
    ctx.db.pragma('scratch.journal_mode = OFF')
    ctx.db.pragma('scratch.synchronous = OFF')
    ctx.db.exec(SCRATCH_DDL)
    const asOfDay = isoToDay(ctx.asOf)
    const latest = await readInputs(ctx, asOfDay)
    const end = latest >= 0 ? dayToIso(latest) : ctx.asOf
    const start = windowStart(end)
    await aggregate(ctx, isoToDay(start), isoToDay(end))
    const meta = ctx.db.prepare('INSERT INTO equipment_meta (key, value) VALUES (?, ?)')
    for (const [k, v] of Object.entries({
      window_start: start,
      window_end: end,
      shared_widely_above: String(SHARED_WIDELY_ABOVE),
      mcmis_files: [EQUIPMENT_FILES.mcmisInspection, EQUIPMENT_FILES.mcmisUnits]
        .filter((id) => ctx.inputs.has(id))
        .join(','),
    }))
      meta.run(k, v)
  } finally {
    try {
      if (ctx.db.open) ctx.db.exec('DETACH DATABASE scratch')
    } catch {
      // the caller closes the connection on failure, which releases the file as well
    }
    if (existsSync(scratchPath)) rmSync(scratchPath, { force: true })
  }
}

export const equipmentDataset: DatasetSpec = {
  name: 'equipment',
  title: 'Equipment and roadside identity (VINs, plates, officer-written names)',
  files: [
    {
      id: EQUIPMENT_FILES.smsInspection,
      title: 'SMS Input - Inspection',
      format: 'rows',
      kind: 'full',
      required: true,
    },
    {
      id: EQUIPMENT_FILES.smsCrash,
      title: 'SMS Input - Crash',
      format: 'rows',
      kind: 'full',
      required: true,
    },
    {
      id: EQUIPMENT_FILES.mcmisInspection,
      title: 'Vehicle Inspection File',
      format: 'rows',
      kind: 'full',
      required: false,
    },
    {
      id: EQUIPMENT_FILES.mcmisUnits,
      title: 'Inspections Per Unit',
      format: 'rows',
      kind: 'full',
      required: false,
    },
  ],
  schedule: 'monthly',
  minRowsRatio: 0.8,
  maxRejectRatio: 0.01,
  build: buildEquipment,
}
