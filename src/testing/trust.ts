/**
 * CompanyRecord builders for Trust Score tests (scored through `trustInput`): a plausible established carrier or broker with
 * every block filled, edited in place by the test. Dates are relative to TODAY.
 */
import { emptyAuthority, emptyInsurance, emptySafety, emptyTrust } from '../carriers/blocks.ts'
import type { CensusRow } from '../census/read.ts'
import { trustInputOf, type CompanyRecord } from '../carriers/record.ts'
import { daysBefore } from '../dates.ts'
import type { BasicJson } from '../safety/schema.ts'
import type { FilingJson, RevocationJson } from '../licensing/schema.ts'
import type { TrustInput } from '../trust/input.ts'
import type { TrustContext } from '../trust/score.ts'

export const TODAY = '2026-11-15'

/** `YYYY-MM-DD` n days before TODAY (negative: after). */
export function daysAgo(n: number, from = TODAY): string {
  return daysBefore(from, n)
}

/** The record type the builders return (the record composition's CompanyRecord). */
export type TestRecord = CompanyRecord

/** What the Trust Score reads of a test record: the record composition's own mapping. */
export const trustInput = (r: CompanyRecord): TrustInput => trustInputOf(r)

export const trustContext = (over: Partial<TrustContext> = {}): TrustContext => ({
  today: TODAY,
  fresh: true,
  links: null,
  ...over,
})

export function filing(over: Partial<FilingJson> = {}): FilingJson {
  return {
    docket_number: 'MC-765432',
    form: 'BMC-91X',
    type: 'BI&PD',
    insurer: 'PROGRESSIVE COUNTY MUTUAL',
    policy_no: 'P-100',
    effective_date: '2019-05-01',
    cancellation_date: null,
    min_coverage: 750_000,
    max_coverage: 1_000_000,
    underlying_limit: 0,
    status: 'active',
    cancellation_method: null,
    source: 'motus',
    ...over,
  }
}

export function revocation(over: Partial<RevocationJson> = {}): RevocationJson {
  return {
    docket_number: 'MC-765432',
    authority_type: 'common',
    revocation_date: daysAgo(100),
    serve_date: daysAgo(130),
    revocation_type: 'INVOLUNTARY',
    reinstatement_date: null,
    source: 'motus',
    ...over,
  }
}

const BASIC_NAMES: Record<string, string> = {
  unsafe_driving: 'Unsafe Driving',
  hos_compliance: 'HOS Compliance',
  driver_fitness: 'Driver Fitness',
  controlled_substances_alcohol: 'Controlled Substances/Alcohol',
  vehicle_maintenance: 'Vehicle Maintenance',
  hazmat_compliance: 'HazMat Compliance',
  crash_indicator: 'Crash Indicator',
}

/** The seven BASICs as a property carrier's record has them (percentiles and alerts withheld). */
export function basics(passenger = false): BasicJson[] {
  return Object.entries(BASIC_NAMES).map(([code, name]) => {
    const published = code !== 'hazmat_compliance' && code !== 'crash_indicator'
    const isPublic = published && passenger
    return {
      code,
      name,
      measure: published ? 0.5 : null,
      percentile: isPublic ? 20 : null,
      alert: isPublic ? false : null,
      roadside_alert: isPublic ? false : null,
      acute_critical: published ? false : null,
      inspections_with_violation: published ? 1 : null,
      run_date: published ? '2026-10-31' : null,
      public: isPublic,
      reason: isPublic ? null : published ? 'withheld_fast_act' : 'not_public',
    }
  })
}

