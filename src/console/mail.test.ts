/** The console's E-mail page: a member adds and removes recipients of its own account only. */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { listRecipients } from '../mail/recipients.ts'
import { consoleClient } from '../testing/console-client.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { createUser, setPassword } from '../users/users.ts'

const PASSWORD = 'correct horse battery'
let ctx: TestContext
let acme = 0
let other = 0
beforeAll(async () => {
  ctx = await createTestContext()
  acme = ctx.account('starter', { name: 'Acme' }).account.id
  other = ctx.account('starter', { name: 'Other' }).account.id
  const member = createUser(
    ctx.deps.db,
    { email: 'member@example.com', role: 'member', accountId: acme },
    ctx.clock().getTime(),
  )
  await setPassword(ctx.deps.db, member.id, PASSWORD)
})
afterAll(() => ctx.close())

test('add a recipient for some kinds, see it and the messages, remove one kind', async () => {
  const client = consoleClient(ctx)
  await client.signIn('member@example.com', PASSWORD)
  const page = `/console/accounts/${acme}/mail`
  const first = await client.get(page)
  expect(first.status).toBe(200)
  const html = await first.text()
  expect(html).toContain('E-mail is not configured on this appliance yet (SMTP_URL)')
  expect(html).not.toContain('smtp://') // members never see the server settings
  const token = await client.csrf(page)
  const added = await client.post(page, {
    _csrf: token,
    email: 'Desk@Acme.test',
    kind_watchlist: '1',
    kind_verdicts: '1',
  })
  expect(added.status).toBe(303)
  expect(listRecipients(ctx.deps.db, acme).map((r) => `${r.email} ${r.kind}`)).toEqual([
    'desk@acme.test verdicts',
    'desk@acme.test watchlist',
  ])
  const after = await (await client.get(page)).text()
  expect(after).toContain('desk@acme.test added.')
  expect(after).toContain('Watchlist changes (a digest, at most one an hour)')

  const bad = await client.post(page, { _csrf: token, email: 'not an address', kind_quota: '1' })
  expect(bad.status).toBe(303)
  expect(await (await client.get(page)).text()).toContain('Not an e-mail address')

  await client.post(`${page}/remove`, { _csrf: token, email: 'desk@acme.test', kind: 'verdicts' })
  expect(listRecipients(ctx.deps.db, acme).map((r) => r.kind)).toEqual(['watchlist'])

  // another account's page is not found
  expect((await client.get(`/console/accounts/${other}/mail`)).status).toBe(404)
})
