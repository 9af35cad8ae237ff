/**
 * E-mail against real SMTP servers on 127.0.0.1 (smtp-server): delivery with its headers, a
 * server that refuses (5xx), one that fails for now (4xx), one that is down (nothing lost across a
 * restart), STARTTLS with authentication, a slow server that never delays an API answer, the
 * hourly watchlist digest, verdict changes and the unsubscribe link.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { DAY, HOUR } from '../clock.ts'
import { createDeps } from '../compose.ts'

import { enqueueEvent } from '../db/outbox.ts'
import type { Caller } from '../keys/keys.ts'
import { meter } from '../keys/usage.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { liveCensusDir } from '../testing/fixture-dirs.ts'
import { startTestSmtp, type TestSmtp } from '../testing/smtp-server.ts'
import { deliverMail, PERMANENT_FAILURE_ATTEMPTS, REDACTED, sendTestMail } from './deliver.ts'
import type { MailDeps } from './mail-deps.ts'
import { enqueueMail, listMessages } from './queue.ts'
import { addRecipient, listRecipients } from './recipients.ts'
import { mailStatus, mailStatusLine } from './status.ts'
import { smtpTransport } from './transport.ts'

let ctx: TestContext
let smtp: TestSmtp | null = null
let accountId = 0

/** The mail deps of the context, sending to `url` (tests trust their own certificate only here). */
const mailDeps = (url: string, timeoutMs = 2000): MailDeps => ({
  ...ctx.deps,
  config: { ...ctx.deps.config, mail: { url, from: 'Alerts <alerts@broker.test>', timeoutMs } },
  transport: (m) => smtpTransport(m, { rejectUnauthorized: false }),
})

const caller = (): Caller => ({
  keyId: 0,
  accountId,
  mode: 'live',
  plan: 'enterprise',
  included: 10,
  hardCap: false,
  overageMills: 1,
  webhooks: true,
})

/** A free port: listen, note it, close. */
async function freePort(): Promise<number> {
  const s = await startTestSmtp()
  await s.close()
  return s.port
}

beforeEach(async () => {
  ctx = await createTestContext({
    env: { PUBLIC_URL: 'https://verify.broker.test' },
  })
  accountId = ctx.account('enterprise', { name: 'Acme Logistics', included: 10, overageMills: 1 })
    .account.id
})
afterEach(async () => {
  await smtp?.close()
  smtp = null
  ctx.close()
})