export function censusRow(over: Partial<CensusRow> = {}): CensusRow {
  return {
    dot_number: 1234567,
    legal_name: 'ACME TRUCKING LLC',
    dba_name: null,
    status_code: 'A',
    carrier_operation: 'A',
    classdef: 'AUTHORIZED FOR HIRE',
    add_date: '2018-03-01',
    mcs150_date: '2025-10-01',
    mcs150_mileage: 900_000,
    mcs150_mileage_year: 2024,
    phone: '7125550100',
    fax: null,
    email: 'ops@acme.example',
    phy_street: '805 ELM ST',
    phy_city: 'HULL',
    phy_state: 'IA',
    phy_zip: '51239',
    phy_country: 'US',
    mail_street: null,
    mail_city: null,
    mail_state: null,
    mail_zip: null,
    mail_country: null,
    mail_undeliverable_date: null,
    undeliv_phy: null,
    power_units: 10,
    truck_units: 10,
    bus_units: 0,
    total_drivers: 12,
    total_cdl: 12,
    fleet_owned: 8,
    fleet_leased: 2,
    hm_ind: 'N',
    safety_rating: null,
    safety_rating_date: null,
    review_date: null,
    review_type: null,
    cargo: '["General Freight"]',
    passenger: 0,
    prior_revoke_flag: null,
    prior_revoke_dot: null,
    dockets: '["MC765432"]',
    officer_1: null,
    officer_2: null,
    ...over,
  }
}

/**
 * An established (2019) interstate for-hire property carrier: active common authority, BI&PD
 * $1M of $750k required, cargo on file, unrated, SMS data in line with the national averages,
 * no crashes, no reviews. Its score is 86 (docs/trust-score.md, example 1).
 */
export function carrierRecord(edit?: (r: CompanyRecord) => void): CompanyRecord {
  const r: CompanyRecord = {
    dot_number: '1234567',
    mc_number: 'MC-765432',
    legal_name: 'ACME TRUCKING LLC',
    dba_name: null,
    entity_type: 'carrier',
    identity: {
      dot_number: '1234567',
      mc_number: 'MC-765432',
      legal_name: 'ACME TRUCKING LLC',
      dba_name: null,
      entity_type: 'carrier',
      entity_types: ['carrier'],
      docket_numbers: ['MC-765432'],
      operation_class: 'interstate',
      operation_classifications: ['AUTHORIZED FOR HIRE'],
      cargo_carried: ['General Freight'],
      registration_date: '2018-03-01',
      prior_revoke: null,
      private_entity: false,
      passenger_carrier: false,
      usdot_status: 'active',
      out_of_service: false,
      out_of_service_date: null,
      out_of_service_reason: null,
      country: 'US',
      recent_changes: [],
      contact_changed_days: null,
      history_since: null,
      links: { predecessors: 0, predecessors_revoked_or_oos: 0, concurrent: 0 },
    },
    contact: {
      phone: '+17125550100',
      fax: null,
      email: 'ops@acme.example',
      physical_address: {
        street: '805 ELM ST',
        city: 'HULL',
        state: 'IA',
        zip: '51239',
        country: 'US',
      },
      mailing_address: null,
      physical_address_undeliverable: false,
      mailing_address_undeliverable: false,
      mailing_address_undeliverable_date: null,
    },
    authority: {
      ...emptyAuthority(),
      status: 'ACTIVE',
      common_authority: 'A',
      contract_authority: 'N',
      broker_authority: 'N',
      allowed_to_operate: 'Y',
      granted_date: '2019-05-01',
      fmcsa_status_code: 'A',
      authority_types: ['common', 'property'],
      pending_application: false,
      revocation_pending: false,
      source: 'motus',
    },
    insurance: {
      ...emptyInsurance(),
      bipd_on_file: 1_000_000,
      bipd_required: 750_000,
      cargo_on_file: 100_000,
      bond_required: false,
      cargo_required: false,
      bond_filed: false,
      cargo_filed: true,
      insurance_company: 'PROGRESSIVE COUNTY MUTUAL',
      insurer: 'PROGRESSIVE COUNTY MUTUAL',
      policy_no: 'P-100',
      effective_date: '2019-05-01',
      insurance_filed: true,
      insurance_type: 'BI&PD',
      coverage_amount: 1_000_000,
      pending_cancellation: false,
      filings: [
        filing(),
        filing({ form: 'BMC-34', type: 'Cargo', policy_no: 'C-100', max_coverage: 100_000 }),
      ],
    },
    fleet: {
      power_units: 10,
      truck_units: 10,
      bus_units: 0,
      total_drivers: 12,
      cdl_drivers: 12,
      fleet_owned: 8,
      fleet_leased: 2,
      cdl_indicator: true,
      hazmat_indicator: false,
      mcs150_date: '2025-10-01',
      mcs150_mileage: 900_000,
      mcs150_mileage_year: 2024,
    },
    safety: {
      ...emptySafety(),
      crash_total: 0,
      fatal_crash: 0,
      injury_crash: 0,
      towaway_crash: 0,
      inspections_total: 14,
      driver_inspections: 12,
      driver_oos_inspections: 0,
      vehicle_inspections: 9,
      vehicle_oos_inspections: 2,
      hazmat_inspections: 0,
      hazmat_oos_inspections: 0,
      driver_oos_rate: 4,
      vehicle_oos_rate: 22.22,
      hazmat_oos_rate: null,
      driver_oos_rate_national_average: 5.51,
      vehicle_oos_rate_national_average: 20.72,
      hazmat_oos_rate_national_average: 4.5,
      national_average_period: '2009-2010',
      as_of: '2026-10-31',
      basics: basics(),
    },
    equipment: {
      power_units_seen: 9,
      trailers_seen: 4,
      reported_power_units: 10,
      last_inspection_date: '2026-10-12',
      inspection_states: ['TX'],
      vins_seen_under_other_carriers: 0,
      roadside: {
        inspections: 3,
        names_seen: [{ name: 'ACME TRUCKING LLC', inspections: 3, last_seen: '2026-10-12' }],
        name_mismatches: 0,
        last_seen_on_road: '2026-10-12',
      },
      window: { from: '2024-11-01', to: '2026-10-31' },
      as_of: '2026-11-01',
      reason: null,
    },
    trust: emptyTrust(),
    reviews: { verified: [], summary: { average: null, count: 0 }, external: [] },
    dotNumber: 1234567,
    source: 'mirror',
    dataAsOf: {
      census: '2026-11-14',
      motus: '2026-11-14',
      legacy: '2026-05-14',
      sms: '2026-10-31',
      oos: '2026-11-14',
    },
    importedAt: {
      census: '2026-11-14T15:02:11.000Z',
      motus: '2026-11-14T15:04:40.000Z',
      legacy: '2026-05-15T06:00:00.000Z',
      sms: '2026-11-03T06:12:30.000Z',
      oos: '2026-11-14T15:01:02.000Z',
    },
    facts: { census: censusRow(), officers: null },
  }
  edit?.(r)
  return r
}

