import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import { openSqlite, type Sqlite } from './open.ts'
import * as schema from './schema.ts'

export type Drizzle = BetterSQLite3Database<typeof schema>
export interface AppDb {
  sqlite: Sqlite
  orm: Drizzle
}

const here = dirname(fileURLToPath(import.meta.url))
export const MIGRATIONS_DIR = join(here, '..', '..', 'migrations')

/**
 * Opens app.db (WAL) and applies pending migrations; a failed migration throws and stops startup.
 * `exclusive` holds the file's lock for the process and keeps the WAL index in memory (no -shm
 * file): the one way to open it on a full volume; other processes cannot open it meanwhile.
 */
export function openAppDb(path: string, opts: { exclusive?: boolean } = {}): AppDb {
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    restrictMode(path)
  }
  const sqlite = openSqlite(path, 'readwrite', undefined, opts.exclusive === true)
  const orm = drizzle(sqlite, { schema, casing: 'snake_case' })
  if (!existsSync(MIGRATIONS_DIR)) throw new Error(`migrations folder missing: ${MIGRATIONS_DIR}`)
  // two processes may start at once (server + CLI): take the write lock while migrating
  sqlite.pragma('busy_timeout = 15000')
  migrate(orm, { migrationsFolder: MIGRATIONS_DIR })
  sqlite.pragma('busy_timeout = 5000')
  return { sqlite, orm }
}

/** Files holding secrets (app.db: key hashes, webhook signing secrets; its backups) are 0600. */
export const PRIVATE_FILE_MODE = 0o600

/**
 * Creates `path` with mode 0600 if it does not exist, and narrows an existing file to 0600 (an
 * upgrade from a version that left it 0644). SQLite gives its -wal and -shm files the mode of the
 * database file. A file we cannot chmod (another owner) is left as it is.
 */
export function restrictMode(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE))
  for (const p of [path, `${path}-wal`, `${path}-shm`]) {
    if (!existsSync(p)) continue
    try {
      chmodSync(p, PRIVATE_FILE_MODE)
    } catch {
      // not ours to change
    }
  }
}

/**
 * The readiness write probe: one committed one-row UPSERT. Throws the SQLite error (SQLITE_FULL,
 * SQLITE_READONLY, SQLITE_IOERR…) when app.db cannot be written.
 */
export function probeWrite(db: Sqlite, now: number): void {
  db.prepare(
    'INSERT INTO health_probe (id, checked_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at',
  ).run(now)
}
