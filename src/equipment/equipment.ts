/**
 * The equipment dataset (docs/equipment.md): which VINs and plates were seen
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
import { feed, interleave, rowBatches } from './read-file.ts'
import { foldSorted, Words } from './fold.ts'
import type { UnitFields } from './rows.ts'
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

/**
 * Whether `unit_type` (an SMS `Unit_Type_Desc`) names a trailer, in SQL: TRAILER, DOLLY or
 * CONVERTER in any case (LIKE ignores the case of ASCII letters).
 */
const IS_TRAILER = `(unit_type LIKE '%TRAILER%' OR unit_type LIKE '%DOLLY%' OR unit_type LIKE '%CONVERTER%')`

const DDL = `
CREATE TABLE vin_carriers (
  vin TEXT NOT NULL, dot INTEGER NOT NULL, first_day INTEGER NOT NULL, last_day INTEGER NOT NULL,
  inspections INTEGER NOT NULL, crashes INTEGER NOT NULL, unit_type TEXT, make TEXT,
  plates TEXT, carriers INTEGER NOT NULL, valid INTEGER NOT NULL, PRIMARY KEY (vin, dot)
) STRICT, WITHOUT ROWID;
CREATE TABLE plate_carriers (
  state TEXT NOT NULL, plate TEXT NOT NULL, dot INTEGER NOT NULL, first_day INTEGER NOT NULL,
  last_day INTEGER NOT NULL, inspections INTEGER NOT NULL, crashes INTEGER NOT NULL,
  unit_type TEXT, make TEXT, vins TEXT, carriers INTEGER NOT NULL, PRIMARY KEY (state, plate, dot)
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
CREATE TABLE vin_links (dot INTEGER NOT NULL, other INTEGER NOT NULL, PRIMARY KEY (dot, other))
  STRICT, WITHOUT ROWID;
`

/**
 * Every pair of USDOTs that share a valid VIN seen under at most SHARED_WIDELY_ABOVE carriers,
 * both ways: the link index's VIN links (identity/links.ts), read by USDOT. Sorted before the
 * insert, so the table is written in key order.
 */
const VIN_LINKS_SQL = `INSERT INTO vin_links
  SELECT DISTINCT a.dot, b.dot FROM vin_carriers a
  JOIN vin_carriers b ON b.vin = a.vin AND b.dot <> a.dot
  WHERE a.valid = 1 AND a.carriers > 1 AND a.carriers <= ?
  ORDER BY 1, 2`

const SCRATCH_DDL = `
CREATE TABLE scratch.insp (id INTEGER PRIMARY KEY, dot INTEGER NOT NULL, day INTEGER NOT NULL,
  state TEXT NOT NULL, name TEXT);
CREATE TABLE scratch.unit (insp INTEGER NOT NULL, vin TEXT NOT NULL, plate TEXT NOT NULL,
  type INTEGER, make INTEGER);
CREATE TABLE scratch.crash (dot INTEGER NOT NULL, day INTEGER NOT NULL, key TEXT NOT NULL,
  vin TEXT NOT NULL, plate TEXT NOT NULL);
CREATE TABLE scratch.s (vin TEXT NOT NULL, plate TEXT NOT NULL, dot INTEGER NOT NULL,
  day INTEGER NOT NULL, insp INTEGER, crash TEXT, type INTEGER, make INTEGER);
`

