/**
 * Pure comparison of a mirror record with the regulator's answer (docs/crosscheck.md, "What is
 * compared"). Both sides are first reduced to the same facts, keyed by the record's JSON path
 * and in the record's units; a fact a source does not have is left out and not compared.
 */
import type { RegulatorCarrier } from './qcmobile.ts'

/**
 * The mirror's side of a cross-check: the compared fields under their record names, plus what
 * tells an unknown from a "none" (the company is in the census). The record composition builds
 * it from an assembled record (carriers/record.ts).
 */
export interface CrosscheckInput {
  dotNumber: number
  /** sample companies are never cross-checked */
  source: 'mirror' | 'sample'
  /** whether the census knows the company (its nulls are then facts, not unknowns) */
  inCensus: boolean
  legal_name: string | null
  dba_name: string | null
  identity: { out_of_service: boolean | null; out_of_service_date: string | null }
  authority: {
    status: string | null
    allowed_to_operate: string | null
    common_authority: string | null
    contract_authority: string | null
    broker_authority: string | null
  }
  insurance: {
    bipd_on_file: number | null
    bipd_required: number | null
    cargo_on_file: number | null
    cargo_filed: boolean | null
    bond_on_file: number | null
    bond_filed: boolean | null
  }
  fleet: { power_units: number | null; total_drivers: number | null }
  safety: {
    safety_rating: string | null
    safety_rating_date: string | null
    crash_total: number | null
    fatal_crash: number | null
    injury_crash: number | null
    towaway_crash: number | null
    driver_inspections: number | null
    driver_oos_inspections: number | null
    vehicle_inspections: number | null
    vehicle_oos_inspections: number | null
    hazmat_inspections: number | null
    hazmat_oos_inspections: number | null
    driver_oos_rate: number | null
    vehicle_oos_rate: number | null
    hazmat_oos_rate: number | null
  }
}

export type FactValue = string | number | boolean | null

/**
 * - `exact`: equal or a difference.
 * - `name`: equal after {@link nameKey}.
 * - `count` / `rate`: snapshots differ (the mirror's SMS run is monthly), so a small gap is not a
 *   difference: see {@link COUNT_TOLERANCE} and {@link RATE_TOLERANCE}.
 */
export type CompareRule = 'exact' | 'name' | 'count' | 'rate'

/** Every compared field, by its path in the record JSON, with its rule. */
export const COMPARED_FIELDS = {
  legal_name: 'name',
  dba_name: 'name',
  'authority.status': 'exact',
  'authority.allowed_to_operate': 'exact',
  'authority.common_authority': 'exact',
  'authority.contract_authority': 'exact',
  'authority.broker_authority': 'exact',
  'insurance.bipd_on_file': 'exact',
  'insurance.bipd_required': 'exact',
  'insurance.cargo_filed': 'exact',
  'insurance.bond_filed': 'exact',
  'fleet.power_units': 'exact',
  'fleet.total_drivers': 'exact',
  'safety.safety_rating': 'exact',
  'safety.safety_rating_date': 'exact',
  'identity.out_of_service_date': 'exact',
  'safety.crash_total': 'count',
  'safety.fatal_crash': 'count',
  'safety.injury_crash': 'count',
  'safety.towaway_crash': 'count',
  'safety.driver_inspections': 'count',
  'safety.driver_oos_inspections': 'count',
  'safety.vehicle_inspections': 'count',
  'safety.vehicle_oos_inspections': 'count',
  'safety.hazmat_inspections': 'count',
  'safety.hazmat_oos_inspections': 'count',
  'safety.driver_oos_rate': 'rate',
  'safety.vehicle_oos_rate': 'rate',
  'safety.hazmat_oos_rate': 'rate',
} as const satisfies Record<string, CompareRule>

export type ComparedField = keyof typeof COMPARED_FIELDS

/** What one source says, field by field; a field that is absent is not known to that source. */
export type Facts = Partial<Record<ComparedField, FactValue>>

export interface Difference {
  field: ComparedField | 'exists'
  mirror: FactValue
  regulator: FactValue
}

/** Counts within max(2, 10 %) of each other are the same count seen at different times. */
export const COUNT_TOLERANCE = { absolute: 2, relative: 0.1 } as const
/** OOS rates within max(2 percentage points, 10 %) of each other agree. */
export const RATE_TOLERANCE = { absolute: 2, relative: 0.1 } as const

