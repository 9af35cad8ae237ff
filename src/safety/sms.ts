/**
 * The SMS dataset (docs/safety.md): the monthly SMS input files (motor carrier census,
 * inspection, crash) and results files (PassProperty for all carriers, Pass with percentiles and
 * alerts for passenger carriers), reduced at build time to one `safety_summary` row and one
 * `basics` row per USDOT, so a lookup is two primary-key reads. See docs/safety.md.
 */
import { existsSync, rmSync } from 'node:fs'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { DAY } from '../clock.ts'
import { dayToIso, isoToDay } from '../dates.ts'
import type { BuildContext, DatasetSpec } from '../ingest/types.ts'
import { BASIC_COLUMNS, PUBLISHED_BASICS } from './basics.ts'
import { parsedRows } from './read.ts'
import {
  F_DRIVER,
  F_DRIVER_OOS,
  F_HAZMAT,
  F_HAZMAT_OOS,
  F_UNKNOWN_LEVEL,
  F_VEHICLE,
  F_VEHICLE_OOS,
  SEV_FATAL,
  SEV_INJURY,
} from './rows.ts'

export const SMS_FILES = {
  census: 'kjg3-diqy',
  inspection: 'rbkj-cgst',
  crash: '4wxs-vbns',
  abPassProperty: '4y6x-dmck',
  cPassProperty: 'h9zy-gjn8',
  abPass: 'm3ry-qcip',
  cPass: 'h3zn-uid9',
} as const

/** The SMS window: 24 months (FMCSA SMS methodology). */
export const WINDOW_MONTHS = 24

/** First day of the 24-month window that ends on `end` (both inclusive): 2026-08-31 → 2024-09-01. */
export function windowStart(end: string, months = WINDOW_MONTHS): string {
  const y = Number(end.slice(0, 4))
  const m = Number(end.slice(5, 7)) - 1 - months
  const d = Number(end.slice(8, 10))
  const lastOfMonth = new Date(Date.UTC(y, m + 1, 0)).getUTCDate()
  const back = Date.UTC(y, m, Math.min(d, lastOfMonth)) / DAY
  return dayToIso(back + 1)
}

// ---------------------------------------------------------------------------------------------
// DDL

const SUMMARY_COLUMNS = [
  'in_census',
  'in_results',
  'passenger',
  'private_only',
  'counts_source',
  'inspections_total',
  'driver_inspections',
  'driver_oos_inspections',
  'vehicle_inspections',
  'vehicle_oos_inspections',
  'hazmat_inspections',
  'hazmat_oos_inspections',
  'crash_total',
  'fatal_crash',
  'injury_crash',
  'towaway_crash',
] as const

const DDL = `
CREATE TABLE safety_summary (
  dot_number INTEGER PRIMARY KEY,
  in_census INTEGER NOT NULL CHECK (in_census IN (0, 1)),
  in_results INTEGER NOT NULL CHECK (in_results IN (0, 1)),
  passenger INTEGER CHECK (passenger IN (0, 1)),
  private_only INTEGER CHECK (private_only IN (0, 1)),
  counts_source TEXT CHECK (counts_source IN ('sms_results', 'inspections', 'sms_census')),
  inspections_total INTEGER, driver_inspections INTEGER, driver_oos_inspections INTEGER,
  vehicle_inspections INTEGER, vehicle_oos_inspections INTEGER,
  hazmat_inspections INTEGER, hazmat_oos_inspections INTEGER,
  crash_total INTEGER, fatal_crash INTEGER, injury_crash INTEGER, towaway_crash INTEGER
) STRICT;
CREATE TABLE basics (
  dot_number INTEGER PRIMARY KEY,
  passenger INTEGER NOT NULL CHECK (passenger IN (0, 1)),
  ${PUBLISHED_BASICS.map(
    (b) =>
      `${b.col}_iwv INTEGER, ${b.col}_measure REAL, ${b.col}_pct REAL, ${b.col}_pct_text TEXT, ` +
      `${b.col}_rd_alert INTEGER, ${b.col}_alert INTEGER, ${b.col}_ac INTEGER`,
  ).join(',\n  ')}
) STRICT;
CREATE TABLE sms_meta (key TEXT PRIMARY KEY, value TEXT) STRICT, WITHOUT ROWID;
`

