/** The per-view record cache: same answers as an uncached assembly, never stale. */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { addReview, reviewInput } from '../reviews/reviews.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { openRecords } from './records.ts'
import { getCompanyRecord, recordData } from './record.ts'
import { cachedPerView, loadPerView } from './record-cache.ts'
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
      expect(openRecords(cached.deps, caller.mode).recordNow(dot), `USDOT ${dot}`).toEqual(
        openRecords(uncached.deps, callerOff.mode).recordNow(dot),
      )
  expect(openRecords(cached.deps, caller.mode).recordNow(99_999_998)).toBeNull()
})

test("a record holds its data's keys in their order (no link facts), then trust and reviews", () => {
  const view = uncached.deps.datasets.view('test')
  const census = view.get('census')
  if (!census) throw new Error('no sample census')
  for (const dot of DOTS) {
    const data = recordData({ today: '2026-11-15' }, view, census, dot)
    if (!data) throw new Error(`no record data for ${dot}`)
    const record = openRecords(uncached.deps, callerOff.mode).recordNow(dot)
    const { links: _links, ...blocks } = data
    expect(Object.keys(record ?? {}), `USDOT ${dot}`).toEqual([
      ...Object.keys(blocks),
      'trust',
      'reviews',
    ])
    expect(record).toMatchObject(blocks)
    // the identity block: the datasets' part, then the history's and the links' fields
    expect(Object.keys(record?.identity ?? {})).toEqual([
      ...Object.keys(data.identity),
      'recent_changes',
      'contact_changed_days',
      'history_since',
      'links',
    ])
  }
})

test('a review stored after a cached read shows in the next read, with its Trust Score', () => {
  const dot = 1000001
  const before = openRecords(cached.deps, caller.mode).recordNow(dot)
  const today = '2026-11-15'
  for (const ctx of [cached, uncached])
    addReview(
      ctx.deps.db,
      reviewInput(today).parse({ dot, stars: 1, experience_type: 'delivery', title: 'late' }),
      { now: ctx.clock().getTime(), today },
    )
  const after = openRecords(cached.deps, caller.mode).recordNow(dot)
  expect(after?.reviews.summary).not.toEqual(before?.reviews.summary)
  expect(after).toEqual(openRecords(uncached.deps, callerOff.mode).recordNow(dot))
})

test('the next day reads the datasets again (dates move pending suspensions and expiries)', () => {
  cached.clock.advance(86_400_000)
  uncached.clock.advance(86_400_000)
  for (const dot of DOTS)
    expect(openRecords(cached.deps, caller.mode).recordNow(dot)).toEqual(
      openRecords(uncached.deps, callerOff.mode).recordNow(dot),
    )
})

test('an entry is kept from its third miss; least recently used entries go first', () => {
  const view = {} as DataView
  let builds = 0
  const read = (k: string) => cachedPerView(view, k, 2, () => ++builds)
  // the first misses are only counted: one-off and paired lookups never displace recurring ones
  expect(read('a')).toEqual({ value: 1, hit: false })
  expect(read('a')).toEqual({ value: 2, hit: false })
  expect(read('a')).toEqual({ value: 3, hit: false })
  expect(read('a')).toEqual({ value: 3, hit: true })
  for (const value of [4, 5, 6]) expect(read('b')).toEqual({ value, hit: false })
  expect(read('a')).toEqual({ value: 3, hit: true }) // a is now the most recent
  for (const value of [7, 8]) expect(read('c')).toEqual({ value, hit: false })
  expect(read('c')).toEqual({ value: 9, hit: false }) // kept: evicts b
  expect(read('a').hit).toBe(true)
  expect(read('b')).toEqual({ value: 10, hit: false }) // b missed often: kept again, evicts c
  expect(read('b').hit).toBe(true)
  expect(read('c').hit).toBe(false)
  expect(cachedPerView(view, 'z', 0, () => 'off')).toEqual({ value: 'off', hit: false })
  expect(cachedPerView(view, 'z', 0, () => 'off').hit).toBe(false)
})

test('concurrent misses of one key share one read; other keys, views and later misses read again', async () => {
  const view = {} as DataView
  const other = {} as DataView
  const reads: string[] = []
  const gates: (() => void)[] = []
  const read = (v: DataView, k: string, capacity = 8) =>
    loadPerView(v, k, capacity, async () => {
      const n = reads.push(k)
      await new Promise<void>((r) => gates.push(r))
      return { k, n }
    })
  const a = [read(view, 'flight-a'), read(view, 'flight-a'), read(view, 'flight-a')]
  const b = read(view, 'flight-b')
  const a2 = read(other, 'flight-a')
  expect(reads).toEqual(['flight-a', 'flight-b', 'flight-a'])
  gates.forEach((open) => open())
  const [x, y, z] = await Promise.all(a)
  expect(x).toBe(y)
  expect(y).toBe(z)
  expect(await b).toEqual({ k: 'flight-b', n: 2 })
  expect(await a2).not.toBe(x)
  // done: the next miss reads again (a first miss is not kept; keys are new to this file's
  // doorkeeper, which remembers keys of every view), then it is a cache hit
  const again = read(view, 'flight-a')
  expect(reads).toHaveLength(4)
  gates.at(-1)?.()
  expect(await again).toEqual({ k: 'flight-a', n: 4 })
  expect(await read(view, 'flight-a')).toBe(await again)
  expect(reads).toHaveLength(4)
  // cache off: still one read for concurrent callers, none kept
  const off = [read(view, 'flight-off', 0), read(view, 'flight-off', 0)]
  gates.at(-1)?.()
  const [o1, o2] = await Promise.all(off)
  expect(o1).toBe(o2)
  const later = read(view, 'flight-off', 0)
  gates.at(-1)?.()
  expect(await later).not.toBe(o1)
})

test('a failed read fails every caller waiting on it and is not remembered', async () => {
  const view = {} as DataView
  let n = 0
  const read = () =>
    loadPerView(view, 'k', 8, async () => {
      n++
      await Promise.resolve()
      if (n === 1) throw new Error('disk')
      return n
    })
  const both = [read(), read()]
  await expect(both[0]).rejects.toThrow('disk')
  await expect(both[1]).rejects.toThrow('disk')
  expect(await read()).toBe(2)
  expect(n).toBe(2)
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
