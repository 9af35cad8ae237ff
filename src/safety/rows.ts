/**
 * Row parsers of the SMS and OOS files. They run in the parse worker (src/sync/parallel.ts), one
 * worker per file, so reading and normalising use one core while the build aggregates and inserts
 * on the other, and they return small arrays (cheap to pass between threads).
 *
 * The files come as FMCSA exports (upper case, the documented order) or as SODA exports (lower
 * case, sometimes another order: the SMS census moves `fax` last), so columns are found by name,
 * case-insensitively, from the header row: the first row each parser sees.
 */
import { isoToDay } from '../dates.ts'
import * as N from '../ingest/normalize.ts'
import { FormatError } from '../ingest/csv.ts'
import { PUBLISHED_BASICS, parsePercentile } from './basics.ts'

/** A parser's answer: a row, a reject reason, or null for the header row. */
export type RowResult<T> = T | string | null

const norm = (s: string) => s.trim().toLowerCase()

/**
 * A stateful row parser: the first call takes the header, finds every column by name (throwing
 * a FormatError before any row when a required one is missing), and returns null; later calls
 * check the field count and hand the fields and the column indexes to `parse`.
 */
export function byHeader<K extends string, T>(
  required: readonly K[],
  optional: readonly K[],
  parse: (f: string[], ix: Readonly<Record<K, number>>) => T | string,
): (fields: string[]) => RowResult<T> {
  let ix: Record<K, number> | null = null
  let width = 0
  return (fields) => {
    if (ix === null) {
      const names = fields.map(norm)
      const found = {} as Record<K, number>
      const missing: string[] = []
      for (const c of [...required, ...optional]) {
        found[c] = names.indexOf(norm(c))
        if (found[c] < 0 && required.includes(c)) missing.push(c)
      }
      if (missing.length)
        throw new FormatError(
          `header does not match the expected columns: missing ${missing.slice(0, 8).join(', ')}` +
            (missing.length > 8 ? ` and ${missing.length - 8} more` : ''),
        )
      ix = found
      width = fields.length
      return null
    }
    if (fields.length !== width) return `expected ${width} fields, got ${fields.length}`
    return parse(fields, ix)
  }
}

/** Date text → day number (-1 when unreadable), cached: an SMS file has few distinct dates. */
function dayParser(): (raw: string | undefined) => number {
  const cache = new Map<string, number>()
  return (raw) => {
    if (raw === undefined) return -1
    let d = cache.get(raw)
    if (d === undefined) {
      const iso = N.date(raw)
      d = iso === null ? -1 : isoToDay(iso)
      if (cache.size < 100_000) cache.set(raw, d)
    }
    return d
  }
}

const bit = (b: boolean | null): number | null => (b === null ? null : b ? 1 : 0)
/** `Number('')` is 0 and junk is NaN: both are "not above zero" */
const positive = (v: string | undefined) => v !== undefined && Number(v) > 0
const badDot = (name: string, v: string | undefined) => `invalid ${name} ${JSON.stringify(v ?? '')}`

// ---------------------------------------------------------------------------------------------
// SMS census

/** [USDOT, PRIVATE_ONLY, PC_FLAG] (flags 1/0/null) */
export type SmsCensusRow = [number, number | null, number | null]

export const makeSmsCensusRow = () =>
  byHeader(['DOT_NUMBER', 'PC_FLAG', 'PRIVATE_ONLY'], [], (f, ix): SmsCensusRow | string => {
    const dot = N.usdot(f[ix.DOT_NUMBER])
    if (dot === null) return badDot('DOT_NUMBER', f[ix.DOT_NUMBER])
    return [dot, bit(N.flag(f[ix.PRIVATE_ONLY])), bit(N.flag(f[ix.PC_FLAG]))]
  })

// ---------------------------------------------------------------------------------------------
// Inspections

export const F_DRIVER = 1
export const F_DRIVER_OOS = 2
export const F_VEHICLE = 4
export const F_VEHICLE_OOS = 8
export const F_HAZMAT = 16
export const F_HAZMAT_OOS = 32
/** not a bit of the stored flags: tells the build to note an unknown inspection level */
export const F_UNKNOWN_LEVEL = 64
/** driver inspections = levels 1/2/3/6, vehicle = 1/2/5/6 (FMCSA's inspection levels) */
const LEVEL_FLAGS = [
  0,
  F_DRIVER | F_VEHICLE,
  F_DRIVER | F_VEHICLE,
  F_DRIVER,
  0,
  F_VEHICLE,
  F_DRIVER | F_VEHICLE,
]

