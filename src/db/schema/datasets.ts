/** app.db tables: dataset versions and the sync runs that build them (db/, sync/), leases, the health probe. */
import { sql } from 'drizzle-orm'
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { ts } from './columns.ts'

export const datasetVersions = sqliteTable(
  'dataset_versions',
  {
    id: integer().primaryKey(),
    dataset: text().notNull(),
    channel: text().notNull(),
    status: text().notNull(),
    path: text().notNull(),
    rows: integer(),
    rejects: integer(),
    /** JSON: up to 20 rejected rows {file, line, reason} */
    rejectSamples: text(),
    /** JSON: per source file {id, url, etag, lastModified, sha256, bytes, rows, rejects} */
    files: text(),
    /**
     * YYYY-MM-DD: the regulator's date of the data (the portal's Last-Modified of a download, the
     * file's own date of an import, a frozen file's freeze date)
     */
    asOf: text(),
    createdAt: ts().notNull(),
    finishedAt: ts(),
    activatedAt: ts(),
    error: text(),
    /** when the data arrived (the run that built it finished); a rollback does not change it */
    importedAt: ts(),
    /**
     * when the regulator last vouched for the data: the activation of a download, the file's own
     * date of an import (the freshness limit of trust_verified is measured from it)
     */
    confirmedAt: ts(),
  },
  (t) => [
    index('dataset_versions_active').on(t.dataset, t.channel, t.status),
    check('dataset_versions_channel', sql`${t.channel} IN ('live','sample')`),
    check(
      'dataset_versions_status',
      sql`${t.status} IN ('building','active','superseded','failed','deleted')`,
    ),
  ],
)

export const syncRuns = sqliteTable(
  'sync_runs',
  {
    id: integer().primaryKey(),
    dataset: text().notNull(),
    trigger: text().notNull(),
    /** the dataset channel built ('live' mirror or bundled 'sample') */
    channel: text().notNull().default('live'),
    status: text().notNull(),
    /** the lease holder running it: a `running` run whose holder holds no lease is orphaned */
    holder: text(),
    startedAt: ts().notNull(),
    finishedAt: ts(),
    versionId: integer(),
    error: text(),
    /** JSON: counters and timings */
    stats: text(),
  },
  (t) => [
    index('sync_runs_dataset').on(t.dataset, t.startedAt),
    // every lookup asks when each daily dataset was last confirmed unchanged (carriers/data-check.ts):
    // an index seek instead of a scan of the dataset's whole run history
    index('sync_runs_confirmed').on(t.dataset, t.status, t.finishedAt),
    check(
      'sync_runs_status',
      sql`${t.status} IN ('running','activated','unchanged','not_yet','failed','skipped','interrupted')`,
    ),
  ],
)

/** Last seen state of each remote file: conditional requests and the raw copy kept for rebuilds. */
export const sourceFiles = sqliteTable('source_files', {
  fileId: text().primaryKey(),
  url: text().notNull(),
  path: text(),
  etag: text(),
  lastModified: text(),
  sha256: text(),
  bytes: integer(),
  checkedAt: ts(),
  changedAt: ts(),
})

export const leases = sqliteTable('leases', {
  name: text().primaryKey(),
  holder: text().notNull(),
  acquiredAt: ts().notNull(),
  expiresAt: ts().notNull(),
  /** the holder process: on its own host a dead pid frees the lease at once */
  pid: integer(),
  host: text(),
  /** last heartbeat of a heartbeating lease (dataset runs); a stale one frees the lease */
  heartbeatAt: ts(),
})

/** One row, rewritten by every `/readyz`: a real commit proves app.db can be written. */
export const healthProbe = sqliteTable('health_probe', {
  id: integer().primaryKey(),
  checkedAt: ts().notNull(),
})