const RATING_WORD = { S: 'Satisfactory', C: 'Conditional', U: 'Unsatisfactory' } as const
const STATUS_WORD: Record<string, string> = { A: 'ACTIVE', I: 'INACTIVE' }

/**
 * A name for comparison: accents removed, upper case, `&` read as AND, punctuation and spaces
 * dropped (so `A.B.C. TRUCKING, INC.` equals `ABC TRUCKING INC`).
 */
export function nameKey(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/&/g, ' AND ')
    .replace(/[^A-Z0-9]+/g, '')
}

const round2 = (n: number) => Math.round(n * 100) / 100

function within(a: number, b: number, t: { absolute: number; relative: number }): boolean {
  const gap = Math.abs(a - b)
  return gap <= Math.max(t.absolute, t.relative * Math.max(Math.abs(a), Math.abs(b))) + 1e-9
}

/** Do two known values of a field agree under its rule? */
export function agrees(rule: CompareRule, mirror: FactValue, regulator: FactValue): boolean {
  if (mirror === null || regulator === null) {
    // "none" on both sides agrees; "none" against a value does not
    return mirror === regulator
  }
  switch (rule) {
    case 'exact':
      return mirror === regulator
    case 'name':
      return nameKey(String(mirror)) === nameKey(String(regulator))
    case 'count':
    case 'rate': {
      if (typeof mirror !== 'number' || typeof regulator !== 'number') return mirror === regulator
      return within(mirror, regulator, rule === 'count' ? COUNT_TOLERANCE : RATE_TOLERANCE)
    }
  }
}

/** The differences between two sets of facts, in {@link COMPARED_FIELDS} order. */
export function compareFacts(mirror: Facts, regulator: Facts): Difference[] {
  const out: Difference[] = []
  for (const [field, rule] of Object.entries(COMPARED_FIELDS) as [ComparedField, CompareRule][]) {
    const m = mirror[field]
    const r = regulator[field]
    if (m === undefined || r === undefined) continue // a source without the fact: not compared
    if (!agrees(rule, m, r)) out.push({ field, mirror: m, regulator: r })
  }
  return out
}

/** Puts `value` under `field` unless it is undefined. */
function put(f: Facts, field: ComparedField, value: FactValue | undefined): void {
  if (value !== undefined) f[field] = value
}
/** A value where null means "not on file" (unknown), so it is left out. */
const known = <T>(v: T | null): T | undefined => (v === null ? undefined : v)

/** "Has a filing" from an amount and a filed flag: > 0 or flagged → true; 0 or not flagged → false. */
function filed(amount: number | null, flag: boolean | null): boolean | undefined {
  if ((amount !== null && amount > 0) || flag === true) return true
  if (amount === 0 || flag === false) return false
  return undefined
}

/**
 * The mirror's facts. A null is left out (not known) except where the mirror's null is itself a
 * fact: no DBA name and no safety rating when the census has the company, no active OOS order when
 * the OOS orders are loaded.
 */
export function mirrorFacts(r: CrosscheckInput): Facts {
  const f: Facts = {}
  const inCensus = r.inCensus
  put(f, 'legal_name', known(r.legal_name))
  put(f, 'dba_name', inCensus ? r.dba_name : known(r.dba_name))
  put(f, 'authority.status', known(r.authority.status))
  put(f, 'authority.allowed_to_operate', known(r.authority.allowed_to_operate))
  put(f, 'authority.common_authority', known(r.authority.common_authority))
  put(f, 'authority.contract_authority', known(r.authority.contract_authority))
  put(f, 'authority.broker_authority', known(r.authority.broker_authority))
  put(f, 'insurance.bipd_on_file', known(r.insurance.bipd_on_file))
  put(f, 'insurance.bipd_required', known(r.insurance.bipd_required))
  put(f, 'insurance.cargo_filed', filed(r.insurance.cargo_on_file, r.insurance.cargo_filed))
  put(f, 'insurance.bond_filed', filed(r.insurance.bond_on_file, r.insurance.bond_filed))
  put(f, 'fleet.power_units', known(r.fleet.power_units))
  put(f, 'fleet.total_drivers', known(r.fleet.total_drivers))
  const rating = r.safety.safety_rating
  put(f, 'safety.safety_rating', inCensus ? rating : known(rating))
  if (rating !== null) put(f, 'safety.safety_rating_date', r.safety.safety_rating_date)
  if (r.identity.out_of_service !== null) {
    put(f, 'identity.out_of_service_date', r.identity.out_of_service_date)
  }
  const s = r.safety
  put(f, 'safety.crash_total', known(s.crash_total))
  put(f, 'safety.fatal_crash', known(s.fatal_crash))
  put(f, 'safety.injury_crash', known(s.injury_crash))
  put(f, 'safety.towaway_crash', known(s.towaway_crash))
  put(f, 'safety.driver_inspections', known(s.driver_inspections))
  put(f, 'safety.driver_oos_inspections', known(s.driver_oos_inspections))
  put(f, 'safety.vehicle_inspections', known(s.vehicle_inspections))
  put(f, 'safety.vehicle_oos_inspections', known(s.vehicle_oos_inspections))
  put(f, 'safety.hazmat_inspections', known(s.hazmat_inspections))
  put(f, 'safety.hazmat_oos_inspections', known(s.hazmat_oos_inspections))
  put(f, 'safety.driver_oos_rate', known(s.driver_oos_rate))
  put(f, 'safety.vehicle_oos_rate', known(s.vehicle_oos_rate))
  put(f, 'safety.hazmat_oos_rate', known(s.hazmat_oos_rate))
  return f
}

