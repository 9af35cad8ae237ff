import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { findCensusRow } from '../../census/read.ts'
import { EquipmentAnswerJson } from '../../equipment/schema.ts'
import { createTestContext, type TestContext } from '../../testing/context.ts'
import { SAFETY_FIXTURES } from '../../testing/fixture-dirs.ts'

const NOW = '2026-11-15T12:00:00Z'
/** the SMS fixtures' tractor, inspected under several carriers (test/fixtures/safety) */
const VIN = '1FUJGLDR0CLBP1234'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext({ liveDir: SAFETY_FIXTURES, now: NOW })
})
afterAll(() => ctx.close())

const used = (accountId: number) =>
  (
    ctx.deps.db
      .prepare("SELECT used FROM usage_counters WHERE account_id = ? AND period = '2026-11'")
      .get(accountId) as { used: number } | undefined
  )?.used ?? 0

async function error(res: Response, status: number, code: string) {
  expect(res.status).toBe(status)
  expect(await res.json()).toMatchObject({ status, code })
}

describe('GET /v1/equipment', () => {
  test('a VIN: its carriers newest first with census names, billed one call', async () => {
    const { account, key } = ctx.account()
    const res = await ctx.get(`/v1/equipment/${VIN.toLowerCase().replace('CLBP', 'C-LBP')}`, key())
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, unknown>
    const json = EquipmentAnswerJson.parse(body)
    expect(json.vin).toBe(VIN)
    expect(json.plate).toBeNull()
    expect(json.carriers.length).toBeGreaterThan(1)
    const last = json.carriers.map((c) => c.last_seen)
    expect(last).toEqual([...last].sort().reverse())
    expect(json.carriers.every((c) => c.plates.some((p) => p.plate === 'P123456'))).toBe(true)
    expect(json.carriers.some((c) => c.legal_name !== null)).toBe(true)
    expect(body.meta).toMatchObject({ billed: true, quota_used: 1, source: 'mirror' })
    expect(used(account.id)).toBe(1)
    // the /api/v1 alias answers the same
    const alias = await ctx.get(`/api/v1/equipment/${VIN}`, key())
    expect(alias.status).toBe(200)
    expect(used(account.id)).toBe(2)
  })

  test('each carrier named as the census names it; lookups at once are each billed once', async () => {
    const { account, key } = ctx.account()
    const census = ctx.deps.datasets.view('live').get('census')
    if (!census) throw new Error('no census')
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => ctx.get(`/v1/equipment/${VIN}`, key())),
    )
    const bodies = await Promise.all(answers.map((r) => r.json()))
    for (const body of bodies) {
      const json = EquipmentAnswerJson.parse(body)
      expect(json.carriers.map((c) => c.legal_name)).toEqual(
        json.carriers.map((c) => findCensusRow(census, Number(c.dot_number))?.legal_name ?? null),
      )
    }
    const quota = bodies.map((b) => (b as { meta: { quota_used: number } }).meta.quota_used)
    expect(quota.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6])
    expect(used(account.id)).toBe(6)
  })

  test('a plate: the same shape with the plate and the VINs seen with it', async () => {
    const { key } = ctx.account()
    const res = await ctx.get('/v1/equipment?plate=p-123456&state=il', key())
    expect(res.status).toBe(200)
    const json = EquipmentAnswerJson.parse(await res.json())
    expect(json.plate).toEqual({ plate: 'P123456', state: 'IL' })
    expect(json.vin).toBe(VIN)
    expect(json.carriers[0]?.vins).toContain(VIN)
  })

  test('never seen, or a placeholder: 404 not_found, not billed', async () => {
    const { account, key } = ctx.account()
    await error(await ctx.get('/v1/equipment/1HGCM82633A004352', key()), 404, 'not_found')
    await error(await ctx.get('/v1/equipment/UNKNOWN', key()), 404, 'not_found')
    await error(await ctx.get('/v1/equipment?plate=NOPE99&state=TX', key()), 404, 'not_found')
    expect(used(account.id)).toBe(0)
  })

  test('malformed input: 400, never a 500', async () => {
    const { account, key } = ctx.account()
    for (const path of [
      `/v1/equipment/${'A'.repeat(200)}`,
      '/v1/equipment/1FUJGLDR0%01CLBP1234',
      '/v1/equipment/1FUJGLDR0%0ACLBP1234',
      '/v1/equipment/1FUJGLDR0CLBP12345',
      '/v1/equipment/%E2%80%8B',
      '/v1/equipment?plate=P123456&state=ZZ',
      '/v1/equipment?plate=P123456',
      '/v1/equipment?state=IL',
      `/v1/equipment?plate=${'9'.repeat(200)}&state=IL`,
      '/v1/equipment?plate=P123456&state=IL&extra=1',
    ])
      await error(await ctx.get(path, key()), 400, 'invalid_request')
    expect(used(account.id)).toBe(0)
  })
})
