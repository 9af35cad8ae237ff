/** The safety block from the SMS and OOS-order datasets (docs/safety.md). */
import type { DataView, ActiveDataset } from '../db/datasets.ts'
import type { BasicJson, SafetyJson } from './schema.ts'
import { getRow } from '../db/row-shape.ts'
import { BASICS, BASIC_COLUMNS, type BasicDef } from './basics.ts'
import { nationalAverages, type NationalAverages } from './national-averages.ts'
import { findOosOrders, isOosOrderActive } from './oos.ts'
import { driverQualification, elpOosViolations } from './violations.ts'

export interface OosOrder {
  active: boolean
  date: string | null
  reason: string | null
  /** sugg. extras: the order's STATUS as filed and its rescind date */
  status: string | null
  rescindDate: string | null
}

export type CountsSource = 'sms_results' | 'inspections' | 'sms_census'

export interface SafetyFacts {
  /** every SafetyJson key except the census rating fields, which the assembly fills */
  safety: Omit<
    SafetyJson,
    | 'safety_rating'
    | 'safety_rating_code'
    | 'safety_rating_date'
    | 'safety_review_date'
    | 'safety_review_type'
  >
  /** the most relevant OOS order (the active one if any, else the latest); null when none */
  oos: OosOrder | null
  /** every OOS order of the USDOT, newest first */
  oosOrders: OosOrder[]
  /** SMS census flags */
  privateOnly: boolean | null
  passengerCarrier: boolean | null
  /** where the inspection counts came from; null when the USDOT is not in the SMS snapshot */
  countsSource: CountsSource | null
  asOf: { sms: string | null; oos: string | null; violations: string | null }
}

export interface SafetyOptions {
  /** overrides of the published national OOS averages (configuration) */
  nationalAverages?: Partial<NationalAverages>
}

/**
 * Below this many inspections an OOS rate is a small sample. The rate is still published (as
 * FMCSA does, and the counts sit beside it); scoring such as the Trust Score should treat it as
 * neutral, never as a penalty.
 * 5 mirrors SMS's own minimum of 5 relevant inspections for a Vehicle Maintenance or Driver
 * Fitness percentile.
 */
export const MIN_INSPECTIONS_FOR_RATE = 5

/** true when a rate over `inspections` inspections is not a small sample */
export const isRateReliable = (inspections: number | null): boolean =>
  inspections !== null && inspections >= MIN_INSPECTIONS_FOR_RATE

/** 100 × oos / inspections, 2 decimals; null when there are no inspections. */
export function oosRate(oos: number | null, inspections: number | null): number | null {
  if (inspections === null || inspections <= 0 || oos === null) return null
  return Math.round((oos * 10_000) / inspections) / 100
}

interface SummaryRow {
  in_census: number
  in_results: number
  passenger: number | null
  private_only: number | null
  counts_source: CountsSource | null
  inspections_total: number | null
  driver_inspections: number | null
  driver_oos_inspections: number | null
  vehicle_inspections: number | null
  vehicle_oos_inspections: number | null
  hazmat_inspections: number | null
  hazmat_oos_inspections: number | null
  crash_total: number | null
  fatal_crash: number | null
  injury_crash: number | null
  towaway_crash: number | null
}

type BasicsRow = { passenger: number } & Record<string, number | string | null>

interface SmsMeta {
  windowStart: string | null
  windowEnd: string | null
  runDate: string | null
}

const SUMMARY_SQL = `SELECT in_census, in_results, passenger, private_only, counts_source,
  inspections_total, driver_inspections, driver_oos_inspections, vehicle_inspections,
  vehicle_oos_inspections, hazmat_inspections, hazmat_oos_inspections,
  crash_total, fatal_crash, injury_crash, towaway_crash
  FROM safety_summary WHERE dot_number = ?`
const BASICS_SQL = `SELECT passenger, ${BASIC_COLUMNS.join(', ')} FROM basics WHERE dot_number = ?`

const metaCache = new WeakMap<ActiveDataset, SmsMeta>()
function smsMeta(ds: ActiveDataset): SmsMeta {
  let m = metaCache.get(ds)
  if (!m) {
    const rows = ds.stmt('SELECT key, value FROM sms_meta').all() as {
      key: string
      value: string | null
    }[]
    const get = (k: string) => rows.find((r) => r.key === k)?.value ?? null
    m = { windowStart: get('window_start'), windowEnd: get('window_end'), runDate: get('run_date') }
    metaCache.set(ds, m)
  }
  return m
}

const bool = (v: number | string | null | undefined): boolean | null =>
  v === null || v === undefined ? null : v === 1

/** One BASIC entry; every key in one fixed order (one object shape for every entry). */
function basicJson(
  def: BasicDef,
  runDate: string | null,
  v: {
    measure?: number | null
    percentile?: number | null
    alert?: boolean | null
    roadside_alert?: boolean | null
    acute_critical?: boolean | null
    inspections_with_violation?: number | null
  },
  isPublic: boolean,
  reason: string | null,
): BasicJson {
  return {
    code: def.code,
    name: def.name,
    measure: v.measure ?? null,
    percentile: v.percentile ?? null,
    alert: v.alert ?? null,
    roadside_alert: v.roadside_alert ?? null,
    acute_critical: v.acute_critical ?? null,
    inspections_with_violation: v.inspections_with_violation ?? null,
    run_date: runDate,
    public: isPublic,
    reason,
  }
}

