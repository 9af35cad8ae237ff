/**
 * Datasets from local files: `import --dir` (air-gapped networks), the bundled sample and tests.
 * Every build goes through runDataset (run.ts), like a sync. A file may come with a
 * `<file>.count` sidecar holding its row count: the version is then activated only when the file
 * holds exactly that many rows (the portal count check of a sync, for files carried by hand).
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { basename, join } from 'node:path'
import type { DatasetName } from '../db/names.ts'
import type { DatasetSpec } from '../ingest/types.ts'
import { DATASETS } from './datasets.ts'
import { sidecarCounts, verifyCounts } from './freshness.ts'
import { BUILD_MEMORY_MB, inLanes, inputBytes, type LaneJob } from './lanes.ts'
import { runDataset, type RunDeps, type RunOptions, type RunResult } from './run.ts'

export type PipelineDeps = RunDeps
export type { RunResult }

export type BuildOptions = Omit<RunOptions, 'inputs'> & {
  /** stored with the version's files (the sample's content hash) */
  fingerprint?: string
}

/** Bytes read at a time to hash an input file (one buffer, reused). */
const HASH_READ_BYTES = 1 << 20

/**
 * Each input's SHA-256 and size, read in pieces into one reused buffer (a census file is
 * gigabytes; a stream's fresh buffer per piece left garbage for a thread that allocates nothing
 * else to collect): what a check cites.
 */
async function hashInputs(
  inputs: ReadonlyMap<string, string>,
  signal: AbortSignal,
): Promise<Record<string, { file: string; sha256: string; bytes: number }>> {
  const out: Record<string, { file: string; sha256: string; bytes: number }> = {}
  const buf = Buffer.allocUnsafe(HASH_READ_BYTES)
  for (const [id, path] of inputs) {
    const h = createHash('sha256')
    const file = await open(path, 'r')
    try {
      for (;;) {
        signal.throwIfAborted()
        const { bytesRead } = await file.read(buf, 0, buf.length, null)
        if (bytesRead === 0) break
        h.update(buf.subarray(0, bytesRead))
      }
      out[id] = { file: basename(path), sha256: h.digest('hex'), bytes: (await file.stat()).size }
    } finally {
      await file.close()
    }
  }
  return out
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
      // a stop (shutdown, Ctrl-C) ends the reading too; a build that fails first leaves the hash
      // unread: its failure is not the run's
      const hashing = hashInputs(inputs, run.signal)
      hashing.catch(() => {})
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