const SCRATCH_DDL = `
CREATE TABLE scratch.census (dot INTEGER PRIMARY KEY, private_only INTEGER, pc_flag INTEGER);
CREATE TABLE scratch.results (dot INTEGER PRIMARY KEY, insp_total INTEGER, driver_insp INTEGER,
  driver_oos INTEGER, vehicle_insp INTEGER, vehicle_oos INTEGER);
CREATE TABLE scratch.insp (dot INTEGER PRIMARY KEY, total INTEGER, driver_insp INTEGER, driver_oos INTEGER,
  vehicle_insp INTEGER, vehicle_oos INTEGER, hazmat_insp INTEGER, hazmat_oos INTEGER);
CREATE TABLE scratch.crash (dot INTEGER PRIMARY KEY, total INTEGER, fatal INTEGER, injury INTEGER,
  towaway INTEGER);
`

// ---------------------------------------------------------------------------------------------
// Helpers

/** Runs `write` over `items` in short transactions, yielding to the event loop between them. */
async function writeChunked<T>(ctx: BuildContext, items: Iterable<T>, write: (t: T) => void) {
  const run = ctx.db.transaction((batch: T[]) => {
    for (const t of batch) write(t)
  })
  let batch: T[] = []
  for (const t of items) {
    batch.push(t)
    if (batch.length >= 10_000) {
      run(batch)
      batch = []
      ctx.signal.throwIfAborted()
      await yieldToLoop()
    }
  }
  if (batch.length) run(batch)
}

const CHUNK_BITS = 18
const CHUNK = 1 << CHUNK_BITS

/**
 * Inspections that may or may not fall in the window, kept as three packed columns (9 bytes a
 * row) until the window is known. Normally few: see readInspections.
 */
class InspectionLog {
  private dots: Int32Array[] = []
  private days: Int32Array[] = []
  private flags: Uint8Array[] = []
  length = 0

  push(dot: number, day: number, flags: number): void {
    const c = this.length >>> CHUNK_BITS
    const o = this.length & (CHUNK - 1)
    if (o === 0) {
      this.dots.push(new Int32Array(CHUNK))
      this.days.push(new Int32Array(CHUNK))
      this.flags.push(new Uint8Array(CHUNK))
    }
    ;(this.dots[c] as Int32Array)[o] = dot
    ;(this.days[c] as Int32Array)[o] = day
    ;(this.flags[c] as Uint8Array)[o] = flags
    this.length++
  }

  /** Visits every row, one chunk (262 k rows, a few ms) between event-loop turns. */
  async forEach(
    signal: AbortSignal,
    fn: (dot: number, day: number, flags: number) => void,
  ): Promise<void> {
    for (let c = 0; c < this.dots.length; c++) {
      const dots = this.dots[c] as Int32Array
      const days = this.days[c] as Int32Array
      const flags = this.flags[c] as Uint8Array
      const n = Math.min(CHUNK, this.length - c * CHUNK)
      for (let o = 0; o < n; o++) fn(dots[o] as number, days[o] as number, flags[o] as number)
      signal.throwIfAborted()
      await yieldToLoop()
    }
  }

  clear(): void {
    this.dots = []
    this.days = []
    this.flags = []
    this.length = 0
  }
}

const INSP_FIELDS = 7 // total, driver, driver oos, vehicle, vehicle oos, hazmat, hazmat oos

/** Per-USDOT inspection counters in one typed array (a Map of objects would be ~10× the size). */
class InspectionCounts {
  readonly slot = new Map<number, number>()
  counts = new Int32Array(INSP_FIELDS * 65_536)

