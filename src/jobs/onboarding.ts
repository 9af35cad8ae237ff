import { runOnboardings } from '../onboarding/onboarding.ts'
import type { Job } from '../deps.ts'
import type { JobFactory } from './jobs.ts'

/**
 * Every 2 s: works through queued onboardings, and resumes one a restart interrupted (its state
 * and rows are in app.db). A run lasts until its onboardings are done; croner skips ticks meanwhile.
 */
export const onboardingJobs: JobFactory = (deps): Job[] => [
  {
    name: 'onboarding:run',
    schedule: '*/2 * * * * *',
    run: (signal) => runOnboardings(deps, signal),
  },
]
