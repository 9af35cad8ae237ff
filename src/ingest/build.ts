import { mkdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { dirname } from 'node:path'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { openSqlite, removeDbFile, type Sqlite } from '../db/open.ts'
import { restrictMode } from '../db/app-db.ts'
import { PRIVATE_DIR_MODE } from '../db/paths.ts'
import { quickCheckFile } from './check.ts'
import { DEFAULT_PARSE_WORKERS } from './parallel.ts'
import { threadCpuSeconds } from './cpu.ts'
import type { BuildContext, BuildProgress, DatasetSpec } from './types.ts'
import type { BuildStats, FileStats } from '../db/names.ts'

const BATCH = 5_000
/** Rows of a source that yields them one by one, inserted together. */
const GROUP = 500
const MAX_SAMPLES = 20

export class VerifyError extends Error {
  override readonly name = 'VerifyError'
}

export interface BuildOptions {
  asOf: string
  today: string
  signal: AbortSignal
  onProgress?: (p: BuildProgress) => void
  /** the build file's page cache and sorter threads (default: a build alone, BUILD_ALONE) */
  sorting?: BuildSorting
}

/**
 * A build file's page cache (KiB) and the helper threads of SQLite's sorter (its `threads`
 * pragma). With helper threads the sorter holds up to threads + 1 in-memory lists, each as large
 * as the page cache.
 */
export interface BuildSorting {
  cacheKib: number
  threads: number
  /**
   * parse workers for a build whose load the parsing paces (the census: BuildContext
   * `parseWorkers`); absent, parallel.ts DEFAULT_PARSE_WORKERS
   */
  parseWorkers?: number
}

/**
 * A build alone: a 32 MB cache (a larger one raised a census import's peak RSS for no speed),
 * sorter threads up to the cores (a large index builds markedly faster where a core is free), and
 * at least two parse workers where there are two cores: the census's load on two cores was the
 * one parse worker's pace (docs/data.md, the build pipeline).
 */
export const BUILD_ALONE: BuildSorting = {
  cacheKib: 32_768,
  threads: Math.max(1, Math.min(availableParallelism(), 4)),
  parseWorkers: availableParallelism() >= 2 ? Math.max(2, DEFAULT_PARSE_WORKERS) : 1,
}

/**
 * A build beside another (sync/lanes.ts): no sorter threads, since the other build keeps the
 * other core busy, and so one in-memory sort list instead of several, and a 16 MB cache: two
 * builds' sorts at once held the whole mirror's peak memory. Its parse workers are the default.
 */
export const BUILD_BESIDE: BuildSorting = { cacheKib: 16_384, threads: 0 }

/**
 * Opens a new, empty file to build (any file at `path` is removed first), with durability relaxed:
 * nobody reads it yet. The settings are the `main` file's only, so a file attached later keeps
 * its own (a build's part threads attach the build file they read: ingest/parts.ts).
 */
export function openBuildFile(path: string, sorting: BuildSorting = BUILD_ALONE): Sqlite {
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE })
  removeDbFile(path)
  restrictMode(path) // 0600 whatever the umask: SQLite gives its journal files the same mode
  const db = openSqlite(path, 'readwrite')
  try {
    // openSqlite leaves a read-write file in WAL mode, where every page is written twice (to the
    // WAL, then to the file). A rollback journal kept in memory costs next to nothing on a fresh
    // file (only pages that existed before a transaction are journaled, and they are few). OFF
    // would be cheaper still but better-sqlite3's defensive mode refuses it.
    const mode = db.pragma('main.journal_mode = MEMORY', { simple: true })
    if (mode !== 'memory') throw new Error(`cannot set the build file's journal (${String(mode)})`)
    db.pragma('main.synchronous = OFF')
    db.pragma('foreign_keys = OFF')
    db.pragma('main.locking_mode = EXCLUSIVE')
    db.pragma(`main.cache_size = -${sorting.cacheKib}`)
    // sorts of index and GROUP BY builds spill to temporary files (the page cache), not the heap:
    // in memory they held several hundred MB at full census scale
    db.pragma('temp_store = FILE')
    // SQLite's sorter may use helper threads (off by default). They inherit the build thread's
    // lowest priority; where the build's other threads hold the cores, they wait like it.
    db.pragma(`threads = ${sorting.threads}`)
    return db
  } catch (err) {
    db.close()
    removeDbFile(path)
    throw err
  }
}

/** The phase timers of one build: wall seconds, and the thread's CPU seconds where it has them. */
function phaseTimers(stats: BuildStats) {
  const phases: Record<string, number> = (stats.phases = {})
  const phase = (name: string, seconds: number) => {
    phases[name] = (phases[name] ?? 0) + seconds
  }
  const timed = <T>(name: string, fn: () => T): T => {
    const t0 = performance.now()
    const c0 = threadCpuSeconds()
    try {
      return fn()
    } finally {
      phase(name, (performance.now() - t0) / 1000)
      const c1 = threadCpuSeconds()
      if (c0 !== null && c1 !== null) phase(`${name}.cpu`, c1 - c0)
    }
  }
  return { phase, timed }
}
type PhaseTimers = ReturnType<typeof phaseTimers>

/**
 * The loader of a build: the rows of `source` (or of each of its arrays, `chunked`), inserted as
 * they arrive (at most GROUP rows held), one transaction per BATCH rows. Rows held until a whole
 * transaction's worth had arrived outlived the building thread's young generation with many
 * parsed batches in flight (parse-worker.ts): they were promoted, and its scavenges grew costly.
 */
