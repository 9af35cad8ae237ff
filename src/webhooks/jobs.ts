/** Scheduled jobs of the webhooks domain; jobs/scheduler.ts wires them to croner. */
import type { Deps, Job } from '../deps.ts'
import { deliverDue, type DeliverDeps } from './deliver.ts'
import { runWatchMonitor, type MonitorDeps } from './monitor.ts'

type JobDeps = Pick<
  Deps,
  'db' | 'datasets' | 'config' | 'clock' | 'fetch' | 'random' | 'log' | 'records'
> &
  Pick<MonitorDeps, 'annotate'>

/** Fans out new events and sends due deliveries, every 15 s (retries are due by their own time). */
export const webhooksDeliverJob = (deps: JobDeps & Pick<DeliverDeps, 'lookup'>): Job => ({
  name: 'webhooks:deliver',
  schedule: '*/15 * * * * *',
  run: (signal) => deliverDue(deps, { signal }),
})

/**
 * Compares watched carriers with their snapshots. Every dataset run started in a process whose
 * composition root passed watchOnActivation compares right after its activation; this schedule is
 * the safety net (an import by another process, a crash in between) and does nothing while no
 * snapshot is stale.
 */
export const watchMonitorJob = (deps: JobDeps): Job => ({
  name: 'watch:monitor',
  schedule: '0 */5 * * * *',
  run: async (signal) => runWatchMonitor(deps, signal),
})

export const webhookJobs = (deps: JobDeps): Job[] => [
  webhooksDeliverJob(deps),
  watchMonitorJob(deps),
]