describe('delivery', () => {
  test('an 80 % quota alert reaches the recipient: text, HTML and List-Unsubscribe', async () => {
    smtp = await startTestSmtp()
    const deps = mailDeps(smtp.url)
    addRecipient(ctx.deps.db, accountId, 'Ops@Acme.test', ['quota'], ctx.clock().getTime())
    meter(ctx.deps, caller(), 8, ctx.clock())

    const summary = await deliverMail(deps)
    expect(summary).toMatchObject({ queued: 1, attempted: 1, sent: 1, failed: 0 })
    expect(smtp.received).toHaveLength(1)
    const { mail } = smtp.received[0] ?? expect.fail('no message')
    expect(mail.subject).toBe(
      "[carrier-verify] Acme Logistics: 80 % of this month's API calls used",
    )
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : '').toBe('ops@acme.test')
    expect(mail.from?.text).toBe('"Alerts" <alerts@broker.test>')
    expect(mail.text).toContain('Acme Logistics has used 8 of 10 included calls in 2026-11 (UTC).')
    expect(mail.html).toContain(
      '<h1 style="font-size:20px;margin:0 0 16px">80 % of the monthly quota used</h1>',
    )
    expect(listRecipients(ctx.deps.db, accountId)[0]?.email).toBe('ops@acme.test')
    expect(smtp.received[0]?.raw).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click')
    expect(smtp.received[0]?.raw).toMatch(
      /List-Unsubscribe:\s+<https:\/\/verify\.broker\.test\/console\/unsubscribe\/[\w-]{24}>/,
    )
    const [m] = listMessages(ctx.deps.db, { accountId })
    expect(m).toMatchObject({ kind: 'quota', status: 'sent', attempts: 1 })
    expect(m?.attemptLog[0]?.response).toMatch(/^250 /)

    // the next run mails nothing again; the 100 % of a plan billing overage comes from the counter
    expect(await deliverMail(deps)).toMatchObject({ queued: 0, attempted: 0 })
    meter(ctx.deps, caller(), 2, ctx.clock())
    expect(await deliverMail(deps)).toMatchObject({ queued: 1, sent: 1 })
    expect(smtp.received[1]?.mail.text).toContain(
      'each one past the included calls is billed as overage',
    )
    meter(ctx.deps, caller(), 5, ctx.clock())
    expect(await deliverMail(deps)).toMatchObject({ queued: 0 })
  })

  test('a server that refuses (550) is retried with backoff, then the message is given up', async () => {
    smtp = await startTestSmtp()
    smtp.mode = 'refuse'
    const deps = mailDeps(smtp.url)
    addRecipient(ctx.deps.db, accountId, 'ops@acme.test', ['quota'], ctx.clock().getTime())
    meter(ctx.deps, caller(), 8, ctx.clock())
    expect(await deliverMail(deps)).toMatchObject({ attempted: 1, failed: 1 })
    let [m] = listMessages(ctx.deps.db, { accountId })
    expect(m?.status).toBe('failed')
    expect(m?.lastError).toMatch(/550/)
    expect(m?.nextAttemptAt).toBeGreaterThan(ctx.clock().getTime())
    // not due yet: nothing is attempted
    expect(await deliverMail(deps)).toMatchObject({ attempted: 0 })
    for (let i = 1; i < PERMANENT_FAILURE_ATTEMPTS; i++) {
      ctx.clock.advance(DAY)
      await deliverMail(deps)
    }
    ;[m] = listMessages(ctx.deps.db, { accountId })
    expect(m).toMatchObject({ status: 'abandoned', attempts: PERMANENT_FAILURE_ATTEMPTS })
    expect(m?.attemptLog).toHaveLength(PERMANENT_FAILURE_ATTEMPTS)
    expect(m?.attemptLog.every((a) => /550/.test(a.error ?? ''))).toBe(true)
    expect(smtp.received).toHaveLength(0)
    expect(mailStatusLine(mailStatus(deps))).toContain('1 given up in 24 h')
  })

  test('a temporary refusal (451) is retried until the server takes it', async () => {
    smtp = await startTestSmtp()
    smtp.mode = 'tempfail'
    const deps = mailDeps(smtp.url)
    addRecipient(ctx.deps.db, accountId, 'ops@acme.test', ['quota'], ctx.clock().getTime())
    meter(ctx.deps, caller(), 8, ctx.clock())
    for (let i = 0; i < 4; i++) {
      await deliverMail(deps)
      ctx.clock.advance(HOUR)
    }
    expect(listMessages(ctx.deps.db, { accountId })[0]).toMatchObject({ status: 'failed' })
    smtp.mode = 'accept'
    ctx.clock.advance(DAY)
    expect(await deliverMail(deps)).toMatchObject({ sent: 1 })
    expect(listMessages(ctx.deps.db, { accountId })[0]).toMatchObject({
      status: 'sent',
      attempts: 5,
    })
  })

  test('a server that is down: the message waits, survives a restart and is sent once it is up', async () => {
    const port = await freePort()
    const url = `smtp://127.0.0.1:${port}`
    addRecipient(ctx.deps.db, accountId, 'ops@acme.test', ['quota'], ctx.clock().getTime())
    meter(ctx.deps, caller(), 8, ctx.clock())
    expect(await deliverMail(mailDeps(url))).toMatchObject({ attempted: 1, failed: 1 })
    const [m] = listMessages(ctx.deps.db, { accountId })
    expect(m?.status).toBe('failed')
    expect(m?.lastError).toMatch(/ECONNREFUSED|ECONNECTION/)

    // a new process over the same app.db (the old one is gone) sends it when the server is back
    const restarted = createDeps(ctx.config, { clock: ctx.clock })
    try {
      smtp = await startTestSmtp({ port })
      ctx.clock.advance(HOUR)
      const summary = await deliverMail({
        ...restarted,
        config: { ...restarted.config, mail: { url, from: 'alerts@broker.test', timeoutMs: 2000 } },
      })
      expect(summary).toMatchObject({ sent: 1 })
      expect(smtp.received).toHaveLength(1)
    } finally {
      restarted.close()
    }
  })

  test('STARTTLS with authentication (self-signed certificate trusted by this test only)', async () => {
    smtp = await startTestSmtp({ tls: true, auth: { user: 'relay', pass: 's3cret' } })
    expect(smtp.url).toMatch(/^smtp:\/\/relay:s3cret@127\.0\.0\.1:\d+\?starttls=required$/)
    const outcome = await sendTestMail(mailDeps(smtp.url), 'it@broker.test')
    expect(outcome).toMatchObject({ status: 'sent' })
    expect(smtp.received[0]).toMatchObject({ secure: true, user: 'relay' })
    expect(mailStatus(mailDeps(smtp.url)).smtp_url).toContain('relay:***@')

    // the product's transport refuses the unknown certificate: the failure is logged, not sent
    const strict = { ...mailDeps(smtp.url), transport: undefined }
    const refused = await sendTestMail(strict, 'it@broker.test')
    expect(refused.status).toBe('abandoned')
    expect(refused.error).toMatch(/certificate/i)
  })

  test('a slow server never delays an API answer: sending happens in the job', async () => {
    smtp = await startTestSmtp()
    smtp.mode = 'slow'
    smtp.slowMs = 1500
    addRecipient(ctx.deps.db, accountId, 'ops@acme.test', ['quota'], ctx.clock().getTime())
    meter(ctx.deps, caller(), 8, ctx.clock())
    const key = ctx.account('starter').key()
    const job = deliverMail(mailDeps(smtp.url, 5000))
    const started = performance.now()
    const res = await ctx.get('/v1/checks', key)
    const answeredIn = performance.now() - started
    expect(res.status).toBe(200)
    expect(answeredIn).toBeLessThan(500)
    expect(smtp.received).toHaveLength(0) // the server has not answered yet
    expect(await job).toMatchObject({ sent: 1 })
  })
})

