/** The company verification record (the API reference's company record): composes each owner's block schema into CarrierJson. Every key is always present; a value not on file is null. */
import { z } from 'zod'
import { UsageMetaShape } from '../keys/billing.ts'
import { EntityType } from '../fields.ts'
import { ContactJson, FleetJson, IdentityJson } from '../census/schema.ts'
import { CrosscheckJson } from '../crosscheck/schema.ts'
import { AuthorityJson, InsuranceJson } from '../licensing/schema.ts'
import { ReviewsJson } from '../reviews/schema.ts'
import { SafetyJson } from '../safety/schema.ts'
import { EquipmentBlockJson } from '../equipment/schema.ts'
import { TrustJson } from '../trust/schema.ts'
import { IdentityHistoryJson } from '../identity/schema.ts'

/** An answer's meta block; its usage fields are billing's (keys/billing.ts `UsageMetaShape`). */
export const MetaJson = z.object({
  quota_used: UsageMetaShape.quota_used,
  quota_limit: UsageMetaShape.quota_limit,
  plan: UsageMetaShape.plan,
  source: z.enum(['mirror', 'live', 'sample']),
  data_as_of: z.record(z.string(), z.string().nullable()).meta({
    description:
      "per dataset, the regulator's date of the data behind the answer (YYYY-MM-DD): the portal's last-modified date of a download, or an imported file's own date",
  }),
  imported_at: z.record(z.string(), z.string().nullable()).meta({
    description:
      'per dataset, when that version of the data arrived on this appliance (ISO time of its activation)',
  }),
  billed: UsageMetaShape.billed,
  request_id: z.string(),
})
export type MetaJson = z.infer<typeof MetaJson>

export const CarrierJson = z.object({
  dot_number: z.string(),
  mc_number: z.string().nullable(),
  legal_name: z.string().nullable(),
  dba_name: z.string().nullable(),
  entity_type: EntityType.nullable(),
  identity: IdentityJson.extend(IdentityHistoryJson.shape),
  contact: ContactJson,
  authority: AuthorityJson,
  insurance: InsuranceJson,
  fleet: FleetJson,
  safety: SafetyJson,
  equipment: EquipmentBlockJson,
  trust: TrustJson,
  reviews: ReviewsJson,
  crosscheck: CrosscheckJson.optional(),
  meta: MetaJson,
})
export type CarrierJson = z.infer<typeof CarrierJson>
