/**
 * The seven CSA BASICs (SMS results files, docs/safety.md): codes, names, and the SMS results column
 * prefix of the five that FMCSA publishes. HazMat Compliance and Crash Indicator are in no public
 * file (FAST Act, Dec 2015).
 */

export interface BasicDef {
  /** stable API code */
  code: string
  /** display name */
  name: string
  /** SMS results column prefix (`UNSAFE_DRIV` → `UNSAFE_DRIV_MEASURE` …), null when not public */
  prefix: string | null
  /** column prefix in the dataset's `basics` table */
  col: string | null
  /** the `basics` table column of each field (`unsafe_driv_measure` …), null when not public */
  columns: Readonly<Record<BasicField, string>> | null
}

/** Per-BASIC columns of the `basics` table, in order. */
export const BASIC_FIELDS = [
  'iwv',
  'measure',
  'pct',
  'pct_text',
  'rd_alert',
  'alert',
  'ac',
] as const
export type BasicField = (typeof BASIC_FIELDS)[number]

const def = (code: string, name: string, prefix: string | null, col: string | null): BasicDef => ({
  code,
  name,
  prefix,
  col,
  columns: col
    ? (Object.fromEntries(BASIC_FIELDS.map((f) => [f, `${col}_${f}`])) as Record<
        BasicField,
        string
      >)
    : null,
})

export const BASICS: readonly BasicDef[] = [
  def('unsafe_driving', 'Unsafe Driving', 'UNSAFE_DRIV', 'unsafe_driv'),
  def('hos_compliance', 'HOS Compliance', 'HOS_DRIV', 'hos_driv'),
  def('driver_fitness', 'Driver Fitness', 'DRIV_FIT', 'driv_fit'),
  def(
    'controlled_substances_alcohol',
    'Controlled Substances/Alcohol',
    'CONTR_SUBST',
    'contr_subst',
  ),
  def('vehicle_maintenance', 'Vehicle Maintenance', 'VEH_MAINT', 'veh_maint'),
  def('hazmat_compliance', 'HazMat Compliance', null, null),
  def('crash_indicator', 'Crash Indicator', null, null),
]

/** The five BASICs with published columns, with their prefixes narrowed to strings. */
export const PUBLISHED_BASICS = BASICS.flatMap((b) =>
  b.prefix && b.col ? [{ ...b, prefix: b.prefix, col: b.col }] : [],
)

/** `<col>_<field>` for every published BASIC, in table order. */
export const BASIC_COLUMNS: readonly string[] = PUBLISHED_BASICS.flatMap((b) =>
  BASIC_FIELDS.map((f) => `${b.col}_${f}`),
)

/**
 * A published percentile: `64%` or `64` → 64; anything else (`Less than 5 vehicle inspections`,
 * `Not Public`) → null with the text kept as the reason; blank → both null.
 */
export function parsePercentile(v: string | undefined): {
  value: number | null
  text: string | null
} {
  const t = (v ?? '').trim().replace(/\s+/g, ' ')
  if (t === '') return { value: null, text: null }
  const m = /^(\d{1,3}(\.\d+)?)\s*%?$/.exec(t)
  if (m?.[1]) {
    const n = Number(m[1])
    if (n >= 0 && n <= 100) return { value: n, text: null }
  }
  return { value: null, text: t }
}
