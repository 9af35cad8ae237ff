/**
 * Records assembled in worker threads: equal to the main thread's assembly in every view, follow
 * a new dataset version at once, and never fail a lookup when a worker cannot answer.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CENSUS_FILE_ID } from '../census/census.ts'
import type { ActiveDataset, DataView } from '../db/datasets.ts'
import { pipelineDeps } from '../deps.ts'
import { verifyKey, type Caller } from '../keys/keys.ts'
import { createLogger, silentLogger } from '../log.ts'
import { importDir } from '../sync/pipeline.ts'
import { carrierRow, writeCensus, type CensusFields } from '../testing/census-fixture.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import {
  answerText,
  carrierJsonText,
  dataBlocksFirst,
  parseDataBlocksFirst,
  toCarrierJson,
  type MetaInput,
} from './json.ts'
import { cachedRecords, inProcessRecords, openRecords, type RecordPort } from './records.ts'
import { toBondJson } from './bond.ts'
import { addReview } from '../reviews/reviews.ts'
import { dataReasons } from './data-check.ts'
import { answerOf } from './answer.ts'
import { recordData } from './record.ts'
import { RecordWorkers } from './record-workers.ts'
import { verifyBatch, verifyResponseBytes } from './batch.ts'
import { sortedDots } from '../db/dot-set.ts'
import type { ReviewedDots } from '../reviews/reviews.ts'

let ctx: TestContext
let root: string
let workers: RecordWorkers
let live: Caller
let sandbox: Caller
const SAMPLE_DOTS = [344554, 1000001, 1000002, 1000004, 1000005, 1000010, 1000100, 99_999_998]
const LIVE_DOTS = [1_000_001, 1_000_002, 1_000_003, 1_000_004]

/** 1,000,003 also holds MC-2: a docket with two holders (MC-1 and MC-3 have one each). */
const SHARED_DOCKET: Record<number, CensusFields> = {
  1_000_003: { DOCKET2PREFIX: 'MC', DOCKET2: '2' },
}

const census = (dir: string, over: Record<number, CensusFields> = {}) => {
  mkdirSync(dir, { recursive: true })
  writeCensus(
    join(dir, `${CENSUS_FILE_ID}.csv`),
    LIVE_DOTS.slice(0, 3).map((dot) => carrierRow(dot, { ...SHARED_DOCKET[dot], ...over[dot] })),
  )
  return dir
}

function callerOf(mode: 'live' | 'test'): Caller {
  const v = verifyKey(ctx.deps.db, ctx.account('free').key(mode), ctx.clock().getTime())
  if (!v.ok) throw new Error('key')
  return v.caller
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cvk-record-workers-'))
  ctx = await createTestContext({
    sampleDir: 'data/sample',
    liveDir: census(join(root, 'v1')),
    // every read assembles the record: the cache would answer the second round itself
    env: { RECORD_CACHE_ENTRIES: '0' },
  })
  live = callerOf('live')
  sandbox = callerOf('test')
  // one worker: it is handed the sample view and the live view in turn
  workers = new RecordWorkers({ size: 1, log: silentLogger() })
  // as serve.ts does: after a swap the workers drop the replaced files
  ctx.deps.datasets.onChange(() =>
    workers.follow([ctx.deps.datasets.view('live'), ctx.deps.datasets.view('test')]),
  )
}, 120_000)
afterAll(async () => {
  await workers.close()
  ctx.close()
  rmSync(root, { recursive: true, force: true })
})

/** The record as the main thread alone assembles it. */
const mainRecord = (caller: Caller, dot: number) =>
  openRecords(ctx.deps, caller.mode).recordNow(dot)

/** The record as the server reads it with the pool, and as the main thread alone assembles it. */
async function both(caller: Caller, dot: number) {
  const viaWorker = await openRecords({ ...ctx.deps, records: workers }, caller.mode).record(dot)
  return { viaWorker, onMain: mainRecord(caller, dot) }
}

