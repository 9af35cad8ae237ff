/**
 * The console in a real browser: Debian's chromium driven by playwright-core (headless,
 * --no-sandbox) against the appliance listening on 127.0.0.1. Takes the README's screenshots
 * (docs/screenshots/, with UPDATE_SCREENSHOTS=1; else into a temp dir). Without /usr/bin/chromium the suite is skipped with a message — except in CI
 * (CI=true), where a missing browser fails.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { serve, type ServerType } from '@hono/node-server'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { verifyKey } from '../keys/keys.ts'
import { meter } from '../keys/usage.ts'
import { runOnboardings } from '../onboarding/onboarding.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { startReceiver } from '../testing/webhook-receiver.ts'
import { listAudit } from '../users/audit.ts'
import { createUser, setPassword } from '../users/users.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const available = existsSync(CHROMIUM)
const inCi = process.env.CI === 'true'
/** The README's screenshots are rewritten only on request (they change with every run's secrets). */
const SHOTS =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? 'docs/screenshots'
    : mkdtempSync(join(tmpdir(), 'cvk-screenshots-'))
const PASSWORD = 'correct horse battery'

if (!available && !inCi)
  console.warn(
    `console browser tests SKIPPED: no browser at ${CHROMIUM} (apt-get install chromium)`,
  )

test.runIf(inCi)('CI has a browser for the console tests', () => {
  expect(available, `${CHROMIUM} is missing: .ci/run must install chromium`).toBe(true)
})

