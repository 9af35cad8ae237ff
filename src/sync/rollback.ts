/**
 * `sync rollback DATASET`: the mirror's previous version of a dataset (kept on disk, see
 * KEEP_PREVIOUS) becomes the active one again, under the dataset's lease so it never races a run.
 * The version rolled away from stays kept, so a second rollback undoes the first. A server picks
 * the change up within 10 seconds (reconcile); the watchlists are compared as after a sync.
 */
import { existsSync } from 'node:fs'
import { AppError } from '../errors.ts'
import { acquireLease } from '../db/leases.ts'
import type { DatasetName } from '../db/names.ts'
import { activeVersion, rollbackVersion } from '../db/versions.ts'
import { leaseName, type RunDeps } from './run.ts'

export interface RollbackResult {
  dataset: DatasetName
  /** the version active now */
  version: number
  /** the version it replaced */
  previous: number
  as_of: string | null
  rows: number | null
}

export function rollbackDataset(
  deps: Pick<RunDeps, 'db' | 'datasets' | 'log' | 'clock' | 'onActivated'>,
  dataset: DatasetName,
): RollbackResult {
  const lease = acquireLease(deps.db, leaseName(dataset, 'live'), deps.clock, { ttlMs: 60_000 })
  if (!lease)
    throw new AppError(
      'conflict',
      `a sync of ${dataset} is running; roll back once it is done (see \`sync status\`)`,
    )
  try {
    const current = activeVersion(deps.db, dataset, 'live')
    if (!current) throw new AppError('not_found', `${dataset} has no active mirror version`)
    const prev = rollbackVersion(deps.db, dataset, 'live', deps.clock)
    if (!prev)
      throw new AppError(
        'not_found',
        `${dataset} has no previous version to roll back to (only the active one is on disk)`,
      )
    if (!existsSync(prev.path)) {
      // never activate a version whose file is gone: undo at once
      rollbackVersion(deps.db, dataset, 'live', deps.clock)
      throw new AppError('not_found', `${dataset} version ${prev.id}: its file is missing`)
    }
    deps.datasets.reconcile()
    deps.log.info(
      { dataset, version: prev.id, previous: current.id },
      'dataset rolled back to its previous version',
    )
    try {
      deps.onActivated?.({
        dataset,
        channel: 'live',
        version: prev.id,
        previous: current.id,
        asOf: prev.asOf ?? '',
        rows: prev.rows ?? 0,
      })
    } catch (err) {
      deps.log.error({ err, dataset }, 'activation listener failed')
    }
    return { dataset, version: prev.id, previous: current.id, as_of: prev.asOf, rows: prev.rows }
  } finally {
    lease.release()
  }
}
