import { anchorJob } from '../checks/anchors.ts'
import { pruneChecks } from '../checks/retention.ts'
import type { Job } from '../deps.ts'
import type { JobFactory } from './jobs.ts'

/**
 * Daily: prune stored checks past CHECKS_RETENTION_YEARS (the chains stay verifiable); publish
 * the chain heads to each account's anchor destinations (CHECKS_ANCHOR_SCHEDULE).
 */
export const checksJobs: JobFactory = (deps): Job[] => [
  { name: 'checks:prune', schedule: '41 3 * * *', run: () => Promise.resolve(pruneChecks(deps)) },
  anchorJob(deps),
]
