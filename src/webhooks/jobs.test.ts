import { Cron } from 'croner'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { webhookJobs } from './jobs.ts'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(() => ctx.close())

describe('webhook jobs', () => {
  it('defines webhooks:deliver and watch:monitor with valid schedules', async () => {
    const jobs = webhookJobs(ctx.deps)
    expect(jobs.map((j) => j.name)).toEqual(['webhooks:deliver', 'watch:monitor'])
    for (const j of jobs) {
      const cron = new Cron(j.schedule, { paused: true, timezone: 'UTC' })
      expect(cron.nextRun()).toBeInstanceOf(Date)
      cron.stop()
    }
    const signal = new AbortController().signal
    expect(await jobs[0]?.run(signal)).toMatchObject({ attempted: 0 })
    // no live census yet: the monitor has nothing to compare
    expect(await jobs[1]?.run(signal)).toEqual({ status: 'skipped', reason: 'no live census' })
  })
})
