import { rmSync } from 'node:fs'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createDeps } from '../compose.ts'
import type { Deps } from '../deps.ts'
import { silentLogger } from '../log.ts'
import { createOnboarding, getOnboarding, runOnboardings } from '../onboarding/onboarding.ts'
import { parseItems } from '../onboarding/parse.ts'
import { createTestContext, refuseFetch, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'
import { onboardingJobs } from './onboarding.ts'

let ctx: TestContext
let restarted: Deps | undefined
beforeAll(async () => {
  ctx = await createTestContext({ liveDir: LICENSING_FIXTURES })
})
afterAll(() => {
  restarted?.close()
  rmSync(ctx.dir, { recursive: true, force: true })
})

test('an onboarding interrupted by a shutdown is finished by the next process from app.db', async () => {
  const { account } = ctx.account('starter')
  const dots = ['1000001', '1000002', '1000008', '1000009', '1000012', '1000036']
  const o = createOnboarding(
    ctx.deps,
    { accountId: account.id, apiKeyId: null, mode: 'live', by: 'test' },
    parseItems(dots.map((dot) => ({ dot }))),
    { fileName: null, start: true },
  )
  // the first process stops after its first batch (its shutdown aborts the job's signal)
  const stop = new AbortController()
  const run = runOnboardings(ctx.deps, stop.signal)
  stop.abort()
  await run
  const before = getOnboarding(ctx.deps, account.id, o.id)
  expect(before.status).toBe('running')
  expect(before.progress.processed).toBeLessThan(dots.length)
  ctx.deps.close()

  // a new process over the same data directory: its scheduled job resumes the onboarding
  restarted = createDeps(ctx.config, { clock: ctx.clock, fetch: refuseFetch, log: silentLogger() })
  const job = onboardingJobs(restarted).find((j) => j.name === 'onboarding:run')
  await job?.run(AbortSignal.timeout(20_000))
  const after = getOnboarding(restarted, account.id, o.id)
  expect(after).toMatchObject({ status: 'done', progress: { processed: dots.length, checked: 6 } })
  const checks = restarted.db
    .prepare("SELECT COUNT(*) FROM checks WHERE account_id = ? AND kind = 'check'")
    .pluck()
    .get(account.id)
  expect(checks).toBe(6)
})
