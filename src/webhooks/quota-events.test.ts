import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CENSUS_FILE_ID } from '../census/census.ts'
import { periodOf } from '../clock.ts'
import { openSqlite } from '../db/open.ts'
import { verifyKey } from '../keys/keys.ts'
import { meter } from '../keys/usage.ts'
import { silentLogger } from '../log.ts'
import { carrierRow, writeCensus } from '../testing/census-fixture.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { deliverDue } from './deliver.ts'
import { addEndpoint } from './endpoints.ts'
import { startReceiver, type Receiver } from '../testing/webhook-receiver.ts'

let rx: Receiver
let ctx: TestContext
let liveDir: string

beforeAll(async () => {
  rx = await startReceiver()
  liveDir = mkdtempSync(join(tmpdir(), 'cvk-live-'))
  writeCensus(
    join(liveDir, `${CENSUS_FILE_ID}.csv`),
    Array.from({ length: 10 }, (_, i) => carrierRow(1_000_001 + i)),
  )
  ctx = await createTestContext({ liveDir, fetch: globalThis.fetch })
})
afterAll(async () => {
  ctx.close()
  rmSync(liveDir, { recursive: true, force: true })
  await rx.close()
})

describe('quota.threshold_reached', () => {
  it('fires exactly once under concurrent lookups from two connections', async () => {
    const { account, key } = ctx.account('starter') // 10,000 included: 80% = 8,000
    const secret = key()
    await addEndpoint(ctx.deps, { accountId: account.id, url: rx.url }, ctx.clock().getTime())
    ctx.deps.db
      .prepare('INSERT INTO usage_counters (account_id, period, used) VALUES (?, ?, ?)')
      .run(account.id, periodOf(ctx.clock()), 7_990)

    const other = openSqlite(ctx.config.paths.appDb, 'readwrite')
    try {
      const verified = verifyKey(other, secret, ctx.clock().getTime())
      if (!verified.ok) throw new Error(verified.reason)
      const viaApp = Array.from({ length: 30 }, (_, i) =>
        ctx.get(`/v1/carrier/${1_000_001 + (i % 10)}`, secret).then((r) => r.status),
      )
      const viaOtherConnection = Array.from({ length: 30 }, async () => {
        await Promise.resolve()
        return meter({ db: other, log: silentLogger() }, verified.caller, 1, ctx.clock()).allowed
      })
      const [statuses, allowed] = await Promise.all([
        Promise.all(viaApp),
        Promise.all(viaOtherConnection),
      ])
      expect(statuses.every((s) => s === 200)).toBe(true)
      expect(allowed.every(Boolean)).toBe(true)
    } finally {
      other.close()
    }

    const { used } = ctx.deps.db
      .prepare('SELECT used FROM usage_counters WHERE account_id = ?')
      .get(account.id) as { used: number }
    expect(used).toBe(8_050)
    const events = ctx.deps.db
      .prepare("SELECT id, data FROM webhook_events WHERE type = 'quota.threshold_reached'")
      .all() as { id: string; data: string }[]
    expect(events).toHaveLength(1)
    expect(JSON.parse(events[0]?.data ?? '{}')).toMatchObject({
      account_id: account.id,
      quota_limit: 10_000,
      threshold: 0.8,
    })

    const summary = await deliverDue(ctx.deps)
    expect(summary.succeeded).toBeGreaterThanOrEqual(1)
    const quota = rx.received.filter((r) => r.body.includes('"quota.threshold_reached"'))
    expect(quota).toHaveLength(1)
    expect(quota[0]?.headers['webhook-id']).toBe(events[0]?.id)
    // further lookups this month do not fire it again
    expect((await ctx.get('/v1/carrier/1000001', secret)).status).toBe(200)
    await deliverDue(ctx.deps)
    expect(rx.received.filter((r) => r.body.includes('"quota.threshold_reached"'))).toHaveLength(1)
  })
})