/**
 * The regulator's facts, in the record's units and words (dollars, `ACTIVE`, `Satisfactory`,
 * rates to 2 decimals). A null the regulator sends for a rating, a DBA name or an OOS date means
 * "none"; any other null is left out.
 */
export function regulatorFacts(c: RegulatorCarrier): Facts {
  const f: Facts = {}
  put(f, 'legal_name', known(c.legalName))
  put(f, 'dba_name', c.dbaName)
  put(
    f,
    'authority.status',
    c.statusCode === null ? undefined : (STATUS_WORD[c.statusCode] ?? c.statusCode),
  )
  put(f, 'authority.allowed_to_operate', known(c.allowedToOperate))
  put(f, 'authority.common_authority', known(c.commonAuthorityStatus))
  put(f, 'authority.contract_authority', known(c.contractAuthorityStatus))
  put(f, 'authority.broker_authority', known(c.brokerAuthorityStatus))
  put(f, 'insurance.bipd_on_file', known(c.bipdOnFile))
  put(f, 'insurance.bipd_required', known(c.bipdRequired))
  put(f, 'insurance.cargo_filed', filed(c.cargoOnFile, null))
  put(f, 'insurance.bond_filed', filed(c.bondOnFile, null))
  put(f, 'fleet.power_units', known(c.totalPowerUnits))
  put(f, 'fleet.total_drivers', known(c.totalDrivers))
  put(f, 'safety.safety_rating', c.safetyRating === null ? null : RATING_WORD[c.safetyRating])
  if (c.safetyRating !== null) put(f, 'safety.safety_rating_date', c.safetyRatingDate)
  put(f, 'identity.out_of_service_date', c.oosDate)
  put(f, 'safety.crash_total', known(c.crashTotal))
  put(f, 'safety.fatal_crash', known(c.fatalCrash))
  put(f, 'safety.injury_crash', known(c.injCrash))
  put(f, 'safety.towaway_crash', known(c.towawayCrash))
  put(f, 'safety.driver_inspections', known(c.driverInsp))
  put(f, 'safety.driver_oos_inspections', known(c.driverOosInsp))
  put(f, 'safety.vehicle_inspections', known(c.vehicleInsp))
  put(f, 'safety.vehicle_oos_inspections', known(c.vehicleOosInsp))
  put(f, 'safety.hazmat_inspections', known(c.hazmatInsp))
  put(f, 'safety.hazmat_oos_inspections', known(c.hazmatOosInsp))
  const rate = (v: number | null) => (v === null ? undefined : round2(v))
  put(f, 'safety.driver_oos_rate', rate(c.driverOosRate))
  put(f, 'safety.vehicle_oos_rate', rate(c.vehicleOosRate))
  put(f, 'safety.hazmat_oos_rate', rate(c.hazmatOosRate))
  return f
}

/** The differences between the mirror's facts and the regulator's carrier. */
export function compareWithRegulator(
  record: CrosscheckInput,
  carrier: RegulatorCarrier,
): Difference[] {
  return compareFacts(mirrorFacts(record), regulatorFacts(carrier))
}
