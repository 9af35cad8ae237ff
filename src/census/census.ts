/**
 * Company Census File `az4n-8mr2` (FMCSA's census data dictionary): one row per USDOT, 147 columns.
 * Builds the `companies` table (identity, contact, fleet, rating), census dockets, the FTS5 name
 * index and shared-contact counts.
 */
import type { ActiveDataset } from '../db/datasets.ts'
import { buildParseOptions, parseInWorker } from '../ingest/parallel.ts'
import * as N from '../ingest/normalize.ts'
import { startSearchBuild } from './search-build.ts'
import { PairWordSample } from './search-index.ts'
import type { BuildContext, DatasetSpec } from '../ingest/types.ts'
import type { PriorRevokeJson, UsdotStatus } from './schema.ts'
import { identityDigest, type IdentityValues } from './identity-digest.ts'

export const CENSUS_FILE_ID = 'az4n-8mr2'

export const CENSUS_COLUMNS =
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

const col = (name: string): number => {
  const i = CENSUS_COLUMNS.indexOf(name)
  if (i < 0) throw new Error(`unknown census column ${name}`)
  return i
}

/** Power-unit kinds of the OWN/TRM/TRP fleet columns (trailers are not power units). */
export const POWER_UNIT_KINDS = [
  'TRUCK',
  'TRACT',
  'COACH',
  'SCHOOL_1_8',
  'SCHOOL_9_15',
  'SCHOOL_16',
  'BUS_16',
  'VAN_1_8',
  'VAN_9_15',
  'LIMO_1_8',
  'LIMO_9_15',
  'LIMO_16',
] as const
const OWN = POWER_UNIT_KINDS.map((k) => col(`OWN${k}`))
const LEASED = POWER_UNIT_KINDS.flatMap((k) => [col(`TRM${k}`), col(`TRP${k}`)])
const CARGO = CENSUS_COLUMNS.map((n, i) => [n, i] as const).filter(
  ([n]) => n.startsWith('CRGO_') && n !== 'CRGO_CARGOOTHR_DESC',
)
const CARGO_LABELS: Record<string, string> = {
  GENFREIGHT: 'General Freight',
  HOUSEHOLD: 'Household Goods',
  METALSHEET: 'Metal: sheets, coils, rolls',
  MOTOVEH: 'Motor Vehicles',
  DRIVETOW: 'Drive/Tow away',
  LOGPOLE: 'Logs, Poles, Beams, Lumber',
  BLDGMAT: 'Building Materials',
  MOBILEHOME: 'Mobile Homes',
  MACHLRG: 'Machinery, Large Objects',
  PRODUCE: 'Fresh Produce',
  LIQGAS: 'Liquids/Gases',
  INTERMODAL: 'Intermodal Cont.',
  PASSENGERS: 'Passengers',
  OILFIELD: 'Oilfield Equipment',
  LIVESTOCK: 'Livestock',
  GRAINFEED: 'Grain, Feed, Hay',
  COALCOKE: 'Coal/Coke',
  MEAT: 'Meat',
  GARBAGE: 'Garbage/Refuse',
  USMAIL: 'US Mail',
  CHEM: 'Chemicals',
  DRYBULK: 'Commodities Dry Bulk',
  COLDFOOD: 'Refrigerated Food',
  BEVERAGES: 'Beverages',
  PAPERPROD: 'Paper Products',
  UTILITY: 'Utilities',
  FARMSUPP: 'Agricultural/Farm Supplies',
  CONSTRUCT: 'Construction',
  WATERWELL: 'Water Well',
  CARGOOTHR: 'Other',
}