test('a record assembled by a worker equals the main thread’s, in the sample and the live view', async () => {
  for (let round = 0; round < 2; round++)
    for (const [caller, dots] of [
      [sandbox, SAMPLE_DOTS],
      [live, LIVE_DOTS],
    ] as const)
      for (const dot of dots) {
        const { viaWorker, onMain } = await both(caller, dot)
        expect(viaWorker, `USDOT ${dot} (${caller.mode})`).toEqual(onMain)
      }
  expect((await both(sandbox, 1000001)).viaWorker?.source).toBe('sample')
  expect((await both(live, 1_000_001)).viaWorker?.source).toBe('mirror')
  expect((await both(live, 1_000_004)).viaWorker).toBeNull()
})

test('the equipment block and driver qualification from a worker: the sample’s, and the live view’s missing datasets said', async () => {
  const sample = await both(sandbox, 1_000_024)
  expect(sample.viaWorker?.equipment).toEqual(sample.onMain?.equipment)
  expect(sample.viaWorker?.equipment.reason).toBeNull()
  expect(sample.viaWorker?.equipment.roadside?.name_mismatches).toBeGreaterThan(0)
  // the live view holds a census only: no equipment, no violation file
  const { viaWorker, onMain } = await both(live, 1_000_001)
  expect(viaWorker?.equipment).toEqual(onMain?.equipment)
  expect(viaWorker?.equipment).toMatchObject({
    power_units_seen: null,
    roadside: null,
    as_of: null,
    reason: 'dataset_missing:equipment',
  })
  expect(viaWorker?.equipment.reported_power_units).toBe(viaWorker?.fleet.power_units)
  expect(viaWorker?.safety.driver_qualification).toBeNull()
})

test('many lookups in flight at once each get their own record', async () => {
  const dots = [...SAMPLE_DOTS, ...SAMPLE_DOTS, ...SAMPLE_DOTS]
  const pool = { ...ctx.deps, records: workers }
  expect(workers.inFlight).toBe(0)
  const reads = dots.map((dot) => openRecords(pool, sandbox.mode).record(dot))
  // one request per USDOT (concurrent misses share a read); the metering's group commit gathers
  // only while the workers owe answers (keys/usage.ts)
  expect(workers.inFlight).toBe(new Set(dots).size)
  const read = await Promise.all(reads)
  expect(workers.inFlight).toBe(0)
  read.forEach((r, i) => expect(r?.dotNumber ?? null).toBe(r ? dots[i] : null))
  expect(read.map((r) => r?.legal_name ?? null)).toEqual(
    dots.map((dot) => mainRecord(sandbox, dot)?.legal_name ?? null),
  )
})

test('a worker that dies with requests in flight: each is answered on the main thread', async () => {
  const lines: { msg: string }[] = []
  const log = createLogger('warn', { write: (l: string) => void lines.push(JSON.parse(l)) })
  const pool = new RecordWorkers({ size: 1, log })
  const deps = { ...ctx.deps, records: pool }
  try {
    // a first read starts the worker and opens its files
    await openRecords(deps, sandbox.mode).record(SAMPLE_DOTS[0] ?? 0)
    const reads = SAMPLE_DOTS.map((dot) => openRecords(deps, sandbox.mode).record(dot))
    expect(pool.inFlight).toBe(SAMPLE_DOTS.length)
    // the worker is gone before it answers: every waiting request fails over, none is lost
    const slots = (pool as unknown as { slots: { worker: { terminate(): Promise<number> } }[] })
      .slots
    await slots[0]?.worker.terminate()
    const read = await Promise.all(reads)
    expect(pool.inFlight).toBe(0)
    expect(read).toEqual(SAMPLE_DOTS.map((dot) => mainRecord(sandbox, dot)))
    // (a reply the worker posted before it stopped may still arrive and answer its request)
    const failedOver = lines.filter((l) => l.msg.startsWith('record worker failed')).length
    expect(failedOver).toBeGreaterThan(0)
    expect(failedOver).toBeLessThanOrEqual(SAMPLE_DOTS.length)
    // the next read starts a new worker
    expect(await openRecords(deps, sandbox.mode).record(1000001)).toEqual(
      mainRecord(sandbox, 1000001),
    )
  } finally {
    await pool.close()
  }
})

