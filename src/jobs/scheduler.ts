/** Wires jobs to croner: UTC, one run at a time per job (`protect`), errors logged. Nothing else. */
import { Cron } from 'croner'
import type { Logger } from '../log.ts'
import type { Job } from './jobs.ts'

/**
 * Starts every job on its cron schedule and returns `stop()`: no new runs start, and the signal
 * passed to running jobs is aborted so they stop at their next checkpoint.
 */
export function startScheduler(jobs: readonly Job[], log: Logger): () => void {
  const stop = new AbortController()
  const crons = jobs.map(
    (job) =>
      new Cron(
        job.schedule,
        {
          name: job.name,
          timezone: 'UTC',
          protect: (c) => log.debug({ job: c.name }, 'previous run still busy; tick skipped'),
          catch: (err) => log.error({ err, job: job.name }, 'job failed'),
        },
        async () => {
          await job.run(stop.signal)
        },
      ),
  )
  log.info({ jobs: jobs.map((j) => `${j.name} (${j.schedule})`) }, 'scheduler started')
  return () => {
    stop.abort(new Error('scheduler stopped'))
    for (const c of crons) c.stop()
  }
}
