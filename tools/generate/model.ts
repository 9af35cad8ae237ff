/**
 * The generator's picture of one company: a timeline of authority and insurance events plus its
 * census, safety and out-of-service facts. Every output file is a view of this model at a date
 * (legacy files at the 2026-05-14 freeze, everything else at AS_OF), which keeps the files
 * consistent with each other.
 */
import { day } from './dates.ts'
import type { BasicPrefix } from './columns.ts'
import { POWER_UNIT_KINDS } from '../../src/census/columns.ts'

/** Legacy L&I files are frozen at this date (docs/data.md). */
export const LEGACY_FREEZE = day('2026-05-14')
/** The generated snapshot is as of this date: every event happens before it. */
export const AS_OF = day('2026-11-01')
/** SMS inspections and crashes count within the 24 months before AS_OF. */
export const SMS_WINDOW_START = day('2024-11-01')

export type Country = 'US' | 'CA' | 'MX'

export interface Address {
  street: string
  city: string
  state: string
  zip: string
  country: Country
  /** County FIPS code (census PHY_CNTY); '' outside the US */
  county: string
  /** Mexican colonia (BUS_COLONIA / PHY_BARRIO) */
  colonia: string
}

export type AuthorityKind = 'common' | 'contract' | 'broker'
export type CargoKind = 'property' | 'passenger' | 'hhg'

export type AuthEvent =
  | { kind: 'applied'; date: number }
  | { kind: 'granted'; date: number }
  | { kind: 'reinstated'; date: number }
  | {
      kind: 'revoked'
      serve: number
      effective: number
      voluntary: boolean
      /** Motus only: a suspension rather than a revocation */
      suspension?: boolean
    }
  /** A revocation proceeding that was dismissed (insurance restored in time) */
  | { kind: 'discontinued'; serve: number; decided: number }

export interface Authority {
  kind: AuthorityKind
  cargo: CargoKind
  /** Chronological */
  events: AuthEvent[]
}

/** Insurance form codes without the `BMC-` prefix. */
export type FormCode = '91X' | '91' | '82' | '34' | '83' | '84' | '85'
export type CancelMethod = 'CANCEL' | 'TERM/REPL' | 'TERM/CANCL' | 'NAMECHG' | 'TRANSFER'

export interface Policy {
  form: FormCode
  classCode: 'P' | 'E' | ''
  insurer: string
  policyNo: string
  /** When FMCSA received the filing (legacy trans_date, Motus TRANS_DATE) */
  posted: number
  effective: number
  /** Whole dollars */
  maxCov: number
  underlying: number
  branch: string
  cancel: null | { filed: number; effective: number; method: CancelMethod }
}

export interface ProcessAgent {
  name: string
  attention: string
  street: string
  city: string
  state: string
  zip: string
}

export interface Docket {
  prefix: 'MC' | 'FF' | 'MX'
  number: number
  /** Legacy MX_TYPE: X = OP-1, Z = OP-2, space for US */
  mxType: ' ' | 'X' | 'Z'
  authorities: Authority[]
  policies: Policy[]
  /** BI&PD required, whole dollars (0 = none) */
  bipdRequired: number
  agent: ProcessAgent | null
  /** Census DOCKETn_STATUS_CODE when it should disagree with the authority (census data dictionary) */
  censusStatusOverride?: string
  /** Legacy UNDELIVERABLE_MAIL = N, Motus *_UNDELIVERABLE_MAIL = Y */
  undeliverableMail: boolean
  /** Write no AuthHist rows (history unknown, e.g. the real USDOT 344554) */
  noHistory?: boolean
}

export interface Vehicle {
  type: string
  make: string
  plate: string
  plateState: string
  vin: string
  decal: string
}

export type BasicKey = 'unsafe' | 'fatigued' | 'fitness' | 'subst' | 'maint' | 'hm'

export interface Violation {
  code: string
  basic: BasicKey
  oos: boolean
  severity: number
  section: string
  group: string
  unit: string
}

export interface Inspection {
  uniqueId: number
  reportNumber: string
  state: string
  date: number
  level: 1 | 2 | 3 | 4 | 5 | 6
  driverOos: number
  vehicleOos: number
  hazmatOos: number
  hazmat: boolean
  unit: Vehicle
  unit2: Vehicle | null
  violations: Violation[]
  /** the carrier name the officer wrote (MCMIS INSP_CARRIER_NAME); default: the legal name */
  roadsideName?: string
}

export interface CrashVehicle {
  vin: string
  plate: string
  plateState: string
}

export interface Crash {
  reportNumber: string
  state: string
  date: number
  fatalities: number
  injuries: number
  towAway: boolean
  hazmatReleased: boolean
  trafficway: string
  accessControl: string
  roadSurface: string
  weather: string
  light: string
  citation: string
  notPreventable: boolean
  /** One row per vehicle of this carrier in the crash (a multi-vehicle report has several) */
  vehicles: CrashVehicle[]
}

export interface OosOrder {
  date: number
  reason: string
  status: 'ACTIVE' | 'RESCINDED'
  rescind: number | null
}

export interface Rating {
  code: 'S' | 'C' | 'U'
  date: number
  reviewDate: number
  reviewType: string
  reviewId: string
}

/** Explicit Pass-file values for one BASIC (passenger carriers); computed when absent. */
export interface BasicOverride {
  pct?: string
  rdAlert?: 'Y' | 'N'
  basicAlert?: 'Y' | 'N'
  measure?: string
}

