/**
 * The company verification record (DESIGN.md §2) as zod schemas: they shape responses, feed the
 * OpenAPI document, and tests parse real responses with them. Every key is always present; a
 * value not on file is null.
 */
import { z } from 'zod'

const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .nullable()
const letter = z.enum(['A', 'I', 'N']).nullable()

export const EntityType = z.enum(['broker', 'carrier', 'forwarder', 'private'])
export type EntityType = z.infer<typeof EntityType>

export const AddressJson = z.object({
  street: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  zip: z.string().nullable(),
  country: z.string().nullable(),
})
export type AddressJson = z.infer<typeof AddressJson>

export const IdentityJson = z.object({
  dot_number: z.string(),
  mc_number: z.string().nullable(),
  legal_name: z.string().nullable(),
  dba_name: z.string().nullable(),
  entity_type: EntityType.nullable(),
  entity_types: z.array(EntityType),
  docket_numbers: z.array(z.string()),
  operation_class: z.enum(['interstate', 'intrastate_hazmat', 'intrastate_non_hazmat']).nullable(),
  operation_classifications: z.array(z.string()),
  cargo_carried: z.array(z.string()),
  registration_date: date,
  private_entity: z.boolean().nullable(),
  passenger_carrier: z.boolean().nullable(),
  usdot_status: z.enum(['active', 'inactive']).nullable(),
  out_of_service: z.boolean().nullable(),
  out_of_service_date: date,
  out_of_service_reason: z.string().nullable(),
  country: z.string().nullable(),
})
export type IdentityJson = z.infer<typeof IdentityJson>

export const ContactJson = z.object({
  phone: z.string().nullable(),
  fax: z.string().nullable(),
  email: z.string().nullable(),
  physical_address: AddressJson.nullable(),
  mailing_address: AddressJson.nullable(),
  physical_address_undeliverable: z.boolean().nullable(),
  mailing_address_undeliverable: z.boolean().nullable(),
})
export type ContactJson = z.infer<typeof ContactJson>

export const RevocationJson = z.object({
  docket_number: z.string().nullable(),
  authority_type: z.string().nullable(),
  revocation_date: date,
  serve_date: date,
  revocation_type: z.string().nullable(),
  reinstatement_date: date,
  source: z.string(),
})
export type RevocationJson = z.infer<typeof RevocationJson>

export const AuthorityJson = z.object({
  status: z.enum(['ACTIVE', 'INACTIVE']).nullable(),
  common_authority: letter,
  contract_authority: letter,
  broker_authority: letter,
  allowed_to_operate: z.enum(['Y', 'N']).nullable(),
  granted_date: date,
  revoked_date: date,
  reinstated_date: date,
  fmcsa_status_code: z.string().nullable(),
  authority_types: z.array(z.string()),
  pending_application: z.boolean().nullable(),
  revocation_pending: z.boolean().nullable(),
  history: z.array(RevocationJson),
  /** where the authority facts came from: motus (since 2026-05-14), legacy (frozen L&I), census */
  source: z.enum(['motus', 'legacy', 'census']).nullable(),
})
export type AuthorityJson = z.infer<typeof AuthorityJson>

export const FilingJson = z.object({
  docket_number: z.string().nullable(),
  form: z.string().nullable(),
  type: z.string().nullable(),
  insurer: z.string().nullable(),
  policy_no: z.string().nullable(),
  effective_date: date,
  cancellation_date: date,
  min_coverage: z.number().nullable(),
  max_coverage: z.number().nullable(),
  underlying_limit: z.number().nullable(),
  status: z.enum(['active', 'pending_cancellation', 'cancelled', 'replaced', 'rejected']),
  cancellation_method: z.string().nullable(),
  source: z.enum(['motus', 'legacy']),
})
export type FilingJson = z.infer<typeof FilingJson>

export const InsuranceJson = z.object({
  bond_on_file: z.number().nullable(),
  bipd_on_file: z.number().nullable(),
  cargo_on_file: z.number().nullable(),
  bipd_required: z.number().nullable(),
  bond_required: z.boolean().nullable(),
  cargo_required: z.boolean().nullable(),
  bond_filed: z.boolean().nullable(),
  cargo_filed: z.boolean().nullable(),
  insurance_company: z.string().nullable(),
  insurer: z.string().nullable(),
  policy_no: z.string().nullable(),
  effective_date: date,
  expiry_date: date,
  insurance_filed: z.boolean().nullable(),
  insurance_type: z.string().nullable(),
  coverage_amount: z.number().nullable(),
  pending_cancellation: z.boolean().nullable(),
  filings: z.array(FilingJson),
})
export type InsuranceJson = z.infer<typeof InsuranceJson>

export const FleetJson = z.object({
  power_units: z.number().int().nullable(),
  truck_units: z.number().int().nullable(),
  bus_units: z.number().int().nullable(),
  total_drivers: z.number().int().nullable(),
  cdl_drivers: z.number().int().nullable(),
  fleet_owned: z.number().int().nullable(),
  fleet_leased: z.number().int().nullable(),
  cdl_indicator: z.boolean().nullable(),
  hazmat_indicator: z.boolean().nullable(),
  mcs150_date: date,
  mcs150_mileage: z.number().int().nullable(),
  mcs150_mileage_year: z.number().int().nullable(),
})
export type FleetJson = z.infer<typeof FleetJson>

