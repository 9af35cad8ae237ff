/**
 * File paths in app.db (dataset_versions.path, source_files.path) are stored relative to the data
 * directory, so a data directory can be moved, restored from a backup to another path, or copied
 * (ISSUE 16 item 7). Rows written by older releases hold absolute paths: `relativizePaths` rewrites
 * them once at start-up, and nothing ever deletes a file outside the data directory.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import type { Sqlite } from './open.ts'

/** Our own layout under the data directory: what an absolute path from another place maps to. */
const LAYOUT =
  /(?:^|[/\\])((?:datasets[/\\](?:live|sample)[/\\][a-z]+[/\\]\d+\.db)|(?:downloads[/\\][^/\\]+))$/

/** true when `path` is the data directory itself or inside it (no `..` escape). */
export function isInsideDataDir(dataDir: string, path: string): boolean {
  const rel = relative(resolve(dataDir), resolve(path))
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/** The form stored in app.db: relative (with `/`) when inside the data directory, else as given. */
export function toStoredPath(dataDir: string, path: string): string {
  if (!isAbsolute(path)) return path.split(sep).join('/')
  return isInsideDataDir(dataDir, path)
    ? relative(resolve(dataDir), resolve(path)).split(sep).join('/')
    : path
}

/** The file a stored path names: relative paths resolve against the data directory. */
export function resolveStoredPath(dataDir: string, stored: string): string {
  return isAbsolute(stored) ? stored : join(resolve(dataDir), stored)
}

/**
 * Rewrites absolute paths of older rows to the relative form: a path inside the data directory
 * becomes relative; a path in our layout under another directory (a restored or copied data
 * directory) becomes the same relative path here, so the copy uses its own files and never the
 * original's. Anything else is left absolute (and is never deleted). Returns the rows changed.
 */
export function relativizePaths(db: Sqlite, dataDir: string): number {
  let changed = 0
  const fix = (table: 'dataset_versions' | 'source_files', key: 'id' | 'file_id') => {
    const rows = db
      .prepare(`SELECT ${key} AS k, path FROM ${table} WHERE path LIKE '/%' OR path LIKE '_:\\%'`)
      .all() as { k: number | string; path: string }[]
    const update = db.prepare(`UPDATE ${table} SET path = ? WHERE ${key} = ?`)
    for (const r of rows) {
      let next: string | null = null
      if (isInsideDataDir(dataDir, r.path)) next = toStoredPath(dataDir, r.path)
      else {
        const m = LAYOUT.exec(r.path)
        if (m?.[1]) next = m[1].split('\\').join('/')
      }
      if (next !== null && next !== r.path) {
        update.run(next, r.k)
        changed++
      }
    }
  }
  db.transaction(() => {
    fix('dataset_versions', 'id')
    fix('source_files', 'file_id')
  }).immediate()
  return changed
}

/** Mode of the data directory and its folders: only the appliance's user reads its data. */
export const PRIVATE_DIR_MODE = 0o700

/** The data directory is on a full volume: the process serves what it has and writes nothing. */
export type DataDirState = 'writable' | 'full'

/**
 * Makes sure the data directory exists, is a directory and can be written, before anything else
 * touches it; narrows it and its folders to 0700 (an older release left them 0755). A full volume
 * is `'full'` when app.db is already there (the caller serves read-only) and an error otherwise;
 * every other failure is thrown as the file system reported it (EACCES, ENOTDIR, EROFS…), for the
 * caller to explain.
 */
export function prepareDataDir(dataDir: string): DataDirState {
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory())
    throw Object.assign(new Error(`${dataDir} is not a directory`), {
      code: 'ENOTDIR',
      path: dataDir,
    })
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE })
  narrow(dataDir)
  for (const entry of readdirSync(dataDir, { withFileTypes: true }))
    if (entry.isDirectory()) narrow(join(dataDir, entry.name))
  const probe = join(dataDir, `.write-probe-${process.pid}`)
  try {
    writeFileSync(probe, 'ok\n', { mode: 0o600 })
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if ((code === 'ENOSPC' || code === 'EDQUOT') && existsSync(join(dataDir, 'app.db')))
      return 'full'
    throw err
  } finally {
    rmSync(probe, { force: true })
  }
  return 'writable'
}

function narrow(dir: string): void {
  try {
    if ((statSync(dir).mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(dir, PRIVATE_DIR_MODE)
  } catch {
    // not ours to change (another owner): left as it is
  }
}
