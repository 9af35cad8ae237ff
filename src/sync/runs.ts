/**
 * The sync runs' table (`sync_runs`): every statement of `sync/` on it. A run is opened as
 * 'running' when a dataset sync starts and closed with its outcome; a crashed process's runs are
 * closed as 'interrupted' by recovery.
 */
import { cached, type Sqlite } from '../db/open.ts'
import type { Channel, DatasetName } from '../db/names.ts'

export type RunStatus = 'activated' | 'unchanged' | 'not_yet' | 'skipped' | 'failed' | 'interrupted'

/** Outcomes after which the regulator's files were read as they are. */
const OK_STATUSES = `('activated', 'unchanged', 'not_yet')`

export function openRun(
  db: Sqlite,
  run: { dataset: DatasetName; channel: Channel; trigger: string; holder: string | null },
  now: number,
): number {
  return Number(
    cached(
      db,
      `INSERT INTO sync_runs (dataset, channel, trigger, holder, status, started_at)
       VALUES (?, ?, ?, ?, 'running', ?)`,
    ).run(run.dataset, run.channel, run.trigger, run.holder, now).lastInsertRowid,
  )
}

export function closeRun(
  db: Sqlite,
  runId: number,
  status: RunStatus,
  now: number,
  extra: { versionId?: number | null; error?: string | null; stats?: unknown } = {},
): void {
  cached(
    db,
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

/** Links a run to the version it builds (in the transaction that creates the version). */
export function setRunVersion(db: Sqlite, runId: number, versionId: number): void {
  cached(db, 'UPDATE sync_runs SET version_id = ? WHERE id = ?').run(versionId, runId)
}

/** The runs still marked running, with their lease holder and version. */
export function runningRuns(
  db: Sqlite,
): { id: number; holder: string | null; versionId: number | null }[] {
  return cached(
    db,
    `SELECT id, holder, version_id AS versionId FROM sync_runs WHERE status = 'running'`,
  ).all() as { id: number; holder: string | null; versionId: number | null }[]
}

/** Closes a run whose process is gone. */
export function interruptRun(db: Sqlite, runId: number, message: string, now: number): void {
  cached(
    db,
    `UPDATE sync_runs SET status = 'interrupted', finished_at = ?, error = ? WHERE id = ?`,
  ).run(now, message, runId)
}

/** The status of the newest live run of a dataset, or null before its first. */
export function lastLiveRunStatus(db: Sqlite, dataset: DatasetName): string | null {
  const row = cached(
    db,
    `SELECT status FROM sync_runs WHERE dataset = ? AND channel = 'live' ORDER BY id DESC LIMIT 1`,
  ).get(dataset) as { status: string } | undefined
  return row?.status ?? null
}

export interface RunRow {
  id: number
  status: string
  trigger: string
  startedAt: number
  finishedAt: number | null
  error: string | null
}
const RUN_COLS = `id, status, trigger, started_at AS startedAt, finished_at AS finishedAt, error`

/** A dataset's newest live run: any, the newest that succeeded, or the newest that failed. */
export function newestLiveRun(
  db: Sqlite,
  dataset: DatasetName,
  which: 'any' | 'ok' | 'failed',
): RunRow | undefined {
  const sql =
    which === 'any' ? '' : which === 'ok' ? `AND status IN ${OK_STATUSES}` : `AND status = 'failed'`
  return cached(
    db,
    `SELECT ${RUN_COLS} FROM sync_runs WHERE dataset = ? AND channel = 'live' ${sql} ORDER BY id DESC LIMIT 1`,
  ).get(dataset) as RunRow | undefined
}

/** When the live data was last updated (an activation) and last checked (any success). */
export function lastLiveSuccess(db: Sqlite): { updated: number | null; checked: number | null } {
  return cached(
    db,
    `SELECT max(CASE WHEN status = 'activated' THEN finished_at END) AS updated,
            max(finished_at) AS checked
     FROM sync_runs WHERE channel = 'live' AND status IN ${OK_STATUSES}`,
  ).get() as { updated: number | null; checked: number | null }
}

/** The live runs that failed since the newest that succeeded, oldest first. */
export function failuresSinceLastSuccess(
  db: Sqlite,
): { error: string | null; startedAt: number }[] {
  const lastOk = cached(
    db,
    `SELECT coalesce(max(id), 0) AS id FROM sync_runs WHERE channel = 'live'
       AND status IN ${OK_STATUSES}`,
  ).get() as { id: number }
  return cached(
    db,
    `SELECT error, started_at AS startedAt FROM sync_runs
     WHERE channel = 'live' AND status = 'failed' AND id > ? ORDER BY id`,
  ).all(lastOk.id) as { error: string | null; startedAt: number }[]
}

/** The stats stored by the run that activated a version (its files' row counts). */
export function activatedRunStats(db: Sqlite, versionId: number): string | null {
  const row = cached(
    db,
    `SELECT stats FROM sync_runs WHERE version_id = ? AND status = 'activated' LIMIT 1`,
  ).get(versionId) as { stats: string | null } | undefined
  return row?.stats ?? null
}

/** Stores a whole mirror's stats (JSON) in each of its runs (sync_runs.stats.mirror). */
export function storeMirrorStats(db: Sqlite, runIds: readonly number[], json: string): void {
  const update = cached(
    db,
    `UPDATE sync_runs SET stats = json_set(coalesce(stats, '{}'), '$.mirror', json(?)) WHERE id = ?`,
  )
  db.transaction(() => {
    for (const id of runIds) update.run(json, id)
  })()
}

/** The newest whole mirror's stats (JSON), or null before the first one. */
export function newestMirrorStats(db: Sqlite): string | null {
  const row = cached(
    db,
    `SELECT json_extract(stats, '$.mirror') AS m FROM sync_runs
     WHERE json_extract(stats, '$.mirror') IS NOT NULL ORDER BY id DESC LIMIT 1`,
  ).get() as { m: string } | undefined
  return row?.m ?? null
}
