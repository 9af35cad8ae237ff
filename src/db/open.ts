import { existsSync, rmSync } from 'node:fs'
import Database from 'better-sqlite3'

export type Sqlite = Database.Database

/**
 * Page cache of each read-only dataset connection (KiB). 8 MiB holds the interior B-tree pages
 * lookups read; a larger cache was no faster for lookups and cost resident memory. The census also serves name search,
 * whose index and candidate pages are many more: it keeps 16 MiB.
 */
export const DATASET_CACHE_KIB = 8_192
export const CENSUS_CACHE_KIB = 16_384

/** Opens a SQLite file. Read-write connections use WAL; dataset files are opened read-only. */
export function openSqlite(
  path: string,
  mode: 'readwrite' | 'readonly',
  cacheKib = DATASET_CACHE_KIB,
  exclusive = false,
): Sqlite {
  const db = new Database(path, {
    readonly: mode === 'readonly',
    fileMustExist: mode === 'readonly',
    timeout: 5_000,
  })
  if (mode === 'readwrite') {
    // before the first read: the WAL index then lives in this process's memory, not in -shm
    if (exclusive) db.pragma('locking_mode = EXCLUSIVE')
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.pragma('foreign_keys = ON')
  } else {
    // Dataset files are immutable and read at random (gigabytes at full scale): the OS page cache
    // keeps their hot pages for every process without counting against this one's memory. Each
    // connection keeps a small page cache (the B-tree interior pages stay hot) and no mmap, whose
    // touched pages would count in the server's RSS (docs/operations.md, Memory).
    db.pragma(`cache_size = -${cacheKib}`)
    db.pragma('mmap_size = 0')
  }
  return db
}

const statementCache = new WeakMap<Sqlite, Map<string, Database.Statement>>()

/** A statement prepared once per connection and reused (hot paths: auth, metering, reviews). */
export function cached(db: Sqlite, sql: string): Database.Statement {
  let m = statementCache.get(db)
  if (!m) statementCache.set(db, (m = new Map<string, Database.Statement>()))
  let s = m.get(sql)
  if (!s) m.set(sql, (s = db.prepare(sql)))
  return s
}

/** Removes a SQLite file with its journal, WAL and shared-memory companions. */
export function removeDbFile(path: string): void {
  for (const p of [path, `${path}-journal`, `${path}-wal`, `${path}-shm`])
    if (existsSync(p)) rmSync(p, { force: true })
}
