/** Reads of the census dataset's `companies` and `census_dockets` tables. */
import type { ActiveDataset } from '../db/datasets.ts'
import * as N from '../ingest/normalize.ts'
import type { PriorRevokeJson, UsdotStatus } from './schema.ts'

/** A row of `companies` as the record assembly reads it. */
export interface CensusRow {
  dot_number: number
  legal_name: string | null
  dba_name: string | null
  status_code: string | null
  carrier_operation: string | null
  classdef: string | null
  add_date: string | null
  mcs150_date: string | null
  mcs150_mileage: number | null
  mcs150_mileage_year: number | null
  phone: string | null
  fax: string | null
  email: string | null
  phy_street: string | null
  phy_city: string | null
  phy_state: string | null
  phy_zip: string | null
  phy_country: string | null
  mail_street: string | null
  mail_city: string | null
  mail_state: string | null
  mail_zip: string | null
  mail_country: string | null
  mail_undeliverable_date: string | null
  undeliv_phy: string | null
  power_units: number | null
  truck_units: number | null
  bus_units: number | null
  total_drivers: number | null
  total_cdl: number | null
  fleet_owned: number | null
  fleet_leased: number | null
  hm_ind: string | null
  safety_rating: string | null
  safety_rating_date: string | null
  review_date: string | null
  review_type: string | null
  cargo: string | null
  passenger: number
  prior_revoke_flag: string | null
  prior_revoke_dot: number | null
  dockets: string | null
  /** COMPANY_OFFICER_1 and _2 as the census writes them */
  officer_1: string | null
  officer_2: string | null
}

/** The census columns a record reads, in the order of `findCensusRow`'s statement. */
export const CENSUS_ROW_COLUMNS = [
  'dot_number',
  'legal_name',
  'dba_name',
  'status_code',
  'carrier_operation',
  'classdef',
  'add_date',
  'mcs150_date',
  'mcs150_mileage',
  'mcs150_mileage_year',
  'phone',
  'fax',
  'email',
  'phy_street',
  'phy_city',
  'phy_state',
  'phy_zip',
  'phy_country',
  'mail_street',
  'mail_city',
  'mail_state',
  'mail_zip',
  'mail_country',
  'mail_undeliverable_date',
  'undeliv_phy',
  'power_units',
  'truck_units',
  'bus_units',
  'total_drivers',
  'total_cdl',
  'fleet_owned',
  'fleet_leased',
  'hm_ind',
  'safety_rating',
  'safety_rating_date',
  'review_date',
  'review_type',
  'cargo',
  'passenger',
  'prior_revoke_flag',
  'prior_revoke_dot',
  'dockets',
  'officer_1',
  'officer_2',
] as const satisfies readonly (keyof CensusRow)[]

const CENSUS_SELECT = `SELECT ${CENSUS_ROW_COLUMNS.join(', ')} FROM companies`

/**
 * A census row from a raw statement's values, in CENSUS_ROW_COLUMNS' order. better-sqlite3 builds a
 * row object key by key, making and internalising each of the 42 keys again for every row; an
 * object literal of one fixed shape is cheaper for every lookup. census.test.ts checks it against
 * the row object for every
 * fixture company.
 */
const censusRowOf = (v: readonly unknown[]): CensusRow => ({
  dot_number: v[0] as number,
  legal_name: v[1] as string | null,
  dba_name: v[2] as string | null,
  status_code: v[3] as string | null,
  carrier_operation: v[4] as string | null,
  classdef: v[5] as string | null,
  add_date: v[6] as string | null,
  mcs150_date: v[7] as string | null,
  mcs150_mileage: v[8] as number | null,
  mcs150_mileage_year: v[9] as number | null,
  phone: v[10] as string | null,
  fax: v[11] as string | null,
  email: v[12] as string | null,
  phy_street: v[13] as string | null,
  phy_city: v[14] as string | null,
  phy_state: v[15] as string | null,
  phy_zip: v[16] as string | null,
  phy_country: v[17] as string | null,
  mail_street: v[18] as string | null,
  mail_city: v[19] as string | null,
  mail_state: v[20] as string | null,
  mail_zip: v[21] as string | null,
  mail_country: v[22] as string | null,
  mail_undeliverable_date: v[23] as string | null,
  undeliv_phy: v[24] as string | null,
  power_units: v[25] as number | null,
  truck_units: v[26] as number | null,
  bus_units: v[27] as number | null,
  total_drivers: v[28] as number | null,
  total_cdl: v[29] as number | null,
  fleet_owned: v[30] as number | null,
  fleet_leased: v[31] as number | null,
  hm_ind: v[32] as string | null,
  safety_rating: v[33] as string | null,
  safety_rating_date: v[34] as string | null,
  review_date: v[35] as string | null,
  review_type: v[36] as string | null,
  cargo: v[37] as string | null,
  passenger: v[38] as number,
  prior_revoke_flag: v[39] as string | null,
  prior_revoke_dot: v[40] as number | null,
  dockets: v[41] as string | null,
  officer_1: v[42] as string | null,
  officer_2: v[43] as string | null,
})

