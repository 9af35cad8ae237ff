import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCliCaptured } from '../testing/cli.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { startTestSmtp, type TestSmtp } from '../testing/smtp-server.ts'

let smtp: TestSmtp
let ctx: TestContext
beforeAll(async () => {
  smtp = await startTestSmtp({ auth: { user: 'relay', pass: 'pw' } })
  ctx = await createTestContext({
    env: { SMTP_URL: smtp.url, SMTP_FROM: 'alerts@broker.test', SMTP_TIMEOUT_MS: '2000' },
  })
})
afterAll(async () => {
  ctx.close()
  await smtp.close()
})

const cli = (...argv: string[]) => runCliCaptured(ctx, argv)

describe('mail CLI', () => {
  it('adds, lists and removes recipients; refuses a bad address or kind', async () => {
    const { account } = ctx.account('starter')
    const id = String(account.id)
    const added = await cli(
      'mail',
      'add',
      '--account',
      id,
      '--email',
      'Ops@Acme.test',
      '--kinds',
      'quota,watchlist',
      '--json',
    )
    expect(added.code).toBe(0)
    expect(JSON.parse(added.stdout)).toMatchObject([
      { email: 'ops@acme.test', kind: 'quota' },
      { email: 'ops@acme.test', kind: 'watchlist' },
    ])
    expect(
      (await cli('mail', 'add', '--account', id, '--email', 'nope', '--kinds', 'quota')).code,
    ).toBe(2)
    expect(
      (await cli('mail', 'add', '--account', id, '--email', 'a@b.test', '--kinds', 'spam')).code,
    ).toBe(2)
    expect((await cli('mail', 'recipients', '--account', id)).stdout).toMatch(
      /ops@acme\.test\s+watchlist/,
    )
    expect(
      (await cli('mail', 'remove', '--account', id, '--email', 'ops@acme.test', '--kinds', 'quota'))
        .stdout,
    ).toBe('1 removed\n')
    expect(
      JSON.parse((await cli('mail', 'recipients', '--account', id, '--json')).stdout),
    ).toHaveLength(1)
  })

  it('sends a test message and shows it in the delivery log and the status', async () => {
    const r = await cli('mail', 'test', '--to', 'it@broker.test')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^sent: 250 /)
    expect(smtp.received.at(-1)?.mail.subject).toBe('[carrier-verify] Test message')
    const log = JSON.parse((await cli('mail', 'deliveries', '--json')).stdout) as {
      kind: string
      status: string
      attempt_log: unknown[]
    }[]
    expect(log[0]).toMatchObject({ kind: 'test', status: 'sent' })
    expect(log[0]?.attempt_log).toHaveLength(1)
    const status = await cli('mail', 'status')
    expect(status.stdout).toMatch(
      /^e-mail: smtp:\/\/relay:\*\*\*@127\.0\.0\.1:\d+ from alerts@broker\.test; 0 queued; 1 sent/,
    )
    expect(status.stdout).not.toContain(':pw@')
    expect((await cli('sync', 'status')).stdout).toContain('e-mail: smtp://relay:***@')

    smtp.mode = 'refuse'
    const refused = await cli('mail', 'test', '--to', 'it@broker.test')
    expect(refused.code).toBe(1)
    expect(refused.stdout).toMatch(/^not sent: .*550/)
  })
})
