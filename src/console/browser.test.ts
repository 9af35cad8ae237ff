/**
 * The console in a real browser: Debian's chromium driven by playwright-core (headless,
 * --no-sandbox) against the appliance listening on 127.0.0.1. Takes the README's screenshots
 * (docs/screenshots/, with UPDATE_SCREENSHOTS=1; else into a temp dir). Without /usr/bin/chromium the suite is skipped with a message — except in CI
 * (CI=true), where a missing browser fails.
 */
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { serve, type ServerType } from '@hono/node-server'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { verifyKey } from '../keys/keys.ts'
import { meter } from '../keys/usage.ts'
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
  let other: number

  beforeAll(async () => {
    // the real fetch: "send test" reaches the local receiver on 127.0.0.1
    ctx = await createTestContext({ liveDir: 'data/sample', fetch: globalThis.fetch })
    const a = ctx.account('starter', { name: 'Acme Logistics' })
    acme = a.account.id
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
    await shot('audit')
    const revoke = listAudit(ctx.deps.db).find((e) => e.action === 'key.revoke')
    expect(revoke).toMatchObject({
      actor: 'dispatch@acme.example',
      account_id: acme,
      address: '127.0.0.1',
    })
  })
})
