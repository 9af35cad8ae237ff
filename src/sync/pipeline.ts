/**
 * Datasets from local files: `import --dir` (air-gapped networks), the bundled sample and tests.
 * Every build goes through runDataset (run.ts), like a sync. A file may come with a
 * `<file>.count` sidecar holding its row count: the version is then activated only when the file
 * holds exactly that many rows (the portal count check of a sync, for files carried by hand).
 */
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { DatasetName } from '../db/names.ts'
import type { DatasetSpec } from '../ingest/types.ts'
import { DATASETS } from './datasets.ts'
import { hashBeside } from './file-hash.ts'
import { sidecarCounts, verifyCounts } from './freshness.ts'
import { BUILD_MEMORY_MB, inLanes, inputBytes, type LaneJob } from './lanes.ts'
import { runDataset, type RunDeps, type RunOptions, type RunResult } from './run.ts'

export type PipelineDeps = RunDeps
export type { RunResult }

export type BuildOptions = Omit<RunOptions, 'inputs'> & {
  /** stored with the version's files (the sample's content hash) */
  fingerprint?: string
}

/**
 * Builds a dataset from the given local files (file id → path) and activates it (runDataset).
 * The version stores each file's path (`inputs`), SHA-256 and size (`hashes`). The files are
 * hashed while the build reads them (the hash is only stored, it decides nothing): the hashing
 * thread reads ahead of the parser, which then finds the file in the page cache.
 */
export async function runBuild(
  deps: RunDeps,
  spec: DatasetSpec,
  inputs: ReadonlyMap<string, string>,
  opts: BuildOptions,
): Promise<RunResult> {
  const { fingerprint, ...run } = opts
  return runDataset(deps, spec, {
    ...run,
    inputs: () => {
      const counts = sidecarCounts(inputs)
      // a stop (shutdown, Ctrl-C) ends the reading too
      const hashing = hashBeside(inputs, run.signal)
      const files: Record<string, unknown> = {
        inputs: Object.fromEntries(inputs),
        hashes: null,
        fingerprint: fingerprint ?? null,
        counts,
      }
      return Promise.resolve({
        status: 'build',
        inputs,
        files,
        verify: (stats) => verifyCounts(spec, stats, counts),
        settle: async () => {
          files.hashes = await hashing
        },
      })
    },
  })
}

/** Maps the files of a directory to dataset file ids: `<id>.csv`, `<id>.txt` or a bare `<id>`. */
export function filesInDir(dir: string): Map<string, string> {
  const out = new Map<string, string>()
  if (!existsSync(dir)) return out
  for (const name of readdirSync(dir)) {
    const m = /^([a-z0-9]{4}-[a-z0-9]{4})(\.(csv|txt))?$/i.exec(name)
    if (m?.[1]) out.set(m[1].toLowerCase(), join(dir, name))
  }
  return out
}

/** The inputs a dataset can use from a set of available files (by id or alternative id). */
export function inputsFor(
  spec: DatasetSpec,
  available: ReadonlyMap<string, string>,
): Map<string, string> {
  const inputs = new Map<string, string>()
  for (const f of spec.files) {
    const path = [f.id, ...(f.altIds ?? [])]
      .map((id) => available.get(id))
      .find((p) => p !== undefined)
    if (path) inputs.set(f.id, path)
  }
  return inputs
}

/**
 * Imports every dataset whose files are in `dir` (air-gapped procedure and the bundled sample),
 * two builds at a time (lanes.ts). Returns one result per dataset found, in build order; datasets
 * with none of their files are left alone.
 */
export async function importDir(
  deps: RunDeps,
  dir: string,
  opts: BuildOptions & { only?: readonly DatasetName[] },
): Promise<RunResult[]> {
  const available = filesInDir(dir)
  if (available.size === 0) throw new Error(`no dataset files (named <dataset-id>.csv) in ${dir}`)
  const { only, ...run } = opts
  const jobs: LaneJob<RunResult>[] = []
  for (const spec of DATASETS) {
    if (only && !only.includes(spec.name)) continue
    const inputs = inputsFor(spec, available)
    if (inputs.size === 0) continue
    jobs.push({
      weight: inputBytes(inputs),
      memory: BUILD_MEMORY_MB[spec.name],
      run: (sorting) => runBuild(deps, spec, inputs, { ...run, sorting }),
    })
  }
  // two builds at a time, the largest first (lanes.ts); results in build order
  return inLanes(jobs)
}
