/** The per-view record cache: same answers as an uncached assembly, never stale. */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { addReview, reviewInput } from '../reviews/reviews.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { findRecord } from './lookup.ts'
import { getCompanyRecord } from './record.ts'
import { cachedPerView } from './record-cache.ts'
import type { Caller } from '../keys/keys.ts'
import type { DataView } from '../db/datasets.ts'
import { verifyKey } from '../keys/keys.ts'

let cached: TestContext
let uncached: TestContext
let caller: Caller
let callerOff: Caller
const DOTS = [344554, 1000001, 1000002, 1000004, 1000005, 1000010, 1000100]

function callerOf(ctx: TestContext): Caller {
  const v = verifyKey(ctx.deps.db, ctx.account('free').key('test'), ctx.clock().getTime())
  if (!v.ok) throw new Error('key')
  return v.caller
}

beforeAll(async () => {
  const opts = { sampleDir: 'data/sample', now: '2026-11-15T12:00:00Z' }
  cached = await createTestContext({ ...opts, env: { RECORD_CACHE_ENTRIES: '3' } })
  uncached = await createTestContext({ ...opts, env: { RECORD_CACHE_ENTRIES: '0' } })
  caller = callerOf(cached)
  callerOff = callerOf(uncached)
}, 120_000)
afterAll(() => {
  cached.close()
  uncached.close()
})

test('a cached record equals the uncached assembly, on the first read and on every hit', () => {
  for (let round = 0; round < 3; round++)
    for (const dot of DOTS)
      expect(findRecord(cached.deps, caller, dot), `USDOT ${dot}`).toEqual(
        findRecord(uncached.deps, callerOff, dot),
      )
  expect(findRecord(cached.deps, caller, 99_999_998)).toBeNull()
})

test('a review stored after a cached read shows in the next read, with its Trust Score', () => {
  const dot = 1000001
  const before = findRecord(cached.deps, caller, dot)
  const today = '2026-11-15'
  for (const ctx of [cached, uncached])
    addReview(
      ctx.deps.db,
      reviewInput(today).parse({ dot, stars: 1, experience_type: 'delivery', title: 'late' }),
      { now: ctx.clock().getTime(), today },
    )
  const after = findRecord(cached.deps, caller, dot)
  expect(after?.reviews.summary).not.toEqual(before?.reviews.summary)
  expect(after).toEqual(findRecord(uncached.deps, callerOff, dot))
})

test('the next day reads the datasets again (dates move pending suspensions and expiries)', () => {
  cached.clock.advance(86_400_000)
  uncached.clock.advance(86_400_000)
  for (const dot of DOTS)
    expect(findRecord(cached.deps, caller, dot)).toEqual(findRecord(uncached.deps, callerOff, dot))
})

test('least recently used entries go first, at the configured capacity', () => {
  const view = {} as DataView
  let builds = 0
  const read = (k: string) => cachedPerView(view, k, 2, () => ++builds)
  expect(read('a')).toEqual({ value: 1, hit: false })
  expect(read('b')).toEqual({ value: 2, hit: false })
  expect(read('a')).toEqual({ value: 1, hit: true }) // a is now the most recent
  expect(read('c')).toEqual({ value: 3, hit: false }) // evicts b
  expect(read('a').hit).toBe(true)
  expect(read('b')).toEqual({ value: 4, hit: false })
  expect(cachedPerView(view, 'z', 0, () => 'off')).toEqual({ value: 'off', hit: false })
})

test("a cached record's Trust Score follows the freshness verdict it is read with", () => {
  const dot = 1000001
  const recordDeps = (ctx: TestContext, reasons: string[]) => ({
    db: ctx.deps.db,
    today: '2026-11-16',
    now: ctx.clock().getTime(),
    maxAgeHours: ctx.deps.config.sync.maxAgeHours,
    cacheEntries: ctx.deps.config.records.cacheEntries,
    dataReasons: reasons,
  })
  const read = (ctx: TestContext, reasons: string[]) =>
    getCompanyRecord(recordDeps(ctx, reasons), ctx.deps.datasets.view('test'), dot)?.trust
  const fresh = read(cached, [])
  const stale = read(cached, ['dataset_stale:census'])
  expect(fresh?.trust_verified).toBe(true)
  expect(stale?.trust_verified).toBe(false)
  expect(stale).toEqual(read(uncached, ['dataset_stale:census']))
  expect(read(cached, [])).toEqual(fresh)
})
