/**
 * What the mirror holds and how its syncs went (`sync status`): which data serves now (the mirror
 * or the bundled sample, with its as-of date), the next scheduled run, and per dataset the active
 * version (rows, as-of), the last attempt and the last error, whether a sync is running now (its
 * lease), its next scheduled run and the facts of each source file.
 */
import { lastMirror, type MirrorStats } from './freshness.ts'
import { regulatorState, type RegulatorState } from './offline.ts'
import { Cron } from 'croner'
import type { Deps } from '../deps.ts'
import { getLease, leaseStaleReason } from '../db/leases.ts'
import { DATASETS } from './datasets.ts'
import { getSourceFile } from './download.ts'
import { leaseName } from './run.ts'
import { sourcesOf } from './sources.ts'
import type { DatasetName } from '../db/names.ts'
import {
  activeVersion,
  servableVersion,
  versionFileExists,
  type VersionRow,
} from '../db/versions.ts'
import { lastLiveSuccess, newestLiveRun, type RunRow } from './runs.ts'

export interface RunInfo {
  id: number
  status: string
  trigger: string
  started_at: string
  finished_at: string | null
  error: string | null
}

export interface DatasetStatus {
  dataset: DatasetName
  title: string
  schedule: string
  /** the cron expression (UTC) the server runs it on, or null when syncing is disabled */
  cron: string | null
  active: {
    version: number
    rows: number | null
    rejects: number | null
    as_of: string | null
    activated_at: string | null
    /** when the data arrived (a rollback re-activates without changing it) */
    imported_at: string | null
    /** the version's file is missing from the data directory (an app.db restored alone) */
    file_missing: boolean
  } | null
  sample: { version: number; rows: number | null; as_of: string | null } | null
  /** the version answering live keys now: the mirror's once it has a census, else the sample's */
  serving: {
    source: 'mirror' | 'sample'
    version: number
    rows: number | null
    as_of: string | null
  } | null
  running: boolean
  /** the next scheduled sync (ISO, UTC), or null when syncing is disabled */
  next_run: string | null
  last_run: RunInfo | null
  last_success_at: string | null
  /** the current error in full (until a later sync succeeds) */
  last_error: { at: string; message: string } | null
  /** the current error on one line, shortened (for the table) */
  error_summary: string | null
  files: {
    id: string
    kind: string
    required: boolean
    role: string
    url: string
    bytes: number | null
    sha256: string | null
    etag: string | null
    last_modified: string | null
    checked_at: string | null
    changed_at: string | null
  }[]
}

const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString())

const runInfo = (r: RunRow): RunInfo => ({
  id: r.id,
  status: r.status,
  trigger: r.trigger,
  started_at: iso(r.startedAt) ?? '',
  finished_at: iso(r.finishedAt),
  error: r.error,
})

/** The next time (after `now`) a cron expression fires, in UTC. */
function nextRunOf(cron: string, now: number): string | null {
  const job = new Cron(cron, { timezone: 'UTC', paused: true })
  try {
    return job.nextRun(new Date(now))?.toISOString() ?? null
  } finally {
    job.stop()
  }
}

/** An error on one line: its first line, at most 100 characters. */
export function summarise(message: string): string {
  const first = message.split(/\r?\n/, 1)[0]?.trim() ?? ''
  return first.length > 100 ? `${first.slice(0, 99)}…` : first
}

const servingOf = (v: VersionRow | null, source: 'mirror' | 'sample') =>
  v ? { source, version: v.id, rows: v.rows, as_of: v.asOf } : null

