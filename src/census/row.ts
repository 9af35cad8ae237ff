/**
 * The census row parser (runs in the parse workers): one census record → the `companies` values
 * with the link keys (link-keys.ts) and its dockets. The digest of its identity fields
 * (identity-digest.ts), the row's last column, is computed by the building thread
 * (`censusDigest`; census.ts says why).
 */
import * as N from '../ingest/normalize.ts'
import { CARGO, CARGO_LABELS, CENSUS_COLUMNS, col, LEASED, OWN } from './columns.ts'
import { IDENTITY_COLUMNS, identityDigest } from './identity-digest.ts'
import { addressLinkKey, officerLinkKey } from './link-keys.ts'

/** This module, for the parse workers (ingest/parallel.ts imports the parser from it). */
export const CENSUS_ROW_MODULE = import.meta.url

const sum = (f: string[], idx: readonly number[]): number | null => {
  let total = 0
  let any = false
  for (const i of idx) {
    const n = N.int(f[i])
    if (n !== null) {
      total += n
      any = true
    }
  }
  return any ? total : null
}

/** The `companies` columns, in the order of the values censusInsertRow returns. */
export const COMPANY_COLUMNS =
  `dot_number legal_name dba_name status_code carrier_operation classdef
add_date mcs150_date mcs150_mileage mcs150_mileage_year phone fax email phy_street phy_city phy_state
phy_zip phy_country mail_street mail_city mail_state mail_zip mail_country mail_undeliverable_date
undeliv_phy power_units truck_units bus_units total_drivers total_cdl fleet_owned fleet_leased hm_ind
safety_rating safety_rating_date review_date review_type cargo passenger prior_revoke_flag
prior_revoke_dot dockets cell_phone officer_1 officer_2 officer_1_key officer_2_key address_key
digest`.split(/\s+/)

/**
 * A parsed row ready to insert: companies values in COMPANY_COLUMNS order but the last (`digest`:
 * `censusDigest` gives it) and its dockets.
 */
export type CensusInsert = [
  values: (string | number | null)[],
  dockets: [string, number, string | null][],
]

/** Where the digest's values (IDENTITY_COLUMNS) are in the companies values. */
const DIGEST_AT = IDENTITY_COLUMNS.map((c) => {
  const i = COMPANY_COLUMNS.indexOf(c)
  if (i < 0) throw new Error(`no companies column ${c}`)
  return i
})

// column positions, looked up once (the row parser runs 4.5 million times a file)
const I = {
  dot: col('DOT_NUMBER'),
  status: col('STATUS_CODE'),
  legal: col('LEGAL_NAME'),
  dba: col('DBA_NAME'),
  operation: col('CARRIER_OPERATION'),
  classdef: col('CLASSDEF'),
  addDate: col('ADD_DATE'),
  mcs150Date: col('MCS150_DATE'),
  mileage: col('MCS150_MILEAGE'),
  mileageYear: col('MCS150_MILEAGE_YEAR'),
  phone: col('PHONE'),
  cell: col('CELL_PHONE'),
  fax: col('FAX'),
  email: col('EMAIL_ADDRESS'),
  phyStreet: col('PHY_STREET'),
  phyCity: col('PHY_CITY'),
  phyState: col('PHY_STATE'),
  phyZip: col('PHY_ZIP'),
  phyCountry: col('PHY_COUNTRY'),
  mailStreet: col('CARRIER_MAILING_STREET'),
  mailCity: col('CARRIER_MAILING_CITY'),
  mailState: col('CARRIER_MAILING_STATE'),
  mailZip: col('CARRIER_MAILING_ZIP'),
  mailCountry: col('CARRIER_MAILING_COUNTRY'),
  mailUndDate: col('CARRIER_MAILING_UND_DATE'),
  undelivPhy: col('UNDELIV_PHY'),
  powerUnits: col('POWER_UNITS'),
  truckUnits: col('TRUCK_UNITS'),
  busUnits: col('BUS_UNITS'),
  totalDrivers: col('TOTAL_DRIVERS'),
  totalCdl: col('TOTAL_CDL'),
  hm: col('HM_Ind'),
  rating: col('SAFETY_RATING'),
  ratingDate: col('SAFETY_RATING_DATE'),
  reviewDate: col('REVIEW_DATE'),
  reviewType: col('REVIEW_TYPE'),
  cargoOther: col('CRGO_CARGOOTHR_DESC'),
  passengers: col('CRGO_PASSENGERS'),
  priorFlag: col('PRIOR_REVOKE_FLAG'),
  priorDot: col('PRIOR_REVOKE_DOT_NUMBER'),
  officer1: col('COMPANY_OFFICER_1'),
  officer2: col('COMPANY_OFFICER_2'),
}
const DOCKET_COLS = [1, 2, 3].map((n) => ({
  prefix: col(`DOCKET${n}PREFIX`),
  number: col(`DOCKET${n}`),
  status: col(`DOCKET${n}_STATUS_CODE`),
}))
const CARGO_COLS = CARGO.map(([n, i]) => ({
  index: i,
  label: CARGO_LABELS[n.slice(5)] ?? n.slice(5),
}))