/** Power-unit kinds of the census OWN/TRM/TRP columns, in column order (trailers kept apart). */
export const UNIT_KINDS = POWER_UNIT_KINDS
export type UnitKind = (typeof UNIT_KINDS)[number]
export type UnitCounts = Partial<Record<UnitKind | 'TRAIL', number>>

export interface Company {
  dot: number
  legalName: string
  dbaName: string
  status: 'A' | 'I'
  /** '' for brokers and forwarders */
  operation: 'A' | 'B' | 'C' | ''
  classdef: string[]
  addDate: number
  /** The census writes this ADD_DATE as `YYYYMMDD 0000` (as the real census file does) */
  addDateWithTime: boolean
  mcs150Date: number
  mileage: number
  mileageYear: number
  phone: string
  fax: string
  cell: string
  email: string
  officer1: string
  officer2: string
  businessOrgId: string
  businessOrgDesc: string
  phy: Address
  mail: Address
  undeliverablePhy: boolean
  mailUndeliverableDate: number | null
  own: UnitCounts
  trm: UnitCounts
  trp: UnitCounts
  drivers: number
  cdl: number
  interDrivers: number
  intraDrivers: number
  avgLeased: number
  hazmat: boolean
  passenger: boolean
  /** CRGO_* column suffixes marked X */
  cargo: string[]
  cargoOther: string
  rating: Rating | null
  dockets: Docket[]
  /** Present in the frozen legacy L&I files (false: registered after the freeze) */
  legacy: boolean
  /** Has a transaction since the freeze, so Motus files hold its rows */
  motus: boolean
  /** In the SMS census / results (active carrier subject to SMS) */
  sms: boolean
  privateOnly: boolean
  vehicles: Vehicle[]
  /** The fleet's own trailers (scale profile), drawn again and again as real fleets reuse them */
  trailers?: Vehicle[]
  inspections: Inspection[]
  crashes: Crash[]
  oosOrders: OosOrder[]
  basics: Partial<Record<BasicPrefix, BasicOverride>>
  acuteCritical: Partial<Record<BasicPrefix, boolean>>
  /** Census fields written verbatim (by column name), after everything else */
  censusOverrides?: Record<string, string>
}

/** Sum of power units in a set of unit counts (trailers excluded). */
export function unitSum(u: UnitCounts): number {
  let n = 0
  for (const k in u) if (k !== 'TRAIL') n += u[k as UnitKind] ?? 0
  return n
}

export const powerUnits = (c: Company) => unitSum(c.own) + unitSum(c.trm) + unitSum(c.trp)
export const truckUnits = (c: Company) =>
  (c.own.TRUCK ?? 0) +
  (c.own.TRACT ?? 0) +
  (c.trm.TRUCK ?? 0) +
  (c.trm.TRACT ?? 0) +
  (c.trp.TRUCK ?? 0) +
  (c.trp.TRACT ?? 0)
export const busUnits = (c: Company) => powerUnits(c) - truckUnits(c)

export interface AuthorityState {
  stat: 'A' | 'I' | 'N'
  appPending: boolean
  revPending: boolean
}

/** An authority's legacy-style status letter and flags at day `t`. */
export function authorityState(a: Authority, t: number): AuthorityState {
  let stat: 'A' | 'I' | 'N' = 'N'
  let appPending = false
  let revPending = false
  for (const e of a.events) {
    switch (e.kind) {
      case 'applied':
        if (e.date <= t && stat !== 'A') appPending = true
        break
      case 'granted':
      case 'reinstated':
        if (e.date <= t) {
          stat = 'A'
          appPending = false
          revPending = false
        }
        break
      case 'revoked':
        if (e.effective <= t) {
          stat = 'I'
          revPending = false
        } else if (e.serve <= t) revPending = true
        break
      case 'discontinued':
        if (e.decided <= t) revPending = false
        break
    }
  }
  return { stat, appPending, revPending }
}

export const isBipd = (f: FormCode) => f === '91X' || f === '91' || f === '82'
export const isCargoForm = (f: FormCode) => f === '34' || f === '83'
export const isBondForm = (f: FormCode) => f === '84' || f === '85'

/** Insurance type code 1 BI&PD, 2 cargo, 3 surety bond, 4 trust fund. */
export const insTypeCode = (f: FormCode): 1 | 2 | 3 | 4 =>
  isBipd(f) ? 1 : isCargoForm(f) ? 2 : f === '84' ? 3 : 4
export const INS_TYPE_DESC = { 1: 'BIPD', 2: 'CARGO', 3: 'SURETY', 4: 'TRUST FUND' } as const

/** On file at `t` (filed, and not cancelled by then). Pending cancellations still count. */
export const policyOnFile = (p: Policy, t: number) =>
  p.posted <= t && (p.cancel === null || p.cancel.effective > t)

/** BI&PD on file at `t`: the largest limit among current BI&PD filings, whole dollars. */
export function bipdOnFile(d: Docket, t: number): number {
  let max = 0
  for (const p of d.policies)
    if (isBipd(p.form) && p.effective <= t && policyOnFile(p, t) && p.maxCov > max) max = p.maxCov
  return max
}

export const hasOnFile = (d: Docket, t: number, test: (f: FormCode) => boolean) =>
  d.policies.some((p) => test(p.form) && p.effective <= t && policyOnFile(p, t))

export const docketKey = (d: Docket) => `${d.prefix}${d.number}`
export const isCarrierAuthority = (a: Authority) => a.kind === 'common' || a.kind === 'contract'
