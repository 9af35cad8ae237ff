/**
 * The regulator mirror: for one dataset, download every file conditionally, and when any of them
 * changed rebuild the dataset from the newest local copies. The run itself (lease, run row, build,
 * verify, activate, events) is runDataset's (run.ts); this module only gathers the inputs.
 * Jobs, the CLI and tests all call syncDataset/syncAll.
 */
import { existsSync } from 'node:fs'
import type { Deps } from '../deps.ts'
import { DATASETS } from './datasets.ts'
import {
  downloadFile,
  forgetValidators,
  getSourceFile,
  type DownloadOptions,
  type DownloadOutcome,
} from './download.ts'
import { fetchIncrementally, forgetIncremental } from './incremental.ts'
import {
  checkFreeSpace,
  downloadPool,
  portalCount,
  recordMirror,
  untilFresh,
  verifyCounts,
  verifyFileRows,
  verifyOosFloor,
  type DownloadPool,
  type PortalCounts,
} from './freshness.ts'
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
import { isUnreachable, regulatorState } from './offline.ts'
import { activeVersion } from '../db/versions.ts'
import type { DatasetSpec } from '../ingest/types.ts'
import type { DatasetName } from '../db/names.ts'
import { versionFileExists } from '../db/versions.ts'

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
  /** download slots shared with other datasets (syncAll); default SYNC_PARALLEL_DOWNLOADS */
  pool?: DownloadPool
  /** build slot shared with other datasets (syncAll builds one dataset at a time) */
  buildSlot?: <T>(work: () => Promise<T>) => Promise<T>
  /**
   * downloads already started by the datasets of the same mirror run, by file id: a file that
   * feeds two datasets (the SMS inspection and crash files) is fetched once (syncAll)
   */
  shared?: Map<string, Promise<SourceFetch>>
}

/** A sync's result is a dataset run's result. */
export type SyncResult = RunResult