const DDL = `
CREATE TABLE companies (
  dot_number INTEGER PRIMARY KEY,
  legal_name TEXT, dba_name TEXT, status_code TEXT, carrier_operation TEXT, classdef TEXT,
  add_date TEXT, mcs150_date TEXT, mcs150_mileage INTEGER, mcs150_mileage_year INTEGER,
  phone TEXT, fax TEXT, email TEXT,
  phy_street TEXT, phy_city TEXT, phy_state TEXT, phy_zip TEXT, phy_country TEXT,
  mail_street TEXT, mail_city TEXT, mail_state TEXT, mail_zip TEXT, mail_country TEXT,
  mail_undeliverable_date TEXT, undeliv_phy TEXT,
  power_units INTEGER, truck_units INTEGER, bus_units INTEGER, total_drivers INTEGER, total_cdl INTEGER,
  fleet_owned INTEGER, fleet_leased INTEGER, hm_ind TEXT,
  safety_rating TEXT, safety_rating_date TEXT, review_date TEXT, review_type TEXT,
  cargo TEXT, passenger INTEGER, prior_revoke_flag TEXT, prior_revoke_dot INTEGER,
  dockets TEXT, cell_phone TEXT, officer_1 TEXT, officer_2 TEXT
) STRICT;
CREATE TABLE identity_digests (dot_number INTEGER PRIMARY KEY, digest INTEGER NOT NULL) STRICT;
CREATE TABLE census_dockets (
  prefix TEXT NOT NULL, number INTEGER NOT NULL, dot_number INTEGER NOT NULL, status_code TEXT,
  PRIMARY KEY (prefix, number, dot_number)
) STRICT, WITHOUT ROWID;
`

