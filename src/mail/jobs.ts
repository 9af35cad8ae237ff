/** Scheduled job of the mail domain; jobs/scheduler.ts wires it to croner. */
import { deliverMail } from './deliver.ts'
import type { MailDeps } from './mail-deps.ts'

/**
 * Collects what is to be mailed and sends due messages every 5 s (a contact code should not wait
 * long; retries are due by their own time).
 */
export const mailJobs = (deps: MailDeps) => [
  {
    name: 'mail:deliver',
    schedule: '*/5 * * * * *',
    run: (signal: AbortSignal) => deliverMail(deps, { signal }),
  },
]