/** [USDOT, day number, flags] */
export type InspectionRow = [number, number, number]

export const makeInspectionRow = (day = dayParser()) =>
  byHeader(
    [
      'DOT_NUMBER',
      'INSP_DATE',
      'INSP_LEVEL_ID',
      'DRIVER_OOS_TOTAL',
      'VEHICLE_OOS_TOTAL',
      'HAZMAT_OOS_TOTAL',
      'HM_INSP',
    ],
    ['HAZMAT_PLACARD_REQ'],
    (f, ix): InspectionRow | string => {
      const dot = N.usdot(f[ix.DOT_NUMBER])
      if (dot === null) return badDot('DOT_Number', f[ix.DOT_NUMBER])
      const d = day(f[ix.INSP_DATE])
      if (d < 0) return `invalid Insp_Date ${JSON.stringify(f[ix.INSP_DATE] ?? '')}`
      const level = Number(f[ix.INSP_LEVEL_ID])
      const known = Number.isInteger(level) && level >= 1 && level <= 6
      let flags = known ? (LEVEL_FLAGS[level] ?? 0) : F_UNKNOWN_LEVEL
      if (flags & F_DRIVER && positive(f[ix.DRIVER_OOS_TOTAL])) flags |= F_DRIVER_OOS
      if (flags & F_VEHICLE && positive(f[ix.VEHICLE_OOS_TOTAL])) flags |= F_VEHICLE_OOS
      // FMCSA's hazmat selection is unpublished: an inspection is a hazmat one
      // when it examined hazardous materials (HM_Insp) or the load required placards
      if (N.flag(f[ix.HM_INSP]) === true || N.flag(f[ix.HAZMAT_PLACARD_REQ]) === true) {
        flags |= F_HAZMAT
        if (positive(f[ix.HAZMAT_OOS_TOTAL])) flags |= F_HAZMAT_OOS
      }
      return [dot, d, flags]
    },
  )

// ---------------------------------------------------------------------------------------------
// Crashes

export const SEV_TOW = 0
export const SEV_INJURY = 1
export const SEV_FATAL = 2

/**
 * [USDOT, day number, severity, report key (`dot|state|number`, '' when the report number is
 * blank), 1 when the row has no casualty and no tow-away flag]
 */
export type CrashRow = [number, number, number, string, number]

export const makeCrashRow = (day = dayParser()) =>
  byHeader(
    ['DOT_NUMBER', 'REPORT_DATE', 'REPORT_STATE', 'REPORT_NUMBER', 'FATALITIES', 'INJURIES'],
    ['TOW_AWAY'],
    (f, ix): CrashRow | string => {
      const dot = N.usdot(f[ix.DOT_NUMBER])
      if (dot === null) return badDot('DOT_Number', f[ix.DOT_NUMBER])
      const d = day(f[ix.REPORT_DATE])
      if (d < 0) return `invalid Report_Date ${JSON.stringify(f[ix.REPORT_DATE] ?? '')}`
      const sev = positive(f[ix.FATALITIES])
        ? SEV_FATAL
        : positive(f[ix.INJURIES])
          ? SEV_INJURY
          : SEV_TOW
      // the SMS crash file holds reportable crashes only (fatal, injury or tow-away): a row with
      // neither casualties nor the tow-away flag still counts as tow-away, and is noted
      const unflagged = sev === SEV_TOW && N.flag(f[ix.TOW_AWAY]) !== true ? 1 : 0
      const number = (f[ix.REPORT_NUMBER] ?? '').trim().toUpperCase()
      const state = (f[ix.REPORT_STATE] ?? '').trim().toUpperCase()
      return [dot, d, sev, number === '' ? '' : `${dot}|${state}|${number}`, unflagged]
    },
  )

// ---------------------------------------------------------------------------------------------
// SMS results

export const COUNT_COLUMNS = [
  'INSP_TOTAL',
  'DRIVER_INSP_TOTAL',
  'DRIVER_OOS_INSP_TOTAL',
  'VEHICLE_INSP_TOTAL',
  'VEHICLE_OOS_INSP_TOTAL',
] as const

