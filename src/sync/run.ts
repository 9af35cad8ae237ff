/**
 * The one owner of a dataset run: lease → run row → inputs → build → verify → activate → event.
 * The scheduled sync, `sync run`, `import --dir` and the bundled sample all call runDataset; they
 * differ only in how the inputs are gathered (downloaded, or files in a folder). What reacts to an
 * activation (the watchlist comparison) is an `onActivated` listener passed in by the caller's
 * composition root, so this module knows nothing about webhooks.
 */
import { HOUR, isoDate, type Clock } from '../clock.ts'
import type { DatasetRegistry } from '../db/datasets.ts'
import { acquireLease, getLease, type Lease, type LeaseHolder } from '../db/leases.ts'
import type { BuildStats, Channel, DatasetName } from '../db/names.ts'
import type { Sqlite } from '../db/open.ts'
import { enqueueEvent } from '../db/outbox.ts'
import { resolveStoredPath } from '../db/paths.ts'
import { afterCensusActivation } from '../identity/history.ts'
import {
  activateVersion,
  activeVersion,
  createVersion,
  failVersion,
  type Activation,
  type VersionRow,
} from '../db/versions.ts'
import { verifyBuild, type BuildSorting } from '../ingest/build.ts'
import type { BuildProgress, DatasetSpec } from '../ingest/types.ts'
import type { Logger } from '../log.ts'
import { removeDbFile } from '../db/open.ts'
import { buildInWorker } from './build-runner.ts'
import { recoverRuns } from './recover.ts'
import { closeRun, openRun, setRunVersion, type RunStatus } from './runs.ts'

export type RunTrigger = 'schedule' | 'cli' | 'console' | 'import' | 'startup' | 'test'

/**
 * not_yet: nothing changed and a daily file is not published yet; interrupted: stopped by a
 * shutdown (SIGTERM, Ctrl-C) or a crash, to be retried at the next start
 */

export type FileStatus = 'changed' | 'unchanged' | 'not_yet' | 'missing' | 'failed'

/** What happened to one source file of a sync (empty for an import from a folder). */
export interface FileResult {
  id: string
  status: FileStatus
  url: string
  bytes: number | null
  sha256: string | null
  error: string | null
}

interface RunFacts {
  dataset: DatasetName
  /** the sync_runs row */
  runId: number | null
  /** the version built (activated or failed), or the active one when nothing changed */
  version: number | null
  rows: number | null
  rejects: number | null
  /** why a run failed or was skipped */
  error: string | null
  files: FileResult[]
}

/** The result of every dataset run, whoever started it. */
export type RunResult =
  | (RunFacts & {
      status: 'activated'
      version: number
      rows: number
      rejects: number
      stats: BuildStats
    })
  | (RunFacts & { status: Exclude<RunStatus, 'activated'> })

/** Called once a version is active and live in this process (after the registry reconciled). */
export type ActivationListener = (activation: Activation) => void

export interface RunDeps {
  db: Sqlite
  datasets: DatasetRegistry
  log: Logger
  clock: Clock
  /** dataDir: stored file paths are relative to it; downloads: partial downloads of a crashed sync are removed from here */
  paths: { dataDir: string; downloads?: string }
  /** reacts to an activation (the composition root passes the watchlist comparison) */
  onActivated?: ActivationListener
}

/** Files to build a version from, as the inputs step of a run found them. */
export interface BuildInputs {
  status: 'build'
  /** file id → local path */
  inputs: ReadonlyMap<string, string>
  /** facts stored with the version (dataset_versions.files) */
  files: unknown
  /**
   * the regulator's date of the data (YYYY-MM-DD): a download's Last-Modified, an imported
   * file's own date; absent: the run's `asOf` option, else today
   */
  asOf?: string | null
  /**
   * when the regulator vouched for the data (ms): absent for a download (its activation), an
   * imported file's own date (the freshness limit of trust_verified runs from it)
   */
  confirmedAt?: number | null
  /** extra checks before activation (per-file shrink guard of a sync); throw to refuse */
  verify?: (stats: BuildStats, previous: VersionRow | null) => void
  /**
   * work done beside the build whose result `files` holds (an imported file's SHA-256), awaited
   * after the build and before activation; its failure fails the run, and when the build fails
   * first it is still awaited, its failure then reported as the cause
   */
  settle?: () => Promise<void>
}

/** What the inputs step of a run found: files to build from, or no change. */
export type RunInputs = BuildInputs | { status: 'unchanged' | 'not_yet' }

export interface RunInputsContext {
  /** the active version of the dataset channel before this run */
  previous: VersionRow | null
  /** per-file facts of the run; what is pushed here is part of the result */
  files: FileResult[]
  /** keeps the lease alive during long work (downloads); false = the lease was lost */
  renew(): boolean
}

