/**
 * The columns the record assembly reads from each licensing table, in one place: the per-table
 * queries of lookup.ts and the per-docket documents of `docket_rows` (tables.ts) list them in the
 * same order, so a document's arrays map back to the very rows the queries return.
 */
import type { Docket } from '../ingest/normalize.ts'

const CARRIER_COLUMNS = [
  'min_cov',
  'cargo_req',
  'bond_req',
  'bipd_file',
  'cargo_file',
  'bond_file',
] as const
const NAME_ADDRESS_COLUMNS = [
  'dba_name',
  'legal_name',
  'bus_street',
  'bus_city',
  'bus_state',
  'bus_country',
  'bus_zip',
  'bus_phone',
  'mail_street',
  'mail_city',
  'mail_state',
  'mail_country',
  'mail_zip',
] as const

/** Columns read per table after the docket's own `prefix, number` (which every row starts with). */
export const READ_COLUMNS = {
  /** legacy `carriers`: one row per docket */
  legacyCarrier: [
    'dot_number',
    'common_stat',
    'contract_stat',
    'broker_stat',
    'common_app_pend',
    'contract_app_pend',
    'broker_app_pend',
    'common_rev_pend',
    'contract_rev_pend',
    'broker_rev_pend',
    'property_chk',
    'passenger_chk',
    'hhg_chk',
    ...CARRIER_COLUMNS,
    'undeliverable_mail',
    ...NAME_ADDRESS_COLUMNS,
  ],
  /** motus `authorities`: one row per docket and authority */
  motusAuth: [
    'dot_number',
    'authority',
    'auth_type',
    'status',
    ...CARRIER_COLUMNS,
    'mail_undeliverable',
    ...NAME_ADDRESS_COLUMNS,
  ],
  policies: [
    'form',
    'ins_type',
    'class_code',
    'insurer',
    'policy_no',
    'underlying',
    'max_cov',
    'effective_date',
    'cancel_date',
  ],
  hist: [
    'form',
    'ins_type',
    'class_code',
    'insurer',
    'policy_no',
    'min_cov',
    'underlying',
    'max_cov',
    'effective_date',
    'cancel_date',
    'method',
  ],
  events: [
    'authority',
    'orig_event',
    'orig_action',
    'orig_date',
    'disp_event',
    'disp_action',
    'disp_date',
  ],
  revs: ['authority', 'serve_date', 'type_desc', 'effective_date'],
} as const

/** The shared table each column list is read from (the authority table differs per dataset). */
export const READ_TABLES = {
  policies: 'policies',
  hist: 'ins_hist',
  events: 'auth_events',
  revs: 'revocations',
} as const

/**
 * Order of one docket's rows in a table: the order a probe of the (prefix, number, dot_number)
 * index returns them, which the per-table queries rely on. Motus authority rows: file order.
 */
export const DOCKET_ROW_ORDER = 'dot_number, rowid'

/** Prefix codes of a docket's integer id (`docket_rows.id`): prefix code × 10⁸ + number. */
const PREFIX_CODES = { MC: 1, FF: 2, MX: 3 } as const
const ID_BASE = 100_000_000
/** The docket prefixes in the order of their ids' codes. */
export const DOCKET_PREFIXES = (Object.keys(PREFIX_CODES) as Docket['prefix'][]).sort(
  (a, b) => PREFIX_CODES[a] - PREFIX_CODES[b],
)

/** `docket_rows.id` of a docket. */
export const docketId = (d: Docket): number => PREFIX_CODES[d.prefix] * ID_BASE + d.number

/** The same id as a SQL expression over `prefix` and `number` columns of `alias`. */
export const docketIdSql = (alias: string): string =>
  `(CASE ${alias}.prefix ${Object.entries(PREFIX_CODES)
    .map(([p, c]) => `WHEN '${p}' THEN ${c}`)
    .join(' ')} END) * ${ID_BASE} + ${alias}.number`
