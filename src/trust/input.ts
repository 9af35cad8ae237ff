/**
 * What the Trust Score reads: its own input type, holding only the facts the score and its
 * signals use. The record composition (carriers/record.ts) builds it from an assembled record;
 * trust/ knows nothing of the record, the datasets' blocks or their owners.
 */
import type { EntityType } from '../fields.ts'

/** An FMCSA authority letter: A(ctive), I(nactive), N(one). */
type Letter = 'A' | 'I' | 'N' | null

export interface TrustIdentity {
  entity_type: EntityType | null
  entity_types: readonly EntityType[]
  docket_numbers: readonly string[]
  operation_class: string | null
  operation_classifications: readonly string[]
  registration_date: string | null
  passenger_carrier: boolean | null
  usdot_status: 'active' | 'inactive' | 'pending' | null
  /** census PRIOR_REVOKE_FLAG / PRIOR_REVOKE_DOT_NUMBER; null when the census says nothing */
  prior_revoke: { flag: boolean; dot_number: string | null } | null
  out_of_service: boolean | null
  out_of_service_date: string | null
  out_of_service_reason: string | null
}

export interface TrustRevocation {
  docket_number: string | null
  authority_type: string | null
  revocation_date: string | null
  serve_date: string | null
  revocation_type: string | null
  reinstatement_date: string | null
  /** the dataset(s) it came from, e.g. `motus` or `legacy+motus` */
  source: string | null
}

export interface TrustAuthority {
  common_authority: Letter
  contract_authority: Letter
  broker_authority: Letter
  allowed_to_operate: 'Y' | 'N' | null
  granted_date: string | null
  authority_types: readonly string[]
  pending_application: boolean | null
  revocation_pending: boolean | null
  history: readonly TrustRevocation[]
  source: 'motus' | 'legacy' | 'census' | null
}

export interface TrustFiling {
  docket_number: string | null
  form: string | null
  type: string | null
  insurer: string | null
  policy_no: string | null
  cancellation_date: string | null
  status: 'active' | 'pending_cancellation' | 'cancelled' | 'replaced' | 'rejected'
  cancellation_method: string | null
  source: 'motus' | 'legacy'
}

export interface TrustInsurance {
  bond_on_file: number | null
  bipd_on_file: number | null
  cargo_on_file: number | null
  bipd_required: number | null
  bond_required: boolean | null
  bond_filed: boolean | null
  cargo_filed: boolean | null
  expiry_date: string | null
  pending_cancellation: boolean | null
  filings: readonly TrustFiling[]
}

export interface TrustBasic {
  code: string
  name: string
  percentile: number | null
  alert: boolean | null
  acute_critical: boolean | null
  public: boolean
}

export interface TrustSafety {
  safety_rating: string | null
  safety_rating_code: 'S' | 'C' | 'U' | null
  safety_rating_date: string | null
  crash_total: number | null
  driver_inspections: number | null
  vehicle_inspections: number | null
  hazmat_inspections: number | null
  driver_oos_rate: number | null
  vehicle_oos_rate: number | null
  hazmat_oos_rate: number | null
  driver_oos_rate_national_average: number | null
  vehicle_oos_rate_national_average: number | null
  hazmat_oos_rate_national_average: number | null
  basics: readonly TrustBasic[]
}

export interface TrustAddress {
  street: string | null
  city: string | null
  state: string | null
}

export interface TrustContact {
  phone: string | null
  email: string | null
  physical_address: TrustAddress | null
  physical_address_undeliverable: boolean | null
  mailing_address_undeliverable: boolean | null
  /** since when mail is returned (census), when known */
  mailing_address_undeliverable_date?: string | null
}

export interface TrustFleet {
  power_units: number | null
  mcs150_date: string | null
}

export interface TrustReviews {
  verified: readonly { date: string | null }[]
  summary: { average: number | null; count: number }
  external: readonly {
    source: string
    overall_rating: number | null
    total_reviews: number
    latest_review: { date: string | null } | null
  }[]
}

/** The census row's facts the score reads (raw census values, not the record's display forms). */
export interface TrustCensus {
  phone: string | null
  email: string | null
  phy_street: string | null
  phy_city: string | null
  phy_state: string | null
  prior_revoke_flag: string | null
  prior_revoke_dot: number | null
}

/** Everything the Trust Score reads about one company. */
export interface TrustInput {
  dotNumber: number
  entity_type: EntityType | null
  identity: TrustIdentity
  authority: TrustAuthority
  insurance: TrustInsurance
  safety: TrustSafety
  fleet: TrustFleet
  contact: TrustContact
  reviews: TrustReviews
  /** YYYY-MM-DD per dataset behind the facts (the record's meta.data_as_of) */
  dataAsOf: Readonly<Record<string, string | null>>
  /** the company's census row, or null when the census does not know it */
  census: TrustCensus | null
}