test('a new live census version is read by the worker from the next lookup on', async () => {
  expect((await both(live, 1_000_001)).viaWorker?.identity.usdot_status).toBe('active')
  const results = await importDir(
    pipelineDeps(ctx.deps),
    census(join(root, 'v2'), { 1_000_001: { STATUS_CODE: 'I', POWER_UNITS: '77' } }),
    { channel: 'live', trigger: 'test', signal: AbortSignal.timeout(30_000) },
  )
  expect(results.map((r) => r.status)).toEqual(['activated'])
  const { viaWorker, onMain } = await both(live, 1_000_001)
  expect(viaWorker?.identity.usdot_status).toBe('inactive')
  expect(viaWorker?.fleet.power_units).toBe(77)
  expect(viaWorker).toEqual(onMain)
})

/** The files this process holds open whose path starts with `path` (Linux /proc). */
const openFilesOf = (path: string) =>
  readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`)
      return target.startsWith(path) ? [target] : []
    } catch {
      return [] // closed meanwhile (the readdir's own descriptor)
    }
  })

test.runIf(existsSync('/proc/self/fd'))(
  'after a swap the workers close the replaced file at once, without a lookup; a read begun in the old view still answers',
  async () => {
    const pool = new RecordWorkers({ size: 2, log: silentLogger() })
    ctx.deps.datasets.onChange(() =>
      pool.follow([ctx.deps.datasets.view('live'), ctx.deps.datasets.view('test')]),
    )
    try {
      const deps = { ...ctx.deps, records: pool }
      // both workers read the live census
      const read = await Promise.all(
        LIVE_DOTS.map((dot) => openRecords(deps, live.mode).record(dot)),
      )
      const was = read[1]?.fleet.power_units
      const before = ctx.deps.datasets.view('live')
      const old = (before.get('census') as ActiveDataset).path
      expect(openFilesOf(old).length).toBeGreaterThanOrEqual(3) // main + two workers
      const results = await importDir(
        pipelineDeps(ctx.deps),
        census(join(root, 'v3'), { 1_000_002: { POWER_UNITS: '55' } }),
        { channel: 'live', trigger: 'test', signal: AbortSignal.timeout(30_000) },
      )
      expect(results.map((r) => r.status)).toEqual(['activated'])
      const current = (ctx.deps.datasets.view('live').get('census') as ActiveDataset).path
      expect(current).not.toBe(old)
      for (let i = 0; i < 100 && openFilesOf(old).length > 0; i++)
        await new Promise((r) => setTimeout(r, 20))
      expect(openFilesOf(old)).toEqual([])
      expect(openFilesOf(current).length).toBeGreaterThanOrEqual(3)
      // a read still in the view it began in (the file is kept) is answered from that version,
      // by a worker (the main thread has closed that version)
      const inOld = (await pool.data(before, 1_000_002, { today: '2026-11-15' })) as {
        fleet: { power_units: number | null }
      }
      expect(was).not.toBe(55)
      expect(inOld.fleet.power_units).toBe(was)
      // the new version from the next lookup on
      expect((await openRecords(deps, live.mode).record(1_000_002))?.fleet.power_units).toBe(55)
    } finally {
      await pool.close()
    }
  },
)

test('a lookup sent while a batch’s reads wait is answered before most of them', async () => {
  const pool = new RecordWorkers({ size: 1, log: silentLogger() })
  try {
    const view = ctx.deps.datasets.view('live')
    const order: string[] = []
    const batch = Array.from({ length: 300 }, (_, i) =>
      pool
        .data(view, LIVE_DOTS[i % LIVE_DOTS.length] ?? 0, { today: '2026-11-15', batch: true })
        .then((r) => (order.push(`batch ${i}`), r)),
    )
    const lookup = pool
      .data(view, 1_000_002, { today: '2026-11-15' })
      .then((r) => (order.push('lookup'), r))
    const [one, reads] = await Promise.all([lookup, Promise.all(batch)])
    // the first read installs the view and is answered at once; the lookup then goes before the
    // batch reads still waiting (at most a slice of them, about 1 ms, can be answered before it)
    expect(order.indexOf('lookup')).toBeGreaterThan(0)
    expect(order.indexOf('lookup')).toBeLessThan(100)
    // and every read is still the record it names
    expect((one as { dot_number: string }).dot_number).toBe('1000002')
    expect(reads.map((r) => (r as { dot_number: string } | null)?.dot_number ?? null)).toEqual(
      batch.map((_, i) => {
        const dot = LIVE_DOTS[i % LIVE_DOTS.length] ?? 0
        return mainRecord(live, dot)?.dot_number ?? null
      }),
    )
  } finally {
    await pool.close()
  }
})

test('a batch’s reads waiting when the views change are answered in the view they were sent in', async () => {
  const lines: { msg: string }[] = []
  const log = createLogger('warn', { write: (l: string) => void lines.push(JSON.parse(l)) })
  const pool = new RecordWorkers({ size: 1, log })
  try {
    const view = ctx.deps.datasets.view('live')
    // a new version of the view (the census file renumbered, as after a swap): installing it
    // closes the files of the view it replaces
    const census = view.get('census') as ActiveDataset
    const swapped: DataView = {
      source: view.source,
      versionKey: `${view.versionKey}:swapped`,
      get: (name) =>
        name === 'census' ? { ...census, versionId: census.versionId + 1_000 } : view.get(name),
    }
    const deps = { today: '2026-11-15', batch: true }
    const reads = Array.from({ length: 60 }, () => pool.data(view, 1_000_001, deps))
    pool.follow([swapped, ctx.deps.datasets.view('test')])
    const after = await pool.data(swapped, 1_000_001, deps)
    const expected = recordData(deps, view, census, 1_000_001)
    expect(expected).not.toBeNull()
    for (const r of await Promise.all(reads)) expect(r).toEqual(expected)
    expect((after as { dot_number: string }).dot_number).toBe('1000001')
    // and when a lookup names a view that replaces theirs (the view it carries is installed)
    const waiting = Array.from({ length: 60 }, () => pool.data(swapped, 1_000_001, deps))
    const back = await pool.data(view, 1_000_001, { today: '2026-11-15' })
    for (const r of [...(await Promise.all(waiting)), back]) expect(r).toEqual(expected)
    // none failed over to the main thread: each was read before its view's files closed
    expect(lines).toEqual([])
  } finally {
    await pool.close()
  }
})

test('a worker that cannot read the files answers through the main thread', async () => {
  const view = ctx.deps.datasets.view('test')
  const census = view.get('census') as ActiveDataset
  // the worker is told a file that does not exist; the main thread's connection is intact
  const broken: DataView = {
    ...view,
    versionKey: `${view.versionKey}:broken`,
    get: (name) =>
      name === 'census' ? { ...census, path: join(root, 'missing.db') } : view.get(name),
  }
  const lines: { msg: string; dot?: number }[] = []
  const log = createLogger('warn', { write: (l: string) => void lines.push(JSON.parse(l)) })
  const pool = new RecordWorkers({ size: 1, log })
  try {
    const deps = { today: '2026-11-15' }
    const viaFallback = await pool.data(broken, 1000001, deps)
    expect(lines).toMatchObject([
      { msg: 'record worker failed; assembling on the main thread', dot: 1000001 },
    ])
    const viaWorker = await pool.data(view, 1000001, deps)
    expect(lines).toHaveLength(1)
    expect(viaFallback).not.toBeNull()
    expect(viaFallback).toEqual(viaWorker)
  } finally {
    await pool.close()
  }
})

test('after the pool is closed, lookups are assembled on the main thread', async () => {
  const closed = new RecordWorkers({ size: 2, log: silentLogger() })
  await closed.close()
  const record = await openRecords({ ...ctx.deps, records: closed }, sandbox.mode).record(1000001)
  expect(record).toEqual(mainRecord(sandbox, 1000001))
})

test('a worker-read record answers the same JSON text as JSON.stringify, from the text it came in', async () => {
  const pool = { ...ctx.deps, records: workers }
  for (const dot of SAMPLE_DOTS) {
    const record = await openRecords(pool, sandbox.mode).record(dot)
    if (!record) continue
    const json = toCarrierJson(record, { usage: null, requestId: 'req-w', source: record.source })
    expect(carrierJsonText(json), `USDOT ${dot}`).toBe(JSON.stringify(json))
  }
  // the text sent from the worker starts with the blocks exactly as carrierJsonText writes them
  const onMain = mainRecord(sandbox, 1000001)
  if (!onMain) throw new Error('no record')
  const { json, blocks } = dataBlocksFirst(onMain)
  const whole = JSON.stringify(
    toCarrierJson(onMain, { usage: null, requestId: 'r', source: 'sample' }),
  )
  expect(whole.startsWith(`{${json.slice(1, 1 + blocks)},"trust":`)).toBe(true)
  expect(parseDataBlocksFirst(json, blocks)).toEqual(onMain)
})

describe('a whole record answered by a worker (a single lookup not cached)', () => {
  let whole: RecordWorkers
  beforeAll(() => {
    whole = new RecordWorkers({ size: 1, log: silentLogger(), appDb: ctx.deps.config.paths.appDb })
  })
  afterAll(() => whole.close())

  /** The answer text through the pool, and the main thread's text of the same record. */
  async function texts(caller: Caller, dot: number, meta: MetaInput) {
    const found = await openRecords({ ...ctx.deps, records: whole }, caller.mode).answer(dot)
    const record = mainRecord(caller, dot)
    return {
      viaWorker: found && answerText(found.body, found, meta),
      onMain: record && carrierJsonText(toCarrierJson(record, meta)),
    }
  }

  test('is the main thread’s JSON text byte for byte, in the sample and the live view', async () => {
    const meta: MetaInput = { usage: null, requestId: 'req-whole', source: 'mirror' }
    for (const [caller, dots] of [
      [sandbox, SAMPLE_DOTS],
      [live, LIVE_DOTS],
    ] as const)
      for (const dot of dots) {
        const { viaWorker, onMain } = await texts(caller, dot, meta)
        expect(viaWorker, `USDOT ${dot} (${caller.mode})`).toBe(onMain)
        if (viaWorker) expect(JSON.parse(viaWorker)).toMatchObject({ dot_number: String(dot) })
      }
    expect((await texts(live, 1_000_004, meta)).viaWorker).toBeNull()
  })

  test('reads a review written a moment ago, and scores it as the main thread does', async () => {
    const meta: MetaInput = { usage: null, requestId: 'req-review', source: 'sample' }
    const before = await texts(sandbox, 1000002, meta)
    const now = ctx.clock().getTime()
    addReview(
      ctx.deps.db,
      { dot: 1000002, stars: 1, experience_type: 'delivery', text: 'Load never arrived' },
      { now, today: '2026-11-01' },
    )
    const after = await texts(sandbox, 1000002, meta)
    expect(after.viaWorker).toBe(after.onMain)
    expect(after.viaWorker).not.toBe(before.viaWorker)
    const json = JSON.parse(after.viaWorker ?? 'null') as {
      reviews: { summary: { count: number } }
    }
    expect(json.reviews.summary.count).toBe(1)
  })

  /**
   * The pool, noting each request: `data` or `whole`, and ` (batch)` for a batch's read (the
   * worker answers single lookups before those).
   */
  function countingPool() {
    const calls: string[] = []
    const mark = (d: { batch?: boolean }) => (d.batch ? ' (batch)' : '')
    const counting: RecordPort = {
      get busy() {
        return whole.busy
      },
      dataNow: (view, dot, d) => (calls.push(`now ${dot}${mark(d)}`), whole.dataNow(view, dot, d)),
      data: (view, dot, d) => (calls.push(`data ${dot}${mark(d)}`), whole.data(view, dot, d)),
      answer: (view, dot, d) => (calls.push(`whole ${dot}${mark(d)}`), whole.answer(view, dot, d)),
      links: whole.links,
      follow: (views) => whole.follow(views),
      close: () => Promise.resolve(),
    }
    return { calls, counting }
  }

  /** A live caller's batch of `items` through `records` (null: on the main thread). */
  const verify = (records: RecordPort | null, items: unknown[], requestId: string) =>
    verifyBatch({ ...ctx.deps, records: records ?? inProcessRecords }, live, {
      items,
      fromDotNumbers: false,
      crosscheck: undefined,
      requestId,
    })

  /** A batch's answer bytes as text with the month's count blanked (each batch moves it on). */
  const uncounted = (bytes: Buffer) =>
    JSON.stringify(
      JSON.parse(bytes.toString('utf8'), (k, v: unknown) => (k === 'quota_used' ? null : v)),
    )

  test('a batch: its records answered whole by the workers (cross-checked ones as data), equal to the main thread’s', async () => {
    const now = ctx.clock().getTime()
    // a reviewed company in the batch: the worker reads its reviews (it is on the batch's list)
    addReview(
      ctx.deps.db,
      { dot: 1_000_003, stars: 4, experience_type: 'communication', text: 'On time, good comms' },
      { now, today: '2026-11-01' },
    )
    const { calls, counting } = countingPool()
    const items = [
      ...LIVE_DOTS.map((dot) => ({ dot: String(dot) })),
      { dot: '1000001', crosscheck: true },
    ]
    const batch = (records: RecordPort | null) => verify(records, items, 'req-batch')
    const viaWorkers = await batch(counting)
    // each USDOT item (found or not) answered whole by a worker; the cache is off in this context
    expect(calls).toEqual(LIVE_DOTS.map((dot) => `whole ${dot} (batch)`))
    const onMain = await batch(null)
    expect(viaWorkers.body.results.map((r) => r.status)).toEqual([200, 200, 200, 404, 400])
    // the same answers, byte for byte, but for the month's count, which the first batch moved on
    const answer = uncounted(verifyResponseBytes(viaWorkers.body))
    expect(answer).toBe(uncounted(verifyResponseBytes(onMain.body)))
    const reviewed = (JSON.parse(answer) as { results: Record<string, unknown>[] }).results[2]
    expect(reviewed).toMatchObject({
      record: { dot_number: '1000003', reviews: { summary: { count: 1 } } },
    })

    // a cross-checked item is read as data and shaped on the main thread, the rest whole
    calls.length = 0
    await verify(
      counting,
      [{ dot: '1000001', crosscheck: true }, { dot: '1000002' }],
      'req-batch-2',
    )
    expect(calls.sort()).toEqual(['data 1000001 (batch)', 'whole 1000002 (batch)'])
    // a single lookup's read is not marked
    calls.length = 0
    await openRecords({ ...ctx.deps, records: counting }, live.mode).record(1_000_002)
    expect(calls).toEqual(['data 1000002'])
  })

  test('a batch’s items named by a docket with one holder are answered whole, as by USDOT; several holders are ranked from their records', async () => {
    // marked: read through the batch's readers, at its one instant
    const { calls, counting } = countingPool()
    const items = [{ mc: 'MC-1' }, { mc: 'MC-000002' }, { mc: 'mc 3' }, { mc: 'MC-4' }]
    const batch = (records: RecordPort | null) => verify(records, items, 'req-batch-mc')
    const viaWorkers = await batch(counting)
    // MC-1: one holder, whole; MC-2: two holders, both read as data and ranked; MC-3: its holder
    // was MC-2's pick, a duplicate (found either way); MC-4: no holder, nothing read
    expect(calls.sort()).toEqual(
      ['data 1000002', 'data 1000003', 'whole 1000001', 'whole 1000003'].map((c) => `${c} (batch)`),
    )
    const results = viaWorkers.body.results
    expect(results.map((r) => r.status)).toEqual([200, 200, 400, 404])
    expect(results[0]).toMatchObject({
      dot_number: '1000001',
      lookup: { query: 'MC-1', identifier: 'MC-1', resolved_via: 'census', other_dot_numbers: [] },
    })
    expect(results[1]).toMatchObject({ lookup: { identifier: 'MC-2', resolved_via: 'census' } })
    expect(results[3]).toMatchObject({ error: 'No company found for docket MC-4' })
    // the same bytes as the main thread's assembly, but for the month's count
    const onMain = await batch(null)
    expect(uncounted(verifyResponseBytes(viaWorkers.body))).toBe(
      uncounted(verifyResponseBytes(onMain.body)),
    )
  })

  test('a broker lookup’s answer carries the bond block’s text, the main thread’s byte for byte', async () => {
    for (const [caller, dots] of [
      [sandbox, SAMPLE_DOTS],
      [live, LIVE_DOTS],
    ] as const)
      for (const dot of dots) {
        const viaWorker = await openRecords({ ...ctx.deps, records: whole }, caller.mode).answer(
          dot,
          true,
        )
        const record = mainRecord(caller, dot)
        const onMain = record && {
          body: answerOf(record).body,
          bond: JSON.stringify(toBondJson(record.insurance, record.authority)),
        }
        expect(viaWorker && { body: viaWorker.body, bond: viaWorker.bond }, `USDOT ${dot}`).toEqual(
          onMain,
        )
      }
    // a BMC-84 on file in the sample (USDOT 1000002, in SAMPLE_DOTS): the block is its bond
    const broker = await openRecords({ ...ctx.deps, records: whole }, sandbox.mode).answer(
      1_000_002,
      true,
    )
    expect(JSON.parse(broker?.bond ?? 'null')).toMatchObject({ on_file: true })
    // a lookup asks for none
    const plain = await openRecords({ ...ctx.deps, records: whole }, sandbox.mode).answer(344554)
    expect(plain?.bond).toBeUndefined()
  })

  test('reads the reviews of a company only when the list it is sent names it (a batch’s instant)', async () => {
    const view = ctx.deps.datasets.view('test')
    addReview(
      ctx.deps.db,
      { dot: 1000005, stars: 2, experience_type: 'delivery', text: 'Late twice' },
      { now: ctx.clock().getTime(), today: '2026-11-01' },
    )
    const deps = { db: ctx.deps.db, today: '2026-11-15', dataReasons: [] }
    const count = async (reviewed?: ReviewedDots) => {
      const a = await whole.answer(view, 1000005, reviewed ? { ...deps, reviewed } : deps)
      return (JSON.parse(`{${a?.body ?? ''}}`) as { reviews: { summary: { count: number } } })
        .reviews.summary.count
    }
    // the worker's own read, a list naming the company, a list read before its first review
    expect(await count()).toBe(1)
    expect(await count({ epoch: 1, dots: sortedDots([1000001, 1000005]) })).toBe(1)
    expect(await count({ epoch: 0, dots: sortedDots([1000001]) })).toBe(0)
  })

  test('is judged with the verdict it is sent (a stale dataset is never verified)', async () => {
    const view = ctx.deps.datasets.view('live')
    const deps = { db: ctx.deps.db, today: '2026-11-15', dataReasons: ['dataset_stale:census'] }
    const a = await whole.answer(view, 1_000_001, deps)
    const trust = (JSON.parse(`{${a?.body ?? ''}}`) as { trust: Record<string, unknown> }).trust
    expect(trust.trust_verified).toBe(false)
    expect(trust.unverified_reasons).toEqual(expect.arrayContaining(['dataset_stale:census']))
  })

  test('a pool given no app.db, or a worker that fails, answers through the main thread', async () => {
    const view = ctx.deps.datasets.view('test')
    const deps = {
      db: ctx.deps.db,
      today: '2026-11-15',
      dataReasons: dataReasons({ db: ctx.deps.db, now: Date.now(), maxAgeHours: 72 }, view),
    }
    const lines: { msg: string }[] = []
    const log = createLogger('warn', { write: (l: string) => void lines.push(JSON.parse(l)) })
    const noDb = new RecordWorkers({ size: 1, log })
    const census = view.get('census') as ActiveDataset
    const broken: DataView = {
      ...view,
      versionKey: `${view.versionKey}:broken-whole`,
      get: (name) =>
        name === 'census' ? { ...census, path: join(root, 'missing.db') } : view.get(name),
    }
    try {
      const expected = await whole.answer(view, 1000001, deps)
      expect(expected).not.toBeNull()
      expect(await noDb.answer(view, 1000001, deps)).toEqual(expected)
      // no app.db is the pool's configuration, not a failure: nothing is logged
      expect(lines).toEqual([])
      expect(await whole.answer(broken, 1000001, deps)).toEqual(expected)
    } finally {
      await noDb.close()
    }
  })

  test('a company’s links from a worker are the main thread’s text byte for byte; a pool with no app.db or a failing worker reads them on the main thread', async () => {
    const view = ctx.deps.datasets.view('test')
    const deps = { db: ctx.deps.db }
    // a successor of a revoked carrier, its predecessor, one of 40 sharing a phone, no links
    for (const dot of [1000252, 1000027, 1000300, 1000001]) {
      const viaWorker = await whole.links(view, dot, deps)
      expect(viaWorker, `USDOT ${dot}`).toBe(await inProcessRecords.links(view, dot, deps))
      expect(JSON.parse(viaWorker ?? 'null')).toMatchObject({ dot_number: String(dot) })
    }
    expect(JSON.parse((await whole.links(view, 1000252, deps)) ?? 'null')).toMatchObject({
      links: [{ dot_number: '1000027', relation: 'predecessor' }],
    })
    expect(await whole.links(view, 99_999_998, deps)).toBeNull()
    expect(await whole.links(ctx.deps.datasets.view('live'), 1_000_004, deps)).toBeNull()
    const noDb = new RecordWorkers({ size: 1, log: silentLogger() })
    const census = view.get('census') as ActiveDataset
    const broken: DataView = {
      ...view,
      versionKey: `${view.versionKey}:broken-links`,
      get: (name) =>
        name === 'census' ? { ...census, path: join(root, 'missing.db') } : view.get(name),
    }
    try {
      const expected = await inProcessRecords.links(view, 1000252, deps)
      expect(await noDb.links(view, 1000252, deps)).toBe(expected)
      expect(await whole.links(broken, 1000252, deps)).toBe(expected)
    } finally {
      await noDb.close()
    }
  })

  test('a record the cache will keep (its third miss) is read as data; any other, whole', async () => {
    const view = ctx.deps.datasets.view('test')
    const calls: string[] = []
    const counting: RecordPort = {
      busy: true,
      dataNow: whole.dataNow,
      data: (v, dot, d) => (calls.push('data'), whole.data(v, dot, d)),
      answer: (v, dot, d) => (calls.push('whole'), whole.answer(v, dot, d)),
      links: whole.links,
      follow: (views) => whole.follow(views),
      close: () => Promise.resolve(),
    }
    const deps = {
      db: ctx.deps.db,
      today: '2026-11-16',
      dataReasons: dataReasons(
        { db: ctx.deps.db, now: ctx.clock().getTime(), maxAgeHours: 72 },
        view,
      ),
    }
    const cached = cachedRecords(counting, 10)
    const bodies = []
    for (let i = 0; i < 4; i++) bodies.push((await cached.answer(view, 1000005, deps))?.body)
    // first and second miss: whole; third miss: the data, kept; fourth: the cache, no read at all
    expect(calls).toEqual(['whole', 'whole', 'data'])
    expect(new Set(bodies).size).toBe(1)
    expect(bodies[0]).toBeDefined()
  })
})