/** Reads the four files into the scratch tables; returns the latest event day up to the as-of. */
async function readInputs(ctx: BuildContext, asOfDay: number, words: Words): Promise<number> {
  const { db } = ctx
  const input = (id: string) => ctx.inputs.get(id)
  let maxDay = -1
  // the window ends at the latest event day, which only grows as rows come: a row before the
  // window of the latest day seen so far is before the final window too, and is dropped here
  // rather than copied into the scratch tables (the MCMIS files hold a year more than the window)
  let floor = -Infinity
  let dropped = 0
  const seen = (day: number) => {
    if (day <= asOfDay && day > maxDay) {
      maxDay = day
      floor = isoToDay(windowStart(dayToIso(day)))
    }
  }
  const old = (day: number) => {
    if (day >= floor) return false
    dropped++
    return true
  }
  const putUnit = db.prepare('INSERT INTO scratch.unit VALUES (?, ?, ?, ?, ?)')
  const addUnit = (insp: number, u: UnitFields) =>
    putUnit.run(insp, u[0], u[1], words.code(u[2]), words.code(u[3]))

  // two files at a time, each parsed by its own worker while this thread inserts whatever is
  // ready: the MCMIS inspections with the units, then the SMS inspections with the crashes. The
  // MCMIS inspections come before the SMS ones: they carry the officer-written name, and are the
  // newer copy of an inspection in both
  const mcmis = input(EQUIPMENT_FILES.mcmisInspection)
  const unitsPath = input(EQUIPMENT_FILES.mcmisUnits)
  const first: AsyncIterable<readonly (() => void)[]>[] = []
  if (mcmis) {
    const id = EQUIPMENT_FILES.mcmisInspection
    const put = db.prepare('INSERT OR REPLACE INTO scratch.insp VALUES (?, ?, ?, ?, ?)')
    first.push(
      feed({
        batches: rowBatches(ctx, id, mcmis, 'mcmisInspectionRow'),
        row: (r) => {
          seen(r[2])
          if (!old(r[2])) put.run(r)
          ctx.accept(id)
        },
      }),
    )
  } else ctx.note(`equipment.${EQUIPMENT_FILES.mcmisInspection}.not_supplied`)
  let empty = 0
  if (unitsPath) {
    const id = EQUIPMENT_FILES.mcmisUnits
    first.push(
      feed({
        batches: rowBatches(ctx, id, unitsPath, 'mcmisUnitRow'),
        row: (r) => {
          const [inspId, u] = r
          if (u) addUnit(inspId, u)
          else empty++
          ctx.accept(id)
        },
      }),
    )
  } else ctx.note(`equipment.${EQUIPMENT_FILES.mcmisUnits}.not_supplied`)
  if (first.length)
    await ctx.insertChunks(
      mcmis ? EQUIPMENT_FILES.mcmisInspection : EQUIPMENT_FILES.mcmisUnits,
      interleave(first),
      (thunk) => thunk(),
    )
  if (empty) ctx.note('equipment.unit.no_vin_or_plate', empty)

  const smsPath = input(EQUIPMENT_FILES.smsInspection)
  if (!smsPath) throw new Error(`SMS file ${EQUIPMENT_FILES.smsInspection} is missing`)
  const crashPath = input(EQUIPMENT_FILES.smsCrash)
  if (!crashPath) throw new Error(`SMS file ${EQUIPMENT_FILES.smsCrash} is missing`)
  const smsId = EQUIPMENT_FILES.smsInspection
  const putSms = db.prepare('INSERT OR IGNORE INTO scratch.insp VALUES (?, ?, ?, ?, NULL)')
  let both = 0
  const crashId = EQUIPMENT_FILES.smsCrash
  const putCrash = db.prepare('INSERT INTO scratch.crash VALUES (?, ?, ?, ?, ?)')
  await ctx.insertChunks(
    smsId,
    interleave([
      feed({
        batches: rowBatches(ctx, smsId, smsPath, 'smsUnitsRow'),
        row: (r) => {
          const [inspId, dot, day, state, units] = r
          seen(day)
          ctx.accept(smsId)
          if (old(day)) return
          if (putSms.run(inspId, dot, day, state).changes === 0) both++
          for (const u of units) addUnit(inspId, u)
        },
      }),
      feed({
        batches: rowBatches(ctx, crashId, crashPath, 'crashUnitRow'),
        row: (r) => {
          const [dot, day, key, u] = r
          seen(day)
          if (u && !old(day)) putCrash.run(dot, day, key, u[0], u[1])
          ctx.accept(crashId)
        },
      }),
    ]),
    (thunk) => thunk(),
  )
  if (both) ctx.note('equipment.inspection.in_sms_and_mcmis', both)
  if (dropped) ctx.note('equipment.event.before_window', dropped)
  return maxDay
}

/** One statement's work, timed as a build phase, with a turn of the event loop after it. */
async function step(ctx: BuildContext, name: string, sql: string, params: object = {}) {
  ctx.timed(`equipment.${name}`, () => ctx.db.prepare(sql).run(params))
  ctx.signal.throwIfAborted()
  await yieldToLoop()
}

/** What the build wrote, kept in equipment_meta (the bench and the notes print them). */
interface Counts {
  vins: number
  validVins: number
  plates: number
}

