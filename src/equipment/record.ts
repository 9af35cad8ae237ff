/** The record's `equipment` block from the equipment dataset (docs/equipment.md). */
import type { ActiveDataset } from '../db/datasets.ts'
import { equipmentForCarrier } from './read.ts'
import type { EquipmentBlockJson } from './schema.ts'
import { normalizeCarrierName } from './vin.ts'

/** Why the block is empty: the dataset is not loaded (named as in `meta.data_as_of`). */
export const EQUIPMENT_MISSING = 'dataset_missing:equipment'

/**
 * The `equipment` block of USDOT `dot`: its sightings in the dataset's window, or, when the
 * dataset is not loaded (or has no window), every figure null with the reason. `census`: the
 * legal and DBA names (the roadside name mismatches) and the power units it reported.
 */
export function equipmentBlock(
  ds: ActiveDataset | null,
  dot: number,
  census: { legalName: string | null; dbaName: string | null; powerUnits: number | null },
): EquipmentBlockJson {
  const e = ds ? equipmentForCarrier(ds, dot, census) : null
  if (!e)
    return {
      power_units_seen: null,
      trailers_seen: null,
      reported_power_units: census.powerUnits,
      last_inspection_date: null,
      inspection_states: [],
      vins_seen_under_other_carriers: null,
      roadside: null,
      window: null,
      as_of: ds?.asOf ?? null,
      reason: EQUIPMENT_MISSING,
    }
  return {
    power_units_seen: e.power_units_seen,
    trailers_seen: e.trailers_seen,
    reported_power_units: census.powerUnits,
    last_inspection_date: e.last_inspection_date,
    inspection_states: e.inspection_states,
    vins_seen_under_other_carriers: e.vins_seen_under_other_carriers,
    roadside: e.roadside,
    window: e.window,
    as_of: ds?.asOf ?? null,
    reason: null,
  }
}

/**
 * The names officers wrote that match none of `censusNames` after normalisation (the roadside
 * name mismatches), most inspections first; [] without a census name or roadside data.
 */
export function mismatchedNames(
  block: EquipmentBlockJson,
  censusNames: readonly (string | null)[],
): { name: string; inspections: number; last_seen: string }[] {
  const known = censusNames
    .filter((n): n is string => n !== null && n.trim() !== '')
    .map(normalizeCarrierName)
  if (known.length === 0 || !block.roadside) return []
  return block.roadside.names_seen.filter((n) => !known.includes(normalizeCarrierName(n.name)))
}