  add(dot: number, flags: number): void {
    let s = this.slot.get(dot)
    if (s === undefined) {
      s = this.slot.size
      this.slot.set(dot, s)
      if ((s + 1) * INSP_FIELDS > this.counts.length) {
        const size = Math.ceil((this.counts.length * 1.5) / INSP_FIELDS) * INSP_FIELDS
        const grown = new Int32Array(size)
        grown.set(this.counts)
        this.counts = grown
      }
    }
    const c = this.counts
    const o = s * INSP_FIELDS
    c[o] = (c[o] as number) + 1
    if (flags & F_DRIVER) c[o + 1] = (c[o + 1] as number) + 1
    if (flags & F_DRIVER_OOS) c[o + 2] = (c[o + 2] as number) + 1
    if (flags & F_VEHICLE) c[o + 3] = (c[o + 3] as number) + 1
    if (flags & F_VEHICLE_OOS) c[o + 4] = (c[o + 4] as number) + 1
    if (flags & F_HAZMAT) c[o + 5] = (c[o + 5] as number) + 1
    if (flags & F_HAZMAT_OOS) c[o + 6] = (c[o + 6] as number) + 1
  }
}

/** A crash report's latest date and worst severity, packed in one number: day × 4 + severity. */
const packCrash = (day: number, sev: number) => day * 4 + sev

// ---------------------------------------------------------------------------------------------
// Readers

async function readCensus(ctx: BuildContext, path: string) {
  const id = SMS_FILES.census
  const sql = 'INTO scratch.census (dot, private_only, pc_flag) VALUES (?, ?, ?)'
  const insert = ctx.db.prepare(`INSERT OR IGNORE ${sql}`)
  const replace = ctx.db.prepare(`INSERT OR REPLACE ${sql}`)
  await ctx.insertBatches(id, parsedRows(ctx, id, path, 'smsCensusRow'), ({ row }) => {
    if (insert.run(row).changes === 0) {
      replace.run(row)
      ctx.note('sms.census.duplicate_dot')
    }
    ctx.accept(id)
  })
}

