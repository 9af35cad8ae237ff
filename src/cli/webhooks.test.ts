import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { startReceiver, type Receiver } from '../testing/webhook-receiver.ts'
import { enqueueEvent } from '../db/outbox.ts'
import { deliverDue } from '../webhooks/deliver.ts'
import { runCliCaptured } from '../testing/cli.ts'

let rx: Receiver
let ctx: TestContext
beforeAll(async () => {
  rx = await startReceiver()
  ctx = await createTestContext({ fetch: globalThis.fetch, now: new Date().toISOString() })
})
afterAll(async () => {
  ctx.close()
  await rx.close()
})

const cli = (...argv: string[]) => runCliCaptured(ctx, argv)

describe('webhooks CLI', () => {
  it('refuses a Free account with exit code 1 and a clear message', async () => {
    const { account } = ctx.account('free')
    const r = await cli('webhooks', 'add', '--account', String(account.id), '--url', rx.url)
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/paid plans only/)
  })

  it('adds an endpoint, prints the secret once, lists, tests, rotates, disables, enables, removes', async () => {
    const { account } = ctx.account('starter')
    const added = await cli(
      'webhooks',
      'add',
      '--account',
      String(account.id),
      '--url',
      rx.url,
      '--events',
      'carrier.changed,quota.threshold_reached',
      '--json',
    )
    expect(added.code).toBe(0)
    const created = JSON.parse(added.stdout) as { id: number; secret: string; events: string[] }
    expect(created.secret).toMatch(/^whsec_/)
    expect(created.events).toEqual(['carrier.changed', 'quota.threshold_reached'])
    expect(added.stderr).toMatch(/shown only once/)

    const plain = await cli('webhooks', 'add', '--account', String(account.id), '--url', rx.url)
    expect(plain.stdout).toMatch(/^whsec_\S+\n$/)

    const list = await cli('webhooks', 'list', '--account', String(account.id), '--json')
    const rows = JSON.parse(list.stdout) as { id: number; status: string }[]
    expect(rows.map((r) => r.id)).toContain(created.id)
    expect(list.stdout).not.toContain('whsec_')
    expect((await cli('webhooks', 'list')).stdout).toContain(rx.url)

    rx.reset()
    const test = await cli('webhooks', 'test', String(created.id))
    expect(test).toMatchObject({ code: 0 })
    expect(test.stdout).toMatch(/^delivered: HTTP 200/)
    const req = rx.received[0]
    if (!req) throw new Error('no request')
    expect(
      new Webhook(created.secret).verify(req.body, req.headers as Record<string, string>),
    ).toMatchObject({ type: 'webhook.test' })

    rx.reply({ status: 500 })
    const failed = await cli('webhooks', 'test', String(created.id))
    expect(failed.code).toBe(1)
    expect(failed.stdout).toMatch(/^failed: HTTP 500/)

    const rotated = await cli('webhooks', 'rotate-secret', String(created.id), '--json')
    const r = JSON.parse(rotated.stdout) as { secret: string; previous_secret_expires_at: string }
    expect(r.secret).not.toBe(created.secret)
    expect(r.previous_secret_expires_at).toBe(
      new Date(ctx.clock().getTime() + 86_400_000).toISOString(),
    )
    rx.reset()
    await cli('webhooks', 'test', String(created.id))
    const both = rx.received[0]
    if (!both) throw new Error('no request')
    for (const s of [created.secret, r.secret])
      expect(() =>
        new Webhook(s).verify(both.body, both.headers as Record<string, string>),
      ).not.toThrow()

    expect((await cli('webhooks', 'disable', String(created.id), '--json')).stdout).toContain(
      '"status": "disabled"',
    )
    expect((await cli('webhooks', 'enable', String(created.id), '--json')).stdout).toContain(
      '"status": "enabled"',
    )
    expect((await cli('webhooks', 'remove', String(created.id))).code).toBe(0)
    expect((await cli('webhooks', 'remove', String(created.id))).code).toBe(1)
    expect((await cli('webhooks', 'test', String(created.id))).code).toBe(1)
  })

  it('shows every attempt in webhooks deliveries', async () => {
    const { account } = ctx.account('starter')
    const added = await cli(
      'webhooks',
      'add',
      '--account',
      String(account.id),
      '--url',
      rx.url,
      '--json',
    )
    const { id } = JSON.parse(added.stdout) as { id: number }
    enqueueEvent(
      ctx.deps.db,
      { accountId: account.id, type: 'quota.exhausted', data: {} },
      ctx.clock().getTime(),
    )
    rx.reset()
    rx.reply({ status: 503 })
    await deliverDue(ctx.deps)
    ctx.clock.advance(10_000)
    await deliverDue(ctx.deps)
    ctx.clock.set(new Date())

    const out = await cli('webhooks', 'deliveries', '--endpoint', String(id), '--json')
    const [d] = JSON.parse(out.stdout) as {
      event_type: string
      status: string
      attempts: number
      attempt_log: { status_code: number | null; error: string | null }[]
    }[]
    expect(d).toMatchObject({ event_type: 'quota.exhausted', status: 'succeeded', attempts: 2 })
    expect(d?.attempt_log.map((a) => a.status_code)).toEqual([503, 200])
    const text = await cli('webhooks', 'deliveries', '--endpoint', String(id))
    expect(text.stdout).toMatch(/delivery \d+ {2}quota\.exhausted .* succeeded {2}attempts 2/)
    expect(text.stdout).toMatch(/ {2}\S+ {2}503 {2}\d+ ms {2}HTTP 503/)
    expect((await cli('webhooks', 'deliveries', '--status', 'nope')).code).toBe(2)
  })

  it('usage errors exit 2', async () => {
    expect((await cli('webhooks', 'add', '--url', rx.url)).code).toBe(2)
    expect(
      (await cli('webhooks', 'add', '--account', '1', '--url', rx.url, '--events', 'bogus')).code,
    ).toBe(2)
    expect((await cli('webhooks', 'test')).code).toBe(2)
    const { account } = ctx.account('starter')
    expect(
      (await cli('webhooks', 'add', '--account', String(account.id), '--url', 'ftp://x')).code,
    ).toBe(2)
  })
})
