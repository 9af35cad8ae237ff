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

export const SuspensionReason = z.enum(['insurance', 'bond_drawdown', 'other']).meta({
  description:
    'insurance: a required insurance, bond or trust filing was cancelled; bond_drawdown: a broker or forwarder financial security drawn down below the minimum; other: anything else',
})
export type SuspensionReason = z.infer<typeof SuspensionReason>

export const AuthorityStateJson = z.object({
  docket_number: z.string(),
  authority_type: z.enum(['carrier', 'broker', 'forwarder']),
  state: z.enum([
    'active',
    'pending',
    'inactive',
    'suspension_pending',
    'suspended',
    'revoked',
    'reinstated',
  ]),
  since: date.meta({
    description:
      'effective date of the suspension, revocation or reinstatement; serve date of a pending suspension order; null for plain active, inactive or pending',
  }),
  reason: SuspensionReason.nullable(),
})
export type AuthorityStateJson = z.infer<typeof AuthorityStateJson>

export const PendingSuspensionJson = z.object({
  effective_date: date,
  reason: SuspensionReason,
  authority_type: AuthorityStateJson.shape.authority_type,
  docket_number: z.string(),
  order_type: z
    .string()
    .nullable()
    .meta({ description: 'the order as published (ORDER1_TYPE_DESC)' }),
  days_until: z.number().int(),
})
export type PendingSuspensionJson = z.infer<typeof PendingSuspensionJson>

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
  states: z.array(AuthorityStateJson).meta({
    description: 'the state of each authority per docket and type, as of today',
  }),
  pending_suspension: PendingSuspensionJson.nullable().meta({
    description:
      'the earliest suspension or revocation order with an effective date after today, or null',
  }),
  age_days: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'whole days since the first grant of authority (granted_date)' }),
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
  bipd_on_file_source: z.enum(['filings', 'carrier_file', 'legacy_baseline']).nullable().meta({
    description:
      'where bipd_on_file comes from: filings (sum of the current Motus BMC-91/91X layers), carrier_file (Motus Carrier BIPD_FILE, only when the company has no BI&PD filing data), legacy_baseline (frozen L&I figure, only for companies with no Motus activity)',
  }),
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