export interface RunOptions {
  channel: Channel
  trigger: RunTrigger
  signal: AbortSignal
  /** the date the data describes when the inputs do not say; default today (a frozen dataset has its own) */
  asOf?: string
  onProgress?: (p: BuildProgress) => void
  /** how long to wait for the dataset's lease when another run holds it (default 0: skip) */
  waitMs?: number
  /** told once when the run starts waiting for a held lease */
  onWait?: (dataset: DatasetName, holder: LeaseHolder | null) => void
  /** gathers the inputs while the lease is held: a sync downloads here, an import lists files */
  inputs(ctx: RunInputsContext): Promise<RunInputs>
  /** runs the build when a slot is free (a mirror of several datasets builds one at a time) */
  buildSlot?: <T>(work: () => Promise<T>) => Promise<T>
  /** the build file's cache and sorter threads (default: a build alone; lanes.ts sets another) */
  sorting?: BuildSorting
}

/** The lease name that serialises every run of one dataset channel, across processes. */
export const leaseName = (dataset: DatasetName, channel: Channel) => `sync:${channel}:${dataset}`

const LEASE_TTL = 2 * HOUR

const LEASE_POLL_MS = 1_000

/** Takes the dataset's lease, waiting up to `opts.waitMs` for another run to finish. */
async function takeLease(
  deps: RunDeps,
  dataset: DatasetName,
  name: string,
  opts: RunOptions,
  onLost: () => void,
): Promise<Lease | null> {
  const deadline = Date.now() + (opts.waitMs ?? 0)
  let told = false
  for (;;) {
    const lease = acquireLease(deps.db, name, deps.clock, {
      ttlMs: LEASE_TTL,
      heartbeat: { onLost },
    })
    if (lease || Date.now() >= deadline || opts.signal.aborted) return lease
    if (!told) opts.onWait?.(dataset, getLease(deps.db, name))
    told = true
    await new Promise((r) => setTimeout(r, Math.min(LEASE_POLL_MS, deadline - Date.now())))
  }
}

/** The one line a skipped run records: who holds the lease. */
function heldBy(h: LeaseHolder | null): string {
  if (!h) return 'another sync of this dataset is running'
  const who = h.pid === null ? 'another process' : `process ${h.pid} on ${h.host ?? '?'}`
  return `another sync of this dataset is running (${who}, since ${new Date(h.acquiredAt).toISOString()})`
}

/**
 * Runs one dataset: takes its lease (another holder → 'skipped', recorded), opens a sync_runs
 * row, gathers the inputs, builds a new version file in a worker, verifies it against the previous
 * version, activates it atomically with its `dataset.updated` outbox event (live channel), then
 * tells `onActivated`. A failure leaves the previous version active and is recorded (version row,
 * sync_runs, `sync.failed` event). Safe to call from any process.
 */
export async function runDataset(
  deps: RunDeps,
  spec: DatasetSpec,
  opts: RunOptions,
): Promise<RunResult> {
  const facts: RunFacts = {
    dataset: spec.name,
    runId: null,
    version: null,
    rows: null,
    rejects: null,
    error: null,
    files: [],
  }
  const started = await startRun(deps, spec, opts, facts)
  if ('status' in started) return started
  const { lease, runId, signal } = started
  let version: VersionRow | null = null
  // the work beside the build, while its failure can still explain the build's
  let beside: (() => Promise<void>) | undefined
  try {
    const previous = activeVersion(deps.db, spec.name, opts.channel)
    const got = await opts.inputs({ previous, files: facts.files, renew: () => lease.renew() })
    if (got.status !== 'build') return noChange(deps, spec, facts, runId, got.status, previous)
    beside = got.settle
    signal.throwIfAborted()
    const asOf = dataDate(deps, spec, opts, got)
    version = reserveVersion(deps, spec, opts.channel, asOf, runId)
    const t0 = Date.now()
    const stats = await buildVersion(deps, spec, opts, got, version, signal)
    // the sample is what it is; the shrink guard protects the live mirror only
    verifyBuild(spec, stats, opts.channel === 'live' ? (previous?.rows ?? null) : null)
    got.verify?.(stats, previous)
    beside = undefined
    await got.settle?.()
    signal.throwIfAborted()
    if (!lease.renew()) throw new Error('the dataset lease was taken over by another process')
    await activate(deps, spec, opts, {
      version,
      stats,
      got,
      runId,
      asOf,
      seconds: (Date.now() - t0) / 1000,
    })
    return {
      ...facts,
      status: 'activated',
      version: version.id,
      rows: stats.rows,
      rejects: stats.rejects,
      stats,
    }
  } catch (err) {
    const explained = await explainedBy(beside, err, signal)
    return failRun(deps, spec, opts, { facts, runId, version, signal, err: explained })
  } finally {
    lease.release()
  }
}

