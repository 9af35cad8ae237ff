/** Wires jobs to croner: UTC, one run at a time per job (`protect`), errors logged. Nothing else. */
import { Cron } from 'croner'
import type { Logger } from '../log.ts'
import type { Job } from '../deps.ts'

/**
 * Starts every job on its cron schedule and returns `stop()`: no new runs start, the signal
 * passed to running jobs is aborted so they stop at their next checkpoint (a sync at its next
 * batch boundary), and the returned promise settles when they have, or after `graceMs`.
 */
export function startScheduler(
  jobs: readonly Job[],
  log: Logger,
): (graceMs?: number) => Promise<void> {
  const stop = new AbortController()
  const running = new Set<Promise<unknown>>()
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
          const run = job.run(stop.signal)
          running.add(run)
          try {
            await run
          } finally {
            running.delete(run)
          }
        },
      ),
  )
  log.info({ jobs: jobs.map((j) => `${j.name} (${j.schedule})`) }, 'scheduler started')
  return async (graceMs = 20_000) => {
    stop.abort(new Error('scheduler stopped'))
    for (const c of crons) c.stop()
    if (running.size === 0) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.allSettled([...running]),
      new Promise((r) => (timer = setTimeout(r, graceMs))),
    ])
    clearTimeout(timer)
  }
}
