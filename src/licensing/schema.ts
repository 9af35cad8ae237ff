/** The licensing-owned blocks of the record: authority (with revocation history) and insurance (with filings). */
import { z } from 'zod'
import { date, letter } from '../fields.ts'

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
