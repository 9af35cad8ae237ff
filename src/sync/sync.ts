/**
 * The regulator mirror: for one dataset, download every file conditionally, and when any of them
 * changed rebuild the dataset from the newest local copies. The run itself (lease, run row, build,
 * verify, activate, events) is runDataset's (run.ts); this module only gathers the inputs.
 * Jobs, the CLI and tests all call syncDataset/syncAll.
 */
import { existsSync } from 'node:fs'
import type { Deps } from '../deps.ts'
import { VerifyError } from '../ingest/build.ts'
import { DATASETS } from './datasets.ts'
import { downloadFile, getSourceFile, type DownloadOutcome } from './download.ts'
import {
  runDataset,
  type FileResult,
  type RunDeps,
  type RunInputs,
  type RunInputsContext,
  type RunResult,
  type RunTrigger,
} from './run.ts'
import { sourcesOf, type Source } from './sources.ts'
import type { DatasetSpec } from '../ingest/types.ts'
import type { BuildStats, DatasetName } from '../db/names.ts'
import type { VersionRow } from '../db/versions.ts'

export type SyncDeps = Pick<
  Deps,
  'config' | 'db' | 'datasets' | 'log' | 'clock' | 'fetch' | 'random'
> &
  Pick<RunDeps, 'onActivated'>

export type SyncProgress =
  | { dataset: DatasetName; phase: 'download'; file: string; bytes: number; total: number | null }
  | { dataset: DatasetName; phase: 'build'; file: string; rows: number }

export interface SyncOptions {
  signal: AbortSignal
  trigger: RunTrigger
  onProgress?: (p: SyncProgress) => void
  /** first retry delay of downloads (tests keep it tiny); default 2 s */
  retryBaseMs?: number
  /** rebuild even when no file changed */
  force?: boolean
}

/** A sync's result is a dataset run's result. */
export type SyncResult = RunResult

/** The per-file facts stored with a version (dataset_versions.files). */
interface VersionFiles {
  inputs: Record<string, { url: string; sha256: string; bytes: number; kind: string }>
  fingerprint: string
}

/**
 * Mirrors one dataset (runDataset with downloaded inputs). Safe to call from any process: the
 * dataset's lease in app.db makes a second caller return 'skipped'. A failure keeps the previous
 * version active and is recorded; an unchanged source records 'unchanged' and creates no version.
 */
export async function syncDataset(
  spec: DatasetSpec,
  deps: SyncDeps,
  opts: SyncOptions,
): Promise<SyncResult> {
  const onProgress = withProgressLog(deps, opts.onProgress)
  return runDataset(
    {
      db: deps.db,
      datasets: deps.datasets,
      log: deps.log,
      clock: deps.clock,
      paths: { datasets: deps.config.paths.datasets, downloads: deps.config.paths.downloads },
      onActivated: deps.onActivated,
    },
    spec,
    {
      channel: 'live',
      trigger: opts.trigger,
      signal: opts.signal,
      onProgress: (p) => onProgress({ ...p, phase: 'build' }),
      inputs: (ctx) => download(spec, deps, { ...opts, onProgress }, ctx),
    },
  )
}

const PROGRESS_LOG_MS = 30_000

/** Long work shows in the logs too: one progress line per dataset every 30 s. */
function withProgressLog(
  deps: SyncDeps,
  inner: SyncOptions['onProgress'],
): (p: SyncProgress) => void {
  let last = Date.now()
  return (p) => {
    inner?.(p)
    const now = Date.now()
    if (now - last < PROGRESS_LOG_MS) return
    last = now
    deps.log.info(p, 'sync progress')
  }
}

/** Downloads every source of the dataset and decides whether anything changed since `previous`. */
async function download(
  spec: DatasetSpec,
  deps: SyncDeps,
  opts: SyncOptions,
  ctx: RunInputsContext,
): Promise<RunInputs> {
  const sources = sourcesOf(spec, deps.config.sync.baseUrl)
  const inputs = new Map<string, string>()
  const facts: VersionFiles['inputs'] = {}
  const { files } = ctx
  for (const src of sources) {
    opts.signal.throwIfAborted()
    const r = await fetchSource(src, deps, opts)
    files.push(r.file)
    ctx.renew()
    if (r.path && r.sha256) {
      inputs.set(src.id, r.path)
      facts[src.id] = {
        url: r.file.url,
        sha256: r.sha256,
        bytes: r.file.bytes ?? 0,
        kind: src.kind,
      }
    }
  }
  const missing = files.filter((f, i) => sources[i]?.required && !inputs.has(f.id))
  if (missing.length)
    throw new Error(missing.map((f) => `${f.id}: ${f.error ?? 'not available'}`).join('; '))

  const active = ctx.previous
  const previous = active?.files ? (JSON.parse(active.files) as Partial<VersionFiles>) : null
  if (!opts.force && active && previous?.inputs && !changedSince(previous.inputs, facts))
    return { status: files.some((f) => f.status === 'not_yet') ? 'not_yet' : 'unchanged' }
  return {
    status: 'build',
    inputs,
    files: { inputs: facts, fingerprint: fingerprintOf(facts) } satisfies VersionFiles,
    verify: (stats, prev) => verifyFiles(deps, spec, stats, prev),
  }
}

