/** Every dataset the appliance builds, in build order. Each owner module exports its spec. */
import { censusDataset } from '../carriers/census.ts'
import type { DatasetName, DatasetSpec } from './types.ts'

export const DATASETS: readonly DatasetSpec[] = [censusDataset]

export function datasetSpec(name: DatasetName): DatasetSpec | undefined {
  return DATASETS.find((d) => d.name === name)
}
