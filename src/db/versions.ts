import { existsSync } from 'node:fs'
import type { Clock } from '../clock.ts'
import type { Sqlite } from './open.ts'
import { cached, removeDbFile } from './open.ts'
import type { BuildStats, Channel, DatasetName } from './names.ts'
import { isInsideDataDir, resolveStoredPath } from './paths.ts'

export interface VersionRow {
  id: number
  dataset: DatasetName
  channel: Channel
  status: 'building' | 'active' | 'superseded' | 'failed' | 'deleted'
  /** as stored: relative to the data directory (resolveStoredPath gives the file) */
  path: string
  rows: number | null
  rejects: number | null
  asOf: string | null
  createdAt: number
  activatedAt: number | null
  error: string | null
  files: string | null
  /** when the data arrived (ms); null on rows older than the column */
  importedAt: number | null
  /** when the regulator last vouched for the data (ms): a download's activation, an import's file date */
  confirmedAt: number | null
}

/** A version that just became the active one of its dataset channel (what a dataset run tells). */
export interface Activation {
  dataset: DatasetName
  channel: Channel
  version: number
  /** the version it replaced */
  previous: number | null
  asOf: string
  rows: number
}

const COLS = `id, dataset, channel, status, path, rows, rejects, as_of AS asOf, created_at AS createdAt,
  activated_at AS activatedAt, error, files, imported_at AS importedAt, confirmed_at AS confirmedAt`

/** How many superseded versions keep their files (for rollback); older ones are deleted. */
export const KEEP_PREVIOUS = 1

export function activeVersion(
  db: Sqlite,
  dataset: DatasetName,
  channel: Channel,
): VersionRow | null {
  return (
    (db
      .prepare(
        `SELECT ${COLS} FROM dataset_versions WHERE dataset = ? AND channel = ? AND status = 'active'
         ORDER BY id DESC LIMIT 1`,
      )
      .get(dataset, channel) as VersionRow | undefined) ?? null
  )
}

/** true when the file of a version is in the data directory (an app.db restored alone lacks them). */
export function versionFileExists(dataDir: string, v: Pick<VersionRow, 'path'>): boolean {
  return v.path !== '' && existsSync(resolveStoredPath(dataDir, v.path))
}

/**
 * The active version of a dataset channel only when its file exists: what serves, what a sync may
 * call unchanged and what a start need not rebuild. A row whose file is missing (app.db restored
 * into an empty data directory) is never trusted.
 */
export function servableVersion(
  db: Sqlite,
  dataDir: string,
  dataset: DatasetName,
  channel: Channel,
): VersionRow | null {
  const v = activeVersion(db, dataset, channel)
  return v && versionFileExists(dataDir, v) ? v : null
}

export function listActiveVersions(db: Sqlite): VersionRow[] {
  return db
    .prepare(`SELECT ${COLS} FROM dataset_versions WHERE status = 'active' ORDER BY id`)
    .all() as VersionRow[]
}

/**
 * Reserves a version row and the file path it will be built at: `datasets/<channel>/<name>/<id>.db`,
 * stored relative to the data directory.
 */
export function createVersion(
  db: Sqlite,
  dataset: DatasetName,
  channel: Channel,
  asOf: string,
  clock: Clock,
): VersionRow {
  const now = clock().getTime()
  const id = Number(
    db
      .prepare(
        `INSERT INTO dataset_versions (dataset, channel, status, path, as_of, created_at)
         VALUES (?, ?, 'building', '', ?, ?)`,
      )
      .run(dataset, channel, asOf, now).lastInsertRowid,
  )
  const path = `datasets/${channel}/${dataset}/${id}.db`
  db.prepare('UPDATE dataset_versions SET path = ? WHERE id = ?').run(path, id)
  return {
    id,
    dataset,
    channel,
    status: 'building',
    path,
    rows: null,
    rejects: null,
    asOf,
    createdAt: now,
    activatedAt: null,
    error: null,
    files: null,
    importedAt: null,
    confirmedAt: null,
  }
}

export function failVersion(db: Sqlite, id: number, error: string, clock: Clock): void {
  db.prepare(
    `UPDATE dataset_versions SET status = 'failed', error = ?, finished_at = ? WHERE id = ?`,
  ).run(error.slice(0, 2000), clock().getTime(), id)
}

/**
 * Makes a built version the active one in one transaction (the previous one becomes superseded),
 * runs `alsoInTx` inside the same transaction (outbox events), then prunes old files. The data
 * arrives now (`imported_at`); the regulator vouched for it at `confirmedAt` (default: now, a
 * download; an import passes its file's own date).
 */
