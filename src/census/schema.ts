/** The census-owned blocks of the record: identity, contact and fleet. */
import { z } from 'zod'
import { date, EntityType, AddressJson } from '../fields.ts'

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
