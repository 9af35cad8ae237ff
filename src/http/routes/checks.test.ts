import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestContext, type TestContext } from '../../testing/context.ts'
import { LICENSING_FIXTURES } from '../../testing/fmcsa-server.ts'

const NOW = '2026-11-15T12:00:00Z'
let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext({ liveDir: LICENSING_FIXTURES, now: NOW })
})
afterAll(() => ctx.close())

describe('smoke', () => {
  test('post', async () => {
    const { key } = ctx.account('starter')
    const k = key()
    const res = await ctx.post(
      '/v1/checks',
      { dot: '1000001', reference: 'L1', contact: { phone: '555-0100', email: 'x@example.com' } },
      k,
    )
    const body = await res.json()
    console.log(
      res.status,
      JSON.stringify({ ...body, record: undefined, policy: undefined }, null, 1),
    )
  })
})