export function activateVersion(
  db: Sqlite,
  dataDir: string,
  version: VersionRow,
  stats: BuildStats,
  files: { facts: unknown; confirmedAt?: number | null },
  clock: Clock,
  alsoInTx?: (previous: VersionRow | null) => void,
): void {
  const now = clock().getTime()
  const confirmedAt = Math.min(files.confirmedAt ?? now, now)
  const tx = db.transaction(() => {
    const previous = activeVersion(db, version.dataset, version.channel)
    db.prepare(
      `UPDATE dataset_versions SET status = 'superseded' WHERE dataset = ? AND channel = ? AND status = 'active'`,
    ).run(version.dataset, version.channel)
    db.prepare(
      `UPDATE dataset_versions SET status = 'active', rows = ?, rejects = ?, reject_samples = ?, files = ?,
         finished_at = ?, activated_at = ?, imported_at = ?, confirmed_at = ? WHERE id = ?`,
    ).run(
      stats.rows,
      stats.rejects,
      JSON.stringify(stats.rejectSamples),
      JSON.stringify(files.facts),
      now,
      now,
      now,
      confirmedAt,
      version.id,
    )
    alsoInTx?.(previous)
  })
  tx.immediate()
  pruneVersions(db, dataDir, version.dataset, version.channel)
}

/**
 * Deletes the files of superseded versions beyond the newest KEEP_PREVIOUS. A file outside the
 * data directory (a row of another installation) is never deleted; its row is marked all the same.
 */
export function pruneVersions(
  db: Sqlite,
  dataDir: string,
  dataset: DatasetName,
  channel: Channel,
): void {
  const old = db
    .prepare(
      `SELECT id, path FROM dataset_versions WHERE dataset = ? AND channel = ? AND status = 'superseded'
       ORDER BY id DESC LIMIT -1 OFFSET ?`,
    )
    .all(dataset, channel, KEEP_PREVIOUS) as { id: number; path: string }[]
  for (const v of old) {
    const file = resolveStoredPath(dataDir, v.path)
    if (isInsideDataDir(dataDir, file)) removeDbFile(file)
    db.prepare(`UPDATE dataset_versions SET status = 'deleted' WHERE id = ?`).run(v.id)
  }
}

/** Reactivates the newest superseded version whose file still exists (rollback). */
export function rollbackVersion(
  db: Sqlite,
  dataset: DatasetName,
  channel: Channel,
  clock: Clock,
): VersionRow | null {
  const prev = db
    .prepare(
      `SELECT ${COLS} FROM dataset_versions WHERE dataset = ? AND channel = ? AND status = 'superseded'
       ORDER BY id DESC LIMIT 1`,
    )
    .get(dataset, channel) as VersionRow | undefined
  if (!prev) return null
  db.transaction(() => {
    db.prepare(
      `UPDATE dataset_versions SET status = 'superseded' WHERE dataset = ? AND channel = ? AND status = 'active'`,
    ).run(dataset, channel)
    db.prepare(`UPDATE dataset_versions SET status = 'active', activated_at = ? WHERE id = ?`).run(
      clock().getTime(),
      prev.id,
    )
  }).immediate()
  return prev
}

/**
 * When a sync run last found the regulator's file of `dataset` unchanged (ms), or null: the active
 * version was confirmed current then, though it was activated earlier.
 */
export function lastUnchangedAt(db: Sqlite, dataset: DatasetName): number | null {
  const sql = `SELECT max(finished_at) AS at FROM sync_runs WHERE dataset = ? AND status = 'unchanged'`
  return (cached(db, sql).get(dataset) as { at: number | null } | undefined)?.at ?? null
}

/** The rows a dataset version holds (null: not counted), by its id. */
export function versionRows(db: Sqlite, id: number): number | null {
  const sql = 'SELECT rows FROM dataset_versions WHERE id = ?'
  return (cached(db, sql).get(id) as { rows: number | null } | undefined)?.rows ?? null
}

/** The status of each dataset's last finished live sync run (running, skipped and interrupted runs aside). */
export function lastLiveRunStatuses(db: Sqlite): { dataset: string; status: string }[] {
  const sql = `SELECT dataset, status FROM sync_runs r WHERE id = (SELECT max(id) FROM sync_runs
     WHERE dataset = r.dataset AND channel = 'live' AND status NOT IN ('running', 'skipped', 'interrupted'))`
  return cached(db, sql).all() as { dataset: string; status: string }[]
}

export interface RunSummary {
  id: number
  dataset: string
  trigger: string
  status: string
  startedAt: number
  finishedAt: number | null
  error: string | null
}

/** The latest `limit` sync runs, newest first. */
export function recentRuns(db: Sqlite, limit: number): RunSummary[] {
  const sql = `SELECT id, dataset, trigger, status, started_at AS startedAt, finished_at AS finishedAt, error
     FROM sync_runs ORDER BY id DESC LIMIT ?`
  return cached(db, sql).all(limit) as RunSummary[]
}
