/**
 * What the mirror holds and how its syncs went, per dataset (`sync status`, the console, metrics):
 * the active version (rows, as-of), the last attempt and the last error, whether a sync is
 * running now (its lease), and the facts of each source file.
 */
import type { Deps } from '../deps.ts'
import { DATASETS } from './datasets.ts'
import { getSourceFile } from './download.ts'
import { leaseName } from './run.ts'
import { sourcesOf } from './sources.ts'
import type { DatasetName } from '../db/names.ts'
import { activeVersion } from '../db/versions.ts'

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
  } | null
  sample: { version: number; rows: number | null; as_of: string | null } | null
  running: boolean
  last_run: RunInfo | null
  last_success_at: string | null
  last_error: { at: string; message: string } | null
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

interface RunRow {
  id: number
  status: string
  trigger: string
  startedAt: number
  finishedAt: number | null
  error: string | null
}
const RUN_COLS = `id, status, trigger, started_at AS startedAt, finished_at AS finishedAt, error`

const runInfo = (r: RunRow): RunInfo => ({
  id: r.id,
  status: r.status,
  trigger: r.trigger,
  started_at: iso(r.startedAt) ?? '',
  finished_at: iso(r.finishedAt),
  error: r.error,
})

/** Status of every dataset, in build order. Reads app.db only; safe from any process. */
export function syncStatus(deps: Pick<Deps, 'db' | 'config' | 'clock'>): DatasetStatus[] {
  const { db, config } = deps
  const now = deps.clock().getTime()
  return DATASETS.map((spec) => {
    const active = activeVersion(db, spec.name, 'live')
    const sample = activeVersion(db, spec.name, 'sample')
    const last = db
      .prepare(`SELECT ${RUN_COLS} FROM sync_runs WHERE dataset = ? ORDER BY id DESC LIMIT 1`)
      .get(spec.name) as RunRow | undefined
    const lastOk = db
      .prepare(
        `SELECT ${RUN_COLS} FROM sync_runs WHERE dataset = ? AND status IN ('activated', 'unchanged', 'not_yet')
         ORDER BY id DESC LIMIT 1`,
      )
      .get(spec.name) as RunRow | undefined
    const lastFail = db
      .prepare(
        `SELECT ${RUN_COLS} FROM sync_runs WHERE dataset = ? AND status = 'failed' ORDER BY id DESC LIMIT 1`,
      )
      .get(spec.name) as RunRow | undefined
    const lease = db
      .prepare('SELECT expires_at AS expiresAt FROM leases WHERE name = ?')
      .get(leaseName(spec.name, 'live')) as { expiresAt: number } | undefined
    return {
      dataset: spec.name,
      title: spec.title,
      schedule: spec.schedule,
      cron: config.sync.enabled ? config.sync.schedules[spec.schedule] : null,
      active: active
        ? {
            version: active.id,
            rows: active.rows,
            rejects: active.rejects,
            as_of: active.asOf,
            activated_at: iso(active.activatedAt),
          }
        : null,
      sample: sample ? { version: sample.id, rows: sample.rows, as_of: sample.asOf } : null,
      running: lease !== undefined && lease.expiresAt >= now,
      last_run: last ? runInfo(last) : null,
      last_success_at: lastOk ? iso(lastOk.finishedAt ?? lastOk.startedAt) : null,
      // an error is current only while no later sync succeeded
      last_error:
        lastFail && (!lastOk || lastFail.id > lastOk.id)
          ? {
              at: iso(lastFail.finishedAt ?? lastFail.startedAt) ?? '',
              message: lastFail.error ?? '',
            }
          : null,
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