describe.runIf(available)('console in chromium', () => {
  let ctx: TestContext
  let server: ServerType
  let base: string
  let browser: Browser
  let page: Page
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let acme: number
  let acmeKey: string
  let other: number

  beforeAll(async () => {
    // the real fetch: "send test" reaches the local receiver on 127.0.0.1
    ctx = await createTestContext({ liveDir: 'data/sample', fetch: globalThis.fetch })
    const a = ctx.account('starter', { name: 'Acme Logistics' })
    acme = a.account.id
    acmeKey = a.key()
    other = ctx.account('professional', { name: 'Globex Freight' }).account.id
    ctx.account('free', { name: 'Initech Brokerage' })
    // a month and a half of traffic so the chart, the past months and the 80 % alert have something to show
    const caller = verifyKey(ctx.deps.db, a.key(), ctx.clock().getTime())
    if (!caller.ok) throw new Error('no caller')
    for (let d = 1; d <= 31; d++)
      meter(ctx.deps, caller.caller, 180 + ((d * 37) % 90), new Date(Date.UTC(2026, 9, d, 10)))
    for (let d = 1; d <= 14; d++)
      meter(ctx.deps, caller.caller, 600 + ((d * 53) % 260), new Date(Date.UTC(2026, 10, d, 10)))
    const now = ctx.clock().getTime()
    const member = createUser(
      ctx.deps.db,
      { email: 'dispatch@acme.example', role: 'member', accountId: acme },
      now,
    )
    await setPassword(ctx.deps.db, member.id, PASSWORD)
    const admin = createUser(ctx.deps.db, { email: 'admin@example.com', role: 'admin' }, now)
    await setPassword(ctx.deps.db, admin.id, PASSWORD)
    receiver = await startReceiver()
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: ctx.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
    })
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox'],
    })
    page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage()
    page.setDefaultTimeout(8_000)
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()))
    await receiver?.close()
    ctx?.close()
  })

  const shot = (name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true })
  const api = (key: string) =>
    fetch(`${base}/v1/carrier/1000001`, { headers: { authorization: `Bearer ${key}` } })
  const signIn = async (email: string) => {
    await page.goto(`${base}/console/sign-in`)
    await page.getByLabel('E-mail').fill(email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(/\/console\/(accounts|admin)/)
  }

  test('member: sign in, create a key, call the API, usage updates live, revoke → 401', async () => {
    await page.goto(`${base}/console/sign-in`)
    await shot('sign-in')
    await signIn('dispatch@acme.example')
    expect(page.url()).toBe(`${base}/console/accounts/${acme}`)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Acme Logistics')
    expect(await page.locator('[data-f="alert"]').isVisible()).toBe(true) // past 80 % of 10,000

    await page.getByRole('link', { name: 'API keys' }).click()
    await page.getByLabel('Name').fill('TMS production')
    await page.getByRole('button', { name: 'Create key' }).click()
    const secret = (await page.locator('#new-secret').textContent()) ?? ''
    expect(secret).toMatch(/^cvk_live_[A-Za-z0-9_-]{43}$/)
    await shot('keys')

    await page.getByRole('link', { name: 'Usage' }).click()
    const used = async () =>
      Number(((await page.locator('[data-f="used"]').textContent()) ?? '').replace(/,/g, ''))
    const before = await used()
    // (page scripts are strings: this file is type-checked without the DOM library)
    await page.evaluate('window.marker = 42')
    for (let i = 0; i < 3; i++) expect((await api(secret)).status).toBe(200)
    // the page's own polling brings the new figure (CSP forbids eval, so poll from here)
    await expect.poll(used, { timeout: 10_000, interval: 250 }).toBe(before + 3)
    // the same document: no reload happened
    expect(await page.evaluate('window.marker')).toBe(42)
    await shot('usage')

    await page.getByRole('link', { name: 'API keys' }).click()
    await page.getByRole('button', { name: `Revoke key ${secret.slice(0, 13)}` }).click()
    await page.getByText('revoked: it answers 401').waitFor()
    expect((await api(secret)).status).toBe(401)
  })

  test("member: another account's pages are 404 and a form post without the CSRF token is refused", async () => {
    for (const path of [
      `/console/accounts/${other}`,
      `/console/accounts/${other}/keys`,
      '/console/admin',
    ]) {
      const res = await page.goto(`${base}${path}`)
      expect(res?.status(), path).toBe(404)
      expect(await page.content()).not.toContain('Globex')
    }
    await page.goto(`${base}/console/accounts/${acme}/keys`)
    const status = await page.evaluate(async (url) => {
      const r = await fetch(url, {
        method: 'POST',
        body: new URLSearchParams({ name: 'no token', mode: 'live' }),
      })
      return r.status
    }, `${base}/console/accounts/${acme}/keys`)
    expect(status).toBe(403)
    // a plain HTML form without the token, submitted by the browser
    const refused = page.waitForResponse((r) => r.request().method() === 'POST')
    await page.evaluate(`(() => {
      const f = document.createElement('form')
      f.method = 'post'
      f.action = '${base}/console/accounts/${acme}/keys'
      const i = document.createElement('input')
      i.name = 'name'
      i.value = 'forged'
      f.append(i)
      document.body.append(f)
      f.submit()
    })()`)
    expect((await refused).status()).toBe(403)
    await page.getByRole('heading', { name: 'Refused' }).waitFor()
    const names = ctx.deps.db
      .prepare('SELECT name FROM api_keys WHERE account_id = ?')
      .all(acme) as { name: string | null }[]
    expect(names.map((n) => n.name)).not.toContain('forged')
  })

  test('member: lookup tester, webhooks with send test, watchlist', async () => {
    await page.goto(`${base}/console/accounts/${acme}/lookup`)
    await page.getByLabel('USDOT number').fill('1000001')
    await page.getByRole('button', { name: 'Look up' }).click()
    await page.getByText('Factors and their evidence').waitFor()
    await shot('lookup')

    // the equipment block and driver qualification: a carrier whose tractor an officer found
    // under another carrier's name, and one whose drivers were cited without a valid CDL
    await page.getByLabel('USDOT number').fill('1000024')
    await page.getByRole('button', { name: 'Look up' }).click()
    const equipment = page.locator('#equipment')
    await equipment.getByText('Equipment and roadside identity').waitFor()
    expect(await equipment.getByRole('table').textContent()).toContain('ACME FREIGHT LINES')
    const facts = (await equipment.locator('dl').textContent()) ?? ''
    expect(facts).toMatch(/Name mismatches[1-9]/)
    expect(facts).toMatch(/VINs seen under other carriers[1-9]/)
    await page.getByLabel('USDOT number').fill('1000111')
    await page.getByRole('button', { name: 'Look up' }).click()
    const dq = page.locator('#driver-qualification')
    await dq.getByText('Driver qualification (24 months)').waitFor()
    expect(await dq.locator('dl').textContent()).toMatch(/No valid CDL2/)
    await shot('lookup-equipment')

    await page.goto(`${base}/console/accounts/${acme}/webhooks`)
    await page.getByLabel('URL').fill(receiver.url)
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    await page.getByText('Endpoint added').waitFor()
    await page.getByRole('button', { name: 'Send test' }).click()
    await page.getByText('Test event delivered').waitFor()
    expect(receiver.received.some((r) => r.body.includes('webhook.test'))).toBe(true)
    await shot('webhooks')

    await page.goto(`${base}/console/accounts/${acme}/watchlist`)
    await page.getByLabel(/USDOT numbers to watch/).fill('1000001\n1000002')
    await page.getByRole('button', { name: 'Add to watchlist' }).click()
    await page.getByText('2 added').waitFor()
  })

  test('member: a bad watchlist line keeps the box; the badge says why; the score names its base; a bad checks filter is inline', async () => {
    // one bad line: the good lines are added, the bad one stays in the box, named
    await page.goto(`${base}/console/accounts/${acme}/watchlist`)
    const many = Array.from({ length: 60 }, (_, i) => String(1_000_010 + i))
    await page.getByLabel(/USDOT numbers to watch/).fill(['1000003', '12x45', ...many].join('\n'))
    await page.getByRole('button', { name: 'Add to watchlist' }).click()
    await page.getByText('61 added').waitFor()
    await page.getByText('Not a USDOT number, not added: line 2 "12x45"').waitFor()
    expect(await page.getByLabel(/USDOT numbers to watch/).inputValue()).toBe('12x45')
    await shot('watchlist-bad-line')

    // a company failing a gate: "not verified" says why; the factors name their base
    await page.goto(`${base}/console/accounts/${acme}/lookup`)
    await page.getByLabel('USDOT number').fill('1000006')
    await page.getByRole('button', { name: 'Look up' }).click()
    await page.getByText('Factors and their evidence').waitFor()
    const why = (await page.locator('#unverified-why').textContent()) ?? ''
    expect(why).toMatch(/^why: a hard gate failed \(/)
    const baseLine = (await page.locator('#score-base').textContent()) ?? ''
    expect(baseLine).toMatch(
      /^The factors below add to a neutral base of 78 points \(per component: authority 24 → \d+ of 30/,
    )
    await shot('lookup-unverified')

    // a bad filter on the Checks page: the page and its form stay, the message is beside them
    await page.goto(`${base}/console/accounts/${acme}/checks?dot=abc`)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Checks of Acme')
    expect(await page.locator('#check-dot-error').textContent()).toBe(
      '"abc" is not a USDOT number: a USDOT number has 1 to 8 digits.',
    )
    expect(await page.getByText('Something went wrong').count()).toBe(0)
    await shot('checks-bad-filter')
  })

  test('member: a check opens from the list with its verdict and rules in words; override as the user; PDF download', async () => {
    const made = await fetch(`${base}/v1/checks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acmeKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ dot: '1000001', reference: 'BROWSER-1', run_by: 'TMS user 7' }),
    })
    expect(made.status).toBe(201)
    const check = (await made.json()) as { check_id: string; verdict: string }
    await page.goto(`${base}/console/accounts/${acme}/checks`)
    // signed in by the first test; alone (vitest -t) this test signs in itself
    if (page.url().includes('/sign-in')) {
      await signIn('dispatch@acme.example')
      await page.goto(`${base}/console/accounts/${acme}/checks`)
    }
    await page.getByRole('link', { name: check.check_id }).click()
    await page.waitForURL(new RegExp(`/checks/${check.check_id}$`))
    expect(await page.locator('#effective-verdict').textContent()).toBe(check.verdict.toUpperCase())
    const rules = (await page.getByRole('table').nth(1).textContent()) ?? ''
    expect(rules).toContain('Found USDOT status: active')
    expect(rules).not.toContain('identity.usdot_status')
    expect(await page.getByText('TMS user 7 (unverified').count()).toBe(1)
    await shot('check')

    await page.getByLabel('Verdict decided').selectOption('fail')
    await page.getByLabel('Reason').fill('the carrier could not show its cargo certificate')
    await page.getByRole('button', { name: 'Record override' }).click()
    await page.getByText('Override recorded: FAIL.').waitFor()
    expect(await page.locator('#effective-verdict').textContent()).toBe('FAIL')
    const overrides = (await page.locator('#overrides').textContent()) ?? ''
    expect(overrides).toContain('dispatch@acme.example (console user)')
    expect(overrides).toContain('could not show its cargo certificate')
    // the signed override names the console user as its verified author
    const stored = (await (
      await fetch(`${base}/v1/checks/${check.check_id}`, {
        headers: { authorization: `Bearer ${acmeKey}` },
      })
    ).json()) as { effective_verdict: string; overrides: { by: string; by_verified: boolean }[] }
    expect(stored.effective_verdict).toBe('fail')
    expect(stored.overrides[0]).toMatchObject({ by: 'dispatch@acme.example', by_verified: true })

    const href = (await page.locator('#report-pdf').getAttribute('href')) ?? ''
    const pdf = await page.request.get(`${base}${href}`)
    expect(pdf.status()).toBe(200)
    expect(pdf.headers()['content-type']).toBe('application/pdf')
    expect((await pdf.body()).subarray(0, 5).toString()).toBe('%PDF-')
    // another account's check is not this member's: 404, its PDF too
    const res = await page.goto(`${base}/console/accounts/${other}/checks/${check.check_id}`)
    expect(res?.status()).toBe(404)
  })

  test('member: the blocked list (add with a field error, add, remove)', async () => {
    await page.goto(`${base}/console/accounts/${acme}/blocklist`)
    await page.getByLabel('Type').selectOption('vin')
    await page.getByLabel('Value').fill('1M8GDM9A1KP042788')
    await page.getByLabel('Reason').fill('stolen trailer')
    await page.getByRole('button', { name: 'Add to blocked list' }).click()
    await page.getByText(/value: the check digit/).waitFor()
    await page.getByLabel('Type').selectOption('phone')
    await page.getByLabel('Value').fill('(305) 555-0199')
    await page.getByLabel('Reason').fill('double-brokered a load')
    await page.getByRole('button', { name: 'Add to blocked list' }).click()
    await page.getByText('Phone +13055550199 added.').waitFor()
    expect(await page.getByRole('cell', { name: 'user:dispatch@acme.example' }).count()).toBe(1)
    await shot('blocklist')
    await page.getByRole('button', { name: 'Remove +13055550199' }).click()
    await page.getByText('Nothing blocked.').waitFor()
    // another account's blocked list is not this member's to see
    const other404 = await page.goto(`${base}/console/accounts/${other}/blocklist`)
    expect(other404?.status()).toBe(404)
  })

  test('member: spreadsheet onboarding — upload, preview with unreadable rows, start, progress, results, CSV', async () => {
    await page.goto(`${base}/console/accounts/${acme}`)
    await page.getByRole('link', { name: 'Onboarding' }).click()
    const csv = [
      'USDOT Number,Reference',
      '344554,CARRIER-0001',
      ...Array.from(
        { length: 12 },
        (_, i) => `${1000001 + i},CARRIER-${String(i + 2).padStart(4, '0')}`,
      ),
      '123456789,CARRIER-0014',
      '99999999,CARRIER-0015',
      '1000001,CARRIER-0016',
      ',CARRIER-0017',
    ].join('\n')
    await page.getByLabel('Spreadsheet (CSV or XLSX)').setInputFiles({
      name: 'carriers.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv),
    })
    await page.getByRole('button', { name: 'Upload and preview' }).click()
    await page.getByRole('heading', { name: 'Preview of carriers.csv' }).waitFor()
    expect(await page.getByText('14 companies can be checked').isVisible()).toBe(true)
    const rejected = page.getByRole('region', { name: /cannot be read/ })
    expect(await rejected.getByRole('row').count()).toBe(4) // header + 3 rows
    expect(await rejected.textContent()).toContain('duplicate of row 3')
    expect(await rejected.textContent()).toContain('no USDOT or MC number')
    await shot('onboarding-preview')

    await page.getByRole('button', { name: 'Start onboarding' }).click()
    const bar = page.getByRole('progressbar', { name: 'Onboarding progress' })
    await bar.waitFor()
    // the onboarding job (scheduled by the server every 2 s) works through the list
    await runOnboardings(ctx.deps)
    await page
      .getByRole('heading', { name: 'Results of carriers.csv' })
      .waitFor({ timeout: 10_000 })
    const table = page.getByRole('table', { name: 'Results' })
    expect(await table.getByRole('row').count()).toBe(15) // header + 14 rows
    expect(await table.getByRole('link', { name: /^chk_/ }).count()).toBe(13)
    expect(await table.textContent()).toContain('not found')
    // also at a fixed name in the temp directory, for a look at the latest run
    await page.screenshot({ path: join(tmpdir(), 'onboarding-results.png'), fullPage: true })
    await shot('onboarding-results')

    // each check link lands on the stored check in the account's checks
    const first = table.getByRole('link', { name: /^chk_/ }).first()
    const checkId = (await first.textContent()) ?? ''
    await first.click()
    await page.waitForURL(/\/checks\?dot=/)
    expect(await page.locator(`tr[id="${checkId}"]`).count()).toBe(1)
    await page.goBack()

    const download = page.waitForEvent('download')
    await page.getByRole('link', { name: 'Download results (CSV)' }).click()
    const file = await (await download).path()
    const lines = readFileSync(file, 'utf8').trim().split('\r\n')
    expect(lines[0]).toBe('row,input,reference,status,verdict,reasons,check_id')
    expect(lines).toHaveLength(1 + 14 + 3)
    expect(lines.filter((l) => l.includes(',rejected,'))).toHaveLength(3)
  })

  test('member: Equipment page, a VIN under two carriers and a lessor plate under seven', async () => {
    await page.goto(`${base}/console/accounts/${acme}/equipment`)
    await page.getByRole('textbox', { name: 'VIN' }).fill('1xkydpgx9nj-412345')
    await page.getByRole('button', { name: 'Look up' }).click()
    await page.getByRole('heading', { name: 'VIN 1XKYDPGX9NJ412345' }).waitFor()
    const timeline = page.getByRole('img', { name: /Timeline of 2 carrier/ })
    await timeline.waitFor()
    expect(await timeline.locator('rect[rx]').count()).toBe(2)
    await page.getByText('valid VIN (17 characters, check digit right), model year 2022').waitFor()
    expect(await page.getByRole('cell', { name: 'QUICK HAUL TRANSPORT INC' }).count()).toBe(1)
    await shot('equipment')

    await page.getByRole('textbox', { name: 'VIN' }).fill('')
    await page.getByRole('textbox', { name: 'Plate' }).fill('rt-40021')
    await page.getByRole('textbox', { name: 'State' }).fill('in')
    await page.getByRole('button', { name: 'Look up' }).click()
    await page.getByRole('heading', { name: 'Plate RT40021 (IN)' }).waitFor()
    await page.getByText('shared widely', { exact: true }).waitFor()
    expect(
      await page
        .getByRole('img', { name: /Timeline of 7 carrier/ })
        .locator('rect[rx]')
        .count(),
    ).toBe(7)
    await page.screenshot({
      path: process.env.EQUIPMENT_SHOT ?? `${SHOTS}/equipment-plate.png`,
      fullPage: true,
    })

    // a placeholder and a malformed VIN are explained, never a server error
    for (const [vin, text] of [
      ['UNKNOWN', 'is a placeholder'],
      ['<script>', 'A VIN has letters and digits'],
      ['1M8GDM9A0KP042788', 'was not seen in the last 24 months'],
    ] as const) {
      await page.goto(`${base}/console/accounts/${acme}/equipment?vin=${encodeURIComponent(vin)}`)
      await page.getByText(text).first().waitFor()
    }
  })

  test('admin: accounts, data mirror, audit log', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/sign-in/)
    await signIn('admin@example.com')
    expect(page.url()).toBe(`${base}/console/admin`)
    await page.getByText('Globex Freight').waitFor()
    await shot('admin-accounts')
    await page.getByRole('link', { name: 'Data mirror' }).click()
    await page.getByText('Sync history').waitFor()
    await shot('data-mirror')
    await page.getByRole('link', { name: 'Audit log' }).click()
    await page.getByText('key.revoke').first().waitFor()
    // the long watchlist detail wraps: nothing overflows the page sideways
    await page.getByText('watchlist.add').first().waitFor()
    expect(
      await page.evaluate(
        'document.documentElement.scrollWidth <= document.documentElement.clientWidth',
      ),
    ).toBe(true)
    await shot('audit')
    const revoke = listAudit(ctx.deps.db).find((e) => e.action === 'key.revoke')
    expect(revoke).toMatchObject({
      actor: 'dispatch@acme.example',
      account_id: acme,
      address: '127.0.0.1',
    })
  })

  test('a live key while the mirror has no census: its type does not say "mirror data"', async () => {
    const own = await createTestContext({ sampleDir: 'data/sample' })
    const user = createUser(
      own.deps.db,
      {
        email: 'ops@initech.example',
        role: 'member',
        accountId: own.account('starter').account.id,
      },
      own.clock().getTime(),
    )
    await setPassword(own.deps.db, user.id, PASSWORD)
    const srv = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: own.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
    })
    try {
      const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`
      const p = await (
        await browser.newContext({ viewport: { width: 1280, height: 860 } })
      ).newPage()
      await p.goto(`${url}/console/sign-in`)
      await p.getByLabel('E-mail').fill('ops@initech.example')
      await p.getByLabel('Password').fill(PASSWORD)
      await p.getByRole('button', { name: 'Sign in' }).click()
      await p.waitForURL(/\/console\/accounts/)
      await p.getByRole('link', { name: 'API keys' }).click()
      const live = (await p.locator('#key-mode option[value="live"]').textContent()) ?? ''
      expect(live).toBe(
        'live (billed; answers the bundled SAMPLE data until the mirror has a census)',
      )
      expect(live).not.toContain('mirror data')
      await p.screenshot({ path: `${SHOTS}/keys-on-sample.png`, fullPage: true })
    } finally {
      await new Promise<void>((r) => srv.close(() => r()))
      own.close()
    }
  })
})
