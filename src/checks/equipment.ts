/**
 * The pickup check's equipment answer: is the truck at the dock this carrier's? Each unit the
 * caller names (a VIN, or a plate and its state) is looked up in the equipment dataset of the
 * caller's view and judged against the checked USDOT; the sightings used are kept as evidence in
 * the signed check (docs/checks.md, docs/equipment.md).
 */
import { z } from 'zod'
import type { ActiveDataset } from '../db/datasets.ts'
import { date } from '../fields.ts'
import { EQUIPMENT_MISSING } from '../equipment/record.ts'
import { equipmentWindow, sightingsOf, toEquipmentJson, type Sightings } from '../equipment/read.ts'
import { PlateParam, StateParam, VinParam } from '../equipment/request.ts'
import { EquipmentAnswerJson } from '../equipment/schema.ts'
import { vinStatus } from '../equipment/vin.ts'

/** At most this many units per check (a tractor and up to three trailers). */
export const MAX_EQUIPMENT_UNITS = 4

/** One unit: `{"vin"}` or `{"plate", "state"}` (one object, so an error names its field). */
export const EquipmentUnitRequest = z
  .strictObject({
    vin: VinParam.optional(),
    plate: PlateParam.optional(),
    state: StateParam.optional(),
  })
  .superRefine((u, ctx) => {
    const plated = u.plate !== undefined || u.state !== undefined
    if ((u.vin !== undefined) === plated)
      ctx.addIssue({ code: 'custom', message: 'give either "vin" or "plate" and "state"' })
    else if (plated && u.plate === undefined)
      ctx.addIssue({ code: 'custom', message: 'plate is required with state', path: ['plate'] })
    else if (plated && u.state === undefined)
      ctx.addIssue({ code: 'custom', message: 'state is required with plate', path: ['state'] })
  })
  .transform((u): { vin: string } | { plate: string; state: string } =>
    u.vin !== undefined ? { vin: u.vin } : { plate: u.plate ?? '', state: u.state ?? '' },
  )
  .meta({ description: 'a unit at the dock: {"vin"}, or {"plate", "state"}' })
export type EquipmentUnitRequest = z.infer<typeof EquipmentUnitRequest>

/** POST /v1/checks `equipment`. */
export const EquipmentRequest = z
  .array(EquipmentUnitRequest)
  .min(1, 'equipment needs at least one unit')
  .max(MAX_EQUIPMENT_UNITS, `equipment takes at most ${MAX_EQUIPMENT_UNITS} units`)
  .meta({
    description: `the units at the dock, at most ${MAX_EQUIPMENT_UNITS}: each a {"vin"} or a {"plate", "state"}; answered in the check's \`equipment_check\``,
  })

export const EquipmentStatus = z.enum([
  'this_carrier',
  'other_carrier',
  'never_seen',
  'invalid_vin',
])

const UnitJson = z.union([
  z.object({ vin: z.string() }),
  z.object({ plate: z.string(), state: z.string() }),
])

export const EquipmentUnitCheckJson = z.object({
  unit: UnitJson.meta({ description: 'the unit as asked, normalised' }),
  status: EquipmentStatus.meta({
    description:
      '`this_carrier`: seen under the checked USDOT in the window (whatever else it was seen under); `other_carrier`: seen only under other USDOTs; `never_seen`; `invalid_vin`: not a conforming VIN (wrong check digit, I/O/Q, not 17 characters, or a placeholder)',
  }),
  shared_widely: z.boolean().meta({
    description:
      'seen under more than 5 USDOT numbers (lessors, rental fleets): never counted as another carrier’s unit by the policy fields',
  }),
  other_carriers: z
    .array(
      z.object({
        dot_number: z.string(),
        legal_name: z.string().nullable(),
        last_seen: z.string(),
      }),
    )
    .meta({ description: 'the other USDOTs it was seen under, newest first' }),
  last_seen_with_this_carrier: date,
  evidence: EquipmentAnswerJson.nullable().meta({
    description: 'the sightings used, as GET /v1/equipment answers them; null when never seen',
  }),
})
export type EquipmentUnitCheckJson = z.infer<typeof EquipmentUnitCheckJson>