const upper = (v: string | null): string | null => (v === null ? null : v.toUpperCase())

/**
 * Worker-side parser: one census record → the companies values (COMPANY_COLUMNS order) and its
 * dockets, or a reason to reject it.
 */
export function censusInsertRow(f: string[]): CensusInsert | string {
  if (f.length !== CENSUS_COLUMNS.length)
    return `expected ${CENSUS_COLUMNS.length} fields, got ${f.length}`
  const dot = N.usdot(f[I.dot])
  if (dot === null) return `invalid DOT_NUMBER ${JSON.stringify(f[I.dot] ?? '')}`
  const dockets: [string, number, string | null][] = []
  for (const c of DOCKET_COLS) {
    const prefix = upper(N.text(f[c.prefix]))
    if (prefix !== 'MC' && prefix !== 'FF' && prefix !== 'MX') continue
    const d = N.docket(prefix + (f[c.number] ?? ''))
    if (d) dockets.push([d.prefix, d.number, N.text(f[c.status])])
  }
  const cargo: string[] = []
  for (const c of CARGO_COLS) if (N.flag(f[c.index]) === true) cargo.push(c.label)
  if (cargo.length) {
    const other = N.text(f[I.cargoOther])
    const at = cargo.indexOf('Other')
    if (other && at >= 0) cargo[at] = `Other: ${other}`
  }
  const rating = N.text(f[I.rating])?.toUpperCase().slice(0, 1) ?? null
  const busUnits = N.int(f[I.busUnits])
  const cell = N.phoneDigits(f[I.cell])
  const officer1 = N.text(f[I.officer1])
  const officer2 = N.text(f[I.officer2])
  const phone = N.phoneDigits(f[I.phone]) ?? cell
  const ps = N.text(f[I.phyStreet])
  const pc = N.text(f[I.phyCity])
  const pst = N.text(f[I.phyState])
  const values = [
    dot,
    N.text(f[I.legal]),
    N.text(f[I.dba]),
    upper(N.text(f[I.status])),
    upper(N.text(f[I.operation])),
    N.text(f[I.classdef]),
    N.date(f[I.addDate]),
    N.date(f[I.mcs150Date]),
    N.int(f[I.mileage]),
    N.int(f[I.mileageYear]),
    phone,
    N.phoneDigits(f[I.fax]),
    N.email(f[I.email]),
    ps,
    pc,
    pst,
    N.zip(f[I.phyZip]),
    upper(N.text(f[I.phyCountry])),
    N.text(f[I.mailStreet]),
    N.text(f[I.mailCity]),
    N.text(f[I.mailState]),
    N.zip(f[I.mailZip]),
    upper(N.text(f[I.mailCountry])),
    N.date(f[I.mailUndDate]),
    upper(N.text(f[I.undelivPhy])),
    N.int(f[I.powerUnits]),
    N.int(f[I.truckUnits]),
    busUnits,
    N.int(f[I.totalDrivers]),
    N.int(f[I.totalCdl]),
    sum(f, OWN),
    sum(f, LEASED),
    upper(N.text(f[I.hm])),
    rating === 'S' || rating === 'C' || rating === 'U' ? rating : null,
    N.date(f[I.ratingDate]),
    N.date(f[I.reviewDate]),
    N.text(f[I.reviewType]),
    cargo.length ? JSON.stringify(cargo) : null,
    N.flag(f[I.passengers]) === true || (busUnits ?? 0) > 0 ? 1 : 0,
    N.text(f[I.priorFlag]),
    N.usdot(f[I.priorDot]),
    dockets.length ? JSON.stringify(dockets.map(([p, n]) => `${p}${n}`)) : null,
    cell,
    officer1,
    officer2,
    officerLinkKey(officer1),
    officerLinkKey(officer2),
    addressLinkKey(ps, pc, pst),
  ]
  return [values, dockets]
}

/**
 * The digest of a companies row's identity and contact fields (`values` as censusInsertRow gives
 * them): the history compares census versions by it (identity/history.ts).
 */
export const censusDigest = (values: readonly (string | number | null)[]): number =>
  identityDigest(values, DIGEST_AT)
