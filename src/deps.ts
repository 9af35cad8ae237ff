import { mkdirSync } from 'node:fs'
import { systemClock, type Clock } from './clock.ts'
import type { Config } from './config.ts'
import { openAppDb } from './db/app-db.ts'
import { DatasetRegistry } from './db/datasets.ts'
import { PRIVATE_DIR_MODE, relativizePaths } from './db/paths.ts'
import type { Sqlite } from './db/open.ts'
import { createLogger, type Logger } from './log.ts'
import { createMetrics, type Metrics } from './metrics.ts'

/**
 * The ports a higher layer declares and the composition root fills: each is typed by its owner
 * (carriers/records.ts adds `records`, the record port) through a declaration of this interface.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the owners' declarations
export interface Ports {}

/** A scheduled job: a named function of its domain on a cron schedule (jobs/scheduler.ts runs it). */
export interface Job {
  /** e.g. `sync:census` */
  name: string
  /** cron expression, 5 fields or 6 with seconds, read in UTC */
  schedule: string
  run(signal: AbortSignal): Promise<unknown>
}

/** Everything a domain function may need, passed in explicitly (never imported as a singleton). */
export interface Deps extends Ports {
  config: Config
  db: Sqlite
  datasets: DatasetRegistry
  log: Logger
  clock: Clock
  fetch: typeof globalThis.fetch
  random: () => number
  metrics: Metrics
  close(): void
}

export interface DepsOverrides {
  clock?: Clock
  fetch?: typeof globalThis.fetch
  random?: () => number
  log?: Logger
  /**
   * the data directory's volume is full (db/paths.ts prepareDataDir): app.db is opened in
   * exclusive locking mode, whose WAL index lives in memory, since its shared-memory file cannot
   * be created; writes fail as storage errors (503) until space is freed
   */
  fullDisk?: boolean
}

/**
 * Opens app.db (migrating it) and the dataset registry: everything but the ports, which the
 * composition (compose.ts `createDeps`) adds.
 */
export function openDeps(config: Config, overrides: DepsOverrides = {}): Omit<Deps, keyof Ports> {
  mkdirSync(config.paths.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE })
  mkdirSync(config.paths.datasets, { recursive: true, mode: PRIVATE_DIR_MODE })
  const log = overrides.log ?? createLogger(config.logLevel)
  const appDb = openAppDb(config.paths.appDb, { exclusive: overrides.fullDisk === true })
  const moved = relativizePaths(appDb.sqlite, config.paths.dataDir)
  if (moved > 0) log.info({ rows: moved }, 'stored file paths made relative to the data directory')
  const datasets = new DatasetRegistry(appDb.sqlite, log, config.paths.dataDir)
  datasets.reconcile()
  return {
    config,
    db: appDb.sqlite,
    datasets,
    log,
    clock: overrides.clock ?? systemClock,
    fetch: overrides.fetch ?? globalThis.fetch.bind(globalThis),
    random: overrides.random ?? Math.random,
    metrics: createMetrics(),
    close() {
      datasets.close()
      if (appDb.sqlite.open) appDb.sqlite.close()
    },
  }
}

/** The pipeline's view of Deps. */
export const pipelineDeps = (d: Deps) => ({
  db: d.db,
  datasets: d.datasets,
  log: d.log,
  clock: d.clock,
  paths: { dataDir: d.config.paths.dataDir, downloads: d.config.paths.downloads },
  config: d.config,
})