/**
 * [USDOT, 5 counts (COUNT_COLUMNS), then per published BASIC the `basics` table fields in
 * BASIC_FIELDS order: iwv, measure, pct, pct_text, rd_alert, alert, ac]
 */
export type ResultsRow = (number | string | null)[]

export function makeResultsRow(passenger: boolean) {
  const basicCols = PUBLISHED_BASICS.flatMap((b) =>
    passenger
      ? [
          `${b.prefix}_INSP_W_VIOL`,
          `${b.prefix}_MEASURE`,
          `${b.prefix}_PCT`,
          `${b.prefix}_RD_ALERT`,
          `${b.prefix}_AC`,
          `${b.prefix}_BASIC_ALERT`,
        ]
      : [`${b.prefix}_INSP_W_VIOL`, `${b.prefix}_MEASURE`, `${b.prefix}_AC`],
  )
  return byHeader(
    ['DOT_NUMBER', ...COUNT_COLUMNS, ...basicCols],
    [],
    (f, ix): ResultsRow | string => {
      const at = (c: string) => f[(ix as Record<string, number>)[c] ?? -1]
      const dot = N.usdot(at('DOT_NUMBER'))
      if (dot === null) return badDot('DOT_NUMBER', at('DOT_NUMBER'))
      const out: ResultsRow = [dot, ...COUNT_COLUMNS.map((c) => N.int(at(c)))]
      for (const b of PUBLISHED_BASICS) {
        const p = b.prefix
        const pct = passenger ? parsePercentile(at(`${p}_PCT`)) : { value: null, text: null }
        out.push(
          N.int(at(`${p}_INSP_W_VIOL`)),
          N.decimal(at(`${p}_MEASURE`)),
          pct.value,
          pct.text,
          // flag columns of a carrier's results row: blank means "not set"
          passenger ? bit(N.flag(at(`${p}_RD_ALERT`), false)) : null,
          passenger ? bit(N.flag(at(`${p}_BASIC_ALERT`), false)) : null,
          bit(N.flag(at(`${p}_AC`), false)),
        )
      }
      return out
    },
  )
}

export const makePassPropertyRow = () => makeResultsRow(false)
export const makePassRow = () => makeResultsRow(true)

// ---------------------------------------------------------------------------------------------
// OOS orders

/**
 * [USDOT, OOS date, reason, STATUS (upper case), rescind date, 1 if OOS_DATE was unreadable,
 * 1 if RESCIND_DATE was unreadable]
 */
export type OosRow = [
  number,
  string | null,
  string | null,
  string | null,
  string | null,
  number,
  number,
]

export const makeOosOrderRow = () =>
  byHeader(
    ['DOT_NUMBER', 'OOS_DATE', 'OOS_REASON', 'STATUS', 'RESCIND_DATE'],
    [],
    (f, ix): OosRow | string => {
      const dot = N.usdot(f[ix.DOT_NUMBER])
      if (dot === null) return badDot('DOT_NUMBER', f[ix.DOT_NUMBER])
      const rawOos = N.text(f[ix.OOS_DATE])
      const oosDate = N.date(rawOos)
      const rawRescind = N.text(f[ix.RESCIND_DATE])
      const rescind = N.date(rawRescind)
      return [
        dot,
        oosDate,
        N.text(f[ix.OOS_REASON]),
        N.text(f[ix.STATUS])?.toUpperCase() ?? null,
        rescind,
        rawOos && !oosDate ? 1 : 0,
        rawRescind && !rescind ? 1 : 0,
      ]
    },
  )

// ---------------------------------------------------------------------------------------------
// Violations (SMS Input Violation `8mt8-2mdr`): only English-language-proficiency rows are kept

/** Viol_Code of 49 CFR 391.11(b)(2), with or without dots and parentheses, incl. `-Z` (Border Zone). */
export const isElpCode = (code: string | undefined): boolean =>
  code !== undefined && /^39111B2(-|$)/.test(code.toUpperCase().replace(/[\s.()]/g, ''))

/**
 * Driver-qualification families of 49 CFR 383 and 391 (docs/safety.md lists the codes and their
 * sources), matched on the CFR section of `Viol_Code` written in any form (`383.23(a)(2)`,
 * `383.23A2`, `38323A2-LCDLN`: the suffix after a dash is the state's or the Border Zone's).
 */
export const DQ_FAMILIES = [
  'no_valid_cdl',
  'disqualified_or_suspended',
  'wrong_class',
  'medical',
  'english_proficiency',
] as const
export type DqFamily = (typeof DQ_FAMILIES)[number]

