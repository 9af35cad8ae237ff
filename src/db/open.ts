import { existsSync, rmSync } from 'node:fs'
import Database from 'better-sqlite3'

export type Sqlite = Database.Database

/** Opens a SQLite file. Read-write connections use WAL; dataset files are opened read-only. */
export function openSqlite(path: string, mode: 'readwrite' | 'readonly'): Sqlite {
  const db = new Database(path, {
    readonly: mode === 'readonly',
    fileMustExist: mode === 'readonly',
    timeout: 5_000,
  })
  if (mode === 'readwrite') {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.pragma('foreign_keys = ON')
  } else {
    // dataset files are immutable once built: a bigger page cache and mmap make lookups cheap
    db.pragma('cache_size = -32000')
    db.pragma('mmap_size = 268435456')
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
