/** The census-owned blocks of the record: identity, contact and fleet. */
import { z } from 'zod'
import { date, EntityType, AddressJson } from '../fields.ts'

/** Census STATUS_CODE: A active, I inactive, P pending (a registration not yet active). */
export const UsdotStatus = z.enum(['active', 'inactive', 'pending'])
export type UsdotStatus = z.infer<typeof UsdotStatus>

export const PriorRevokeJson = z
  .object({
    flag: z.boolean(),
    dot_number: z.string().nullable(),
  })
  .meta({
    description:
      "FMCSA's link from this company to a predecessor whose USDOT registration was revoked (census PRIOR_REVOKE_FLAG, PRIOR_REVOKE_DOT_NUMBER); null when the census says nothing.",
  })
export type PriorRevokeJson = z.infer<typeof PriorRevokeJson>

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
  /** FMCSA's own link to a revoked predecessor (census PRIOR_REVOKE_FLAG / PRIOR_REVOKE_DOT_NUMBER) */
  prior_revoke: PriorRevokeJson.nullable(),
  private_entity: z.boolean().nullable(),
  passenger_carrier: z.boolean().nullable(),
  usdot_status: UsdotStatus.nullable(),
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
  /** since when mail is returned (census CARRIER_MAILING_UND_DATE); information, not a gate */
  mailing_address_undeliverable_date: date,
})
export type ContactJson = z.infer<typeof ContactJson>

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
