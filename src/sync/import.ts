/**
 * `import --dir` into the live mirror (air-gapped networks): exactly a sync whose files were
 * carried by hand. Every gate of a sync applies (the row count of each file when it is known, the
 * near-empty out-of-service guard, the shrink limits per dataset and per file), the data date is
 * the regulator's (each file's `.meta` sidecar written by scripts/download-fmcsa.sh, or the
 * operator's `--as-of`), and the freshness limit of trust_verified runs from that date, not from
 * the import. The bundled sample files are recognised by their content and refused.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { z } from 'zod'
import { isoDate } from '../clock.ts'
import type { DatasetName } from '../db/names.ts'
import type { DatasetSpec } from '../ingest/types.ts'
import { DATASETS } from './datasets.ts'
import { hashBeside, hashFile, type FileHash } from './file-hash.ts'
import {
  sidecarCounts,
  verifyCounts,
  verifyFileRows,
  verifyOosFloor,
  type PortalCounts,
} from './freshness.ts'
import { BUILD_MEMORY_MB, inLanes, inputBytes, type LaneJob } from './lanes.ts'
import { filesInDir, inputsFor } from './pipeline.ts'
import {
  runDataset,
  type BuildInputs,
  type RunDeps,
  type RunOptions,
  type RunResult,
} from './run.ts'
import { fingerprintOf, type VersionFiles } from './sync.ts'

/** The `<file>.meta` sidecar scripts/download-fmcsa.sh writes beside each file it downloads. */
const Meta = z.object({
  url: z.string().optional(),
  downloaded_at: z.iso.datetime({ offset: true }).optional(),
  /** X-SODA2-Truth-Last-Modified, else Last-Modified of the answer (the regulator's date) */
  last_modified: z.string().nullish(),
  /** the portal's own row count on the day of the download */
  count: z.number().int().nonnegative().nullish(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullish(),
})
type Meta = z.infer<typeof Meta>

export interface ImportOptions extends Omit<RunOptions, 'inputs' | 'channel' | 'asOf'> {
  only?: readonly DatasetName[]
  /** YYYY-MM-DD: the data date of the files that have no `.meta` sidecar (never in the future) */
  asOf?: string
  /** the bundled sample's folder: files with the same content are refused as mirror data */
  sampleDir: string | null
  /** SYNC_OOS_MIN_ROWS */
  oosMinRows: number
}

/** A file of the folder that was not imported, and why (one line). */
export interface RefusedFile {
  file: string
  reason: string
}

export interface ImportResult {
  results: RunResult[]
  refused: RefusedFile[]
}

interface FileFacts {
  path: string
  bytes: number
  meta: Meta | null
  /** the regulator's date of the file (ISO): its sidecar's, else the import's --as-of */
  vintage: string
}

const SAMPLE_REASON =
  'is a bundled sample file (fictitious companies), not the regulator’s; not imported as mirror data'

/**
 * Imports every dataset whose files are in `dir` into the live mirror, one dataset run each, two
 * at a time, the largest first (lanes.ts); a dataset whose data date is unknown is refused and
 * recorded like a failed sync.
 */
export async function importMirror(
  deps: RunDeps,
  dir: string,
  opts: ImportOptions,
): Promise<ImportResult> {
  const today = isoDate(deps.clock())
  if (opts.asOf !== undefined && opts.asOf > today)
    throw new Error(`--as-of ${opts.asOf} is in the future (today is ${today})`)
  const available = filesInDir(dir)
  if (available.size === 0) throw new Error(`no dataset files (named <dataset-id>.csv) in ${dir}`)
  const sample = sampleHashes(opts.sampleDir)
  const refused: RefusedFile[] = []
  const facts = new Map<string, FileFacts>()
  const undated: string[] = []
  for (const [id, path] of available) {
    const f = { path, bytes: statSync(path).size, meta: readMeta(path) }
    // only a file of a sample file's size can have its content; the others are hashed while
    // their build reads them
    const sameSize = sample.get(f.bytes)
    if (sameSize?.has((await hashFile(path, opts.signal)).sha256)) {
      refused.push({ file: basename(path), reason: SAMPLE_REASON })
      available.delete(id)
      continue
    }
    const vintage = vintageOf(f.meta) ?? (opts.asOf ? `${opts.asOf}T00:00:00.000Z` : null)
    if (vintage) facts.set(path, { ...f, vintage })
    else undated.push(basename(path))
  }
  // the data date is the regulator's, never the import day: without it nothing is imported
  if (undated.length)
    throw new Error(
      `no data date for ${undated.length > 3 ? `${undated.length} files (${undated.slice(0, 3).join(', ')}, …)` : undated.join(', ')}: download with scripts/download-fmcsa.sh (it writes a <file>.meta sidecar) or give the date the files were published with --as-of YYYY-MM-DD`,
    )
  const { only, sampleDir: _s, oosMinRows, asOf: _a, ...run } = opts
  const jobs: LaneJob<RunResult>[] = []
  for (const spec of DATASETS) {
    if (only && !only.includes(spec.name)) continue
    const inputs = inputsFor(spec, available)
    if (inputs.size === 0) continue
    jobs.push({
      weight: inputBytes(inputs),
      memory: BUILD_MEMORY_MB[spec.name],
      run: (sorting) =>
        runDataset(deps, spec, {
          ...run,
          sorting,
          channel: 'live',
          inputs: async () =>
            importInputs(deps, spec, inputs, facts, { oosMinRows, signal: opts.signal }),
        }),
    })
  }
  // two builds at a time, the largest first (lanes.ts); results in build order
  return { results: await inLanes(jobs), refused }
}

/**
 * The inputs of one dataset's import: its data date (the oldest of its files: the data is as
 * current as its oldest file), the row counts to check and the facts stored with the version.
 */
function importInputs(
  deps: RunDeps,
  spec: DatasetSpec,
  inputs: ReadonlyMap<string, string>,
  facts: ReadonlyMap<string, FileFacts>,
  opts: { oosMinRows: number; signal: AbortSignal },
): BuildInputs {
  const stored: VersionFiles['inputs'] = {}
  const counts: PortalCounts = sidecarCounts(inputs)
  const sidecars = new Map<string, Meta | null>()
  for (const [id, path] of inputs) {
    const f = facts.get(path)
    if (!f) continue
    sidecars.set(id, f.meta)
    if (typeof f.meta?.count === 'number') counts[id] = f.meta.count
    stored[id] = {
      url: f.meta?.url ?? `file:${basename(path)}`,
      sha256: '',
      bytes: f.bytes,
      kind: spec.files.find((s) => s.id === id)?.kind ?? 'baseline',
      vintage: f.vintage,
      portal_count: counts[id] ?? null,
    }
  }
  const oldest = Object.values(stored)
    .map((f) => f.vintage)
    .filter((v): v is string => typeof v === 'string')
    .sort()[0]
  const today = isoDate(deps.clock())
  if (oldest && oldest.slice(0, 10) > today)
    throw new Error(`the files' date ${oldest.slice(0, 10)} is in the future (today is ${today})`)
  // each file's SHA-256 is taken while the build reads it, and checked before activation
  const hashing = hashBeside(inputs, opts.signal)
  const files = {
    inputs: stored,
    fingerprint: '',
    vintage: oldest ?? null,
    format: spec.format ?? 1,
    imported: true,
  } satisfies VersionFiles & { imported: true }
  return {
    status: 'build',
    inputs,
    asOf: oldest?.slice(0, 10) ?? null,
    confirmedAt: oldest ? Date.parse(oldest) : null,
    files,
    verify: (stats, previous) => {
      verifyFileRows(deps.db, spec, stats, previous)
      verifyOosFloor(spec, stats, opts.oosMinRows)
      verifyCounts(spec, stats, counts)
    },
    settle: async () => {
      const hashes = await hashing
      for (const [id, entry] of Object.entries(stored)) {
        const got = hashes[id] as FileHash
        checkSidecarHash(got, sidecars.get(id))
        entry.sha256 = got.sha256
      }
      files.fingerprint = fingerprintOf(stored)
    },
  }
}

/** A file whose content is not the one its `.meta` sidecar was written for is refused. */
function checkSidecarHash(got: FileHash, meta: Meta | null | undefined): void {
  if (meta?.sha256 && meta.sha256 !== got.sha256)
    throw new Error(
      `${got.file}: its content differs from the SHA-256 in ${got.file}.meta (changed or cut since the download)`,
    )
}

/** The regulator's date a sidecar records (ISO), or null. */
function vintageOf(meta: Meta | null): string | null {
  for (const v of [meta?.last_modified, meta?.downloaded_at]) {
    const ms = v ? Date.parse(v) : Number.NaN
    if (Number.isFinite(ms)) return new Date(ms).toISOString()
  }
  return null
}

function readMeta(path: string): Meta | null {
  const side = `${path}.meta`
  if (!existsSync(side)) return null
  let json: unknown
  try {
    json = JSON.parse(readFileSync(side, 'utf8'))
  } catch {
    throw new Error(`${basename(side)}: not JSON (scripts/download-fmcsa.sh writes it)`)
  }
  const parsed = Meta.safeParse(json)
  if (!parsed.success)
    throw new Error(
      `${basename(side)}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    )
  return parsed.data
}

/** The SHA-256 of every bundled sample file (they are small), by size. */
function sampleHashes(dir: string | null): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>()
  if (!dir || !existsSync(dir)) return out
  for (const name of readdirSync(dir)) {
    if (!/\.(csv|txt)$/i.test(name)) continue
    const content = readFileSync(join(dir, name))
    const hashes = out.get(content.length) ?? new Set<string>()
    hashes.add(createHash('sha256').update(content).digest('hex'))
    out.set(content.length, hashes)
  }
  return out
}
