/** The server's job wiring: a scheduled sync compares the watchlists right after it activates. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { isoDate } from './clock.ts'
import { CENSUS_FILE_ID } from './census/census.ts'
import { backgroundJobs } from './serve.ts'
import { carrierRow, writeCensus, type CensusFields } from './testing/census-fixture.ts'
import { createTestContext, type TestContext } from './testing/context.ts'
import { startFmcsaServer, type FmcsaServer } from './testing/fmcsa-server.ts'
import { addToWatchlist } from './webhooks/watchlist.ts'

const WATCHED = 1_000_001
let ctx: TestContext
let server: FmcsaServer
let dir: string

/** A 10-carrier census as the portal serves it. */
function census(over: Record<number, CensusFields> = {}): Buffer {
  const path = join(dir, `${CENSUS_FILE_ID}.csv`)
  writeCensus(
    path,
    Array.from({ length: 10 }, (_, i) => carrierRow(1_000_001 + i, over[1_000_001 + i] ?? {})),
  )
  return readFileSync(path)
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cvk-serve-jobs-'))
  server = await startFmcsaServer({ files: { [CENSUS_FILE_ID]: census() } })
  ctx = await createTestContext({
    fetch: globalThis.fetch,
    now: new Date().toISOString(),
    env: { SYNC_ENABLED: 'true', FMCSA_BASE_URL: server.url, SYNC_RETRIES: '0' },
  })
})
afterEach(async () => {
  ctx.close()
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

/** the monitor's snapshot key: the live version and the day (clock-driven facts, issue 12) */
const liveKey = () => `${ctx.deps.datasets.view('live').versionKey}@${isoDate(ctx.clock())}`
const snapshotKeys = () =>
  ctx.deps.db.prepare('SELECT version_key AS k FROM watch_snapshots').all() as { k: string }[]
const carrierEvents = () =>
  ctx.deps.db.prepare(`SELECT data FROM webhook_events WHERE type = 'carrier.changed'`).all() as {
    data: string
  }[]

describe('scheduled sync → watchlist comparison', () => {
  test('the server schedules the checks retention job and the watch monitor', () => {
    const names = backgroundJobs(ctx.deps).map((j) => j.name)
    expect(names).toEqual(
      expect.arrayContaining(['checks:prune', 'watch:monitor', 'db:maintenance', 'onboarding:run']),
    )
  })

  test('the sync:census job compares the watchlists right after its activation', async () => {
    const account = ctx.account('starter').account
    addToWatchlist(ctx.deps.db, account.id, [WATCHED], ctx.clock().getTime())
    const job = backgroundJobs(ctx.deps).find((j) => j.name === 'sync:census')
    if (!job) throw new Error('no sync:census job')

    // first activation: the watched carrier is seen for the first time (snapshot, no event)
    expect(await job.run(AbortSignal.timeout(20_000))).toMatchObject({ status: 'activated' })
    expect(snapshotKeys()).toEqual([{ k: liveKey() }])
    expect(carrierEvents()).toHaveLength(0)

    // the portal publishes a change to the watched carrier; the next scheduled run reports it
    server.set(CENSUS_FILE_ID, census({ [WATCHED]: { STATUS_CODE: 'I' } }))
    expect(await job.run(AbortSignal.timeout(20_000))).toMatchObject({ status: 'activated' })
    const events = carrierEvents()
    expect(events).toHaveLength(1)
    expect(JSON.parse(events[0]?.data ?? '{}')).toMatchObject({
      dot_number: String(WATCHED),
      changes: expect.arrayContaining([
        { field: 'identity.usdot_status', previous: 'active', current: 'inactive' },
      ]),
      // the server wires checks/ into the monitor: the account has no checks of it
      checks: [],
    })
    expect(snapshotKeys()).toEqual([{ k: liveKey() }])
  })
})
