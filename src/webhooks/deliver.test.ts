import { Webhook } from 'standardwebhooks'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { DAY } from '../clock.ts'
import { createDeps } from '../compose.ts'
import { type Deps } from '../deps.ts'
import { silentLogger } from '../log.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import {
  claimDue,
  CLAIM_MARGIN_MS,
  deliverDue,
  parseRetryAfter,
  payloadOf,
  retryDelayMs,
  RETRY_WINDOW_MS,
  sendTestEvent,
} from './deliver.ts'
import { listDeliveries } from './deliveries.ts'
import {
  addEndpoint,
  enableEndpoint,
  getEndpoint,
  rotateSecret,
  type SubscribableEvent,
} from './endpoints.ts'
import { enqueueEvent } from '../db/outbox.ts'
import { startReceiver, type Receiver } from '../testing/webhook-receiver.ts'

let rx: Receiver
beforeAll(async () => {
  rx = await startReceiver()
})
afterAll(async () => {
  await rx.close()
})

const contexts: TestContext[] = []
beforeEach(() => rx.reset())
afterEach(() => {
  for (const c of contexts.splice(0)) c.close()
})

async function setup(
  opts: { now?: string; env?: Record<string, string>; events?: SubscribableEvent[] } = {},
) {
  const ctx = await createTestContext({
    fetch: globalThis.fetch,
    // the standardwebhooks verifier checks webhook-timestamp against the real time
    now: opts.now ?? new Date().toISOString(),
    env: opts.env,
  })
  contexts.push(ctx)
  const { account } = ctx.account('starter')
  const { endpoint, secret } = await addEndpoint(
    ctx.deps,
    { accountId: account.id, url: rx.url, events: opts.events },
    ctx.clock().getTime(),
  )
  const enqueue = (data: unknown = { dataset: 'census', version: 7 }) =>
    enqueueEvent(
      ctx.deps.db,
      { accountId: account.id, type: 'dataset.updated', data },
      ctx.clock().getTime(),
    )
  return { ctx, account, endpoint, secret, enqueue }
}

const deliveryRows = (ctx: TestContext) =>
  ctx.deps.db
    .prepare(
      'SELECT id, event_id AS eventId, status, attempts, next_attempt_at AS nextAttemptAt, last_status_code AS code, last_error AS error FROM webhook_deliveries ORDER BY id',
    )
    .all() as {
    id: number
    eventId: string
    status: string
    attempts: number
    nextAttemptAt: number | null
    code: number | null
    error: string | null
  }[]

const attemptCount = (ctx: TestContext) =>
  (ctx.deps.db.prepare('SELECT count(*) AS n FROM webhook_attempts').get() as { n: number }).n

describe('retry schedule', () => {
  it('grows ×4 from 10 s with ±20% jitter, capped at a day', () => {
    expect(retryDelayMs(1, () => 0.5)).toBe(10_000)
    expect(retryDelayMs(2, () => 0.5)).toBe(40_000)
    expect(retryDelayMs(1, () => 0)).toBe(8_000)
    expect(retryDelayMs(1, () => 1)).toBe(12_000)
    expect(retryDelayMs(20, () => 0.5)).toBe(DAY)
  })

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-15T12:00:00Z')
    expect(parseRetryAfter('120', now)).toBe(120_000)
    expect(parseRetryAfter('Sun, 15 Nov 2026 12:05:00 GMT', now)).toBe(300_000)
    expect(parseRetryAfter('soon', now)).toBeNull()
    expect(parseRetryAfter(null, now)).toBeNull()
  })

  it('signs a stable body whose data is the stored JSON', () => {
    expect(payloadOf('sync.failed', 0, '{"a":1}')).toBe(
      '{"type":"sync.failed","timestamp":"1970-01-01T00:00:00.000Z","data":{"a":1}}',
    )
  })
})