/**
 * A build's failure `err`, led by the failure of the work beside it when that failed too (a file
 * whose content is not the one downloaded is the likelier cause); unchanged when the run was
 * stopped or the work beside it succeeded.
 */
async function explainedBy(
  settle: (() => Promise<void>) | undefined,
  err: unknown,
  signal: AbortSignal,
): Promise<unknown> {
  if (!settle || signal.aborted) return err
  try {
    await settle()
    return err
  } catch (cause) {
    if (signal.aborted) return err
    const text = (e: unknown) => (e instanceof Error ? e.message : String(e))
    return new Error(`${text(cause)} (the build failed too: ${text(err)})`)
  }
}

/**
 * The first step of a run: takes the dataset's lease and opens its run row. A lease held by
 * another run gives the recorded 'skipped' result instead.
 */
async function startRun(
  deps: RunDeps,
  spec: DatasetSpec,
  opts: RunOptions,
  facts: RunFacts,
): Promise<RunResult | { lease: Lease; runId: number; signal: AbortSignal }> {
  const now = () => deps.clock().getTime()
  const name = leaseName(spec.name, opts.channel)
  // the lease's heartbeat found another holder (this process was judged gone): stop the run
  const lost = new AbortController()
  const lease = await takeLease(deps, spec.name, name, opts, () =>
    lost.abort(new Error('the dataset lease was taken over by another process')),
  )
  const run = { dataset: spec.name, channel: opts.channel, trigger: opts.trigger }
  if (!lease) {
    const error = heldBy(getLease(deps.db, name))
    const runId = openRun(deps.db, { ...run, holder: null }, now())
    closeRun(deps.db, runId, 'skipped', now(), { error })
    return { ...facts, status: 'skipped', runId, error }
  }
  let runId: number
  try {
    try {
      recoverRuns(deps, lease.holder)
    } catch (err) {
      // a leftover that cannot be cleaned now (a file in use) must not stop this run
      deps.log.warn({ err, dataset: spec.name }, 'recovering interrupted runs failed')
    }
    runId = openRun(deps.db, { ...run, holder: lease.holder }, now())
  } catch (err) {
    lease.release()
    throw err
  }
  facts.runId = runId
  return { lease, runId, signal: AbortSignal.any([opts.signal, lost.signal]) }
}

/** Nothing changed (or today's file is not out yet): recorded, no version built. */
function noChange(
  deps: RunDeps,
  spec: DatasetSpec,
  facts: RunFacts,
  runId: number,
  status: 'unchanged' | 'not_yet',
  previous: VersionRow | null,
): RunResult {
  closeRun(deps.db, runId, status, deps.clock().getTime(), { stats: { files: facts.files } })
  deps.log.info({ dataset: spec.name, status }, 'no source file changed; no new version')
  return {
    ...facts,
    status,
    version: previous?.id ?? null,
    rows: previous?.rows ?? null,
    rejects: previous?.rejects ?? null,
  }
}

/**
 * The regulator's date of the data (YYYY-MM-DD): a frozen dataset's own, else what the inputs
 * found (a download's Last-Modified, an imported file's date), else the run's option, else today.
 * Never later than today.
 */
function dataDate(deps: RunDeps, spec: DatasetSpec, opts: RunOptions, got: BuildInputs): string {
  const today = isoDate(deps.clock())
  const date = spec.frozenAsOf ?? got.asOf ?? opts.asOf ?? today
  return date > today ? today : date
}

/** The version row, linked to its run in one transaction: recovery never sees one alone. */
function reserveVersion(
  deps: RunDeps,
  spec: DatasetSpec,
  channel: Channel,
  asOf: string,
  runId: number,
): VersionRow {
  return deps.db.transaction(() => {
    const v = createVersion(deps.db, spec.name, channel, asOf, deps.clock)
    setRunVersion(deps.db, runId, v.id)
    return v
  })()
}

/** Builds the version file in a worker thread (in the caller's build slot, if any). */
async function buildVersion(
  deps: RunDeps,
  spec: DatasetSpec,
  opts: RunOptions,
  got: BuildInputs,
  version: VersionRow,
  signal: AbortSignal,
): Promise<BuildStats> {
  const { inputs } = got
  const missing = spec.files.filter((f) => f.required && !inputs.has(f.id)).map((f) => f.id)
  if (missing.length) throw new Error(`required file(s) missing: ${missing.join(', ')}`)
  const file = resolveStoredPath(deps.paths.dataDir, version.path)
  const build = () =>
    buildInWorker(spec, inputs, file, {
      asOf: version.asOf ?? isoDate(deps.clock()),
      today: isoDate(deps.clock()),
      signal,
      onProgress: opts.onProgress,
      sorting: opts.sorting,
    })
  return opts.buildSlot ? opts.buildSlot(build) : build()
}

