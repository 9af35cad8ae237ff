import type { BuildStats, DatasetName } from '../db/names.ts'
import type { Sqlite } from '../db/open.ts'

/** One regulator file that feeds a dataset. */
export interface SourceFileSpec {
  /** Socrata dataset id, e.g. `az4n-8mr2`; local files for `import --dir` are named `<id>.csv|.txt` */
  id: string
  title: string
  /** URL form: `rows` = /api/views/<id>/rows.csv?accessType=DOWNLOAD (headered); `text` = /download/<id>/text%2Fplain (headerless legacy) */
  format: 'rows' | 'text'
  /** `full` = complete file; `awh` = all-with-history baseline; `diff` = daily difference */
  kind: 'full' | 'awh' | 'diff'
  /** without it the dataset cannot be built */
  required: boolean
  /** other ids that carry the same content (e.g. the legacy text-form id) */
  altIds?: readonly string[]
  /**
   * fetched incrementally (sync/incremental.ts): the rows changed after the kept copy's newest
   * `changed` value, merged by `key`; the full export as the fallback and periodic refresh
   */
  incremental?: { key: string; changed: string }
}

export interface DatasetSpec {
  name: DatasetName
  title: string
  files: readonly SourceFileSpec[]
  /** which configured cron schedule drives it */
  schedule: 'daily' | 'monthly' | 'legacy'
  /** frozen datasets describe a fixed day, whatever the download date */
  frozenAsOf?: string
  /**
   * Layout of the built file (default 1), raised whenever a version changes its tables or
   * indexes: an active file built with another format is rebuilt by the next sync even when the
   * regulator's files are unchanged (an upgrade never keeps serving from an old layout).
   */
  format?: number
  /** refuse a build with fewer rows than this share of the previous version */
  minRowsRatio: number
  /** refuse a build whose rejected share of rows is above this */
  maxRejectRatio: number
  /** writes the dataset's tables into ctx.db (already a fresh, empty file) */
  build(ctx: BuildContext): Promise<void>
}

export interface BuildProgress {
  dataset: DatasetName
  file: string
  rows: number
}

export interface BuildContext {
  db: Sqlite
  /** the file `db` builds */
  path: string
  /** file id → local path of the file to read; absent when that file is not available */
  inputs: ReadonlyMap<string, string>
  /** YYYY-MM-DD the data describes */
  asOf: string
  /** YYYY-MM-DD of the build (from the injected clock): "future" cancel dates are compared with it */
  today: string
  signal: AbortSignal
  /**
   * parse workers for a load that parsing paces, when the build runs alone (build.ts
   * BuildSorting); undefined beside another build: the default
   */
  parseWorkers?: number
  stats: BuildStats
  /** count one accepted row of a file */
  accept(fileId: string, n?: number): void
  /** count and sample one rejected row of a file: never drop a row silently */
  reject(fileId: string, line: number, reason: string): void
  /** bump a named counter in stats.notes */
  note(key: string, n?: number): void
  /** add seconds to a named phase in stats.phases */
  phase(name: string, seconds: number): void
  /** runs `fn`, adding its wall-clock time to a named phase */
  timed<T>(name: string, fn: () => T): T
  /**
   * Runs `insert` for every item in one transaction per batch, yielding to the event loop between
   * batches (so the server keeps answering) and reporting progress.
   */
  insertBatches<T>(
    fileId: string,
    items: AsyncIterable<T>,
    insert: (item: T) => void,
  ): Promise<void>
  /** insertBatches over the rows of arrays of rows (a parser's batches: no step per row) */
  insertChunks<T>(
    fileId: string,
    chunks: AsyncIterable<readonly T[]>,
    insert: (item: T) => void,
  ): Promise<void>
}