export const BasicJson = z.object({
  code: z.string(),
  name: z.string(),
  measure: z.number().nullable(),
  percentile: z.number().nullable(),
  alert: z.boolean().nullable(),
  roadside_alert: z.boolean().nullable(),
  acute_critical: z.boolean().nullable(),
  inspections_with_violation: z.number().int().nullable(),
  run_date: date,
  public: z.boolean(),
  /** why a value is null: not_public, withheld_fast_act, not_in_sms, or the published text */
  reason: z.string().nullable(),
})
export type BasicJson = z.infer<typeof BasicJson>

export const SafetyJson = z.object({
  safety_rating: z.enum(['Satisfactory', 'Conditional', 'Unsatisfactory']).nullable(),
  safety_rating_code: z.enum(['S', 'C', 'U']).nullable(),
  safety_rating_date: date,
  safety_review_date: date,
  safety_review_type: z.string().nullable(),
  crash_total: z.number().int().nullable(),
  fatal_crash: z.number().int().nullable(),
  injury_crash: z.number().int().nullable(),
  towaway_crash: z.number().int().nullable(),
  inspections_total: z.number().int().nullable(),
  driver_inspections: z.number().int().nullable(),
  driver_oos_inspections: z.number().int().nullable(),
  vehicle_inspections: z.number().int().nullable(),
  vehicle_oos_inspections: z.number().int().nullable(),
  hazmat_inspections: z.number().int().nullable(),
  hazmat_oos_inspections: z.number().int().nullable(),
  driver_oos_rate: z.number().nullable(),
  vehicle_oos_rate: z.number().nullable(),
  hazmat_oos_rate: z.number().nullable(),
  driver_oos_rate_national_average: z.number().nullable(),
  vehicle_oos_rate_national_average: z.number().nullable(),
  hazmat_oos_rate_national_average: z.number().nullable(),
  national_average_period: z.string().nullable(),
  iss_score: z.number().nullable(),
  window_start: date,
  window_end: date,
  as_of: date,
  basics: z.array(BasicJson),
})
export type SafetyJson = z.infer<typeof SafetyJson>

export const TrustEvidenceJson = z.object({
  dataset: z.string(),
  field: z.string(),
  value: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  as_of: date,
})
export const TrustFactorJson = z.object({
  id: z.string(),
  component: z.enum(['authority', 'insurance', 'safety', 'reviews']),
  points: z.number(),
  reason: z.string(),
  evidence: TrustEvidenceJson,
})
export const TrustGateJson = z.object({
  id: z.string(),
  cap: z.number().int(),
  reason: z.string(),
  evidence: TrustEvidenceJson,
})
export const TrustJson = z.object({
  trust_score: z.number().int().min(0).max(100).nullable(),
  trust_verified: z.boolean(),
  grade: z.string().nullable(),
  version: z.string().nullable(),
  components: z.record(z.string(), z.number()).nullable(),
  gates: z.array(TrustGateJson),
  factors: z.array(TrustFactorJson),
})
export type TrustJson = z.infer<typeof TrustJson>

export const ReviewJson = z.object({
  stars: z.number().int().min(1).max(5),
  title: z.string().nullable(),
  text: z.string().nullable(),
  date: z.string(),
  experience_type: z.string(),
  author: z.string().nullable(),
})
export const ExternalReviewJson = z.object({
  source: z.string(),
  overall_rating: z.number().nullable(),
  total_reviews: z.number().int(),
  latest_review: z.object({ date: date, text: z.string().nullable() }).nullable(),
})
export const ReviewsJson = z.object({
  verified: z.array(ReviewJson),
  summary: z.object({ average: z.number().nullable(), count: z.number().int() }),
  external: z.array(ExternalReviewJson),
})
export type ReviewsJson = z.infer<typeof ReviewsJson>

export const CrosscheckJson = z.object({
  status: z.enum(['match', 'mismatch', 'unavailable']),
  checked_at: z.string().nullable(),
  reason: z.string().nullable(),
  cached: z.boolean(),
  differences: z.array(
    z.object({ field: z.string(), mirror: z.unknown(), regulator: z.unknown() }),
  ),
})
export type CrosscheckJson = z.infer<typeof CrosscheckJson>

export const MetaJson = z.object({
  quota_used: z.number().int().nullable(),
  quota_limit: z.number().int().nullable(),
  plan: z.string().nullable(),
  source: z.enum(['mirror', 'live', 'sample']),
  data_as_of: z.record(z.string(), z.string().nullable()),
  billed: z.boolean(),
  request_id: z.string(),
})
export type MetaJson = z.infer<typeof MetaJson>

export const CarrierJson = z.object({
  dot_number: z.string(),
  mc_number: z.string().nullable(),
  legal_name: z.string().nullable(),
  dba_name: z.string().nullable(),
  entity_type: EntityType.nullable(),
  identity: IdentityJson,
  contact: ContactJson,
  authority: AuthorityJson,
  insurance: InsuranceJson,
  fleet: FleetJson,
  safety: SafetyJson,
  trust: TrustJson,
  reviews: ReviewsJson,
  crosscheck: CrosscheckJson.optional(),
  meta: MetaJson,
})
export type CarrierJson = z.infer<typeof CarrierJson>
