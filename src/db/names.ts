/** The dataset files the mirror builds; each is one SQLite file with its own versions. */
export const DATASET_NAMES = [
  'census',
  'legacy',
  'motus',
  'sms',
  'oos',
  'violations',
  'equipment',
] as const
export type DatasetName = (typeof DATASET_NAMES)[number]
export type Channel = 'live' | 'sample'

export interface FileStats {
  rows: number
  rejects: number
}

export interface RejectSample {
  file: string
  line: number
  reason: string
}

export interface BuildStats {
  rows: number
  rejects: number
  files: Record<string, FileStats>
  rejectSamples: RejectSample[]
  /** normalisation counters worth surfacing (e.g. money unit guesses) */
  notes: Record<string, number>
  /** wall-clock seconds per build phase (parse, insert, index, FTS, checks): where the time goes */
  phases?: Record<string, number>
}
