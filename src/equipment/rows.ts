/**
 * Row parsers of the files the equipment dataset reads: the SMS
 * inspection and crash files (their unit columns) and the MCMIS Vehicle Inspection File and
 * Inspections Per Unit. They run in a parse worker (one per file) and return small arrays.
 *
 * Columns are found by name, case-insensitively, from the header row. A file without one of the
 * required columns (a VIN column renamed or dropped) throws a FormatError before any row, so the
 * build fails and the previous version stays active, like any other malformed file.
 */
import { isoToDay } from '../dates.ts'
import { FormatError } from '../ingest/csv.ts'
import * as N from '../ingest/normalize.ts'
import { isPlaceholderVin, normalizePlate, normalizeState, normalizeVin } from './vin.ts'

type RowResult<T> = T | string | null

const lower = (s: string) => s.trim().toLowerCase()

/** Reads the header first (throwing when a required column is missing), then parses each row. */
function byHeader<K extends string, T>(
  required: readonly K[],
  parse: (f: string[], ix: Readonly<Record<K, number>>) => T | string,
): (fields: string[]) => RowResult<T> {
  let ix: Record<K, number> | null = null
  let width = 0
  return (fields) => {
    if (ix === null) {
      const names = fields.map(lower)
      const found = {} as Record<K, number>
      const missing = required.filter((c) => (found[c] = names.indexOf(lower(c))) < 0)
      if (missing.length)
        throw new FormatError(
          `header does not match the expected columns: missing ${missing.join(', ')}`,
        )
      ix = found
      width = fields.length
      return null
    }
    if (fields.length !== width) return `expected ${width} fields, got ${fields.length}`
    return parse(fields, ix)
  }
}

function dayParser(): (raw: string | undefined) => number {
  const cache = new Map<string, number>()
  return (raw) => {
    if (raw === undefined) return -1
    // the MCMIS files' CHANGE_DATE-like `YYYYMMDD HHMM`: the date part only
    const key = raw.length > 8 && /^\d{8}\s/.test(raw) ? raw.slice(0, 8) : raw
    let d = cache.get(key)
    if (d === undefined) {
      const iso = N.date(key)
      d = iso === null ? -1 : isoToDay(iso)
      if (cache.size < 100_000) cache.set(key, d)
    }
    return d
  }
}

/**
 * A unit as seen: [VIN (normalised, '' when blank), `STATE|PLATE` or '', type, make]. The plate
 * comes keyed by its state as one string, the equipment build's sort key for plates (a state is
 * always two letters, so it sorts as state, then plate).
 */
export type UnitFields = [string, string, string | null, string | null]

function unit(
  vin: string | undefined,
  plate: string | undefined,
  state: string | undefined,
  type: string | undefined,
  make: string | undefined,
): UnitFields | null {
  // a placeholder (UNKNOWN, NONE, 1111…) identifies nothing: the unit keeps only its plate
  const raw = normalizeVin(vin)
  const v = raw === '' || isPlaceholderVin(raw) ? '' : raw
  const st = normalizeState(state)
  const p = st === null ? null : normalizePlate(plate)
  if (v === '' && p === null) return null
  return [v, p === null || st === null ? '' : `${st}|${p}`, N.text(type), N.text(make)]
}

const badDot = (v: string | undefined) => `invalid DOT_Number ${JSON.stringify(v ?? '')}`
const badId = (v: string | undefined) => `invalid inspection id ${JSON.stringify(v ?? '')}`
const inspectionId = (v: string | undefined): number | null => {
  const t = (v ?? '').trim()
  return /^\d{1,15}$/.test(t) ? Number(t) : null
}

/** SMS inspection `rbkj-cgst`: [Unique_ID, USDOT, day, Report_State, units (0–2)] */
export type SmsUnitsRow = [number, number, number, string, UnitFields[]]

export const makeSmsUnitsRow = (day = dayParser()) =>
  byHeader(
    [
      'UNIQUE_ID',
      'DOT_NUMBER',
      'INSP_DATE',
      'REPORT_STATE',
      'UNIT_TYPE_DESC',
      'UNIT_MAKE',
      'UNIT_LICENSE',
      'UNIT_LICENSE_STATE',
      'VIN',
      'UNIT_TYPE_DESC2',
      'UNIT_MAKE2',
      'UNIT_LICENSE2',
      'UNIT_LICENSE_STATE2',
      'VIN2',
    ],
    (f, ix): SmsUnitsRow | string => {
      const id = inspectionId(f[ix.UNIQUE_ID])
      if (id === null) return badId(f[ix.UNIQUE_ID])
      const dot = N.usdot(f[ix.DOT_NUMBER])
      if (dot === null) return badDot(f[ix.DOT_NUMBER])
      const d = day(f[ix.INSP_DATE])
      if (d < 0) return `invalid Insp_Date ${JSON.stringify(f[ix.INSP_DATE] ?? '')}`
      const units: UnitFields[] = []
      const u1 = unit(
        f[ix.VIN],
        f[ix.UNIT_LICENSE],
        f[ix.UNIT_LICENSE_STATE],
        f[ix.UNIT_TYPE_DESC],
        f[ix.UNIT_MAKE],
      )
      if (u1) units.push(u1)
      const u2 = unit(
        f[ix.VIN2],
        f[ix.UNIT_LICENSE2],
        f[ix.UNIT_LICENSE_STATE2],
        f[ix.UNIT_TYPE_DESC2],
        f[ix.UNIT_MAKE2],
      )
      if (u2) units.push(u2)
      return [id, dot, d, normalizeState(f[ix.REPORT_STATE]) ?? '', units]
    },
  )