/**
 * An established (2019) property broker: active broker authority, a $75,000 BMC-84 bond, no
 * trucks, no reviews. Its score is 85 (docs/trust-score.md, example 2).
 */
export function brokerRecord(edit?: (r: CompanyRecord) => void): CompanyRecord {
  return carrierRecord((r) => {
    r.entity_type = 'broker'
    r.identity.entity_type = 'broker'
    r.identity.entity_types = ['broker']
    r.identity.operation_classifications = ['BROKER']
    r.identity.cargo_carried = []
    r.authority.common_authority = 'N'
    r.authority.broker_authority = 'A'
    r.authority.authority_types = ['broker', 'property']
    r.insurance = {
      ...emptyInsurance(),
      bond_on_file: 75_000,
      bond_required: true,
      bond_filed: true,
      cargo_filed: false,
      insurance_company: 'WESTERN SURETY',
      insurer: 'WESTERN SURETY',
      policy_no: 'B-100',
      effective_date: '2019-05-01',
      insurance_filed: true,
      insurance_type: 'Bond',
      coverage_amount: 75_000,
      pending_cancellation: false,
      filings: [
        filing({
          form: 'BMC-84',
          type: 'Bond',
          insurer: 'WESTERN SURETY',
          policy_no: 'B-100',
          min_coverage: 75_000,
          max_coverage: 75_000,
        }),
      ],
    }
    r.fleet = {
      ...r.fleet,
      power_units: 0,
      truck_units: 0,
      total_drivers: 0,
      cdl_drivers: 0,
      fleet_owned: 0,
      fleet_leased: 0,
    }
    r.safety = { ...emptySafety(), basics: basics() }
    r.facts.census = censusRow({ classdef: 'BROKER', power_units: 0, total_drivers: 0 })
    edit?.(r)
  })
}
