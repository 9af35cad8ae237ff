/** Every dataset the appliance builds, in build order. Each owner module exports its spec. */
import { censusDataset } from '../census/census.ts'
import { equipmentDataset } from '../equipment/equipment.ts'
import { legacyDataset } from '../licensing/legacy.ts'
import { motusDataset } from '../licensing/motus.ts'
import { oosDataset } from '../safety/oos.ts'
import { smsDataset } from '../safety/sms.ts'
import { violationsDataset } from '../safety/violations.ts'
import type { DatasetSpec } from '../ingest/types.ts'
import type { DatasetName } from '../db/names.ts'

export const DATASETS: readonly DatasetSpec[] = [
  censusDataset,
  legacyDataset,
  motusDataset,
  smsDataset,
  oosDataset,
  violationsDataset,
  equipmentDataset,
]

export function datasetSpec(name: DatasetName): DatasetSpec | undefined {
  return DATASETS.find((d) => d.name === name)
}
