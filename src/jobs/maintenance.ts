import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Deps } from '../deps.ts'
import { purgeSessions } from '../users/sessions.ts'
import type { Job } from '../deps.ts'
import type { JobFactory } from './jobs.ts'
import { restrictMode } from '../db/app-db.ts'
import { PRIVATE_DIR_MODE } from '../db/paths.ts'

/** How many daily app.db backups are kept. */
export const KEEP_BACKUPS = 7

/**
 * Daily app.db upkeep: drop ended console sessions, checkpoint and truncate the WAL, let SQLite refresh its statistics, and
 * write a consistent backup (online, while the server runs), keeping the newest KEEP_BACKUPS.
 */
export async function runMaintenance(
  deps: Pick<Deps, 'db' | 'clock' | 'log' | 'config'>,
): Promise<{ backup: string; removed: string[] }> {
  const sessions = purgeSessions(deps.db, deps.clock().getTime())
  deps.db.pragma('wal_checkpoint(TRUNCATE)')
  deps.db.pragma('optimize')
  const dir = deps.config.paths.backups
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  const backup = join(dir, `app-${deps.clock().toISOString().replace(/[:.]/g, '-')}.db`)
  restrictMode(backup) // 0600 like app.db
  await deps.db.backup(backup)
  const old = readdirSync(dir)
    .filter((f) => /^app-.*\.db$/.test(f))
    .sort()
    .slice(0, -KEEP_BACKUPS)
  for (const f of old) rmSync(join(dir, f), { force: true })
  deps.log.info({ backup, removed: old.length, sessions }, 'app.db maintenance done')
  return { backup, removed: old }
}

export const maintenanceJobs: JobFactory = (deps): Job[] => [
  { name: 'db:maintenance', schedule: '17 3 * * *', run: () => runMaintenance(deps) },
]
