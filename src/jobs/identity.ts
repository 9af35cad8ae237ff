import { isoDate } from '../clock.ts'
import { pruneHistory } from '../identity/history.ts'
import type { Job } from '../deps.ts'
import type { JobFactory } from './jobs.ts'

/** Daily: prune the carriers' identity history past HISTORY_RETENTION_YEARS. */
export const identityJobs: JobFactory = (deps): Job[] => [
  {
    name: 'identity:prune',
    schedule: '47 3 * * *',
    run: () => {
      const n = pruneHistory(
        deps.db,
        isoDate(deps.clock()),
        deps.config.identity.historyRetentionYears,
      )
      if (n > 0) deps.log.info({ changes: n }, 'identity history pruned')
      return Promise.resolve()
    },
  },
]
