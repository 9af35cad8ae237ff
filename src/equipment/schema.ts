/** The JSON of GET /v1/equipment and the record's `equipment` block (docs/equipment.md). */
import { z } from 'zod'
import { date } from '../fields.ts'

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

const count = (description: string) => z.number().int().nullable().meta({ description })

export const RoadsideNameJson = z.object({
  name: z.string().meta({ description: 'the carrier name as the officer wrote it' }),
  inspections: z.number().int(),
  last_seen: z.string().meta({ description: 'latest inspection with this name (YYYY-MM-DD)' }),
})

export const RoadsideJson = z
  .object({
    inspections: z.number().int().meta({
      description: 'inspections whose carrier name the officer recorded (Vehicle Inspection File)',
    }),
    names_seen: z.array(RoadsideNameJson).meta({ description: 'most inspections first' }),
    name_mismatches: z.number().int().nullable().meta({
      description:
        'inspections whose officer-written name matches neither the census legal nor DBA name (LLC, INC, punctuation ignored); null without a census name. A review fact: leasing puts other names on doors',
    }),
    last_seen_on_road: date,
  })
  .meta({ description: 'the carrier as officers recorded it at the roadside' })

/** The record's `equipment` block (docs/equipment.md): every key present, null when not known. */
export const EquipmentBlockJson = z
  .object({
    power_units_seen: count(
      'distinct valid VINs of power units seen under the USDOT in the window',
    ),
    trailers_seen: count('distinct valid VINs of trailers seen under the USDOT in the window'),
    reported_power_units: count('power units the carrier reported in its census filing (MCS-150)'),
    last_inspection_date: date,
    inspection_states: z
      .array(z.string())
      .meta({ description: 'report states (2-letter codes), most inspections first' }),
    vins_seen_under_other_carriers: count(
      'of its valid, not widely shared VINs, how many were also seen under another USDOT in the window: a review fact, not a verdict',
    ),
    roadside: RoadsideJson.nullable(),
    window: z
      .object({ from: z.string(), to: z.string() })
      .nullable()
      .meta({ description: 'the 24 months of inspections and crashes read' }),
    as_of: date.meta({ description: 'as-of date of the equipment dataset' }),
    reason: z.string().nullable().meta({
      description:
        '`dataset_missing:equipment` when the equipment dataset is not loaded (every figure but reported_power_units is then null); null otherwise',
    }),
  })
  .meta({ description: 'Equipment and roadside identity (docs/equipment.md)' })
export type EquipmentBlockJson = z.infer<typeof EquipmentBlockJson>