/** A PassProperty (`passenger` false) or Pass (`passenger` true) results file. */
async function readResults(ctx: BuildContext, id: string, path: string, passenger: boolean) {
  const countsSql = `INTO scratch.results (dot, insp_total, driver_insp, driver_oos, vehicle_insp,
    vehicle_oos) VALUES (?, ?, ?, ?, ?, ?)`
  const insertCounts = ctx.db.prepare(`INSERT OR IGNORE ${countsSql}`)
  const replaceCounts = ctx.db.prepare(`INSERT OR REPLACE ${countsSql}`)
  const cols = ['dot_number', 'passenger', ...BASIC_COLUMNS]
  // a Pass row replaces the PassProperty row of the same carrier: it has every PassProperty
  // column plus the percentiles and alerts (Pass files are read last)
  const insertBasics = ctx.db.prepare(
    `INSERT OR REPLACE INTO basics (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
  )
  const rows = parsedRows(ctx, id, path, passenger ? 'passRow' : 'passPropertyRow')
  await ctx.insertBatches(id, rows, ({ row }) => {
    const counts = row.slice(0, 6)
    // a passenger carrier is in both PassProperty and Pass: the Pass row wins; any other repeat
    // (the same file, or both AB and C) is noted and the later row wins
    if (passenger) replaceCounts.run(counts)
    else if (insertCounts.run(counts).changes === 0) {
      replaceCounts.run(counts)
      ctx.note('sms.results.duplicate_dot')
    }
    insertBasics.run(row[0], passenger ? 1 : 0, ...row.slice(6))
    ctx.accept(id)
  })
}

/** Returns the latest inspection date (day number) not after the as-of date, or -1. */
async function readInspections(
  ctx: BuildContext,
  path: string,
  counts: InspectionCounts,
  early: InspectionLog,
  asOfDay: number,
) {
  const id = SMS_FILES.inspection
  // The window ends on the latest date up to the as-of date, so it always covers the 24 months
  // up to the as-of date: rows there are counted at once, older rows wait for the window start.
  const sureFrom = isoToDay(windowStart(dayToIso(asOfDay)))
  let maxDay = -1
  let after = 0
  let unknownLevel = 0
  await ctx.insertBatches(id, parsedRows(ctx, id, path, 'inspectionRow'), ({ row }) => {
    const [dot, day, flags] = row
    if (flags & F_UNKNOWN_LEVEL) unknownLevel++
    if (day > asOfDay) after++
    else {
      if (day >= sureFrom) counts.add(dot, flags)
      else early.push(dot, day, flags)
      if (day > maxDay) maxDay = day
    }
    ctx.accept(id)
  })
  if (after) ctx.note('sms.inspection.after_as_of', after)
  if (unknownLevel) ctx.note('sms.inspection.unknown_level', unknownLevel)
  return maxDay
}

/** Returns the latest crash date (day number) not after the as-of date, or -1. */
async function readCrashes(
  ctx: BuildContext,
  path: string,
  /** `dot|state|number` → packCrash(day, severity) */
  reports: Map<string, number>,
  asOfDay: number,
) {
  const id = SMS_FILES.crash
  let maxDay = -1
  let merged = 0
  let unflagged = 0
  let noNumber = 0
  await ctx.insertBatches(id, parsedRows(ctx, id, path, 'crashRow'), ({ line, row }) => {
    const [dot, day, sev, reportKey, towNotFlagged] = row
    unflagged += towNotFlagged
    // vehicles of one crash share the report: count it once per carrier, by its worst outcome
    let key = reportKey
    if (key === '') {
      noNumber++
      key = `${dot}||#${line}`
    }
    const prev = reports.get(key)
    if (prev === undefined) reports.set(key, packCrash(day, sev))
    else {
      reports.set(key, packCrash(Math.max(day, Math.floor(prev / 4)), Math.max(sev, prev % 4)))
      merged++
    }
    if (day > maxDay && day <= asOfDay) maxDay = day
    ctx.accept(id)
  })
  if (merged) ctx.note('sms.crash.vehicle_rows_merged', merged)
  if (unflagged) ctx.note('sms.crash.towaway_not_flagged', unflagged)
  if (noNumber) ctx.note('sms.crash.no_report_number', noNumber)
  return maxDay
}

// ---------------------------------------------------------------------------------------------
// Aggregation

