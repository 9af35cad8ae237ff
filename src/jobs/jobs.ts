/**
 * The appliance's scheduled jobs: plain `(signal) => Promise` functions in their domains, listed
 * here with their cron schedules (UTC). `sync:<dataset>` runs on the dataset's configured schedule
 * when SYNC_ENABLED; `datasets:reconcile` makes a version activated by another process (the CLI)
 * go live in this one. Other domains add theirs through JobFactory.
 */
import type { Deps, Job } from '../deps.ts'
import { DATASETS } from '../sync/datasets.ts'
import type { RunDeps } from '../sync/run.ts'
import { syncDataset } from '../sync/sync.ts'
import type { DatasetSpec } from '../ingest/types.ts'

/** How another domain contributes jobs (webhooks:deliver, db:maintenance, …). */
export type JobFactory = (deps: Deps) => Job[]

export const RECONCILE_SCHEDULE = '*/10 * * * * *'

/** What the composition root hooks into every dataset run (the watchlist comparison). */
export type RunHooks = Pick<RunDeps, 'onActivated'>

/** Mirrors one dataset on its schedule (a failure is recorded and logged by the run itself). */
export function syncJob(deps: Deps, spec: DatasetSpec, hooks: RunHooks = {}): Job {
  return {
    name: `sync:${spec.name}`,
    schedule: deps.config.sync.schedules[spec.schedule],
    run: (signal) =>
      syncDataset(
        spec,
        { ...deps, onActivated: hooks.onActivated },
        { signal, trigger: 'schedule' },
      ),
  }
}

/** One job per dataset, or none when syncing is disabled (air-gapped: `import --dir`). */
export const syncJobs = (deps: Deps, hooks: RunHooks = {}): Job[] =>
  deps.config.sync.enabled ? DATASETS.map((spec) => syncJob(deps, spec, hooks)) : []

/** Follows app.db's active versions every 10 s. */
export const reconcileJobs: JobFactory = (deps) => [
  {
    name: 'datasets:reconcile',
    schedule: RECONCILE_SCHEDULE,
    run: () => Promise.resolve(deps.datasets.reconcile()),
  },
]

/**
 * Every job of the appliance: the sync and reconcile jobs, then those of `extra` factories.
 * `hooks` reach every scheduled dataset run (the composition root passes the watch comparison).
 */
export function createJobs(
  deps: Deps,
  extra: readonly JobFactory[] = [],
  hooks: RunHooks = {},
): Job[] {
  return [...syncJobs(deps, hooks), ...[reconcileJobs, ...extra].flatMap((f) => f(deps))]
}
