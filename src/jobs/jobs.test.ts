import { afterEach, describe, expect, test } from 'vitest'
import { createDeps } from '../compose.ts'
import { pipelineDeps, type Job } from '../deps.ts'
import { silentLogger } from '../log.ts'
import { importDir } from '../sync/pipeline.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES, startFmcsaServer, type FmcsaServer } from '../testing/fmcsa-server.ts'
import { createJobs, RECONCILE_SCHEDULE } from './jobs.ts'
import { startScheduler } from './scheduler.ts'

let ctx: TestContext | null = null
let server: FmcsaServer | null = null
afterEach(async () => {
  ctx?.close()
  ctx = null
  await server?.close()
  server = null
})

describe('jobs', () => {
  test('SYNC_ENABLED=false: only the reconcile job (air-gapped: import --dir)', async () => {
    ctx = await createTestContext()
    expect(createJobs(ctx.deps).map((j) => [j.name, j.schedule])).toEqual([
      ['datasets:reconcile', RECONCILE_SCHEDULE],
    ])
  })

  test('sync:<dataset> per dataset on its configured schedule, plus jobs from other domains', async () => {
    ctx = await createTestContext({
      env: {
        SYNC_ENABLED: 'true',
        SYNC_SCHEDULE_DAILY: '0 15 * * *',
        SYNC_SCHEDULE_LEGACY: '0 4 * * 1',
      },
    })
    const extra: Job = { name: 'webhooks:deliver', schedule: '* * * * *', run: async () => 0 }
    const jobs = createJobs(ctx.deps, [() => [extra]])
    const by = Object.fromEntries(jobs.map((j) => [j.name, j.schedule]))
    expect(by).toMatchObject({
      'sync:census': '0 15 * * *',
      'sync:legacy': '0 4 * * 1',
      'sync:motus': '0 15 * * *',
      'datasets:reconcile': RECONCILE_SCHEDULE,
      'webhooks:deliver': '* * * * *',
    })
  })

  test('a sync job mirrors its dataset from FMCSA_BASE_URL', async () => {
    server = await startFmcsaServer({ dir: LICENSING_FIXTURES })
    ctx = await createTestContext({
      fetch: globalThis.fetch,
      env: { SYNC_ENABLED: 'true', FMCSA_BASE_URL: server.url },
    })
    const job = createJobs(ctx.deps).find((j) => j.name === 'sync:legacy')
    const result = (await job?.run(AbortSignal.timeout(20_000))) as { status: string }
    expect(result.status).toBe('activated')
    expect(ctx.deps.datasets.get('legacy', 'live')).not.toBeNull()
  })

  test('datasets:reconcile picks up a version activated by another process', async () => {
    ctx = await createTestContext()
    // "another process": its own connection and registry on the same data directory
    const other = createDeps(ctx.config, { log: silentLogger(), clock: ctx.clock })
    await importDir(pipelineDeps(other), LICENSING_FIXTURES, {
      channel: 'live',
      trigger: 'test',
      signal: AbortSignal.timeout(20_000),
      only: ['legacy'],
    })
    other.close()
    expect(ctx.deps.datasets.get('legacy', 'live')).toBeNull()
    const reconcile = createJobs(ctx.deps).find((j) => j.name === 'datasets:reconcile')
    await reconcile?.run(AbortSignal.timeout(1_000))
    expect(ctx.deps.datasets.get('legacy', 'live')?.asOf).toBe('2026-05-14')
  })
})

describe('scheduler', () => {
  test('runs a job on its schedule; stop() aborts the signal it was given', async () => {
    let seen: AbortSignal | null = null
    let ran: () => void = () => undefined
    const first = new Promise<void>((r) => (ran = r))
    const stop = startScheduler(
      [
        {
          name: 'tick',
          schedule: '* * * * * *',
          run: async (signal) => {
            seen = signal
            ran()
          },
        },
      ],
      silentLogger(),
    )
    await first
    expect((seen as AbortSignal | null)?.aborted).toBe(false)
    await stop()
    expect((seen as AbortSignal | null)?.aborted).toBe(true)
  })

  test('a failing job is logged, not thrown', async () => {
    const errors: unknown[] = []
    const log = silentLogger()
    log.error = (obj: unknown) => void errors.push(obj)
    let failed: () => void = () => undefined
    const done = new Promise<void>((r) => (failed = r))
    const stop = startScheduler(
      [
        {
          name: 'boom',
          schedule: '* * * * * *',
          run: async () => {
            setTimeout(failed, 10)
            throw new Error('boom')
          },
        },
      ],
      log,
    )
    await done
    await stop()
    expect(errors[0]).toMatchObject({ job: 'boom' })
  })
})