function rowLoader(
  db: Sqlite,
  dataset: DatasetSpec['name'],
  opts: BuildOptions,
  fileStats: (id: string) => FileStats,
  timed: PhaseTimers['timed'],
  phase: PhaseTimers['phase'],
) {
  return async <T>(
    fileId: string,
    source: AsyncIterable<T | readonly T[]>,
    chunked: boolean,
    insert: (item: T) => void,
  ) => {
    const t0 = performance.now()
    const c0 = threadCpuSeconds()
    const begin = db.prepare('BEGIN')
    const commit = db.prepare('COMMIT')
    let inTransaction = 0
    let group: T[] = []
    const insertGroup = (rows: readonly T[]) => {
      if (rows.length === 0) return
      if (inTransaction === 0) begin.run()
      timed('insert', () => {
        for (const r of rows) insert(r)
      })
      inTransaction += rows.length
    }
    /** Commits the open transaction once it holds at least `rows` (≥ 1) rows. */
    const commitAt = async (rows: number) => {
      if (inTransaction < rows) return
      timed('insert', () => commit.run())
      inTransaction = 0
      opts.onProgress?.({ dataset, file: fileId, rows: fileStats(fileId).rows })
      opts.signal.throwIfAborted()
      await yieldToLoop()
    }
    try {
      for await (const x of source) {
        if (chunked) insertGroup(x as readonly T[])
        else {
          group.push(x as T)
          if (group.length < GROUP) continue
          insertGroup(group)
          group = []
        }
        await commitAt(BATCH)
      }
      insertGroup(group)
      await commitAt(1)
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK')
      throw err
    }
    phase('load', (performance.now() - t0) / 1000)
    const c1 = threadCpuSeconds()
    if (c0 !== null && c1 !== null) phase('load.cpu', c1 - c0)
  }
}

/**
 * Builds one dataset into a new SQLite file at `path`. Durability is relaxed (nobody reads the
 * file yet); the file ends in rollback-journal mode so it can be opened read-only. On any error
 * the partial file is removed.
 */
export async function buildDatasetFile(
  spec: DatasetSpec,
  inputs: ReadonlyMap<string, string>,
  path: string,
  opts: BuildOptions,
): Promise<BuildStats> {
  const db = openBuildFile(path, opts.sorting)
  const stats: BuildStats = { rows: 0, rejects: 0, files: {}, rejectSamples: [], notes: {} }
  const fileStats = (id: string): FileStats => (stats.files[id] ??= { rows: 0, rejects: 0 })
  const { phase, timed } = phaseTimers(stats)
  try {
    const load = rowLoader(db, spec.name, opts, fileStats, timed, phase)
    const ctx: BuildContext = {
      db,
      path,
      inputs,
      asOf: opts.asOf,
      today: opts.today,
      signal: opts.signal,
      parseWorkers: (opts.sorting ?? BUILD_ALONE).parseWorkers,
      stats,
      accept(fileId, n = 1) {
        fileStats(fileId).rows += n
        stats.rows += n
      },
      reject(fileId, line, reason) {
        fileStats(fileId).rejects++
        stats.rejects++
        if (stats.rejectSamples.length < MAX_SAMPLES)
          stats.rejectSamples.push({ file: fileId, line, reason })
      },
      note(key, n = 1) {
        stats.notes[key] = (stats.notes[key] ?? 0) + n
      },
      phase,
      timed,
      insertBatches: (fileId, items, insert) => load(fileId, items, false, insert),
      insertChunks: (fileId, chunks, insert) => load(fileId, chunks, true, insert),
    }
    opts.signal.throwIfAborted()
    const started = performance.now()
    const cpu0 = threadCpuSeconds()
    await spec.build(ctx)
    opts.signal.throwIfAborted()
    timed('optimize', () => db.pragma('optimize'))
    timed('journal', () => db.pragma('journal_mode = DELETE'))
    db.close()
    // in two threads for a large file (check.ts): wall time, and the checker thread's CPU apart
    const t0 = performance.now()
    const c0 = threadCpuSeconds()
    const check = await quickCheckFile(path)
    phase('quick_check', (performance.now() - t0) / 1000)
    const c1 = threadCpuSeconds()
    if (c0 !== null && c1 !== null) phase('quick_check.cpu', c1 - c0)
    if (check.helperCpu) phase('quick_check.helper.cpu', check.helperCpu)
    if (check.result !== 'ok') throw new VerifyError(`quick_check failed: ${check.result}`)
    phase('total', (performance.now() - started) / 1000)
    const cpu1 = threadCpuSeconds()
    if (cpu0 !== null && cpu1 !== null) phase('total.cpu', cpu1 - cpu0)
    return stats
  } catch (err) {
    if (db.open) db.close()
    removeDbFile(path)
    throw err
  }
}

/** Refuses a build that is empty, shrank too much against the previous version, or has too many rejects. */
export function verifyBuild(
  spec: DatasetSpec,
  stats: BuildStats,
  previousRows: number | null,
): void {
  if (stats.rows === 0) throw new VerifyError('the build has no rows')
  const total = stats.rows + stats.rejects
  const ratio = stats.rejects / total
  if (ratio > spec.maxRejectRatio)
    throw new VerifyError(
      `${stats.rejects} of ${total} rows rejected (${(ratio * 100).toFixed(1)}% > ${spec.maxRejectRatio * 100}%)`,
    )
  if (previousRows !== null && previousRows > 0 && stats.rows < previousRows * spec.minRowsRatio)
    throw new VerifyError(
      `${stats.rows} rows is less than ${spec.minRowsRatio * 100}% of the previous version's ${previousRows}`,
    )
}