/** Per VIN: its carriers with their plates, and its verdict and carrier count on each row. */
async function foldVins(
  ctx: BuildContext,
  scratchPath: string,
  counts: Counts,
  words: Words,
): Promise<void> {
  // per VIN: its carriers with their plates, and the VIN's verdict and carrier count on each
  // row (one row per VIN and USDOT: a lookup is one range read)
  const vinCarrier = ctx.db.prepare(
    'INSERT INTO vin_carriers VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  )
  await foldSorted(
    ctx,
    'vins',
    scratchPath,
    `SELECT vin, dot, day, insp, crash, plate, type, make FROM s
     WHERE vin <> '' ORDER BY vin, dot, day`,
    {},
    (v, groups) => {
      const n = groups.length
      const valid = vinStatus(v) === 'valid' ? 1 : 0
      counts.vins++
      counts.validVins += valid
      for (const g of groups) {
        const plates = g.others ? [...g.others.keys()].sort().join(',') : null
        vinCarrier.run(
          v,
          g.dot,
          g.first,
          g.last,
          g.inspections,
          g.crash?.size ?? 0,
          words.word(g.type),
          words.word(g.make),
          plates,
          n,
          valid,
        )
      }
    },
  )
}

/** Per plate: its carriers and the VINs seen with it. */
async function foldPlates(
  ctx: BuildContext,
  scratchPath: string,
  counts: Counts,
  words: Words,
): Promise<void> {
  // per plate: its carriers and the VINs seen with it (`vin:day` by VIN), one row per USDOT
  const plateCarrier = ctx.db.prepare(
    'INSERT INTO plate_carriers VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  )
  await foldSorted(
    ctx,
    'plates',
    scratchPath,
    // a plate's state is always its 2-letter code: `state|plate` sorts as (state, plate) does
    `SELECT plate, dot, day, insp, crash, vin, type, make FROM s
     WHERE plate <> '' ORDER BY plate, dot, day`,
    {},
    (k, groups) => {
      const st = k.slice(0, 2)
      const p = k.slice(3)
      const n = groups.length
      counts.plates++
      for (const g of groups) {
        const vins = g.others
          ? [...g.others]
              .sort((a, b) => (a[0] < b[0] ? -1 : 1))
              .map(([v, day]) => `${v}:${day}`)
              .join(',')
          : null
        plateCarrier.run(
          st,
          p,
          g.dot,
          g.first,
          g.last,
          g.inspections,
          g.crash?.size ?? 0,
          words.word(g.type),
          words.word(g.make),
          vins,
          n,
        )
      }
    },
  )
}

async function aggregate(
  ctx: BuildContext,
  scratchPath: string,
  window: { from: number; to: number },
  words: Words,
): Promise<Counts> {
  const counts: Counts = { vins: 0, validVins: 0, plates: 0 }
  const w = { ...window, above: SHARED_WIDELY_ABOVE }
  const { db } = ctx
  const outside = db
    .prepare('SELECT count(*) AS n FROM scratch.insp WHERE day < @from OR day > @to')
    .get(w) as { n: number }
  if (outside.n) ctx.note('equipment.inspection.outside_window', outside.n)
  const orphans = db
    .prepare(
      'SELECT count(*) AS n FROM scratch.unit u WHERE NOT EXISTS (SELECT 1 FROM scratch.insp i WHERE i.id = u.insp)',
    )
    .get() as { n: number }
  if (orphans.n) ctx.note('equipment.unit.inspection_not_kept', orphans.n)

  // every sighting in the window, once: inspection units, then crash vehicles (no index: the
  // two passes below sort it, each once)
  await step(
    ctx,
    'sightings',
    `INSERT INTO scratch.s SELECT u.vin, u.plate, i.dot, i.day, i.id, NULL, u.type, u.make
     FROM scratch.unit u JOIN scratch.insp i ON i.id = u.insp WHERE i.day BETWEEN @from AND @to`,
    w,
  )
  await step(
    ctx,
    'sightings',
    `INSERT INTO scratch.s SELECT vin, plate, dot, day, NULL, key, NULL, NULL
     FROM scratch.crash WHERE day BETWEEN @from AND @to`,
    w,
  )

  await foldVins(ctx, scratchPath, counts, words)
  await foldPlates(ctx, scratchPath, counts, words)

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
       SELECT dot,
         sum(unit_type IS NOT NULL AND NOT ${IS_TRAILER}) AS power,
         sum(coalesce(${IS_TRAILER}, 0)) AS trailers,
         sum(carriers > 1 AND carriers <= @above) AS shared
       FROM vin_carriers WHERE valid = 1 GROUP BY dot
     ) v ON v.dot = i.dot`,
    w,
  )
  return counts
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
    const words = new Words()
    const latest = await readInputs(ctx, asOfDay, words)
    const end = latest >= 0 ? dayToIso(latest) : ctx.asOf
    const start = windowStart(end)
    const window = { from: isoToDay(start), to: isoToDay(end) }
    const counts = await aggregate(ctx, scratchPath, window, words)
    const meta = ctx.db.prepare('INSERT INTO equipment_meta (key, value) VALUES (?, ?)')
    for (const [k, v] of Object.entries({
      window_start: start,
      window_end: end,
      shared_widely_above: String(SHARED_WIDELY_ABOVE),
      vins: String(counts.vins),
      valid_vins: String(counts.validVins),
      plates: String(counts.plates),
      mcmis_files: [EQUIPMENT_FILES.mcmisInspection, EQUIPMENT_FILES.mcmisUnits]
        .filter((id) => ctx.inputs.has(id))
        .join(','),
    }))
      meta.run(k, v)
    ctx.timed('vin_links', () => ctx.db.prepare(VIN_LINKS_SQL).run(SHARED_WIDELY_ABOVE))
    // GET .../links counts a carrier's VINs over the cap (equipment/read.ts vinsOverCap)
    ctx.timed('vin_carriers_by_dot', () =>
      ctx.db.exec('CREATE INDEX vin_carriers_by_dot ON vin_carriers (dot, vin)'),
    )
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
      incremental: { key: 'INSPECTION_ID', changed: 'CHANGE_DATE' },
    },
    {
      id: EQUIPMENT_FILES.mcmisUnits,
      title: 'Inspections Per Unit',
      format: 'rows',
      kind: 'full',
      required: false,
      incremental: { key: 'INSP_UNIT_ID', changed: 'CHANGE_DATE' },
    },
  ],
  schedule: 'monthly',
  // 2: one row per VIN (plate) and USDOT carries the unit's plates (VINs), verdict and count;
  // 3: vin_links, the USDOT pairs sharing a VIN within the cap
  format: 3,
  minRowsRatio: 0.8,
  maxRejectRatio: 0.01,
  build: buildEquipment,
}
