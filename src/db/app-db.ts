import { existsSync, mkdirSync } from 'node:fs'
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

/** Opens app.db (WAL) and applies pending migrations; a failed migration throws and stops startup. */
export function openAppDb(path: string): AppDb {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const sqlite = openSqlite(path, 'readwrite')
  const orm = drizzle(sqlite, { schema, casing: 'snake_case' })
  if (!existsSync(MIGRATIONS_DIR)) throw new Error(`migrations folder missing: ${MIGRATIONS_DIR}`)
  // two processes may start at once (server + CLI): take the write lock while migrating
  sqlite.pragma('busy_timeout = 15000')
  migrate(orm, { migrationsFolder: MIGRATIONS_DIR })
  sqlite.pragma('busy_timeout = 5000')
  return { sqlite, orm }
}