describe('delivery', () => {
  it('sends Standard Webhooks requests that the standardwebhooks package verifies', async () => {
    const { ctx, secret, enqueue } = await setup()
    const id = enqueue({ dataset: 'census', version: 7, rows: 30 })
    const summary = await deliverDue(ctx.deps)
    expect(summary).toMatchObject({ dispatched: 1, attempted: 1, succeeded: 1 })
    expect(rx.received).toHaveLength(1)
    const req = rx.received[0]
    if (!req) throw new Error('no request')
    expect(req.path).toBe('/hooks/carrier-verify')
    expect(req.headers['content-type']).toBe('application/json')
    expect(req.headers['webhook-id']).toBe(id)
    expect(req.headers['webhook-timestamp']).toBe(String(Math.floor(ctx.clock().getTime() / 1000)))
    expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    const payload = new Webhook(secret).verify(req.body, req.headers as Record<string, string>)
    expect(payload).toEqual({
      type: 'dataset.updated',
      timestamp: ctx.clock().toISOString(),
      data: { dataset: 'census', version: 7, rows: 30 },
    })
    expect(() =>
      new Webhook(secret.replace(/.{4}=$/, 'AAAA=')).verify(
        req.body,
        req.headers as Record<string, string>,
      ),
    ).toThrow()
    expect(deliveryRows(ctx)).toMatchObject([{ status: 'succeeded', attempts: 1, code: 200 }])
    // nothing is due any more: a second run sends nothing
    expect((await deliverDue(ctx.deps)).attempted).toBe(0)
    expect(rx.received).toHaveLength(1)
  })

  it('delivers a burst in one run, one request at a time per endpoint', async () => {
    const { ctx, enqueue } = await setup()
    const ids = Array.from({ length: 20 }, (_, n) => enqueue({ n }))
    rx.always({ status: 200, delayMs: 5 })
    expect(await deliverDue(ctx.deps)).toMatchObject({ attempted: 20, succeeded: 20 })
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual(ids)
  })

  it('signs with the old and the new secret for 24 h after a rotation', async () => {
    const { ctx, endpoint, secret: oldSecret, enqueue } = await setup()
    const { secret: newSecret } = rotateSecret(ctx.deps.db, endpoint.id, ctx.clock().getTime())
    enqueue()
    await deliverDue(ctx.deps)
    const first = rx.received[0]
    if (!first) throw new Error('no request')
    expect(String(first.headers['webhook-signature']).split(' ')).toHaveLength(2)
    for (const s of [oldSecret, newSecret])
      expect(() =>
        new Webhook(s).verify(first.body, first.headers as Record<string, string>),
      ).not.toThrow()
  })

  it('retries after a 500 with backoff; webhook-id stays, webhook-timestamp is per attempt', async () => {
    const { ctx, secret, enqueue } = await setup()
    const id = enqueue()
    rx.reply({ status: 500 })
    expect(await deliverDue(ctx.deps)).toMatchObject({ attempted: 1, failed: 1 })
    const [d] = deliveryRows(ctx)
    expect(d).toMatchObject({
      status: 'failed',
      attempts: 1,
      code: 500,
      error: 'HTTP 500 Internal Server Error',
    })
    // random() = 0.5 → no jitter: the first retry is due 10 s later
    expect(d?.nextAttemptAt).toBe(ctx.clock().getTime() + 10_000)
    expect((await deliverDue(ctx.deps)).attempted).toBe(0)
    ctx.clock.advance(10_000)
    expect(await deliverDue(ctx.deps)).toMatchObject({ attempted: 1, succeeded: 1 })
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([id, id])
    const [t1, t2] = rx.received.map((r) => Number(r.headers['webhook-timestamp']))
    expect((t2 ?? 0) - (t1 ?? 0)).toBe(10)
    for (const r of rx.received)
      expect(() =>
        new Webhook(secret).verify(r.body, r.headers as Record<string, string>),
      ).not.toThrow()
    expect(listDeliveries(ctx.deps.db)[0]?.attemptLog.map((a) => a.statusCode)).toEqual([500, 200])
  })

  it('times out a slow receiver and retries later', async () => {
    const { ctx, enqueue } = await setup({ env: { WEBHOOK_TIMEOUT_MS: '150' } })
    enqueue()
    rx.reply({ status: 200, delayMs: 2_000 })
    expect(await deliverDue(ctx.deps)).toMatchObject({ attempted: 1, failed: 1 })
    expect(deliveryRows(ctx)[0]).toMatchObject({
      status: 'failed',
      error: 'timeout after 150 ms',
      code: null,
    })
    ctx.clock.advance(10_000)
    expect(await deliverDue(ctx.deps)).toMatchObject({ attempted: 1, succeeded: 1 })
    expect(deliveryRows(ctx)[0]?.status).toBe('succeeded')
  })

  it('honours Retry-After on 429 and 503', async () => {
    const { ctx, enqueue } = await setup()
    enqueue()
    rx.reply({ status: 503, headers: { 'retry-after': '120' } })
    await deliverDue(ctx.deps)
    expect(deliveryRows(ctx)[0]?.nextAttemptAt).toBe(ctx.clock().getTime() + 120_000)
    ctx.clock.advance(60_000)
    expect((await deliverDue(ctx.deps)).attempted).toBe(0)
    ctx.clock.advance(60_000)
    rx.reply({ status: 429, headers: { 'retry-after': '3600' } })
    await deliverDue(ctx.deps)
    expect(deliveryRows(ctx)[0]?.nextAttemptAt).toBe(ctx.clock().getTime() + 3_600_000)
  })

  it('does not follow redirects: a 3xx is a failure', async () => {
    const { ctx, enqueue } = await setup()
    enqueue()
    rx.reply({ status: 302, headers: { location: `${rx.origin}/elsewhere` } })
    expect(await deliverDue(ctx.deps)).toMatchObject({ attempted: 1, failed: 1 })
    expect(rx.received.map((r) => r.path)).toEqual(['/hooks/carrier-verify'])
    expect(deliveryRows(ctx)[0]).toMatchObject({ status: 'failed', code: 302 })
    expect(deliveryRows(ctx)[0]?.error).toMatch(/redirects are not followed/)
  })

  it('410 Gone disables the endpoint at once; enable resumes its waiting deliveries', async () => {
    const { ctx, endpoint, enqueue } = await setup()
    enqueue()
    rx.reply({ status: 410 })
    await deliverDue(ctx.deps)
    expect(getEndpoint(ctx.deps.db, endpoint.id)).toMatchObject({
      status: 'disabled',
      disabledReason: 'the endpoint answered 410 Gone',
    })
    // a disabled endpoint gets neither new events nor retries
    enqueue()
    ctx.clock.advance(DAY)
    expect(await deliverDue(ctx.deps)).toMatchObject({ dispatched: 0, attempted: 0 })
    expect(rx.received).toHaveLength(1)
    enableEndpoint(ctx.deps.db, endpoint.id, ctx.clock().getTime())
    expect(await deliverDue(ctx.deps)).toMatchObject({ attempted: 1, succeeded: 1 })
    expect(getEndpoint(ctx.deps.db, endpoint.id)).toMatchObject({
      status: 'enabled',
      consecutiveFailures: 0,
    })
  })

  it('retries for about three days, then abandons and disables a persistently failing endpoint', async () => {
    const { ctx, endpoint, enqueue } = await setup({ now: '2026-11-15T12:00:00Z' })
    enqueue()
    rx.always({ status: 500 })
    const start = ctx.clock().getTime()
    for (let i = 0; i < 50; i++) {
      await deliverDue(ctx.deps)
      const [d] = deliveryRows(ctx)
      if (!d || d.status !== 'failed' || d.nextAttemptAt === null) break
      ctx.clock.set(new Date(d.nextAttemptAt))
    }
    const [d] = deliveryRows(ctx)
    expect(d?.status).toBe('abandoned')
    expect(ctx.clock().getTime() - start).toBe(RETRY_WINDOW_MS)
    expect(d?.attempts).toBe(11)
    expect(rx.received).toHaveLength(11)
    expect(attemptCount(ctx)).toBe(11)
    const e = getEndpoint(ctx.deps.db, endpoint.id)
    expect(e?.status).toBe('disabled')
    expect(e?.disabledReason).toMatch(/^persistent failure/)
  })

  it('a success in between keeps a failing endpoint enabled', async () => {
    const { ctx, endpoint, enqueue } = await setup({ now: '2026-11-15T12:00:00Z' })
    const failing = enqueue({ n: 1 })
    // event 1 always fails; event 2, sent two days in, gets through
    rx.respond((r) => ({ status: r.headers['webhook-id'] === failing ? 500 : 200 }))
    await deliverDue(ctx.deps)
    ctx.clock.advance(2 * DAY)
    enqueue({ n: 2 })
    await deliverDue(ctx.deps)
    for (let i = 0; i < 50; i++) {
      const [d] = deliveryRows(ctx)
      if (!d || d.status !== 'failed' || d.nextAttemptAt === null) break
      ctx.clock.set(new Date(d.nextAttemptAt))
      await deliverDue(ctx.deps)
    }
    expect(deliveryRows(ctx).map((d) => d.status)).toEqual(['abandoned', 'succeeded'])
    expect(getEndpoint(ctx.deps.db, endpoint.id)?.status).toBe('enabled')
  })

  it('webhooks test sends one webhook.test now, without retries', async () => {
    const { ctx, endpoint, secret } = await setup()
    const ok = await sendTestEvent(ctx.deps, endpoint.id)
    expect(ok).toMatchObject({ status: 'succeeded', statusCode: 200 })
    const req = rx.received[0]
    if (!req) throw new Error('no request')
    expect(
      new Webhook(secret).verify(req.body, req.headers as Record<string, string>),
    ).toMatchObject({
      type: 'webhook.test',
      data: { endpoint_id: endpoint.id },
    })
    rx.reply({ status: 500 })
    const bad = await sendTestEvent(ctx.deps, endpoint.id)
    expect(bad).toMatchObject({ status: 'abandoned', statusCode: 500 })
    ctx.clock.advance(DAY)
    expect((await deliverDue(ctx.deps)).attempted).toBe(0)
    expect(getEndpoint(ctx.deps.db, endpoint.id)?.consecutiveFailures).toBe(0)
  })

  it('refuses at send time a target the allowlist no longer admits', async () => {
    const { ctx, enqueue } = await setup()
    enqueue()
    const deps = {
      ...ctx.deps,
      config: {
        ...ctx.deps.config,
        webhooks: { ...ctx.deps.config.webhooks, allowedTargets: ['10.0.0.0/8'] },
      },
    }
    expect(await deliverDue(deps)).toMatchObject({ attempted: 1, failed: 1 })
    expect(rx.received).toHaveLength(0)
    expect(deliveryRows(ctx)[0]?.error).toMatch(
      /^target refused: 127\.0\.0\.1 is not in WEBHOOK_ALLOWED_TARGETS/,
    )
  })
})