/** Compact sections (upper case, no dots, spaces or parentheses) per family; `*` ends a prefix. */
const DQ_SECTIONS: Record<DqFamily, readonly string[]> = {
  // 383.23(a)(2) operating a CMV without a valid CDL; 391.11(b)(5) no valid operator's licence
  no_valid_cdl: ['38323A2', '39111B5'],
  // 383.51(a) driving while disqualified (suspended, revoked, cancelled); 391.15(a) disqualified
  disqualified_or_suspended: ['38351A', '39115A'],
  // 383.91(a) a CMV of a group the CDL does not cover
  wrong_class: ['38391A'],
  // 391.41 medical certificate, 391.43 the examination, 391.45 who must be examined
  medical: ['39141*', '39143*', '39145*'],
  // 391.11(b)(2) English-language proficiency
  english_proficiency: ['39111B2'],
}

/** The driver-qualification family of a `Viol_Code` (its index in DQ_FAMILIES), or -1. */
export function dqFamily(code: string | undefined): number {
  if (code === undefined) return -1
  const base = (
    code
      .toUpperCase()
      .replace(/[\s.()]/g, '')
      .split('-')[0] ?? ''
  ).trim()
  if (base === '') return -1
  for (let i = 0; i < DQ_FAMILIES.length; i++) {
    for (const s of DQ_SECTIONS[DQ_FAMILIES[i] as DqFamily])
      if (s.endsWith('*') ? base.startsWith(s.slice(0, -1)) : base === s) return i
  }
  return -1
}

export const VIOL_OTHER = 0
export const VIOL_ELP_OOS = 1
export const VIOL_ELP_NOT_OOS = 2
/** A driver-qualification violation that is not an ELP one (its family in the fifth field) */
export const VIOL_DQ = 3

/**
 * [USDOT, kind, day number, inspection id + unit, driver-qualification family or -1]: kind
 * VIOL_OTHER (day -1, key ''), VIOL_ELP_OOS, VIOL_ELP_NOT_OOS or VIOL_DQ. Every row is returned so
 * the build counts the whole file.
 */
export type ViolationRow = [number, number, number, string, number]

export const makeViolationRow = (day = dayParser()) =>
  byHeader(
    ['DOT_NUMBER', 'INSP_DATE', 'VIOL_CODE', 'OOS_INDICATOR'],
    ['UNIQUE_ID', 'VIOL_UNIT'],
    (f, ix): ViolationRow | string => {
      const dot = N.usdot(f[ix.DOT_NUMBER])
      if (dot === null) return badDot('DOT_Number', f[ix.DOT_NUMBER])
      const code = f[ix.VIOL_CODE]
      const family = dqFamily(code)
      if (family < 0) return [dot, VIOL_OTHER, -1, '', -1]
      const d = day(f[ix.INSP_DATE])
      if (d < 0) return `invalid Insp_Date ${JSON.stringify(f[ix.INSP_DATE] ?? '')}`
      const key = `${f[ix.UNIQUE_ID] ?? ''}|${f[ix.VIOL_UNIT] ?? ''}`
      if (!isElpCode(code)) return [dot, VIOL_DQ, d, key, family]
      const oos = N.flag(f[ix.OOS_INDICATOR]) === true
      return [dot, oos ? VIOL_ELP_OOS : VIOL_ELP_NOT_OOS, d, key, family]
    },
  )

// ---------------------------------------------------------------------------------------------
// Worker entry points: one parser instance per worker (a worker reads one file)

export const smsCensusRow = makeSmsCensusRow()
export const inspectionRow = makeInspectionRow()
export const crashRow = makeCrashRow()
export const passPropertyRow = makePassPropertyRow()
export const passRow = makePassRow()
export const oosOrderRow = makeOosOrderRow()
export const violationRow = makeViolationRow()

/** Each worker entry point's factory, for reading a file in this thread. */
export const ROW_PARSERS = {
  smsCensusRow: makeSmsCensusRow,
  inspectionRow: () => makeInspectionRow(),
  crashRow: () => makeCrashRow(),
  passPropertyRow: makePassPropertyRow,
  passRow: makePassRow,
  oosOrderRow: makeOosOrderRow,
  violationRow: () => makeViolationRow(),
} as const
export type RowParserName = keyof typeof ROW_PARSERS
