import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { HOUR, isoDate, type Clock } from '../clock.ts'
import type { DatasetRegistry } from '../db/datasets.ts'
import { acquireLease } from '../db/leases.ts'
import type { Sqlite } from '../db/open.ts'
import type { Logger } from '../log.ts'
import { verifyBuild } from '../ingest/build.ts'
import { buildInWorker } from './build-runner.ts'
import { DATASETS } from './datasets.ts'
import type { BuildProgress, DatasetSpec } from '../ingest/types.ts'
import type { BuildStats, Channel, DatasetName } from '../db/names.ts'
import {
  activateVersion,
  activeVersion,
  createVersion,
  failVersion,
  type VersionRow,
} from '../db/versions.ts'
import { enqueueEvent } from '../db/outbox.ts'
import { runWatchMonitor, type MonitorDeps } from '../webhooks/monitor.ts'
import type { Config } from '../config.ts'

/** carrier.changed for watched USDOTs; a failure here never fails the activation (the job retries). */
function watchAfterActivation(deps: MonitorDeps): void {
  try {
    runWatchMonitor(deps)
  } catch (err) {
    deps.log.error(
      { err },
      'watchlist comparison after activation failed; the watch:monitor job retries',
    )
  }
}

export interface PipelineDeps {
  db: Sqlite
  datasets: DatasetRegistry
  log: Logger
  clock: Clock
  paths: { datasets: string }
  /** with it, watchlists are compared right after a live activation (carrier.changed events) */
  config?: Pick<Config, 'sync'>
}

export type RunResult =
  | { status: 'activated'; dataset: DatasetName; version: number; stats: BuildStats }
  | { status: 'skipped'; dataset: DatasetName; reason: string }
  | { status: 'failed'; dataset: DatasetName; error: string; version: number | null }

export interface RunOptions {
  channel: Channel
  trigger: 'schedule' | 'cli' | 'import' | 'startup' | 'test'
  asOf?: string
  signal: AbortSignal
  onProgress?: (p: BuildProgress) => void
  /** per-file download facts to store with the version */
  files?: unknown
  /** run id of an already-open sync_runs row (the sync opens it before downloading) */
  runId?: number
  /** stored with the version's files (the sample's content hash) */
  fingerprint?: string
  /** extra checks before activation (per-file shrink guard of a sync); throw to refuse the build */
  verify?: (stats: BuildStats, previous: VersionRow | null) => void
}

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
  status: 'activated' | 'unchanged' | 'not_yet' | 'failed' | 'skipped',
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

/** The lease name that serialises every build of one dataset channel, across processes. */
export const leaseName = (dataset: DatasetName, channel: Channel) => `sync:${channel}:${dataset}`

/**
 * Builds a dataset from local files into a new version file, verifies it against the previous
 * version and activates it atomically. A failure leaves the previous version active and is
 * recorded (version row, sync_runs, sync.failed event). Safe to call from any process: it holds
 * the dataset's lease for the duration, and returns 'skipped' if another process holds it.
 */
export async function runBuild(
  deps: PipelineDeps,
  spec: DatasetSpec,
  inputs: ReadonlyMap<string, string>,
  opts: RunOptions,
): Promise<RunResult> {
  const lease =
    opts.runId === undefined
      ? acquireLease(deps.db, leaseName(spec.name, opts.channel), deps.clock, { ttlMs: 2 * HOUR })
      : null
  if (opts.runId === undefined && !lease)
    return {
      status: 'skipped',
      dataset: spec.name,
      reason: 'another sync of this dataset is running',
    }
  const runId = opts.runId ?? openRun(deps.db, spec.name, opts.trigger, deps.clock().getTime())
  let versionId: number | null = null
  try {
    const missing = spec.files.filter((f) => f.required && !inputs.has(f.id)).map((f) => f.id)
    if (missing.length) throw new Error(`required file(s) missing: ${missing.join(', ')}`)
    const previous = activeVersion(deps.db, spec.name, opts.channel)
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
    opts.verify?.(stats, previous)
    const files = opts.files ?? {
      inputs: Object.fromEntries(inputs),
      fingerprint: opts.fingerprint ?? null,
    }
    activateVersion(deps.db, version, stats, files, deps.clock, () => {
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
              previous_version: previous?.id ?? null,
            },
          },
          deps.clock().getTime(),
        )
    })
    const seconds = (Date.now() - started) / 1000
    closeRun(deps.db, runId, 'activated', deps.clock().getTime(), {
      versionId: version.id,
      stats: { ...stats, seconds },
    })
    deps.datasets.reconcile()
    if (opts.channel === 'live' && deps.config)
      watchAfterActivation({ ...deps, config: deps.config })
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
    return { status: 'activated', dataset: spec.name, version: version.id, stats }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    const now = deps.clock().getTime()
    if (versionId !== null) failVersion(deps.db, versionId, message, deps.clock)
    deps.db.transaction(() => {
      closeRun(deps.db, runId, 'failed', now, { versionId, error: message })
      if (opts.channel === 'live')
        enqueueEvent(
          deps.db,
          {
            accountId: null,
            type: 'sync.failed',
            data: { dataset: spec.name, error: message, version: versionId },
          },
          now,
        )
    })()
    deps.log.error(
      { dataset: spec.name, channel: opts.channel, version: versionId, error: message },
      'dataset build failed; previous version stays active',
    )
    return { status: 'failed', dataset: spec.name, error: message, version: versionId }
  } finally {
    lease?.release()
  }
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
 * Imports every dataset whose required files are in `dir` (air-gapped procedure and the bundled
 * sample). Returns one result per dataset found; datasets with none of their files are left alone.
 */
export async function importDir(
  deps: PipelineDeps,
  dir: string,
  opts: Omit<RunOptions, 'files'> & { only?: readonly DatasetName[] },
): Promise<RunResult[]> {
  const available = filesInDir(dir)
  if (available.size === 0) throw new Error(`no dataset files (named <dataset-id>.csv) in ${dir}`)
  const results: RunResult[] = []
  for (const spec of DATASETS) {
    if (opts.only && !opts.only.includes(spec.name)) continue
    const inputs = inputsFor(spec, available)
    if (inputs.size === 0) continue
    results.push(await runBuild(deps, spec, inputs, opts))
  }
  return results
}
