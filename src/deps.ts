import { mkdirSync } from 'node:fs'
import { systemClock, type Clock } from './clock.ts'
import type { Config } from './config.ts'
import { openAppDb, type AppDb } from './db/app-db.ts'
import { DatasetRegistry } from './db/datasets.ts'
import { PRIVATE_DIR_MODE, relativizePaths } from './db/paths.ts'
import type { Sqlite } from './db/open.ts'
import type { SortedDots } from './db/dot-set.ts'
import { createLogger, type Logger } from './log.ts'
import { createMetrics, type Metrics } from './metrics.ts'
import type { DataView } from './db/datasets.ts'

/** Everything a domain function may need, passed in explicitly (never imported as a singleton). */
export interface Deps {
  config: Config
  db: Sqlite
  appDb: AppDb
  datasets: DatasetRegistry
  log: Logger
  clock: Clock
  fetch: typeof globalThis.fetch
  random: () => number
  metrics: Metrics
  /** worker threads assembling records for single lookups (the server starts them); null: none */
  recordWorkers: RecordWorkerPool | null
  close(): void
}

/**
 * What lookups need of the record worker threads (carriers/record-workers.ts, a higher layer):
 * the dataset part of a USDOT's record in a view (carriers/record.ts `RecordData`), or null.
 */
export interface RecordWorkerPool {
  /** requests sent to the workers and not answered yet */
  readonly inFlight: number
  read(
    view: DataView,
    dot: number,
    deps: {
      today: string
      nationalAverages?: Config['safety']['nationalAverages']
      /** a batch's read: taken after the single lookups waiting */
      batch?: boolean
    },
  ): Promise<unknown>
  /**
   * A USDOT's whole record in a view as its answer text (carriers/answer.ts `RecordAnswer`), its
   * reviews read from app.db and its Trust Score judged with `dataReasons`; null when unknown
   */
  answer(
    view: DataView,
    dot: number,
    deps: {
      db: Sqlite
      today: string
      nationalAverages?: Config['safety']['nationalAverages']
      dataReasons: readonly string[]
      /**
       * the USDOTs with reviews as the caller read them at one instant (a batch): the worker
       * reads the reviews of a listed company only, as the main thread would
       */
      reviewed?: { readonly epoch: number; readonly dots: SortedDots }
      /** a batch's read: taken after the single lookups waiting */
      batch?: boolean
    },
  ): Promise<unknown>
  /** the views now served: workers open their files and close any other (after a swap) */
  follow(views: readonly DataView[]): void
  close(): Promise<void>
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

/** Opens app.db (migrating it) and the dataset registry. */
export function createDeps(config: Config, overrides: DepsOverrides = {}): Deps {
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
    appDb,
    datasets,
    log,
    clock: overrides.clock ?? systemClock,
    fetch: overrides.fetch ?? globalThis.fetch.bind(globalThis),
    random: overrides.random ?? Math.random,
    metrics: createMetrics(),
    recordWorkers: null,
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
