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
import { verifyBuild } from '../ingest/build.ts'
import type { BuildProgress, DatasetSpec } from '../ingest/types.ts'
import type { Logger } from '../log.ts'
import { removeDbFile } from '../db/open.ts'
import { buildInWorker } from './build-runner.ts'
import { recoverRuns } from './recover.ts'

export type RunTrigger = 'schedule' | 'cli' | 'console' | 'import' | 'startup' | 'test'

/**
 * not_yet: nothing changed and a daily file is not published yet; interrupted: stopped by a
 * shutdown (SIGTERM, Ctrl-C) or a crash, to be retried at the next start
 */
export type RunStatus = 'activated' | 'unchanged' | 'not_yet' | 'skipped' | 'failed' | 'interrupted'

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

/** What the inputs step of a run found: files to build from, or no change. */
export type RunInputs =
  | {
      status: 'build'
      /** file id → local path */
      inputs: ReadonlyMap<string, string>
      /** facts stored with the version (dataset_versions.files) */
      files: unknown
      /** extra checks before activation (per-file shrink guard of a sync); throw to refuse */
      verify?: (stats: BuildStats, previous: VersionRow | null) => void
    }
  | { status: 'unchanged' | 'not_yet' }

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
  /** the date the data describes; default today (a frozen dataset has its own) */
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
}

/** The lease name that serialises every run of one dataset channel, across processes. */
export const leaseName = (dataset: DatasetName, channel: Channel) => `sync:${channel}:${dataset}`

const LEASE_TTL = 2 * HOUR

export function openRun(
  db: Sqlite,
  run: { dataset: DatasetName; channel: Channel; trigger: string; holder: string | null },
  now: number,
): number {
  return Number(
    db
      .prepare(
        `INSERT INTO sync_runs (dataset, channel, trigger, holder, status, started_at)
         VALUES (?, ?, ?, ?, 'running', ?)`,
      )
      .run(run.dataset, run.channel, run.trigger, run.holder, now).lastInsertRowid,
  )
}

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

export function closeRun(
  db: Sqlite,
  runId: number,
  status: RunStatus,
  now: number,
  extra: { versionId?: number | null; error?: string | null; stats?: unknown } = {},
): void {
  db.prepare(
    `UPDATE sync_runs SET status = ?, finished_at = ?, version_id = ?, error = ?, stats = ? WHERE id = ?`,
  ).run(
    status,
    now,
    extra.versionId ?? null,
    extra.error?.slice(0, 2000) ?? null,
    extra.stats === undefined ? null : JSON.stringify(extra.stats),
    runId,
  )
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
  const now = () => deps.clock().getTime()
  const files: FileResult[] = []
  const facts: RunFacts = {
    dataset: spec.name,
    runId: null,
    version: null,
    rows: null,
    rejects: null,
    error: null,
    files,
  }
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
  const signal = AbortSignal.any([opts.signal, lost.signal])
  facts.runId = runId
  let version: VersionRow | null = null
  try {
    const previous = activeVersion(deps.db, spec.name, opts.channel)
    const got = await opts.inputs({ previous, files, renew: () => lease.renew() })
    if (got.status !== 'build') {
      closeRun(deps.db, runId, got.status, now(), { stats: { files } })
      deps.log.info(
        { dataset: spec.name, status: got.status },
        'no source file changed; no new version',
      )
      return {
        ...facts,
        status: got.status,
        version: previous?.id ?? null,
        rows: previous?.rows ?? null,
        rejects: previous?.rejects ?? null,
      }
    }
    signal.throwIfAborted()
    const { inputs } = got
    const missing = spec.files.filter((f) => f.required && !inputs.has(f.id)).map((f) => f.id)
    if (missing.length) throw new Error(`required file(s) missing: ${missing.join(', ')}`)
    const today = isoDate(deps.clock())
    const asOf = spec.frozenAsOf ?? opts.asOf ?? today
    // the version row and its link to this run in one transaction: recovery never sees one alone
    const built = deps.db.transaction(() => {
      const v = createVersion(deps.db, spec.name, opts.channel, asOf, deps.clock)
      deps.db.prepare('UPDATE sync_runs SET version_id = ? WHERE id = ?').run(v.id, runId)
      return v
    })()
    version = built
    const started = Date.now()
    const file = resolveStoredPath(deps.paths.dataDir, built.path)
    const build = () =>
      buildInWorker(spec, inputs, file, {
        asOf,
        today,
        signal,
        onProgress: opts.onProgress,
      })
    const stats = await (opts.buildSlot ? opts.buildSlot(build) : build())
    // the sample is what it is; the shrink guard protects the live mirror only
    verifyBuild(spec, stats, opts.channel === 'live' ? (previous?.rows ?? null) : null)
    got.verify?.(stats, previous)
    signal.throwIfAborted()
    if (!lease.renew()) throw new Error('the dataset lease was taken over by another process')
    let replaced: VersionRow | null = null
    activateVersion(deps.db, deps.paths.dataDir, built, stats, got.files, deps.clock, (prev) => {
      replaced = prev
      if (opts.channel === 'live')
        enqueueEvent(
          deps.db,
          {
            accountId: null,
            type: 'dataset.updated',
            data: {
              dataset: spec.name,
              version: built.id,
              rows: stats.rows,
              rejects: stats.rejects,
              as_of: asOf,
              previous_version: prev?.id ?? null,
            },
          },
          now(),
        )
    })
    const seconds = (Date.now() - started) / 1000
    closeRun(deps.db, runId, 'activated', now(), {
      versionId: built.id,
      stats: { ...stats, seconds },
    })
    deps.datasets.reconcile()
    await afterCensusActivation(deps, {
      dataset: spec.name,
      channel: opts.channel,
      version: built.id,
      asOf,
      previous: (replaced as VersionRow | null)?.id ?? null,
    })
    deps.log.info(
      {
        dataset: spec.name,
        channel: opts.channel,
        version: built.id,
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
      version: built.id,
      previous: (replaced as VersionRow | null)?.id ?? null,
      asOf,
      rows: stats.rows,
    })
    return {
      ...facts,
      status: 'activated',
      version: built.id,
      rows: stats.rows,
      rejects: stats.rejects,
      stats,
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    const at = now()
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
  } finally {
    lease.release()
  }
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
