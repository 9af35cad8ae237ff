/**
 * Writes whole datasets: the bundled sample (`data/sample/`) and full-scale synthetic files for
 * benchmarks. Files are named `<socrata id>.csv` (docs/data.md) and streamed with
 * backpressure, so memory stays flat at any size.
 */
import { writePreviousCensus } from './sample-history.ts'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { FILE_COLUMNS, FILE_IDS, FILE_KEYS, type FileKey } from './columns.ts'
import { randomCore } from './company.ts'
import { createContext, type GenContext } from './context.ts'
import { CsvSink } from './csv.ts'
import { addLicensing } from './licensing.ts'
import { type Company } from './model.ts'
import type { Emit } from './rows-format.ts'
import { emitCompany } from './rows.ts'
import { addSafety } from './safety.ts'
import { sampleCompanies } from './sample.ts'

export const DEFAULT_SEED = 20261101

export interface FileResult {
  path: string
  rows: number
}

export interface WriteResult {
  files: Partial<Record<FileKey, FileResult>>
  companies: number
  elapsedMs: number
}

export interface Progress {
  companies: number
  total: number
  censusRows: number
  elapsedMs: number
}

/** Streams the records of `companies` into one CSV file per key in `keys` under `dir`. */
export async function writeCompanies(
  dir: string,
  companies: Iterable<Company>,
  keys: readonly FileKey[],
  opts: {
    total?: number
    onProgress?: (p: Progress) => void
    progressEvery?: number
    signal?: AbortSignal
  } = {},
): Promise<WriteResult> {
  await mkdir(dir, { recursive: true })
  const started = performance.now()
  const sinks = new Map<FileKey, CsvSink>()
  for (const key of keys)
    sinks.set(key, new CsvSink(join(dir, `${FILE_IDS[key]}.csv`), FILE_COLUMNS[key]))
  const emit: Emit = {}
  for (const [key, sink] of sinks) emit[key] = (record) => sink.line(record)
  const all = [...sinks.values()]
  const every = opts.progressEvery ?? 100_000
  let n = 0
  try {
    for (const c of companies) {
      emitCompany(c, emit)
      n++
      if ((n & 255) === 0) {
        opts.signal?.throwIfAborted()
        for (const s of all) await s.drain()
      }
      if (opts.onProgress && n % every === 0) {
        opts.onProgress({
          companies: n,
          total: opts.total ?? n,
          censusRows: sinks.get('census')?.rows ?? 0,
          elapsedMs: performance.now() - started,
        })
      }
    }
  } finally {
    await Promise.all(all.map((s) => s.close()))
  }
  const files: WriteResult['files'] = {}
  for (const [key, sink] of sinks) files[key] = { path: sink.path, rows: sink.rows }
  return { files, companies: n, elapsedMs: performance.now() - started }
}

/**
 * Writes the bundled sample dataset (about 300 companies: the special companies of
 * data/sample/README.md plus random fillers) into `dir`. Same seed → same bytes.
 */
export async function writeSampleDataset(
  dir: string,
  opts: { seed?: number } = {},
): Promise<WriteResult> {
  const ctx = createContext(opts.seed ?? DEFAULT_SEED, 'sample')
  const result = await writeCompanies(dir, sampleCompanies(ctx), FILE_KEYS)
  writePreviousCensus(dir)
  return result
}

export interface ScaleOptions {
  /** Company Census rows (one per USDOT); every other file scales with it */
  censusRows: number
  seed?: number
  /** First USDOT number; USDOTs are consecutive from here */
  firstDot?: number
  /** Files to write (default: all) */
  files?: readonly FileKey[]
  onProgress?: (p: Progress) => void
  progressEvery?: number
  signal?: AbortSignal
}

const NEEDS_LICENSING: readonly FileKey[] = [
  'legacyCarrier',
  'legacyActPendInsur',
  'legacyInsHist',
  'legacyBoc3',
  'motusCarrier',
  'motusInsur',
  'motusInsHist',
  'motusBoc3',
]
const NEEDS_SAFETY: readonly FileKey[] = [
  'smsInspection',
  'smsCrash',
  'smsViolation',
  'smsAbPassProperty',
  'smsCPassProperty',
  'smsAbPass',
  'smsCPass',
  'oosOrders',
  'mcmisInspection',
  'mcmisUnits',
]

/** Random companies for USDOTs firstDot … firstDot+count-1, building only the layers needed. */
export function* scaleCompanies(
  ctx: GenContext,
  count: number,
  firstDot: number,
  layers: { licensing: boolean; safety: boolean },
): Generator<Company> {
  for (let i = 0; i < count; i++) {
    const c = randomCore(ctx, firstDot + i)
    if (layers.licensing) addLicensing(ctx, c)
    if (layers.safety) addSafety(ctx, c)
    yield c
  }
}

/**
 * Writes synthetic files at scale: `censusRows` USDOTs, with every other file in realistic
 * proportion (at 4.5 M census rows the real files' sizes). Deterministic and streaming.
 */
export async function writeScaleDataset(dir: string, opts: ScaleOptions): Promise<WriteResult> {
  const keys = opts.files ?? FILE_KEYS
  const ctx = createContext(opts.seed ?? DEFAULT_SEED, 'scale')
  const layers = {
    licensing: keys.some((k) => NEEDS_LICENSING.includes(k)),
    safety: keys.some((k) => NEEDS_SAFETY.includes(k)),
  }
  return writeCompanies(
    dir,
    scaleCompanies(ctx, opts.censusRows, opts.firstDot ?? 10_000, layers),
    keys,
    {
      total: opts.censusRows,
      onProgress: opts.onProgress,
      progressEvery: opts.progressEvery,
      signal: opts.signal,
    },
  )
}