/** The per-file facts stored with a version (dataset_versions.files). */
export interface VersionFiles {
  inputs: Record<
    string,
    {
      url: string
      sha256: string
      bytes: number
      kind: string
      /** X-SODA2-Truth-Last-Modified or Last-Modified of the answer (ISO) */
      vintage?: string | null
      /** the portal's own row count the file was checked against */
      portal_count?: number | null
    }
  >
  fingerprint: string
  /** the oldest vintage of the inputs: the data is as current as its oldest file */
  vintage?: string | null
  /** the dataset's file format it was built with (DatasetSpec.format; absent: 1) */
  format?: number
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
      paths: { dataDir: deps.config.paths.dataDir, downloads: deps.config.paths.downloads },
      onActivated: deps.onActivated,
    },
    spec,
    {
      channel: 'live',
      trigger: opts.trigger,
      signal: opts.signal,
      onProgress: (p) => onProgress({ ...p, phase: 'build' }),
      inputs: (ctx) => download(spec, deps, { ...opts, onProgress }, ctx),
      buildSlot: opts.buildSlot,
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

/**
 * Downloads every source of the dataset (in parallel, through the download pool) and decides
 * whether anything changed since `previous`. When a build follows, asks the portal for the row
 * count of every input: the version is activated only when each file holds exactly that count.
 */
async function download(
  spec: DatasetSpec,
  deps: SyncDeps,
  opts: SyncOptions,
  ctx: RunInputsContext,
): Promise<RunInputs> {
  await checkFreeSpace(deps.db, deps.config, spec)
  const sources = sourcesOf(spec, deps.config.sync.baseUrl)
  const pool = opts.pool ?? downloadPool(deps.config.sync.parallelDownloads)
  const fetched = await Promise.all(
    sources.map((src) => {
      const started = opts.shared?.get(src.id)
      if (started) return whileRenewing(started, ctx)
      const fetch = pool(() => {
        opts.signal.throwIfAborted()
        return fetchSource(src, deps, opts, ctx)
      })
      opts.shared?.set(src.id, fetch)
      return fetch
    }),
  )
  const inputs = new Map<string, string>()
  const facts: VersionFiles['inputs'] = {}
  const countIds = new Map<string, string>()
  const { files } = ctx
  for (const [i, r] of fetched.entries()) {
    const src = sources[i] as Source
    files.push(r.file)
    if (r.path && r.sha256) {
      inputs.set(src.id, r.path)
      facts[src.id] = {
        url: r.file.url,
        sha256: r.sha256,
        bytes: r.file.bytes ?? 0,
        kind: src.kind,
        vintage: r.vintage,
      }
      // the count of the view the file was served from (a legacy text form has its own id)
      const served = [src.primary, ...src.fallbacks].find((u) => u.url === r.file.url)
      countIds.set(src.id, served?.id ?? src.id)
    }
  }
  const missing = files.filter((f, i) => sources[i]?.required && !inputs.has(f.id))
  if (missing.length)
    throw new Error(missing.map((f) => `${f.id}: ${f.error ?? 'not available'}`).join('; '))

  // a version whose file is missing (app.db restored into an empty data directory) is rebuilt
  // even though the regulator's files are the same
  const active =
    ctx.previous && versionFileExists(deps.config.paths.dataDir, ctx.previous) ? ctx.previous : null
  const previous = active?.files ? (JSON.parse(active.files) as Partial<VersionFiles>) : null
  const sameFormat = (previous?.format ?? 1) === (spec.format ?? 1)
  if (
    !opts.force &&
    active &&
    previous?.inputs &&
    sameFormat &&
    !changedSince(previous.inputs, facts)
  )
    return { status: files.some((f) => f.status === 'not_yet') ? 'not_yet' : 'unchanged' }
  const counts = deps.config.sync.verifyCount
    ? await portalCounts(deps, opts, pool, countIds)
    : null
  for (const [id, n] of Object.entries(counts ?? {})) if (facts[id]) facts[id].portal_count = n
  const vintages = Object.values(facts)
    .map((f) => f.vintage)
    .filter((v): v is string => typeof v === 'string')
    .sort()
  return {
    status: 'build',
    inputs,
    // the regulator's date: the portal's Last-Modified of the oldest input (as current as it)
    asOf: vintages[0]?.slice(0, 10) ?? null,
    files: {
      inputs: facts,
      fingerprint: fingerprintOf(facts),
      vintage: vintages[0] ?? null,
      format: spec.format ?? 1,
    } satisfies VersionFiles,
    verify: (stats, prev) => {
      verifyFileRows(deps.db, spec, stats, prev)
      verifyOosFloor(spec, stats, deps.config.sync.oosMinRows)
      if (counts)
        verifyCounts(spec, stats, counts, (id) => {
          forgetValidators(deps.db, id)
          // a merged copy that lost count (a row deleted upstream) is replaced by the full export
          forgetIncremental(deps.config.paths.downloads, id)
        })
    },
  }
}

/** The time budget of one file of `dataset` (SYNC_DOWNLOAD_MAX_MINUTES, per dataset when set). */
export const downloadBudgetMs = (sync: SyncDeps['config']['sync'], dataset: DatasetName) =>
  (sync.downloadMaxMinutesBy[dataset] ?? sync.downloadMaxMinutes) * 60_000

/** The portal's row count of each input (file id → id of the view it was served from). */
async function portalCounts(
  deps: SyncDeps,
  opts: SyncOptions,
  pool: DownloadPool,
  ids: ReadonlyMap<string, string>,
): Promise<PortalCounts> {
  const { sync } = deps.config
  const entries = await Promise.all(
    [...ids].map(([fileId, viewId]) =>
      pool(async () => {
        const r = await untilFresh(
          `${viewId} count(*)`,
          () =>
            portalCount(deps, viewId, {
              signal: opts.signal,
              baseUrl: sync.baseUrl,
              appToken: sync.appToken,
              timeoutMs: sync.timeoutMs,
              retries: sync.retries,
              retryBaseMs: opts.retryBaseMs,
            }),
          (c) => c.stale,
          {
            retries: sync.staleRetries,
            delayMs: sync.staleDelayMs,
            signal: opts.signal,
            log: deps.log,
          },
        )
        return [fileId, r.count] as const
      }),
    ),
  )
  return Object.fromEntries(entries)
}

/**
 * Waits for a download another dataset of the run started, renewing this run's lease meanwhile
 * (the file can take minutes); answers a copy, as each run records its own file results.
 */
async function whileRenewing(fetch: Promise<SourceFetch>, ctx: RunInputsContext) {
  for (;;) {
    let timer: NodeJS.Timeout | undefined
    const tick = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), 30_000)
    })
    const done = await Promise.race([fetch.then((r) => ({ r })), tick])
    clearTimeout(timer)
    if (done) return { ...done.r, file: { ...done.r.file } }
    ctx.renew()
  }
}

interface SourceFetch {
  file: FileResult
  path: string | null
  sha256: string | null
  vintage: string | null
}

/**
 * Downloads one file and decides what the build may use: a daily diff only when today's copy was
 * served (404 = not yet, never an older day); a baseline file falls back to its kept copy when an
 * optional download fails. An answer from a stale replica is retried after a delay (untilFresh).
 */