describe('watchlist and verdicts', () => {
  const change = (dot: number, checks: unknown[] = []) => ({
    dot_number: String(dot),
    legal_name: `TEST CARRIER ${dot} LLC`,
    mc_number: null,
    changes: [{ field: 'authority.status', previous: 'ACTIVE', current: 'INACTIVE' }],
    data_as_of: '2026-11-14',
    checks,
  })

  test('changes are gathered in one digest an hour; a flipped verdict is mailed at once', async () => {
    smtp = await startTestSmtp()
    const deps = mailDeps(smtp.url)
    const db = ctx.deps.db
    const now = () => ctx.clock().getTime()
    addRecipient(db, accountId, 'desk@acme.test', ['watchlist', 'verdicts'], now())
    enqueueEvent(db, { accountId, type: 'carrier.changed', data: change(1000001) }, now())
    enqueueEvent(db, { accountId, type: 'carrier.changed', data: change(1000002) }, now())
    expect(await deliverMail(deps)).toMatchObject({ queued: 1, sent: 1 })
    expect(smtp.received[0]?.mail.subject).toBe(
      '[carrier-verify] Acme Logistics: 2 watched companies changed',
    )
    expect(smtp.received[0]?.mail.html).toContain(
      '<td style="border:1px solid #d0d7de;padding:4px 8px;text-align:left">1000002</td>',
    )

    // within the hour: gathered, not sent; a verdict change goes out at once
    ctx.clock.advance(20 * 60_000)
    enqueueEvent(db, { accountId, type: 'carrier.changed', data: change(1000003) }, now())
    const flipped = {
      check_id: 'chk_AAAAAAAAAAAAAAAA',
      reference: 'LOAD-7',
      created_at: '2026-11-10T00:00:00Z',
      verdict: 'pass',
      verdict_now: 'fail',
      rules_changed: [
        { rule_id: 'authority', was: 'pass', now: 'fail', reason: 'authority is INACTIVE' },
      ],
    }
    enqueueEvent(
      db,
      { accountId, type: 'carrier.changed', data: change(1000004, [flipped]) },
      now(),
    )
    expect(await deliverMail(deps)).toMatchObject({ queued: 1, sent: 1 })
    expect(smtp.received[1]?.mail.subject).toContain('1 check verdict(s) would change')
    expect(smtp.received[1]?.mail.text).toContain('chk_AAAAAAAAAAAAAAAA | LOAD-7 | pass | fail')

    ctx.clock.advance(41 * 60_000)
    expect(await deliverMail(deps)).toMatchObject({ queued: 1, sent: 1 })
    expect(smtp.received[2]?.mail.subject).toBe(
      '[carrier-verify] Acme Logistics: 2 watched companies changed',
    )
    expect(await deliverMail(deps)).toMatchObject({ queued: 0 })
  })

  test('the unsubscribe link: GET asks, POST (one-click) removes the recipient', async () => {
    smtp = await startTestSmtp()
    addRecipient(ctx.deps.db, accountId, 'ops@acme.test', ['quota'], ctx.clock().getTime())
    meter(ctx.deps, caller(), 8, ctx.clock())
    await deliverMail(mailDeps(smtp.url))
    const link =
      /List-Unsubscribe:\s+<https:\/\/verify\.broker\.test(\/console\/unsubscribe\/[\w-]+)>/.exec(
        smtp.received[0]?.raw ?? '',
      )?.[1]
    expect(link).toBeDefined()
    const page = await ctx.app.request(link ?? '')
    expect(page.status).toBe(200)
    expect(listRecipients(ctx.deps.db, accountId)).toHaveLength(1)
    const res = await ctx.app.request(link ?? '', {
      method: 'POST',
      body: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('ops@acme.test will receive no more quota e-mails.')
    expect(listRecipients(ctx.deps.db, accountId)).toHaveLength(0)
    expect(
      (await ctx.app.request('/console/unsubscribe/not-a-token-at-all-xx', { method: 'POST' }))
        .status,
    ).toBe(404)
  })
})

test('without SMTP_URL nothing is sent and nothing is lost', async () => {
  ctx.close()
  ctx = await createTestContext({ liveDir: liveCensusDir() })
  accountId = ctx.account('enterprise', { name: 'Acme', included: 10, overageMills: 1 }).account.id
  addRecipient(ctx.deps.db, accountId, 'ops@acme.test', ['quota'], ctx.clock().getTime())
  meter(ctx.deps, caller(), 8, ctx.clock())
  expect(await deliverMail(ctx.deps)).toMatchObject({
    queued: 1,
    attempted: 0,
    skipped: 'SMTP_URL is not set',
  })
  expect(listMessages(ctx.deps.db)[0]).toMatchObject({ status: 'pending' })
  expect(mailStatusLine(mailStatus(ctx.deps))).toBe(
    'e-mail: off (SMTP_URL unset); 1 messages waiting',
  )
  // /readyz does not depend on e-mail
  expect((await ctx.get('/readyz')).status).toBe(200)
})

test('a contact code past its expiry is given up, never sent', async () => {
  smtp = await startTestSmtp()
  const id = enqueueMail(
    ctx.deps.db,
    {
      accountId: null,
      recipientId: null,
      kind: 'contact_code',
      to: 'ops@carrier.test',
      composed: { subject: 'Your verification code: 123456', text: '123456', html: '123456' },
      unsubscribeToken: null,
      expiresAt: ctx.clock().getTime() + 15 * 60_000,
    },
    ctx.clock().getTime(),
  )
  ctx.clock.advance(16 * 60_000)
  expect(await deliverMail(mailDeps(smtp.url))).toMatchObject({ attempted: 0 })
  expect(smtp.received).toHaveLength(0)
  expect(
    ctx.deps.db
      .prepare('SELECT status, text, last_error AS e FROM mail_messages WHERE id = ?')
      .get(id),
  ).toEqual({ status: 'abandoned', text: REDACTED, e: 'expired before it could be sent' })
})