/**
 * Activates a verified version with its `dataset.updated` event (live channel) in one
 * transaction, closes the run, makes it live in this process and tells the listener.
 */
async function activate(
  deps: RunDeps,
  spec: DatasetSpec,
  opts: RunOptions,
  a: {
    version: VersionRow
    stats: BuildStats
    got: BuildInputs
    runId: number
    asOf: string
    seconds: number
  },
): Promise<void> {
  const { version, stats, asOf, seconds } = a
  const now = () => deps.clock().getTime()
  let replaced: VersionRow | null = null
  const files = { facts: a.got.files, confirmedAt: a.got.confirmedAt }
  activateVersion(deps.db, deps.paths.dataDir, version, stats, files, deps.clock, (prev) => {
    replaced = prev
    if (opts.channel === 'live')
      enqueueEvent(
        deps.db,
        {
          accountId: null,
          type: 'dataset.updated',
          data: {
            dataset: spec.name,
            version: version.id,
            rows: stats.rows,
            rejects: stats.rejects,
            as_of: asOf,
            previous_version: prev?.id ?? null,
          },
        },
        now(),
      )
  })
  closeRun(deps.db, a.runId, 'activated', now(), {
    versionId: version.id,
    stats: { ...stats, seconds },
  })
  deps.datasets.reconcile()
  await afterCensusActivation(deps, {
    dataset: spec.name,
    channel: opts.channel,
    version: version.id,
    asOf,
    previous: (replaced as VersionRow | null)?.id ?? null,
  })
  deps.log.info(
    {
      dataset: spec.name,
      channel: opts.channel,
      version: version.id,
      as_of: asOf,
      rows: stats.rows,
      rejects: stats.rejects,
      seconds,
      rows_per_s: Math.round(stats.rows / Math.max(seconds, 0.001)),
    },
    'dataset activated',
  )
  notify(deps, {
    dataset: spec.name,
    channel: opts.channel,
    version: version.id,
    previous: (replaced as VersionRow | null)?.id ?? null,
    asOf,
    rows: stats.rows,
  })
}

/**
 * A refused or failed run: the version (if built) is failed and its file removed, the run
 * recorded with a `sync.failed` event (live channel); a stop by a shutdown is `interrupted`.
 */
function failRun(
  deps: RunDeps,
  spec: DatasetSpec,
  opts: RunOptions,
  f: {
    facts: RunFacts
    runId: number
    version: VersionRow | null
    signal: AbortSignal
    err: unknown
  },
): RunResult {
  const { facts, runId, version, signal } = f
  const message = f.err instanceof Error ? f.err.message : String(f.err)
  const at = deps.clock().getTime()
  const versionId = version?.id ?? null
  if (version) {
    failVersion(deps.db, version.id, message, deps.clock)
    // a refused or interrupted build leaves no file behind
    removeDbFile(resolveStoredPath(deps.paths.dataDir, version.path))
  }
  if (signal.aborted) return interrupted(deps, spec, opts, facts, runId, versionId, signal)
  deps.db.transaction(() => {
    closeRun(deps.db, runId, 'failed', at, { versionId, error: message })
    if (opts.channel === 'live')
      enqueueEvent(
        deps.db,
        {
          accountId: null,
          type: 'sync.failed',
          data: { dataset: spec.name, error: message, version: versionId },
        },
        at,
      )
  })()
  deps.log.error(
    { dataset: spec.name, channel: opts.channel, version: versionId, error: message },
    'dataset run failed; previous version stays active',
  )
  return { ...facts, status: 'failed', version: versionId, error: message }
}

/**
 * A run stopped by a shutdown (SIGTERM, Ctrl-C) or a lost lease: recorded as `interrupted` and
 * logged at info (a normal stop is not an error); no `sync.failed` event. The next start retries.
 */
function interrupted(
  deps: RunDeps,
  spec: DatasetSpec,
  opts: RunOptions,
  facts: RunFacts,
  runId: number,
  versionId: number | null,
  signal: AbortSignal,
): RunResult {
  const reason = signal.reason instanceof Error ? signal.reason.message : 'aborted'
  const error = `interrupted: ${reason}`
  closeRun(deps.db, runId, 'interrupted', deps.clock().getTime(), { versionId, error })
  deps.log.info(
    { dataset: spec.name, channel: opts.channel, reason },
    'dataset run interrupted; it is retried at the next start',
  )
  return { ...facts, status: 'interrupted', version: versionId, error }
}

/** A listener's failure never fails the run (the watch:monitor job is the safety net). */
function notify(deps: RunDeps, activation: Activation): void {
  if (!deps.onActivated) return
  try {
    deps.onActivated(activation)
  } catch (err) {
    deps.log.error({ err, dataset: activation.dataset }, 'activation listener failed')
  }
}