// the name-search index (companies_fts_1..3, search_terms, search_prefixes) is built by search-index.ts
const POST_DDL = `
CREATE INDEX companies_phone ON companies (phone) WHERE phone IS NOT NULL;
CREATE INDEX companies_email ON companies (email) WHERE email IS NOT NULL;
CREATE TABLE shared_contacts (kind TEXT NOT NULL, value TEXT NOT NULL, companies INTEGER NOT NULL,
  PRIMARY KEY (kind, value)) STRICT, WITHOUT ROWID;
INSERT INTO shared_contacts SELECT 'phone', phone, count(*) FROM companies WHERE phone IS NOT NULL GROUP BY phone HAVING count(*) > 1;
INSERT INTO shared_contacts SELECT 'email', email, count(*) FROM companies WHERE email IS NOT NULL GROUP BY email HAVING count(*) > 1;
INSERT INTO shared_contacts SELECT 'address', upper(phy_street) || '|' || upper(coalesce(phy_city,'')) || '|' || coalesce(phy_state,''), count(*)
  FROM companies WHERE phy_street IS NOT NULL GROUP BY 2 HAVING count(*) > 1;
`
// the phone and e-mail indexes come first: the two GROUP BYs then walk them instead of sorting

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
prior_revoke_dot dockets cell_phone officer_1 officer_2`.split(/\s+/)

/**
 * A parsed row ready to insert: companies values in COMPANY_COLUMNS order, its dockets, and the
 * digest of its identity and contact fields (identity/fields.ts compares versions by it).
 */
export type CensusInsert = [
  values: (string | number | null)[],
  dockets: [string, number, string | null][],
  digest: number,
]

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
  const identity: IdentityValues = [
    N.text(f[I.legal]),
    N.text(f[I.dba]),
    N.phoneDigits(f[I.phone]) ?? cell,
    cell,
    N.phoneDigits(f[I.fax]),
    N.email(f[I.email]),
    N.text(f[I.phyStreet]),
    N.text(f[I.phyCity]),
    N.text(f[I.phyState]),
    N.zip(f[I.phyZip]),
    upper(N.text(f[I.phyCountry])),
    N.text(f[I.mailStreet]),
    N.text(f[I.mailCity]),
    N.text(f[I.mailState]),
    N.zip(f[I.mailZip]),
    upper(N.text(f[I.mailCountry])),
    officer1,
    officer2,
    upper(N.text(f[I.status])),
    N.date(f[I.mcs150Date]),
  ]
  const [legal, dba, phone, , fax, email, ps, pc, pst, pz, pco, ms, mc, mst, mz, mco] = identity
  const values = [
    dot,
    legal,
    dba,
    identity[18],
    upper(N.text(f[I.operation])),
    N.text(f[I.classdef]),
    N.date(f[I.addDate]),
    identity[19],
    N.int(f[I.mileage]),
    N.int(f[I.mileageYear]),
    phone,
    fax,
    email,
    ps,
    pc,
    pst,
    pz,
    pco,
    ms,
    mc,
    mst,
    mz,
    mco,
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
  ]
  return [values, dockets, identityDigest(identity)]
}

/** The distinct USDOTs seen, a bit each (USDOTs are at most 99,999,999: 12.5 MB at most). */
class DistinctDots {
  private bits = new Uint8Array(1 << 20)
  size = 0

  /** adds a USDOT; false when it was there already */
  add(dot: number): boolean {
    const i = dot >>> 3
    if (i >= this.bits.length) {
      const grown = new Uint8Array(Math.max(i + 1, this.bits.length * 2))
      grown.set(this.bits)
      this.bits = grown
    }
    const bit = 1 << (dot & 7)
    const byte = this.bits[i] as number
    if ((byte & bit) !== 0) return false
    this.bits[i] = byte | bit
    this.size++
    return true
  }
}

async function buildCensus(ctx: BuildContext): Promise<void> {
  ctx.db.exec(DDL)
  const path = ctx.inputs.get(CENSUS_FILE_ID)
  if (!path) throw new Error(`census file ${CENSUS_FILE_ID} is missing`)
  const keys = COMPANY_COLUMNS
  // positional binding: several times cheaper than 42 named parameters per row
  const insert = ctx.db.prepare(
    `INSERT OR REPLACE INTO companies (${keys.join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`,
  )
  const insertDigest = ctx.db.prepare(
    'INSERT OR REPLACE INTO identity_digests (dot_number, digest) VALUES (?, ?)',
  )
  const insertDocket = ctx.db.prepare(
    'INSERT OR IGNORE INTO census_dockets (prefix, number, dot_number, status_code) VALUES (?, ?, ?, ?)',
  )
  const parsed = parseInWorker<CensusInsert>(
    path,
    { header: 'header', columns: CENSUS_COLUMNS },
    { module: import.meta.url, exportName: 'censusInsertRow' },
    (line, reason) => ctx.reject(CENSUS_FILE_ID, line, reason),
    buildParseOptions(ctx),
  )
  // the companies and the pair words' sample are counted as the rows go in (a duplicate USDOT
  // replaces its row): counting and sampling the table afterwards was one thread's work with
  // the other core idle; the sample's tokenizing now runs in the building thread during the
  // load, where it waits on the parse worker
  const dots = new DistinctDots()
  const sample = new PairWordSample()
  const legalAt = keys.indexOf('legal_name')
  const dbaAt = keys.indexOf('dba_name')
  await ctx.insertChunks(CENSUS_FILE_ID, parsed, ({ row: [values, dockets, digest] }) => {
    const dot = values[0] as number
    insert.run(values)
    insertDigest.run(dot, digest)
    for (const [p, n, s] of dockets) insertDocket.run(p, n, dot, s)
    const first = dots.add(dot)
    sample.add(dot, values[legalAt] as string | null, values[dbaAt] as string | null, first)
    ctx.accept(CENSUS_FILE_ID)
  })
  const n = dots.size
  const dupes = ctx.stats.rows - n
  if (dupes > 0) ctx.note('census.duplicate_dot_replaced', dupes)
  ctx.stats.rows -= dupes
  // the index and GROUP BY sorts spill to temporary files beyond the page cache: a smaller cache
  // for them keeps the build's resident memory down (the inserts wanted the big one)
  ctx.db.pragma('cache_size = -16384')
  ctx.db.pragma('shrink_memory')
  // the search tiers build in other threads meanwhile (at scale): search-build.ts
  const search = await startSearchBuild(ctx.db, {
    path: ctx.path,
    companies: n,
    words: ctx.timed('fts.words', () => sample.words(ctx.db)),
    signal: ctx.signal,
    phase: (name, seconds) => ctx.phase(name, seconds),
  })
  try {
    ctx.timed('contacts', () => ctx.db.exec(POST_DDL))
  } catch (err) {
    await search.abort()
    throw err
  }
  await search.finish()
}

export const censusDataset: DatasetSpec = {
  name: 'census',
  title: 'Company Census File',
  files: [
    {
      id: CENSUS_FILE_ID,
      title: 'Company Census File',
      format: 'rows',
      kind: 'full',
      required: true,
    },
  ],
  schedule: 'daily',
  // file format 2: contentless search tiers with filter tags and summary columns;
  // 3: word-pair tags and search_pair_words (census/search-index.ts);
  // 4: `sc<state>` tags of carriers, search_tag_kinds, first-word tags after leading punctuation;
  // 5: cell_phone, officer_1, officer_2 and identity_digests (the history's comparison)
  format: 5,
  minRowsRatio: 0.9,
  maxRejectRatio: 0.01,
  build: buildCensus,
}

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
