/**
 * POST /v1/contact-verifications and /confirm: the code goes to the address on the FMCSA record
 * (through a real SMTP server), is billed once, is stored hashed, allows 5 tries in 15 minutes,
 * and is rate-limited per company and per account, also under a parallel burst.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { setPolicy } from '../checks/policy.ts'
import { BUNDLED_POLICY } from '../checks/policy-schema.ts'
import { carrierRow, writeCensus } from '../testing/census-fixture.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { liveCensusDir, sampleCensusDir } from '../testing/fixture-dirs.ts'
import { startTestSmtp, type TestSmtp } from '../testing/smtp-server.ts'
import { PER_ACCOUNT_PER_HOUR, PER_COMPANY_PER_HOUR } from './contact.ts'
import { deliverMail, REDACTED } from './deliver.ts'

let ctx: TestContext
let smtp: TestSmtp
let key = ''
let accountId = 0

const used = () =>
  (
    ctx.deps.db
      .prepare('SELECT coalesce(sum(used), 0) AS n FROM usage_counters WHERE account_id = ?')
      .get(accountId) as { n: number }
  ).n

const send = (dot: string | number, k = key) =>
  ctx.post('/v1/contact-verifications', { dot, channel: 'email' }, k)
const confirm = (id: string, code: string, k = key) =>
  ctx.post(`/v1/contact-verifications/${id}/confirm`, { code }, k)

beforeAll(async () => {
  smtp = await startTestSmtp()
  const live = liveCensusDir()
  writeCensus(join(live, 'az4n-8mr2.csv'), [
    carrierRow(344554, {
      LEGAL_NAME: 'HULL COOPERATIVE ASSOCIATION',
      EMAIL_ADDRESS: 'Dispatch@AcmeFreight.com',
    }),
    carrierRow(1_000_020, { EMAIL_ADDRESS: '' }),
    ...Array.from({ length: 12 }, (_, i) => carrierRow(1_000_001 + i)),
  ])
  ctx = await createTestContext({
    liveDir: live,
    sampleDir: sampleCensusDir(),
    env: { SMTP_URL: smtp.url, SMTP_FROM: 'verify@broker.test', SMTP_TIMEOUT_MS: '2000' },
  })
})
afterAll(async () => {
  ctx.close()
  await smtp.close()
})
beforeEach(() => {
  const a = ctx.account('starter')
  accountId = a.account.id
  key = a.key()
})

describe('a code to the registered contact', () => {
  test('sent to the address on file, billed once; the right code verifies, confirmations are free', async () => {
    const res = await send('344554')
    expect(res.status).toBe(201)
    const body = (await res.json()) as {
      id: string
      sent_to: string
      expires_at: string
      status: string
    }
    expect(body).toMatchObject({
      sent_to: 'd*****@acme…',
      status: 'pending',
      expires_at: '2026-11-15T12:15:00.000Z',
    })
    expect(res.headers.get('ratelimit-remaining')).not.toBeNull()
    expect(used()).toBe(1)

    // the request only queued it; the job sends it
    const before = smtp.received.length
    expect(await deliverMail(ctx.deps)).toMatchObject({ sent: 1 })
    const got = smtp.received[before]
    expect(got?.mail.to && !Array.isArray(got.mail.to) ? got.mail.to.text : '').toBe(
      'dispatch@acmefreight.com',
    )
    const code = /\b(\d{6})\b/.exec(got?.mail.subject ?? '')?.[1] ?? ''
    expect(got?.mail.text).toContain(code)
    expect(got?.mail.text).toContain('HULL COOPERATIVE ASSOCIATION (USDOT 344554)')

    // stored hashed only; the queued body is redacted once sent
    const row = JSON.stringify(
      ctx.deps.db.prepare('SELECT * FROM contact_verifications WHERE id = ?').get(body.id),
    )
    expect(row).not.toContain(code)
    const msg = ctx.deps.db
      .prepare(
        "SELECT text, html FROM mail_messages WHERE kind = 'contact_code' ORDER BY id DESC LIMIT 1",
      )
      .get() as { text: string; html: string }
    expect(msg).toEqual({ text: REDACTED, html: REDACTED })

    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0')
    const w = await confirm(body.id, wrong)
    expect(w.status).toBe(200)
    expect(await w.json()).toMatchObject({
      result: 'wrong_code',
      verification: { tries_left: 4, status: 'pending' },
    })
    const ok = await confirm(body.id, code)
    expect(await ok.json()).toMatchObject({
      result: 'verified',
      verification: { status: 'verified', verified_at: '2026-11-15T12:00:00.000Z' },
    })
    expect(used()).toBe(1)
    // another account cannot see or confirm it
    const other = ctx.account('starter').key()
    expect((await confirm(body.id, code, other)).status).toBe(404)
  })

  test('five wrong codes lock it; after 15 minutes it is expired', async () => {
    const a = (await (await send('1000003')).json()) as { id: string }
    for (let i = 0; i < 5; i++) await confirm(a.id, '000001')
    const locked = await confirm(a.id, '000001')
    expect(await locked.json()).toMatchObject({
      result: 'too_many_attempts',
      verification: { status: 'locked', tries_left: 0 },
    })

    const b = (await (await send('1000004')).json()) as { id: string }
    ctx.clock.advance(15 * 60_000)
    expect(await (await confirm(b.id, '123456')).json()).toMatchObject({ result: 'expired' })
  })

  test('no e-mail on file is 409, an unknown company 404, neither billed; the caller cannot name an address', async () => {
    const none = await send('1000020')
    expect(none.status).toBe(409)
    expect(await none.json()).toMatchObject({ status: 409, code: 'no_contact_email' })
    const unknown = await send('99999999')
    expect(unknown.status).toBe(404)
    const given = await ctx.post(
      '/v1/contact-verifications',
      { dot: '1000005', channel: 'email', email: 'attacker@evil.test' },
      key,
    )
    expect(given.status).toBe(400)
    expect(
      (await ctx.post('/v1/contact-verifications', { dot: '1000005', channel: 'sms' }, key)).status,
    ).toBe(400)
    expect((await confirm('cv_nope', '123456')).status).toBe(400)
    expect(
      (await ctx.post('/v1/contact-verifications/cv_AAAAAAAAAAAAAAAA/confirm', { code: '12' }, key))
        .status,
    ).toBe(400)
    expect(used()).toBe(0)
  })

  test('a sandbox key sends nothing; its code is 000000', async () => {
    const sandbox = ctx.account('starter').key('test')
    const queued = () =>
      (ctx.deps.db.prepare('SELECT count(*) AS n FROM mail_messages').get() as { n: number }).n
    const before = queued()
    const res = await send('9000001', sandbox)
    expect(res.status).toBe(201)
    const { id } = (await res.json()) as { id: string }
    expect(queued()).toBe(before)
    expect(await (await confirm(id, '000000', sandbox)).json()).toMatchObject({
      result: 'verified',
    })
  })
})

describe('rate limits', () => {
  test('per company: a parallel burst sends exactly the allowed codes, the rest are 429 and not billed', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => send('1000006')))
    const statuses = answers.map((r) => r.status).sort()
    expect(statuses.filter((s) => s === 201)).toHaveLength(PER_COMPANY_PER_HOUR)
    expect(statuses.filter((s) => s === 429)).toHaveLength(10 - PER_COMPANY_PER_HOUR)
    const refused = answers.find((r) => r.status === 429)
    expect(await refused?.json()).toMatchObject({ code: 'rate_limited' })
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(used()).toBe(PER_COMPANY_PER_HOUR)
    // another account is refused too: the limit protects the company
    expect((await send('1000006', ctx.account('starter').key())).status).toBe(429)
  })

  test('per account: at most the hourly allowance across companies', async () => {
    ctx.clock.advance(2 * 3_600_000) // the earlier tests' codes are out of the window
    const dots = Array.from({ length: 12 }, (_, i) => 1_000_001 + i)
    const answers = await Promise.all(
      Array.from({ length: PER_ACCOUNT_PER_HOUR + 5 }, (_, i) => send(dots[i % dots.length] ?? 0)),
    )
    expect(answers.filter((r) => r.status === 201)).toHaveLength(PER_ACCOUNT_PER_HOUR)
    expect(used()).toBe(PER_ACCOUNT_PER_HOUR)
  })
})

test('without SMTP_URL a live code is refused with 503 mail_unavailable', async () => {
  const bare = await createTestContext({ liveDir: liveCensusDir() })
  try {
    const res = await bare.post(
      '/v1/contact-verifications',
      { dot: '344554', channel: 'email' },
      bare.account('starter').key(),
    )
    expect(res.status).toBe(503)
    expect(await res.json()).toMatchObject({ code: 'mail_unavailable' })
    expect(res.headers.get('retry-after')).toBe('3600')
  } finally {
    bare.close()
  }
})

describe('a check names a verification', () => {
  test('stored in the signed document; a policy can require contact_verification.verified', async () => {
    setPolicy(
      ctx.deps.db,
      accountId,
      {
        policy_language: BUNDLED_POLICY.policy_language,
        name: 'codes required',
        rules: [
          {
            id: 'contact_verified',
            description: 'the registered contact confirmed a one-time code',
            require: { field: 'contact_verification.verified', op: 'is_true' },
            otherwise: 'fail',
            missing: 'fail',
          },
        ],
      },
      ctx.clock().getTime(),
      { actor: 'test' },
    )
    ctx.clock.advance(2 * 3_600_000) // the earlier tests' codes are out of the window
    const { id } = (await (await send('1000007')).json()) as { id: string }
    const check = async (body: Record<string, unknown>) => {
      const res = await ctx.post('/v1/checks', { dot: '1000007', ...body }, key)
      return { status: res.status, body: (await res.json()) as Record<string, unknown> }
    }
    // named but not confirmed yet: stored, not verified, the rule fails
    let r = await check({ contact_verification_id: id })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({
      verdict: 'fail',
      contact_verification: { id, verified: false, sent_to: 'o*****@exam…' },
    })
    expect((await check({})).body).toMatchObject({ verdict: 'fail', contact_verification: null })

    await deliverMail(ctx.deps)
    const sent = smtp.received.filter((m) => m.raw.includes('To: ops1000007@example.com'))
    const code = /\b(\d{6})\b/.exec(sent.at(-1)?.mail.subject ?? '')?.[1] ?? ''
    expect(await (await confirm(id, code)).json()).toMatchObject({ result: 'verified' })
    r = await check({ contact_verification_id: id })
    expect(r.body).toMatchObject({ verdict: 'pass', contact_verification: { id, verified: true } })
    // the stored document is the one answered (and signed)
    const stored = await ctx.get(`/v1/checks/${String(r.body.check_id)}`, key)
    expect(await stored.json()).toMatchObject({ contact_verification: { id, verified: true } })

    // a verification of another company does not verify this one; an unknown id is 404, unbilled
    const otherCompany = await ctx.post(
      '/v1/checks',
      { dot: '1000008', contact_verification_id: id },
      key,
    )
    expect(await otherCompany.json()).toMatchObject({
      verdict: 'fail',
      contact_verification: { verified: false },
    })
    const billed = used()
    const unknown = await check({ contact_verification_id: 'cv_AAAAAAAAAAAAAAAA' })
    expect(unknown.status).toBe(404)
    expect((await check({ contact_verification_id: 'nope' })).status).toBe(400)
    expect(used()).toBe(billed)
  })
})