const unitCount = (what: string) =>
  z
    .number()
    .int()
    .nullable()
    .meta({ description: `units ${what}; null without the dataset` })

export const EquipmentCheckJson = z
  .object({
    units: z.array(EquipmentUnitCheckJson),
    this_carrier: unitCount('seen under the checked USDOT'),
    other_carrier: unitCount('seen only under other USDOTs'),
    never_seen: unitCount('never seen in the window'),
    invalid_vin: unitCount('whose VIN is not a conforming one'),
    other_carrier_last_seen: date.meta({
      description:
        'of the units never seen with this carrier and not widely shared, the latest day one was seen under another USDOT; null when none',
    }),
    window: z.object({ from: z.string(), to: z.string() }).nullable(),
    as_of: date.meta({ description: 'as-of date of the equipment dataset' }),
    reason: z.string().nullable().meta({
      description: '`dataset_missing:equipment` when the equipment dataset is not loaded',
    }),
  })
  .meta({ description: 'the units named in the request, judged against the checked USDOT' })
export type EquipmentCheckJson = z.infer<typeof EquipmentCheckJson>

/** One unit's answer from its sightings. */
function judgeUnit(
  unit: EquipmentUnitRequest,
  found: Sightings | null,
  dot: number,
  legalName: (dot: number) => string | null,
  year: number,
): EquipmentUnitCheckJson {
  const mine = found?.carriers.find((c) => c.dot === dot) ?? null
  const others = found?.carriers.filter((c) => c.dot !== dot) ?? []
  const status: EquipmentUnitCheckJson['status'] =
    'vin' in unit && vinStatus(unit.vin) !== 'valid'
      ? 'invalid_vin'
      : mine
        ? 'this_carrier'
        : others.length > 0
          ? 'other_carrier'
          : 'never_seen'
  return {
    unit: 'vin' in unit ? { vin: unit.vin } : { plate: unit.plate, state: unit.state },
    status,
    shared_widely: found?.sharedWidely ?? false,
    other_carriers: others.map((c) => ({
      dot_number: String(c.dot),
      legal_name: legalName(c.dot),
      last_seen: c.lastSeen,
    })),
    last_seen_with_this_carrier: mine?.lastSeen ?? null,
    evidence: found && toEquipmentJson(found, legalName, year, !('vin' in unit)),
  }
}

const countOf = (units: EquipmentUnitCheckJson[], s: EquipmentUnitCheckJson['status']) =>
  units.filter((u) => u.status === s).length

/**
 * The equipment answer of a check of USDOT `dot`: each unit judged from its sightings in `ds`
 * (null: the dataset is not loaded, every count null with the reason). `legalName` names the
 * other USDOTs (the census's), `year` is the current year (model years).
 */
export function checkEquipment(
  ds: ActiveDataset | null,
  dot: number,
  units: readonly EquipmentUnitRequest[],
  legalName: (dot: number) => string | null,
  year: number,
): EquipmentCheckJson {
  const window = ds ? equipmentWindow(ds) : null
  if (!ds || !window)
    return {
      units: [],
      this_carrier: null,
      other_carrier: null,
      never_seen: null,
      invalid_vin: null,
      other_carrier_last_seen: null,
      window: null,
      as_of: ds?.asOf ?? null,
      reason: EQUIPMENT_MISSING,
    }
  const answered = units.map((u) => judgeUnit(u, sightingsOf(ds, u), dot, legalName, year))
  const elsewhere = answered
    .filter((u) => u.status === 'other_carrier' && !u.shared_widely)
    .flatMap((u) => u.other_carriers.map((c) => c.last_seen))
    .sort()
  return {
    units: answered,
    this_carrier: countOf(answered, 'this_carrier'),
    other_carrier: countOf(answered, 'other_carrier'),
    never_seen: countOf(answered, 'never_seen'),
    invalid_vin: countOf(answered, 'invalid_vin'),
    other_carrier_last_seen: elsewhere.at(-1) ?? null,
    window,
    as_of: ds.asOf,
    reason: null,
  }
}