interface SourceFetch {
  file: FileResult
  path: string | null
  sha256: string | null
}

/**
 * Downloads one file and decides what the build may use: a daily diff only when today's copy was
 * served (404 = not yet, never an older day); a baseline file falls back to its kept copy when an
 * optional download fails.
 */
async function fetchSource(src: Source, deps: SyncDeps, opts: SyncOptions): Promise<SourceFetch> {
  const file: FileResult = {
    id: src.id,
    status: 'failed',
    url: src.primary.url,
    bytes: null,
    sha256: null,
    error: null,
  }
  let outcome: DownloadOutcome
  try {
    outcome = await downloadFile(deps, src.id, [src.primary, ...src.fallbacks], {
      signal: opts.signal,
      dir: deps.config.paths.downloads,
      timeoutMs: deps.config.sync.timeoutMs,
      retries: deps.config.sync.retries,
      retryBaseMs: opts.retryBaseMs,
      appToken: deps.config.sync.appToken,
      onProgress: (p) => opts.onProgress?.({ dataset: src.dataset, phase: 'download', ...p }),
    })
  } catch (err) {
    opts.signal.throwIfAborted()
    file.error = err instanceof Error ? err.message : String(err)
    deps.log.warn({ dataset: src.dataset, file: src.id, error: file.error }, 'download failed')
    if (src.kind === 'diff' || src.required) return { file, path: null, sha256: null }
    return { file, ...keptCopy(deps, src.id) }
  }
  if (outcome.status === 'not_found') {
    file.url = outcome.url
    if (src.kind === 'diff') {
      file.status = 'not_yet'
      return { file, path: null, sha256: null }
    }
    file.status = 'missing'
    file.error = `HTTP 404 (${[src.primary, ...src.fallbacks].map((u) => u.url).join(', ')})`
    if (src.required) return { file, path: null, sha256: null }
    return { file, ...keptCopy(deps, src.id) }
  }
  file.status = outcome.status
  file.url = outcome.url
  file.bytes = outcome.bytes
  file.sha256 = outcome.sha256
  return { file, path: outcome.path, sha256: outcome.sha256 }
}

function keptCopy(deps: SyncDeps, id: string): { path: string | null; sha256: string | null } {
  const row = getSourceFile(deps.db, id)
  return row?.path && row.sha256 && existsSync(row.path)
    ? { path: row.path, sha256: row.sha256 }
    : { path: null, sha256: null }
}

const fingerprintOf = (facts: VersionFiles['inputs']) =>
  Object.keys(facts)
    .sort()
    .map((id) => `${id}:${facts[id]?.sha256 ?? ''}`)
    .join(',')

/**
 * Whether the inputs differ from the ones the active version was built from. A daily diff that is
 * not published yet is no change (its absence proves nothing); a baseline file that appeared,
 * disappeared or changed content is.
 */
function changedSince(previous: VersionFiles['inputs'], now: VersionFiles['inputs']): boolean {
  for (const [id, f] of Object.entries(now)) if (previous[id]?.sha256 !== f.sha256) return true
  for (const [id, f] of Object.entries(previous)) if (!now[id] && f.kind !== 'diff') return true
  return false
}

/**
 * The shrink guard per file: a required file with fewer than minRowsRatio × its rows in the
 * previous version refuses the build (a whole-dataset count would hide a halved small file).
 */
function verifyFiles(
  deps: SyncDeps,
  spec: DatasetSpec,
  stats: BuildStats,
  previous: VersionRow | null,
): void {
  if (!previous) return
  const row = deps.db
    .prepare(`SELECT stats FROM sync_runs WHERE version_id = ? AND status = 'activated' LIMIT 1`)
    .get(previous.id) as { stats: string | null } | undefined
  const before = row?.stats ? (JSON.parse(row.stats) as Partial<BuildStats>).files : undefined
  if (!before) return
  for (const f of spec.files) {
    // optional files (BOC-3, the diffs) may come and go without refusing the dataset
    if (!f.required) continue
    const was = before[f.id]?.rows ?? 0
    const now = stats.files[f.id]?.rows ?? 0
    if (was > 0 && now < was * spec.minRowsRatio)
      throw new VerifyError(
        `${f.id}: ${now} rows is less than ${spec.minRowsRatio * 100}% of the previous version's ${was}`,
      )
  }
}

/**
 * Mirrors every dataset (or `only` those), one after the other, in build order. A shutdown stops
 * it after the interrupted dataset (the datasets not reached are not in the result).
 */
export async function syncAll(
  deps: SyncDeps,
  opts: SyncOptions & { only?: readonly DatasetName[] },
): Promise<SyncResult[]> {
  const results: SyncResult[] = []
  for (const spec of DATASETS) {
    if (opts.only && !opts.only.includes(spec.name)) continue
    if (opts.signal.aborted) break
    results.push(await syncDataset(spec, deps, opts))
  }
  return results
}