describe('restart', () => {
  const reopen = (ctx: TestContext): Deps =>
    createDeps(ctx.config, {
      clock: ctx.clock,
      fetch: globalThis.fetch,
      random: () => 0.5,
      log: silentLogger(),
    })

  it('the outbox survives a restart; what was acknowledged is never sent again', async () => {
    const { ctx, enqueue } = await setup()
    const acked = enqueue({ n: 1 })
    await deliverDue(ctx.deps)
    const pending = enqueue({ n: 2 })
    ctx.deps.close() // the process stops before the job picks up event 2
    const deps = reopen(ctx)
    try {
      expect(await deliverDue(deps)).toMatchObject({ attempted: 1, succeeded: 1 })
      expect(await deliverDue(deps)).toMatchObject({ attempted: 0 })
    } finally {
      deps.close()
    }
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([acked, pending])
  })

  it('a send interrupted by a crash is retried once its claim expires, and only then', async () => {
    const { ctx, enqueue } = await setup()
    const id = enqueue()
    await deliverDue(ctx.deps, { maxAttempts: 0 }) // dispatch only
    expect(claimDue(ctx.deps, 10)).toHaveLength(1) // claimed, then the process dies mid-send
    ctx.deps.close()
    const deps = reopen(ctx)
    try {
      expect((await deliverDue(deps)).attempted).toBe(0) // the claim still holds
      ctx.clock.advance(2 * ctx.config.webhooks.timeoutMs + CLAIM_MARGIN_MS - 1)
      expect((await deliverDue(deps)).attempted).toBe(0)
      ctx.clock.advance(1)
      expect(await deliverDue(deps)).toMatchObject({ attempted: 1, succeeded: 1 })
      const [d] = listDeliveries(deps.db)
      expect(d).toMatchObject({ status: 'succeeded', attempts: 2 })
      expect(d?.attemptLog.map((a) => a.error ?? a.statusCode)).toEqual([
        expect.stringMatching(/^interrupted/),
        200,
      ])
    } finally {
      deps.close()
    }
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([id])
  })
})
