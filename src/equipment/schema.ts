/** The JSON of GET /v1/equipment (docs/equipment.md). */
import { z } from 'zod'

export const PlateJson = z.object({
  plate: z.string().meta({ description: 'as issued: upper case, no spaces or dashes' }),
  state: z.string().meta({ description: '2-letter US state, Canadian province or Mexican state' }),
})

export const EquipmentCarrierJson = z.object({
  dot_number: z.string(),
  legal_name: z
    .string()
    .nullable()
    .meta({ description: 'census legal name; null when not in the census' }),
  first_seen: z
    .string()
    .meta({ description: 'first inspection or crash in the window (YYYY-MM-DD)' }),
  last_seen: z
    .string()
    .meta({ description: 'latest inspection or crash in the window (YYYY-MM-DD)' }),
  inspections: z
    .number()
    .int()
    .meta({ description: 'distinct inspections (one inspection is one sighting)' }),
  crashes: z.number().int().meta({ description: 'distinct crash reports' }),
  plates: z.array(PlateJson).meta({ description: 'plates the unit carried under this USDOT' }),
  vins: z.array(z.string()).optional().meta({
    description: 'plate lookups only: the VINs seen with the plate under this USDOT, latest first',
  }),
  unit_type: z
    .string()
    .nullable()
    .meta({ description: 'as written on the latest inspection (TRUCK TRACTOR, SEMI-TRAILER…)' }),
  make: z.string().nullable(),
})

/** The response fields of GET /v1/equipment before its `meta` block. */
export const EquipmentAnswerJson = z.object({
  vin: z.string().nullable().meta({
    description:
      'the VIN asked for; for a plate, the VIN seen with it most recently (null when none)',
  }),
  vin_valid: z
    .boolean()
    .nullable()
    .meta({ description: '17 characters without I, O, Q and a correct check digit (49 CFR 565)' }),
  model_year: z.number().int().nullable().meta({
    description: 'from the 10th character; null when the 30-year cycle leaves it ambiguous',
  }),
  plate: PlateJson.nullable().meta({ description: 'the plate asked for (null for a VIN lookup)' }),
  carriers: z.array(EquipmentCarrierJson).meta({ description: 'newest last_seen first' }),
  shared_widely: z.boolean().meta({
    description:
      'seen under more than 5 USDOT numbers in the window (lessors, rental fleets): shown, never a link on its own',
  }),
  window: z.object({ from: z.string(), to: z.string() }),
})
export type EquipmentAnswerJson = z.infer<typeof EquipmentAnswerJson>
