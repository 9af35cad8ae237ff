/**
 * The one owner of a dataset run: lease → run row → inputs → build → verify → activate → event.
 * The scheduled sync, `sync run`, `import --dir` and the bundled sample all call runDataset; they
 * differ only in how the inputs are gathered (downloaded, or files in a folder). What reacts to an
 * activation (the watchlist comparison) is an `onActivated` listener passed in by the caller's
 * composition root, so this module knows nothing about webhooks.
 */
import { HOUR, isoDate, type Clock } from '../clock.ts'
import type { DatasetRegistry } from '../db/datasets.ts'
import { acquireLease } from '../db/leases.ts'
import type { BuildStats, Channel, DatasetName } from '../db/names.ts'
import type { Sqlite } from '../db/open.ts'
import { enqueueEvent } from '../db/outbox.ts'
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
import { buildInWorker } from './build-runner.ts'

export type RunTrigger = 'schedule' | 'cli' | 'console' | 'import' | 'startup' | 'test'

/** not_yet: nothing changed and a daily file is not published yet */
export type RunStatus = 'activated' | 'unchanged' | 'not_yet' | 'skipped' | 'failed'

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
  paths: { datasets: string }
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
  /** keeps the lease alive during long work (downloads) */
  renew(): void
}

export interface RunOptions {
  channel: Channel
  trigger: RunTrigger
  signal: AbortSignal
  /** the date the data describes; default today (a frozen dataset has its own) */
  asOf?: string
  onProgress?: (p: BuildProgress) => void
  /** gathers the inputs while the lease is held: a sync downloads here, an import lists files */
  inputs(ctx: RunInputsContext): Promise<RunInputs>
}

/** The lease name that serialises every run of one dataset channel, across processes. */
export const leaseName = (dataset: DatasetName, channel: Channel) => `sync:${channel}:${dataset}`

const LEASE_TTL = 2 * HOUR

export function openRun(db: Sqlite, dataset: DatasetName, trigger: string, now: number): number {
  return Number(
    db
      .prepare(
        `INSERT INTO sync_runs (dataset, trigger, status, started_at) VALUES (?, ?, 'running', ?)`,
      )
      .run(dataset, trigger, now).lastInsertRowid,
  )
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
  const lease = acquireLease(deps.db, leaseName(spec.name, opts.channel), deps.clock, {
    ttlMs: LEASE_TTL,
  })
  if (!lease) {
    const error = 'another sync of this dataset is running'
    const runId = openRun(deps.db, spec.name, opts.trigger, now())
    closeRun(deps.db, runId, 'skipped', now(), { error })
    return { ...facts, status: 'skipped', runId, error }
  }
  const runId = openRun(deps.db, spec.name, opts.trigger, now())
  facts.runId = runId
  let versionId: number | null = null
  try {
    const previous = activeVersion(deps.db, spec.name, opts.channel)
    const got = await opts.inputs({ previous, files, renew: () => void lease.renew() })
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
    opts.signal.throwIfAborted()
    const { inputs } = got
    const missing = spec.files.filter((f) => f.required && !inputs.has(f.id)).map((f) => f.id)
    if (missing.length) throw new Error(`required file(s) missing: ${missing.join(', ')}`)
    const today = isoDate(deps.clock())
    const asOf = spec.frozenAsOf ?? opts.asOf ?? today
    const version = createVersion(
      deps.db,
      deps.paths.datasets,
      spec.name,
      opts.channel,
      asOf,
      deps.clock,
    )
    versionId = version.id
    const started = Date.now()
    const stats = await buildInWorker(spec, inputs, version.path, {
      asOf,
      today,
      signal: opts.signal,
      onProgress: opts.onProgress,
    })
    // the sample is what it is; the shrink guard protects the live mirror only
    verifyBuild(spec, stats, opts.channel === 'live' ? (previous?.rows ?? null) : null)
    got.verify?.(stats, previous)
    let replaced: VersionRow | null = null
    activateVersion(deps.db, version, stats, got.files, deps.clock, (prev) => {
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
    const seconds = (Date.now() - started) / 1000
    closeRun(deps.db, runId, 'activated', now(), {
      versionId: version.id,
      stats: { ...stats, seconds },
    })
    deps.datasets.reconcile()
    deps.log.info(
      {
        dataset: spec.name,
        channel: opts.channel,
        version: version.id,
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
    return {
      ...facts,
      status: 'activated',
      version: version.id,
      rows: stats.rows,
      rejects: stats.rejects,
      stats,
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    const at = now()
    if (versionId !== null) failVersion(deps.db, versionId, message, deps.clock)
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

/** A listener's failure never fails the run (the watch:monitor job is the safety net). */
function notify(deps: RunDeps, activation: Activation): void {
  if (!deps.onActivated) return
  try {
    deps.onActivated(activation)
  } catch (err) {
    deps.log.error({ err, dataset: activation.dataset }, 'activation listener failed')
  }
}