/** Counts the early rows that fall in the window, then writes the counters to scratch.insp. */
async function writeInspectionAggregates(
  ctx: BuildContext,
  counts: InspectionCounts,
  early: InspectionLog,
  start: number,
) {
  let before = 0
  await early.forEach(ctx.signal, (dot, day, flags) => {
    if (day < start) before++
    else counts.add(dot, flags)
  })
  early.clear()
  if (before) ctx.note('sms.inspection.before_window', before)
  const insert = ctx.db.prepare('INSERT INTO scratch.insp VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
  await writeChunked(ctx, counts.slot, ([dot, s]) => {
    const o = s * INSP_FIELDS
    insert.run(dot, ...counts.counts.subarray(o, o + INSP_FIELDS))
  })
}

async function writeCrashAggregates(
  ctx: BuildContext,
  reports: Map<string, number>,
  start: number,
  end: number,
) {
  const perDot = new Map<number, [number, number, number, number]>()
  let outside = 0
  for (const [key, packed] of reports) {
    const day = Math.floor(packed / 4)
    const sev = packed % 4
    if (day < start || day > end) {
      outside++
      continue
    }
    const dot = Number(key.slice(0, key.indexOf('|')))
    let c = perDot.get(dot)
    if (!c) perDot.set(dot, (c = [0, 0, 0, 0]))
    c[0]++
    if (sev === SEV_FATAL) c[1]++
    else if (sev === SEV_INJURY) c[2]++
    else c[3]++
  }
  if (outside) ctx.note('sms.crash.outside_window', outside)
  const insert = ctx.db.prepare('INSERT INTO scratch.crash VALUES (?, ?, ?, ?, ?)')
  await writeChunked(ctx, perDot, ([dot, c]) => insert.run(dot, ...c))
}

/**
 * Merges the four per-USDOT sources into safety_summary in USDOT order, one keyset-paged chunk
 * per transaction (each UNION branch is a primary-key range scan, so a chunk costs its size).
 * Counts: SMS results first (FMCSA's own figures), else the inspection aggregate, else 0 for a
 * carrier in the SMS census or results, else null. Hazmat and crashes always come from the inputs.
 */
async function mergeSummary(ctx: BuildContext) {
  const known = 'CASE WHEN c.dot IS NOT NULL OR r.dot IS NOT NULL THEN 0 END'
  const knownAny =
    'CASE WHEN c.dot IS NOT NULL OR r.dot IS NOT NULL OR i.dot IS NOT NULL THEN 0 END'
  const stmt = ctx.db.prepare(`
    INSERT INTO safety_summary (dot_number, ${SUMMARY_COLUMNS.join(', ')})
    SELECT d.dot, c.dot IS NOT NULL, r.dot IS NOT NULL,
      CASE WHEN b.passenger = 1 THEN 1 ELSE c.pc_flag END,
      c.private_only,
      CASE WHEN r.dot IS NOT NULL THEN 'sms_results' WHEN i.dot IS NOT NULL THEN 'inspections'
           WHEN c.dot IS NOT NULL THEN 'sms_census' END,
      coalesce(r.insp_total, i.total, ${known}),
      coalesce(r.driver_insp, i.driver_insp, ${known}),
      coalesce(r.driver_oos, i.driver_oos, ${known}),
      coalesce(r.vehicle_insp, i.vehicle_insp, ${known}),
      coalesce(r.vehicle_oos, i.vehicle_oos, ${known}),
      coalesce(i.hazmat_insp, ${known}),
      coalesce(i.hazmat_oos, ${known}),
      coalesce(k.total, ${knownAny}),
      coalesce(k.fatal, ${knownAny}),
      coalesce(k.injury, ${knownAny}),
      coalesce(k.towaway, ${knownAny})
    FROM (
      SELECT dot FROM scratch.census WHERE dot > @after
      UNION SELECT dot FROM scratch.results WHERE dot > @after
      UNION SELECT dot FROM scratch.insp WHERE dot > @after
      UNION SELECT dot FROM scratch.crash WHERE dot > @after
      ORDER BY dot LIMIT @limit
    ) d
    LEFT JOIN scratch.census c ON c.dot = d.dot
    LEFT JOIN scratch.results r ON r.dot = d.dot
    LEFT JOIN scratch.insp i ON i.dot = d.dot
    LEFT JOIN scratch.crash k ON k.dot = d.dot
    LEFT JOIN basics b ON b.dot_number = d.dot
    ORDER BY d.dot`)
  const last = ctx.db.prepare('SELECT max(dot_number) AS dot FROM safety_summary')
  const step = ctx.db.transaction((after: number) => stmt.run({ after, limit: 10_000 }).changes)
  let after = 0
  for (;;) {
    if (step(after) === 0) break
    after = (last.get() as { dot: number }).dot
    ctx.signal.throwIfAborted()
    await yieldToLoop()
  }
}

// ---------------------------------------------------------------------------------------------
// Build

async function buildSms(ctx: BuildContext): Promise<void> {
  ctx.db.exec(DDL)
  const scratchPath = `${ctx.db.name}-scratch`
  rmSync(scratchPath, { force: true })
  ctx.db.prepare('ATTACH DATABASE ? AS scratch').run(scratchPath)
  try {
    ctx.db.pragma('scratch.journal_mode = OFF')
    ctx.db.pragma('scratch.synchronous = OFF')
    ctx.db.exec(SCRATCH_DDL)
    const input = (id: string) => ctx.inputs.get(id)
    const need = (id: string) => {
      const p = input(id)
      if (!p) throw new Error(`SMS file ${id} is missing`)
      return p
    }

    await readCensus(ctx, need(SMS_FILES.census))
    const loaded: string[] = []
    for (const [id, passenger] of [
      [SMS_FILES.abPassProperty, false],
      [SMS_FILES.cPassProperty, false],
      [SMS_FILES.abPass, true],
      [SMS_FILES.cPass, true],
    ] as const) {
      const p = input(id)
      if (!p) {
        ctx.note(`sms.${id}.not_supplied`)
        continue
      }
      await readResults(ctx, id, p, passenger)
      loaded.push(id)
    }

    // the window ends at the latest event of the snapshot, never after the dataset's as-of date:
    // the files are FMCSA's 24-month extract, and a later date can only be an error (noted)
    const asOfDay = isoToDay(ctx.asOf)
    const counts = new InspectionCounts()
    const early = new InspectionLog()
    const maxInsp = await readInspections(ctx, need(SMS_FILES.inspection), counts, early, asOfDay)
    const reports = new Map<string, number>()
    const maxCrash = await readCrashes(ctx, need(SMS_FILES.crash), reports, asOfDay)
    const latest = Math.max(maxInsp, maxCrash)
    const end = latest >= 0 ? dayToIso(latest) : ctx.asOf
    const start = windowStart(end)
    await writeInspectionAggregates(ctx, counts, early, isoToDay(start))
    await writeCrashAggregates(ctx, reports, isoToDay(start), isoToDay(end))
    reports.clear()

    await mergeSummary(ctx)
    const meta = ctx.db.prepare('INSERT INTO sms_meta (key, value) VALUES (?, ?)')
    for (const [k, v] of Object.entries({
      window_start: start,
      window_end: end,
      run_date: ctx.asOf,
      results_files: loaded.join(','),
    }))
      meta.run(k, v)
  } finally {
    try {
      if (ctx.db.open) ctx.db.exec('DETACH DATABASE scratch')
    } catch {
      // the connection is closed by the caller on failure, which releases the file as well
    }
    if (existsSync(scratchPath)) rmSync(scratchPath, { force: true })
  }
}

export const smsDataset: DatasetSpec = {
  name: 'sms',
  title: 'SMS inputs and results (safety, CSA BASICs)',
  files: [
    {
      id: SMS_FILES.census,
      title: 'SMS Input - Motor Carrier Census Information',
      format: 'rows',
      kind: 'full',
      required: true,
    },
    {
      id: SMS_FILES.inspection,
      title: 'SMS Input - Inspection',
      format: 'rows',
      kind: 'full',
      required: true,
    },
    {
      id: SMS_FILES.crash,
      title: 'SMS Input - Crash',
      format: 'rows',
      kind: 'full',
      required: true,
    },
    {
      id: SMS_FILES.abPassProperty,
      title: 'SMS AB PassProperty',
      format: 'rows',
      kind: 'full',
      required: true,
    },
    {
      id: SMS_FILES.cPassProperty,
      title: 'SMS C PassProperty',
      format: 'rows',
      kind: 'full',
      required: false,
    },
    { id: SMS_FILES.abPass, title: 'SMS AB Pass', format: 'rows', kind: 'full', required: false },
    { id: SMS_FILES.cPass, title: 'SMS C Pass', format: 'rows', kind: 'full', required: false },
  ],
  schedule: 'monthly',
  minRowsRatio: 0.8,
  maxRejectRatio: 0.01,
  build: buildSms,
}