async function fetchSource(
  src: Source,
  deps: SyncDeps,
  opts: SyncOptions,
  ctx: RunInputsContext,
): Promise<SourceFetch> {
  const file: FileResult = {
    id: src.id,
    status: 'failed',
    url: src.primary.url,
    bytes: null,
    sha256: null,
    error: null,
  }
  const { sync, paths } = deps.config
  const dl: DownloadOptions = {
    signal: opts.signal,
    dataDir: paths.dataDir,
    dir: paths.downloads,
    timeoutMs: sync.timeoutMs,
    minRateBytesPerSec: sync.minRateBytesPerSec,
    maxTotalMs: downloadBudgetMs(sync, src.dataset),
    // sizes the deadline of an answer without Content-Length on a first sync
    expectedRows: async () =>
      (
        await portalCount(deps, src.primary.id, {
          signal: opts.signal,
          baseUrl: sync.baseUrl,
          appToken: sync.appToken,
          timeoutMs: sync.timeoutMs,
          retries: 0,
          retryBaseMs: opts.retryBaseMs,
        })
      ).count,
    retries: sync.retries,
    retryBaseMs: opts.retryBaseMs,
    appToken: sync.appToken,
    renew: () => ctx.renew(),
    onProgress: (p) => opts.onProgress?.({ dataset: src.dataset, phase: 'download', ...p }),
  }
  const full = () => downloadFile(deps, src.id, [src.primary, ...src.fallbacks], dl)
  const inc = src.incremental
  let outcome: DownloadOutcome
  try {
    outcome = await untilFresh(
      src.id,
      () =>
        inc
          ? fetchIncrementally(
              deps,
              src.id,
              { spec: inc, baseUrl: sync.baseUrl, fullRefreshDays: sync.fullRefreshDays },
              dl,
              full,
            )
          : full(),
      () => false,
      {
        retries: sync.staleRetries,
        delayMs: sync.staleDelayMs,
        signal: opts.signal,
        log: deps.log,
      },
    )
  } catch (err) {
    opts.signal.throwIfAborted()
    file.error = err instanceof Error ? err.message : String(err)
    deps.log.warn({ dataset: src.dataset, file: src.id, error: file.error }, 'download failed')
    if (src.kind === 'diff' || src.required)
      return { file, path: null, sha256: null, vintage: null }
    return { file, ...keptCopy(deps, src.id), vintage: null }
  }
  ctx.renew()
  if (outcome.status === 'not_found') {
    file.url = outcome.url
    if (src.kind === 'diff') {
      file.status = 'not_yet'
      return { file, path: null, sha256: null, vintage: null }
    }
    file.status = 'missing'
    file.error = `HTTP 404 (${[src.primary, ...src.fallbacks].map((u) => u.url).join(', ')})`
    if (src.required) return { file, path: null, sha256: null, vintage: null }
    return { file, ...keptCopy(deps, src.id), vintage: null }
  }
  file.status = outcome.status
  file.url = outcome.url
  file.bytes = outcome.bytes
  file.sha256 = outcome.sha256
  return { file, path: outcome.path, sha256: outcome.sha256, vintage: outcome.vintage }
}

function keptCopy(deps: SyncDeps, id: string): { path: string | null; sha256: string | null } {
  const row = getSourceFile(deps.db, id, deps.config.paths.dataDir)
  return row?.path && row.sha256 && existsSync(row.path)
    ? { path: row.path, sha256: row.sha256 }
    : { path: null, sha256: null }
}

export const fingerprintOf = (facts: VersionFiles['inputs']) =>
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
 * Mirrors every dataset (or `only` those) at once: downloads share SYNC_PARALLEL_DOWNLOADS
 * connections, builds run one at a time. The whole mirror's duration is stored with each of its
 * runs (freshness.ts lastMirror). Results are in build order. A shutdown stops it quietly: each
 * dataset run reached ends `interrupted`; nothing starts after it.
 */
export async function syncAll(
  deps: SyncDeps,
  opts: SyncOptions & { only?: readonly DatasetName[] },
): Promise<SyncResult[]> {
  const specs = DATASETS.filter((s) => !opts.only || opts.only.includes(s.name))
  if (opts.signal.aborted) return []
  const parallel = deps.config.sync.parallelDownloads
  const pool = opts.pool ?? downloadPool(parallel)
  const buildSlot = opts.buildSlot ?? downloadPool(1)
  const startedAt = deps.clock().getTime()
  const t0 = performance.now()
  const shared = opts.shared ?? new Map<string, Promise<SourceFetch>>()
  const results = await Promise.all(
    specs.map((spec) => syncDataset(spec, deps, { ...opts, pool, buildSlot, shared })),
  )
  const runIds = results.map((r) => r.runId).filter((id): id is number => id !== null)
  recordMirror(deps.db, runIds, {
    started_at: new Date(startedAt).toISOString(),
    finished_at: deps.clock().toISOString(),
    seconds: Math.round((performance.now() - t0) / 10) / 100,
    datasets: specs.map((s) => s.name),
    parallel,
  })
  logUnreachable(deps, results)
  return results
}

/** A sync that could not reach the portal logs the state in one sentence (the errors are in the runs). */
function logUnreachable(deps: SyncDeps, results: readonly SyncResult[]): void {
  if (!results.some((r) => r.status === 'failed' && isUnreachable(r.error))) return
  const census =
    activeVersion(deps.db, 'census', 'live') ?? activeVersion(deps.db, 'census', 'sample')
  const serving = {
    source: census
      ? census.channel === 'live'
        ? ('mirror' as const)
        : ('sample' as const)
      : ('none' as const),
    as_of: census?.asOf ?? null,
  }
  const state = regulatorState(deps.db, deps.config, serving)
  if (state.sentence) deps.log.warn({ since: state.since, url: state.url }, state.sentence)
}
