/** carrierJsonText and verifyResponseBytes: the same JSON as JSON.stringify, data blocks written once. */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { addReview, reviewInput } from '../reviews/reviews.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { verifyKey, type Caller } from '../keys/keys.ts'
import { verifyBatch, verifyResponseBytes } from './batch.ts'
import { carrierJsonText, toCarrierJson } from './json.ts'
import { openRecords } from './records.ts'
import type { CarrierJson } from './schema.ts'

let ctx: TestContext
let caller: Caller
const DOTS = [344554, 1000001, 1000002, 1000004, 1000005, 1000010, 1000100]
const usage = {
  allowed: true,
  billed: true,
  plan: 'free',
  used: 3,
  limit: 250,
  remaining: 247,
  resetAt: 1_780_000_000,
}

beforeAll(async () => {
  ctx = await createTestContext({ sampleDir: 'data/sample', now: '2026-11-15T12:00:00Z' })
  const v = verifyKey(ctx.deps.db, ctx.account('free').key('test'), ctx.clock().getTime())
  if (!v.ok) throw new Error('key')
  caller = v.caller
}, 120_000)
afterAll(() => ctx.close())

const json = (dot: number, requestId = 'req-1'): CarrierJson => {
  const r = openRecords(ctx.deps, caller.mode).recordNow(dot)
  if (!r) throw new Error(`no record ${dot}`)
  return toCarrierJson(r, { usage, requestId, source: r.source })
}

test('carrierJsonText is JSON.stringify of the record, key order included, hit after hit', () => {
  for (let round = 0; round < 2; round++)
    for (const dot of DOTS) {
      const j = json(dot, `req-${round}`)
      expect(carrierJsonText(j)).toBe(JSON.stringify(j))
    }
})

test('the parts that change per call are written per call: meta, trust and reviews, cross-check', () => {
  const a = json(1000001, 'first')
  const b = json(1000001, 'second')
  expect(a.identity).toBe(b.identity) // a record-cache hit shares its data blocks
  expect(carrierJsonText(b)).toContain('"request_id":"second"')
  const today = '2026-11-15'
  addReview(
    ctx.deps.db,
    reviewInput(today).parse({ dot: 1000001, stars: 2, experience_type: 'payment', title: 'slow' }),
    { now: ctx.clock().getTime(), today },
  )
  const c = json(1000001)
  expect(JSON.parse(carrierJsonText(c))).toEqual(JSON.parse(JSON.stringify(c)))
  expect(carrierJsonText(c)).not.toBe(carrierJsonText(a))
  const crosscheck = {
    status: 'unavailable',
    reason: 'timeout',
  } as unknown as CarrierJson['crosscheck']
  const withCheck = { ...c, crosscheck }
  const { meta, ...rest } = withCheck
  expect(carrierJsonText(withCheck)).toBe(JSON.stringify({ ...rest, meta }))
})

test('a block replaced by another object is written again, not taken from the memo', () => {
  const a = json(1000002)
  carrierJsonText(a)
  const changed = { ...a, authority: { ...a.authority, status: 'CHANGED' as never } }
  expect(carrierJsonText(changed)).toBe(JSON.stringify(changed))
})

test('verifyResponseBytes equals JSON.stringify of the batch answer, whatever the inputs say', async () => {
  const { body } = await verifyBatch(ctx.deps, caller, {
    items: [
      { dot: '1000001' },
      { dot: '99999998' },
      { dot: 'nope' },
      { dot: '1000002' },
      { dot: '1000001' },
      // multi-byte characters (two, three and four UTF-8 bytes) echoed in an item's input
      { dot: 'Ünïcödé ✓ 🚚' },
    ],
    fromDotNumbers: false,
    crosscheck: undefined,
    requestId: 'batch-1',
  })
  const bytes = verifyResponseBytes(body)
  expect(bytes.toString('utf8')).toBe(JSON.stringify(body))
  expect(bytes.length).toBe(Buffer.byteLength(JSON.stringify(body)))
  // an input that looks like a placeholder stays what it was
  const { body: odd } = await verifyBatch(ctx.deps, caller, {
    items: ['00000000-0000-0000-0000-000000000000:0', 1000004],
    fromDotNumbers: true,
    crosscheck: undefined,
    requestId: 'batch-2',
  })
  expect(verifyResponseBytes(odd).toString('utf8')).toBe(JSON.stringify(odd))
})
