/** Retention of stored checks: rows older than CHECKS_RETENTION_YEARS (default 8) are pruned. */
import type { Deps } from '../deps.ts'
import { pruneLedger } from './ledger.ts'

/** The oldest creation time kept: `years` calendar years before `now` (UTC). */
export function retentionCutoff(now: Date, years: number): number {
  const d = new Date(now)
  d.setUTCFullYear(d.getUTCFullYear() - years)
  return d.getTime()
}

/**
 * Deletes checks and overrides past retention, oldest first per account; each chain's anchor
 * moves to the last deleted row so `checks verify` still verifies what remains.
 */
export function pruneChecks(deps: Pick<Deps, 'db' | 'clock' | 'config' | 'log'>) {
  const now = deps.clock()
  const cutoff = retentionCutoff(now, deps.config.checks.retentionYears)
  const r = pruneLedger(deps.db, cutoff, now.getTime())
  if (r.deleted > 0)
    deps.log.info(
      { deleted: r.deleted, accounts: r.accounts, cutoff: new Date(cutoff).toISOString() },
      'checks past retention pruned',
    )
  return { ...r, cutoff: new Date(cutoff).toISOString() }
}
