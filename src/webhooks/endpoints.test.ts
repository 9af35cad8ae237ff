import { afterEach, describe, expect, it } from 'vitest'
import { DAY } from '../clock.ts'
import { setPlan } from '../keys/accounts.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { dispatchEvents } from './dispatch.ts'
import {
  addEndpoint,
  disableEndpoint,
  endpointSecrets,
  listEndpoints,
  MAX_ENDPOINTS_PER_ACCOUNT,
  parseEventTypes,
  removeEndpoint,
  rotateSecret,
  signingSecrets,
} from './endpoints.ts'
import { enqueueEvent } from '../db/outbox.ts'

const contexts: TestContext[] = []
afterEach(() => {
  for (const c of contexts.splice(0)) c.close()
})
async function context() {
  const ctx = await createTestContext()
  contexts.push(ctx)
  return ctx
}
const URL_A = 'http://10.0.0.7:8080/hooks'

describe('endpoints', () => {
  it('a Free account gets a clear forbidden error', async () => {
    const ctx = await context()
    const { account } = ctx.account('free')
    await expect(
      addEndpoint(ctx.deps, { accountId: account.id, url: URL_A }, ctx.clock().getTime()),
    ).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/paid plans only; account \d+ is on the free plan/),
    })
  })

  it('stores a whsec_ secret that is never listed', async () => {
    const ctx = await context()
    const { account } = ctx.account('professional')
    const { endpoint, secret } = await addEndpoint(
      ctx.deps,
      { accountId: account.id, url: URL_A, events: ['carrier.changed'] },
      ctx.clock().getTime(),
    )
    expect(secret).toMatch(/^whsec_/)
    expect(endpoint).toMatchObject({ status: 'enabled', events: ['carrier.changed'], url: URL_A })
    expect(JSON.stringify(listEndpoints(ctx.deps.db))).not.toContain(secret.slice(6))
  })

  it('refuses bad URLs and targets outside the allowlist at save time', async () => {
    const ctx = await context()
    const { account } = ctx.account('starter')
    const now = ctx.clock().getTime()
    await expect(
      addEndpoint(ctx.deps, { accountId: account.id, url: 'ftp://x.test/' }, now),
    ).rejects.toMatchObject({ code: 'invalid_request' })
    const deps = {
      ...ctx.deps,
      config: { webhooks: { allowedTargets: ['hooks.corp.local'], timeoutMs: 1000 } },
    }
    await expect(
      addEndpoint(deps, { accountId: account.id, url: 'http://169.254.169.254/' }, now),
    ).rejects.toThrow(/webhook target refused/)
    await expect(
      addEndpoint(deps, { accountId: account.id, url: 'http://hooks.corp.local/in' }, now),
    ).resolves.toMatchObject({ endpoint: { url: 'http://hooks.corp.local/in' } })
  })

  it(`allows at most ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints per account`, async () => {
    const ctx = await context()
    const { account } = ctx.account('starter')
    for (let i = 0; i < MAX_ENDPOINTS_PER_ACCOUNT; i++)
      await addEndpoint(ctx.deps, { accountId: account.id, url: `${URL_A}/${i}` }, 0)
    await expect(
      addEndpoint(ctx.deps, { accountId: account.id, url: URL_A }, 0),
    ).rejects.toMatchObject({ code: 'conflict' })
  })

  it('rotation keeps the previous secret signing for 24 h', async () => {
    const ctx = await context()
    const { account } = ctx.account('starter')
    const now = ctx.clock().getTime()
    const { endpoint, secret: first } = await addEndpoint(
      ctx.deps,
      { accountId: account.id, url: URL_A },
      now,
    )
    const { secret: second, previousExpiresAt } = rotateSecret(ctx.deps.db, endpoint.id, now)
    expect(previousExpiresAt).toBe(now + DAY)
    const s = endpointSecrets(ctx.deps.db, endpoint.id)
    if (!s) throw new Error('no secrets')
    expect(signingSecrets(s, now)).toEqual([second, first])
    expect(signingSecrets(s, now + DAY)).toEqual([second])
  })

  it('parses --events', () => {
    expect(parseEventTypes(undefined)).toBeNull()
    expect(parseEventTypes('*')).toBeNull()
    expect(parseEventTypes('carrier.changed, quota.exhausted,carrier.changed')).toEqual([
      'carrier.changed',
      'quota.exhausted',
    ])
    expect(() => parseEventTypes('carrier.changed,nope')).toThrow(/unknown event type\(s\) nope/)
    expect(() => parseEventTypes('webhook.test')).toThrow(/unknown/)
  })
})

describe('dispatch', () => {
  it('fans an event out once to the matching endpoints only', async () => {
    const ctx = await context()
    const now = ctx.clock().getTime()
    const a = ctx.account('starter').account
    const b = ctx.account('scale').account
    const free = ctx.account('free').account
    const add = async (accountId: number, events?: ('carrier.changed' | 'dataset.updated')[]) =>
      (await addEndpoint(ctx.deps, { accountId, url: URL_A, events }, now)).endpoint.id
    const aAll = await add(a.id)
    const aCarrier = await add(a.id, ['carrier.changed'])
    const bData = await add(b.id, ['dataset.updated'])
    const bDisabled = await add(b.id)
    disableEndpoint(ctx.deps.db, bDisabled, 'test', now)
    const bRemoved = await add(b.id)
    removeEndpoint(ctx.deps.db, bRemoved, now)
    // a downgraded account keeps its endpoint rows but receives nothing
    const c = ctx.account('starter').account
    await add(c.id)
    setPlan(ctx.deps.db, c.id, 'free', 'none', now)
    expect(free.id).toBeGreaterThan(0)

    const broadcast = enqueueEvent(
      ctx.deps.db,
      { accountId: null, type: 'dataset.updated', data: {} },
      now,
    )
    const own = enqueueEvent(
      ctx.deps.db,
      { accountId: a.id, type: 'carrier.changed', data: {} },
      now,
    )
    expect(dispatchEvents(ctx.deps.db, now)).toEqual({ events: 2, deliveries: 4 })
    expect(dispatchEvents(ctx.deps.db, now)).toEqual({ events: 0, deliveries: 0 })
    const rows = ctx.deps.db
      .prepare(
        'SELECT event_id AS e, endpoint_id AS p FROM webhook_deliveries ORDER BY event_id = ?, endpoint_id',
      )
      .all(own) as { e: string; p: number }[]
    expect(rows).toEqual([
      { e: broadcast, p: aAll },
      { e: broadcast, p: bData },
      { e: own, p: aAll },
      { e: own, p: aCarrier },
    ])
  })

  it('an endpoint added after an event does not receive it', async () => {
    const ctx = await context()
    const a = ctx.account('starter').account
    enqueueEvent(ctx.deps.db, { accountId: null, type: 'sync.failed', data: {} }, 1000)
    await addEndpoint(ctx.deps, { accountId: a.id, url: URL_A }, 2000)
    expect(dispatchEvents(ctx.deps.db, 3000)).toEqual({ events: 1, deliveries: 0 })
  })
})
