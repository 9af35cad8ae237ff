import { afterEach, beforeEach, expect, test } from 'vitest'
import { pipelineDeps } from '../deps.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'
import { ensureSample, sampleAsOf } from './sample.ts'

let ctx: TestContext
beforeEach(async () => (ctx = await createTestContext()))
afterEach(() => ctx.close())

const ensure = () =>
  ensureSample(pipelineDeps(ctx.deps), LICENSING_FIXTURES, AbortSignal.timeout(30_000))

test('each sample dataset is judged on its own: a missing one is rebuilt alone', async () => {
  const first = await ensure()
  expect(first).not.toBe('current')
  const built = (first as { dataset: string; status: string }[]).map((r) => [r.dataset, r.status])
  expect(built).toEqual([
    ['census', 'activated'],
    ['legacy', 'activated'],
    ['motus', 'activated'],
  ])
  expect(await ensure()).toBe('current')
  // a crash during the first start left the census but not motus (or motus was lost)
  ctx.deps.db
    .prepare(
      `UPDATE dataset_versions SET status = 'failed' WHERE dataset = 'motus' AND channel = 'sample'`,
    )
    .run()
  const again = await ensure()
  expect(
    (again as { dataset: string; status: string }[]).map((r) => [r.dataset, r.status]),
  ).toEqual([['motus', 'activated']])
  expect(await ensure()).toBe('current')
})

test('the bundled sample is dated by its AS_OF file, not by the day it is built', async () => {
  const dir = 'data/sample'
  expect(sampleAsOf(dir)).toBe('2026-11-01')
  const built = await ensureSample(pipelineDeps(ctx.deps), dir, AbortSignal.timeout(60_000))
  expect(built).not.toBe('current')
  const dates = ctx.deps.db
    .prepare(
      `SELECT dataset, as_of FROM dataset_versions WHERE channel = 'sample' AND status = 'active'`,
    )
    .all() as { dataset: string; as_of: string }[]
  expect(dates.find((d) => d.dataset === 'census')?.as_of).toBe('2026-11-01')
  // the frozen legacy file keeps its own date
  expect(dates.find((d) => d.dataset === 'legacy')?.as_of).toBe('2026-05-14')
})