/** Status of every dataset, in build order. Reads app.db only; safe from any process. */
export function syncStatus(deps: Pick<Deps, 'db' | 'config' | 'clock'>): DatasetStatus[] {
  const { db, config } = deps
  const now = deps.clock().getTime()
  // live keys read the mirror once it has a census, the sample until then (DatasetRegistry.view)
  const dir = config.paths.dataDir
  const mirrorServes = servableVersion(db, dir, 'census', 'live') !== null
  return DATASETS.map((spec) => {
    const active = activeVersion(db, spec.name, 'live')
    const sample = servableVersion(db, dir, spec.name, 'sample')
    const last = newestLiveRun(db, spec.name, 'any')
    const lastOk = newestLiveRun(db, spec.name, 'ok')
    const lastFail = newestLiveRun(db, spec.name, 'failed')
    const lease = getLease(db, leaseName(spec.name, 'live'))
    const cron = config.sync.enabled ? config.sync.schedules[spec.schedule] : null
    // an error is current only while no later sync succeeded
    const error =
      lastFail && (!lastOk || lastFail.id > lastOk.id)
        ? {
            at: iso(lastFail.finishedAt ?? lastFail.startedAt) ?? '',
            message: lastFail.error ?? '',
          }
        : null
    return {
      dataset: spec.name,
      title: spec.title,
      schedule: spec.schedule,
      cron,
      active: active
        ? {
            version: active.id,
            rows: active.rows,
            rejects: active.rejects,
            as_of: active.asOf,
            activated_at: iso(active.activatedAt),
            imported_at: iso(active.importedAt ?? active.activatedAt),
            file_missing: !versionFileExists(dir, active),
          }
        : null,
      sample: sample ? { version: sample.id, rows: sample.rows, as_of: sample.asOf } : null,
      serving: mirrorServes
        ? servingOf(active && versionFileExists(dir, active) ? active : null, 'mirror')
        : servingOf(sample, 'sample'),
      running: lease !== null && leaseStaleReason(lease, now) === null,
      next_run: cron ? nextRunOf(cron, now) : null,
      last_run: last ? runInfo(last) : null,
      last_success_at: lastOk ? iso(lastOk.finishedAt ?? lastOk.startedAt) : null,
      last_error: error,
      error_summary: error ? summarise(error.message) : null,
      files: sourcesOf(spec, config.sync.baseUrl).map((src) => {
        const f = getSourceFile(db, src.id, config.paths.dataDir)
        return {
          id: src.id,
          kind: src.kind,
          required: src.required,
          role: src.role,
          url: f?.url ?? src.primary.url,
          bytes: f?.bytes ?? null,
          sha256: f?.sha256 ?? null,
          etag: f?.etag ?? null,
          last_modified: f?.lastModified ?? null,
          checked_at: iso(f?.checkedAt),
          changed_at: iso(f?.changedAt),
        }
      }),
    }
  })
}

/** `sync status --json`: the whole picture at a glance. */
export interface SyncOverview {
  /** what live keys read now: the mirror (once it has a census), the bundled sample, or nothing */
  serving: { source: 'mirror' | 'sample' | 'none'; as_of: string | null; since: string | null }
  sync_enabled: boolean
  /** the next scheduled sync of any dataset, or null when syncing is disabled */
  next_run: { at: string; datasets: DatasetName[] } | null
  /**
   * the mirror's last change (an activation), last confirmation (any successful run), and the
   * duration of the last whole-mirror sync (all datasets of one `sync run` or scheduled batch)
   */
  last_mirror: {
    updated_at: string | null
    checked_at: string | null
    last_sync: MirrorStats | null
  } | null
  /** mirror datasets whose active version's file is missing: the next sync rebuilds them */
  missing_files: DatasetName[]
  datasets: DatasetStatus[]
  /** whether the regulator's portal answers; when not, since when and the one sentence to show */
  regulator: RegulatorState
}

export function syncOverview(deps: Pick<Deps, 'db' | 'config' | 'clock'>): SyncOverview {
  const { db } = deps
  const datasets = syncStatus(deps)
  const dir = deps.config.paths.dataDir
  const census =
    servableVersion(db, dir, 'census', 'live') ?? servableVersion(db, dir, 'census', 'sample')
  const upcoming = datasets
    .filter((d): d is DatasetStatus & { next_run: string } => d.next_run !== null)
    .sort((a, b) => a.next_run.localeCompare(b.next_run))
  const first = upcoming[0]?.next_run
  const last = lastLiveSuccess(db)
  const serving = {
    source: census
      ? census.channel === 'live'
        ? ('mirror' as const)
        : ('sample' as const)
      : ('none' as const),
    as_of: census?.asOf ?? null,
    since: iso(census?.activatedAt),
  }
  return {
    serving,
    sync_enabled: deps.config.sync.enabled,
    next_run: first
      ? { at: first, datasets: upcoming.filter((d) => d.next_run === first).map((d) => d.dataset) }
      : null,
    last_mirror:
      last.checked === null
        ? null
        : {
            updated_at: iso(last.updated),
            checked_at: iso(last.checked),
            last_sync: lastMirror(db),
          },
    missing_files: datasets.filter((d) => d.active?.file_missing === true).map((d) => d.dataset),
    datasets,
    regulator: regulatorState(db, deps.config, serving),
  }
}