const NONE = {}
const numOf = (x: number | string | null | undefined) => (typeof x === 'number' ? x : null)

function basicsOf(
  s: SummaryRow | null,
  b: BasicsRow | undefined,
  passenger: boolean | null,
  runDate: string | null,
): BasicJson[] {
  // percentiles and alerts are public for passenger carriers only (the Pass files)
  const isPublic = b?.passenger === 1 || passenger === true
  // a passenger carrier whose Pass row is missing (Pass file not supplied): measures only
  const fromPass = b?.passenger === 1
  return BASICS.map((def): BasicJson => {
    // FAST Act: no public file carries HazMat Compliance or Crash Indicator
    if (!def.columns) return basicJson(def, runDate, NONE, false, 'not_public')
    if (!b) {
      // in the SMS census without a results row: no inspection with a violation in 24 months
      const iwv = s?.in_census === 1 ? 0 : null
      return basicJson(def, runDate, { inspections_with_violation: iwv }, isPublic, 'not_in_sms')
    }
    const c = def.columns
    const pctText = b[c.pct_text]
    return basicJson(
      def,
      runDate,
      {
        measure: numOf(b[c.measure]),
        percentile: fromPass ? numOf(b[c.pct]) : null,
        alert: fromPass ? bool(b[c.alert]) : null,
        roadside_alert: fromPass ? bool(b[c.rd_alert]) : null,
        acute_critical: bool(b[c.ac]),
        inspections_with_violation: numOf(b[c.iwv]),
      },
      isPublic,
      !isPublic
        ? 'withheld_fast_act'
        : !fromPass
          ? 'not_in_sms'
          : typeof pctText === 'string'
            ? pctText
            : null,
    )
  })
}

function toOrder(o: ReturnType<typeof findOosOrders>[number], today: string): OosOrder {
  return {
    active: isOosOrderActive(o, today),
    date: o.oos_date,
    reason: o.reason,
    status: o.status,
    rescindDate: o.rescind_date,
  }
}

/**
 * Safety facts for a USDOT: precomputed SMS figures (two primary-key reads) and its OOS orders,
 * judged active against `today`. Null only when neither dataset is loaded.
 */
export function getSafety(
  view: DataView,
  dot: number,
  today: string,
  opts: SafetyOptions = {},
): SafetyFacts | null {
  const sms = view.get('sms')
  const oosDs = view.get('oos')
  const violations = view.get('violations')
  if (!sms && !oosDs && !violations) return null
  const avg = nationalAverages(opts.nationalAverages)

  const s = sms ? (getRow<SummaryRow>(sms.stmt(SUMMARY_SQL), dot) ?? null) : null
  const b = sms && s?.in_results === 1 ? getRow<BasicsRow>(sms.stmt(BASICS_SQL), dot) : undefined
  const meta = sms ? smsMeta(sms) : { windowStart: null, windowEnd: null, runDate: null }
  const passenger = s ? bool(s.passenger) : null

  const orders = oosDs ? findOosOrders(oosDs, dot).map((o) => toOrder(o, today)) : []
  const oos = orders.find((o) => o.active) ?? orders[0] ?? null

  const n = (k: keyof SummaryRow) => {
    const x = s?.[k]
    return typeof x === 'number' ? x : null
  }
  return {
    safety: {
      crash_total: n('crash_total'),
      fatal_crash: n('fatal_crash'),
      injury_crash: n('injury_crash'),
      towaway_crash: n('towaway_crash'),
      inspections_total: n('inspections_total'),
      driver_inspections: n('driver_inspections'),
      driver_oos_inspections: n('driver_oos_inspections'),
      vehicle_inspections: n('vehicle_inspections'),
      vehicle_oos_inspections: n('vehicle_oos_inspections'),
      hazmat_inspections: n('hazmat_inspections'),
      hazmat_oos_inspections: n('hazmat_oos_inspections'),
      driver_oos_rate: oosRate(n('driver_oos_inspections'), n('driver_inspections')),
      vehicle_oos_rate: oosRate(n('vehicle_oos_inspections'), n('vehicle_inspections')),
      hazmat_oos_rate: oosRate(n('hazmat_oos_inspections'), n('hazmat_inspections')),
      driver_oos_rate_national_average: avg.driver,
      vehicle_oos_rate_national_average: avg.vehicle,
      hazmat_oos_rate_national_average: avg.hazmat,
      national_average_period: avg.period,
      // the ISS score is not in any public file (QCMobile returns null as well)
      iss_score: null,
      window_start: meta.windowStart,
      window_end: meta.windowEnd,
      as_of: sms?.asOf ?? null,
      basics: basicsOf(s, b, passenger, meta.runDate),
      elp_oos_violations: violations ? elpOosViolations(violations, dot, today) : null,
      driver_qualification: violations
        ? { ...driverQualification(violations, dot, today), as_of: violations.asOf }
        : null,
    },
    oos,
    oosOrders: orders,
    privateOnly: s ? bool(s.private_only) : null,
    passengerCarrier: passenger,
    countsSource: s?.counts_source ?? null,
    asOf: {
      sms: sms?.asOf ?? null,
      oos: oosDs?.asOf ?? null,
      violations: violations?.asOf ?? null,
    },
  }
}
