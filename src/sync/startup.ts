/**
 * What a server start owes the mirror: every dataset with no live version yet, or whose last run
 * was interrupted (a shutdown or a crash) or skipped (its lease was held), is synced now instead of
 * waiting for its schedule; a dataset skipped again is retried every minute while its lease is held.
 */
import { DATASET_NAMES, type DatasetName } from '../db/names.ts'
import { servableVersion } from '../db/versions.ts'
import type { Sqlite } from '../db/open.ts'
import { syncAll, type SyncDeps, type SyncResult } from './sync.ts'
import { lastLiveRunStatus } from './runs.ts'

/**
 * The live datasets a start should sync now, in build order: an active version whose file is
 * missing (a restored app.db) is owed like a missing one.
 */
export function pendingDatasets(db: Sqlite, dataDir: string): DatasetName[] {
  return DATASET_NAMES.filter((name) => {
    if (!servableVersion(db, dataDir, name, 'live')) return true
    const status = lastLiveRunStatus(db, name)
    return status === 'interrupted' || status === 'skipped'
  })
}

export interface CatchUpOptions {
  signal: AbortSignal
  /** pause before retrying datasets whose lease was held; default 60 s */
  retryMs?: number
  /** give up retrying after this long; default 3 h (past a live holder's lease TTL) */
  retryForMs?: number
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })
}

/**
 * Syncs the pending datasets (trigger `startup`); the ones skipped because another run holds
 * their lease are tried again every `retryMs` until they ran, the retry window closed or the
 * server stops. Returns the last result per dataset.
 */
export async function catchUpSync(
  deps: SyncDeps,
  only: readonly DatasetName[],
  opts: CatchUpOptions,
): Promise<SyncResult[]> {
  const retryMs = opts.retryMs ?? 60_000
  const until = Date.now() + (opts.retryForMs ?? 3 * 3_600_000)
  const last = new Map<DatasetName, SyncResult>()
  let todo = [...only]
  while (todo.length && !opts.signal.aborted) {
    const results = await syncAll(deps, { signal: opts.signal, trigger: 'startup', only: todo })
    for (const r of results) last.set(r.dataset, r)
    todo = results.filter((r) => r.status === 'skipped').map((r) => r.dataset)
    if (!todo.length || Date.now() + retryMs > until) break
    deps.log.info(
      { datasets: todo, retry_in_s: Math.round(retryMs / 1000) },
      'initial sync: another run holds these datasets; retrying',
    )
    await sleep(retryMs, opts.signal)
  }
  return [...last.values()]
}