/** SMS crash `4wxs-vbns`: [USDOT, day, report key, unit or null] */
export type CrashUnitRow = [number, number, string, UnitFields | null]

export const makeCrashUnitRow = (day = dayParser()) =>
  byHeader(
    [
      'REPORT_NUMBER',
      'REPORT_STATE',
      'DOT_NUMBER',
      'REPORT_DATE',
      'VEHICLE_ID_NUMBER',
      'VEHICLE_LICENSE_NUMBER',
      'VEHICLE_LICENSE_STATE',
    ],
    (f, ix): CrashUnitRow | string => {
      const dot = N.usdot(f[ix.DOT_NUMBER])
      if (dot === null) return badDot(f[ix.DOT_NUMBER])
      const d = day(f[ix.REPORT_DATE])
      if (d < 0) return `invalid Report_Date ${JSON.stringify(f[ix.REPORT_DATE] ?? '')}`
      const number = (f[ix.REPORT_NUMBER] ?? '').trim().toUpperCase()
      const state = (f[ix.REPORT_STATE] ?? '').trim().toUpperCase()
      const u = unit(
        f[ix.VEHICLE_ID_NUMBER],
        f[ix.VEHICLE_LICENSE_NUMBER],
        f[ix.VEHICLE_LICENSE_STATE],
        undefined,
        undefined,
      )
      return [dot, d, `${state}|${number}`, u]
    },
  )

/** Vehicle Inspection File `fx4q-ay7w`: [INSPECTION_ID, USDOT, day, REPORT_STATE, officer-written name] */
export type McmisInspectionRow = [number, number, number, string, string | null]

export const makeMcmisInspectionRow = (day = dayParser()) =>
  byHeader(
    ['INSPECTION_ID', 'DOT_NUMBER', 'INSP_DATE', 'REPORT_STATE', 'INSP_CARRIER_NAME'],
    (f, ix): McmisInspectionRow | string => {
      const id = inspectionId(f[ix.INSPECTION_ID])
      if (id === null) return badId(f[ix.INSPECTION_ID])
      const dot = N.usdot(f[ix.DOT_NUMBER])
      if (dot === null) return badDot(f[ix.DOT_NUMBER])
      const d = day(f[ix.INSP_DATE])
      if (d < 0) return `invalid INSP_DATE ${JSON.stringify(f[ix.INSP_DATE] ?? '')}`
      const name = N.text(f[ix.INSP_CARRIER_NAME])?.toUpperCase() ?? null
      return [id, dot, d, normalizeState(f[ix.REPORT_STATE]) ?? '', name]
    },
  )

/** Inspections Per Unit `wt8s-2hbx`: [INSPECTION_ID, unit] (null when it has no VIN and no plate) */
export type McmisUnitRow = [number, UnitFields | null]

export const makeMcmisUnitRow = () =>
  byHeader(
    [
      'INSPECTION_ID',
      'INSP_UNIT_MAKE',
      'INSP_UNIT_LICENSE',
      'INSP_UNIT_LICENSE_STATE',
      'INSP_UNIT_VEHICLE_ID_NUMBER',
    ],
    (f, ix): McmisUnitRow | string => {
      const id = inspectionId(f[ix.INSPECTION_ID])
      if (id === null) return badId(f[ix.INSPECTION_ID])
      // INSP_UNIT_TYPE_ID is a code, not a description: the type comes from the SMS file
      const u = unit(
        f[ix.INSP_UNIT_VEHICLE_ID_NUMBER],
        f[ix.INSP_UNIT_LICENSE],
        f[ix.INSP_UNIT_LICENSE_STATE],
        undefined,
        f[ix.INSP_UNIT_MAKE],
      )
      return [id, u]
    },
  )

// Worker entry points: one parser instance per worker (a worker reads one file)
export const smsUnitsRow = makeSmsUnitsRow()
export const crashUnitRow = makeCrashUnitRow()
export const mcmisInspectionRow = makeMcmisInspectionRow()
export const mcmisUnitRow = makeMcmisUnitRow()

export const EQUIPMENT_PARSERS = {
  smsUnitsRow: () => makeSmsUnitsRow(),
  crashUnitRow: () => makeCrashUnitRow(),
  mcmisInspectionRow: () => makeMcmisInspectionRow(),
  mcmisUnitRow: makeMcmisUnitRow,
} as const
export type EquipmentParser = keyof typeof EQUIPMENT_PARSERS