/** Census STATUS_CODE → USDOT status: A active, I inactive, P pending; anything else null. */
export function usdotStatusOf(code: string | null | undefined): UsdotStatus | null {
  return code === 'A' ? 'active' : code === 'I' ? 'inactive' : code === 'P' ? 'pending' : null
}

/**
 * PRIOR_REVOKE_FLAG (Y/N) and PRIOR_REVOKE_DOT_NUMBER → the record's `prior_revoke`: null when
 * both are empty; a predecessor's USDOT without a flag still is a link (flag true).
 */
export function priorRevokeOf(
  c: Pick<CensusRow, 'prior_revoke_flag' | 'prior_revoke_dot'> | null,
): PriorRevokeJson | null {
  const f = N.flag(c?.prior_revoke_flag)
  const dot = c?.prior_revoke_dot ?? null
  if (f === null && dot === null) return null
  return { flag: f ?? true, dot_number: dot === null ? null : String(dot) }
}

const CENSUS_BY_DOT = `${CENSUS_SELECT} WHERE dot_number = ?`

export function findCensusRow(ds: ActiveDataset, dot: number): CensusRow | null {
  const values = ds.stmt(CENSUS_BY_DOT).raw().get(dot) as unknown[] | undefined
  return values ? censusRowOf(values) : null
}

/**
 * The legal names of several USDOT numbers, in one statement that reads no other column (a
 * number not in the census is absent from the map).
 */
export function censusLegalNames(
  ds: ActiveDataset,
  dots: readonly number[],
): Map<number, string | null> {
  if (dots.length === 1) {
    const dot = dots[0] as number
    const row = ds.stmt(LEGAL_NAME_BY_DOT).raw().get(dot) as [string | null] | undefined
    return new Map<number, string | null>(row ? [[dot, row[0]]] : [])
  }
  const rows = ds.stmt(LEGAL_NAMES).raw().all(JSON.stringify(dots)) as [number, string | null][]
  return new Map(rows)
}

const LEGAL_NAME_BY_DOT = 'SELECT legal_name FROM companies WHERE dot_number = ?'
const LEGAL_NAMES = `SELECT c.dot_number, c.legal_name FROM json_each(?) j
  CROSS JOIN companies c ON c.dot_number = j.value`

/** USDOT numbers whose census row lists this docket (MC/FF/MX + number). */
export function findCensusByDocket(ds: ActiveDataset, prefix: string, number: number): number[] {
  return (
    ds
      .stmt(
        'SELECT dot_number FROM census_dockets WHERE prefix = ? AND number = ? ORDER BY dot_number',
      )
      .all(prefix, number) as { dot_number: number }[]
  ).map((r) => r.dot_number)
}

/** USDOT numbers whose census phone (digits as stored) or e-mail (lower case) is one of `values`. */
export function findCensusByContact(
  ds: ActiveDataset,
  kind: 'phone' | 'email',
  values: readonly string[],
  limit: number,
): { total: number; dots: number[] } {
  if (values.length === 0) return { total: 0, dots: [] }
  const marks = values.map(() => '?').join(', ')
  const { total } = ds
    .stmt(`SELECT count(*) AS total FROM companies WHERE ${kind} IN (${marks})`)
    .get(...values) as { total: number }
  const dots = (
    ds
      .stmt(
        `SELECT dot_number FROM companies WHERE ${kind} IN (${marks}) ORDER BY dot_number LIMIT ?`,
      )
      .all(...values, limit) as { dot_number: number }[]
  ).map((r) => r.dot_number)
  return { total, dots }
}

/** The company's officers as the census writes them (COMPANY_OFFICER_1, _2), none when unknown. */
export function censusOfficers(ds: ActiveDataset, dot: number): string[] {
  const r = ds.stmt('SELECT officer_1, officer_2 FROM companies WHERE dot_number = ?').get(dot) as
    { officer_1: string | null; officer_2: string | null } | undefined
  return r ? officersOf(r) : []
}

/** The officers of a census row (the record reads them with the row: no second read). */
export const officersOf = (r: Pick<CensusRow, 'officer_1' | 'officer_2'>): string[] =>
  [r.officer_1, r.officer_2].filter((o): o is string => o !== null)
