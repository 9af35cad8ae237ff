/**
 * Crash recovery of dataset runs (at start-up and before every run): a lease whose holder is gone
 * is freed, a run left `running` by a process that is gone is closed as `interrupted`, a version
 * left `building` is marked failed, and every dataset file that belongs to no kept version (a
 * partial build) is deleted, as are partial downloads when no sync is running. Safe to call from
 * any process at any time: it only touches what no live lease protects.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Clock } from '../clock.ts'
import { dropLease, leaseStaleReason, listLeases } from '../db/leases.ts'
import type { Sqlite } from '../db/open.ts'
import type { Logger } from '../log.ts'
import { interruptRun, runningRuns } from './runs.ts'

export interface RecoverDeps {
  db: Sqlite
  log: Logger
  clock: Clock
  paths: { dataDir: string; downloads?: string }
}

export interface Recovery {
  /** leases freed: name → why */
  leases: Record<string, string>
  /** sync_runs closed as interrupted */
  runs: number[]
  /** dataset_versions left building, now failed */
  versions: number[]
  /** files deleted */
  files: string[]
}

export const INTERRUPTED_MESSAGE =
  'interrupted: the process running it stopped (crash, kill or restart)'

/**
 * `<datasets>/<channel>/<dataset>/<id>.db` and its SQLite companions, and the files of the
 * census search index's parts (`<id>.db-search<n>`, census/search-build.ts) with theirs
 */
const VERSION_FILE = /^(\d+)\.db(-search\d+)?(-wal|-shm|-journal)?$/

function versionFiles(root: string): { path: string; id: number }[] {
  const out: { path: string; id: number }[] = []
  if (!existsSync(root)) return out
  for (const channel of readdirSync(root, { withFileTypes: true })) {
    if (!channel.isDirectory()) continue
    for (const dataset of readdirSync(join(root, channel.name), { withFileTypes: true })) {
      if (!dataset.isDirectory()) continue
      const dir = join(root, channel.name, dataset.name)
      for (const f of readdirSync(dir)) {
        const m = VERSION_FILE.exec(f)
        if (m?.[1]) out.push({ path: join(dir, f), id: Number(m[1]) })
      }
    }
  }
  return out
}

/** `self`: the lease holder of the caller's own run (about to start, its downloads not begun). */
export function recoverRuns(deps: RecoverDeps, self?: string): Recovery {
  const { db, log } = deps
  const now = deps.clock().getTime()
  const done: Recovery = { leases: {}, runs: [], versions: [], files: [] }
  for (const l of listLeases(db)) {
    const reason = leaseStaleReason(l, now)
    if (reason && dropLease(db, l)) done.leases[l.name] = reason
  }
  // files first, rows second: a file listed here had its version row written before it
  const files = versionFiles(join(deps.paths.dataDir, 'datasets'))
  const keep = db
    .transaction(() => {
      const held = new Set(listLeases(db).map((l) => l.holder))
      const running = runningRuns(db)
      const live = new Set<number>()
      for (const r of running) {
        if (r.holder !== null && held.has(r.holder)) {
          if (r.versionId !== null) live.add(r.versionId)
          continue
        }
        interruptRun(db, r.id, INTERRUPTED_MESSAGE, now)
        done.runs.push(r.id)
      }
      const building = db
        .prepare(`SELECT id FROM dataset_versions WHERE status = 'building'`)
        .all() as { id: number }[]
      const failVersion = db.prepare(
        `UPDATE dataset_versions SET status = 'failed', error = ?, finished_at = ? WHERE id = ?`,
      )
      for (const v of building) {
        if (live.has(v.id)) continue
        failVersion.run(INTERRUPTED_MESSAGE, now, v.id)
        done.versions.push(v.id)
      }
      const kept = db
        .prepare(`SELECT id FROM dataset_versions WHERE status IN ('active', 'superseded')`)
        .all() as { id: number }[]
      return new Set([...kept.map((v) => v.id), ...live])
    })
    .immediate()
  for (const f of files) {
    if (keep.has(f.id)) continue
    rmSync(f.path, { force: true })
    done.files.push(f.path)
  }
  // a partial download belongs to a sync; with none running, nothing will finish it
  const downloads = deps.paths.downloads
  if (
    downloads &&
    existsSync(downloads) &&
    !listLeases(db).some((l) => l.name.startsWith('sync:') && l.holder !== self)
  )
    for (const f of readdirSync(downloads))
      if (f.endsWith('.part')) {
        rmSync(join(downloads, f), { force: true })
        done.files.push(join(downloads, f))
      }
  const leases = Object.keys(done.leases)
  if (leases.length || done.runs.length || done.versions.length || done.files.length)
    log.warn(
      {
        leases_freed: done.leases,
        runs_interrupted: done.runs,
        versions_removed: done.versions,
        files_removed: done.files.length,
      },
      'recovered after an interrupted run: stale leases freed, runs closed as interrupted, partial builds removed',
    )
  return done
}
