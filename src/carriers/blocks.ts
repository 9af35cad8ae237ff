/** Blocks with every key present and nothing on file: the starting point of each block builder. */
import type { ReviewsJson } from '../reviews/schema.ts'
import type { TrustJson } from '../trust/schema.ts'
import type { SafetyJson } from '../safety/schema.ts'
import type { AuthorityJson, InsuranceJson } from '../licensing/schema.ts'

export const emptyAuthority = (): AuthorityJson => ({
  status: null,
  common_authority: null,
  contract_authority: null,
  broker_authority: null,
  allowed_to_operate: null,
  granted_date: null,
  revoked_date: null,
  reinstated_date: null,
  fmcsa_status_code: null,
  authority_types: [],
  pending_application: null,
  revocation_pending: null,
  history: [],
  states: [],
  pending_suspension: null,
  age_days: null,
  source: null,
})

export const emptyInsurance = (): InsuranceJson => ({
  bond_on_file: null,
  bipd_on_file: null,
  bipd_on_file_source: null,
  cargo_on_file: null,
  bipd_required: null,
  bond_required: null,
  cargo_required: null,
  bond_filed: null,
  cargo_filed: null,
  insurance_company: null,
  insurer: null,
  policy_no: null,
  effective_date: null,
  expiry_date: null,
  insurance_filed: null,
  insurance_type: null,
  coverage_amount: null,
  pending_cancellation: null,
  filings: [],
})

export const emptySafety = (): SafetyJson => ({
  safety_rating: null,
  safety_rating_code: null,
  safety_rating_date: null,
  safety_review_date: null,
  safety_review_type: null,
  crash_total: null,
  fatal_crash: null,
  injury_crash: null,
  towaway_crash: null,
  inspections_total: null,
  driver_inspections: null,
  driver_oos_inspections: null,
  vehicle_inspections: null,
  vehicle_oos_inspections: null,
  hazmat_inspections: null,
  hazmat_oos_inspections: null,
  driver_oos_rate: null,
  vehicle_oos_rate: null,
  hazmat_oos_rate: null,
  driver_oos_rate_national_average: null,
  vehicle_oos_rate_national_average: null,
  hazmat_oos_rate_national_average: null,
  national_average_period: null,
  iss_score: null,
  window_start: null,
  window_end: null,
  as_of: null,
  basics: [],
  elp_oos_violations: null,
  driver_qualification: null,
})

export const emptyTrust = (): TrustJson => ({
  trust_score: null,
  trust_verified: false,
  unverified_reasons: [],
  grade: null,
  version: null,
  components: null,
  gates: [],
  factors: [],
})

export const emptyReviews = (): ReviewsJson => ({
  verified: [],
  summary: { average: null, count: 0 },
  external: [],
})

export const RATING_WORDS = { S: 'Satisfactory', C: 'Conditional', U: 'Unsatisfactory' } as const
