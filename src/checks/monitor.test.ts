import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CENSUS_FILE_ID } from '../census/census.ts'
import { pipelineDeps } from '../deps.ts'
import { importDir } from '../sync/pipeline.ts'
import { carrierRow, writeCensus, type CensusFields } from '../testing/census-fixture.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { runWatchMonitor, watchOnActivation } from '../webhooks/monitor.ts'
import { checksOnChange } from './monitor.ts'

let ctx: TestContext
let root: string
const census = (dir: string, over: Record<number, CensusFields> = {}) => {
  mkdirSync(dir, { recursive: true })
  writeCensus(
    join(dir, `${CENSUS_FILE_ID}.csv`),
    Array.from({ length: 3 }, (_, i) => carrierRow(1_000_001 + i, over[1_000_001 + i] ?? {})),
  )
  return dir
}
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cvk-checks-watch-'))
  ctx = await createTestContext({
    liveDir: census(join(root, 'v1')),
    now: new Date().toISOString(),
  })
})
afterAll(() => {
  ctx.close()
  rmSync(root, { recursive: true, force: true })
})

describe('carrier.changed names the checks whose verdict would now differ', () => {
  test('a watched carrier going inactive: its non-failing checks are named with the verdict now', async () => {
    const { account, key } = ctx.account('starter')
    const k = key()
    const first = (await (
      await ctx.post('/v1/checks', { dot: '1000001', reference: 'L-1', watch: true }, k)
    ).json()) as {
      check_id: string
      verdict: string
    }
    expect(first.verdict).not.toBe('fail')
    const other = (await (
      await ctx.post('/v1/checks', { dot: '1000002', watch: true }, k)
    ).json()) as { check_id: string }
    const deps = { ...ctx.deps, annotate: checksOnChange(ctx.deps) }
    expect(runWatchMonitor(deps)).toMatchObject({ firstSeen: 2, events: 0 })

    const results = await importDir(
      { ...pipelineDeps(ctx.deps), onActivated: watchOnActivation(deps) },
      census(join(root, 'v2'), {
        1_000_001: { STATUS_CODE: 'I' },
        1_000_002: { POWER_UNITS: '33' },
      }),
      { channel: 'live', trigger: 'test', signal: AbortSignal.timeout(30_000) },
    )
    expect(results.map((r) => r.status)).toEqual(['activated'])
    const events = ctx.deps.db
      .prepare(
        "SELECT account_id AS accountId, data FROM webhook_events WHERE type = 'carrier.changed'",
      )
      .all() as { accountId: number; data: string }[]
    expect(events).toHaveLength(1)
    const data = JSON.parse(events[0]?.data ?? '{}') as { dot_number: string; checks: unknown[] }
    expect(events[0]?.accountId).toBe(account.id)
    expect(data.dot_number).toBe('1000001')
    expect(data.checks).toEqual([
      {
        check_id: first.check_id,
        reference: 'L-1',
        created_at: expect.any(String),
        verdict: first.verdict,
        verdict_now: 'fail',
        rules_changed: expect.arrayContaining([
          expect.objectContaining({ rule_id: 'usdot_active', was: 'pass', now: 'fail' }),
        ]),
      },
    ])
    expect(JSON.stringify(data.checks)).not.toContain(other.check_id)
  })
})
