import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { consoleClient, ORIGIN } from '../testing/console-client.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { runCliCaptured } from '../testing/cli.ts'
import { liveCensusDir } from '../testing/fixture-dirs.ts'
import { listAudit } from '../users/audit.ts'
import { createUser, setPassword } from '../users/users.ts'

const PASSWORD = 'correct horse battery'

describe('console', () => {
  let ctx: TestContext
  let acme: number
  let other: number
  beforeAll(async () => {
    ctx = await createTestContext({ liveDir: liveCensusDir() })
    acme = ctx.account('starter', { name: 'Acme' }).account.id
    other = ctx.account('starter', { name: 'Other' }).account.id
    const now = ctx.clock().getTime()
    const admin = createUser(ctx.deps.db, { email: 'admin@example.com', role: 'admin' }, now)
    await setPassword(ctx.deps.db, admin.id, PASSWORD)
    const member = createUser(
      ctx.deps.db,
      { email: 'Member@Example.com', role: 'member', accountId: acme },
      now,
    )
    await setPassword(ctx.deps.db, member.id, PASSWORD)
  })
  afterAll(() => ctx.close())

  test('sign-in sets an HttpOnly, SameSite=Lax session cookie; a wrong password is a 401 page', async () => {
    const client = consoleClient(ctx)
    expect((await client.get('/console/accounts/1')).headers.get('location')).toBe(
      '/console/sign-in?next=%2Fconsole%2Faccounts%2F1',
    )
    const bad = await client.signIn('member@example.com', 'wrong password!')
    expect(bad.status).toBe(401)
    expect(await bad.text()).toContain('E-mail or password is wrong')
    const ok = await client.signIn('member@example.com', PASSWORD)
    expect(ok.status).toBe(303)
    expect(ok.headers.get('location')).toBe('/console')
    const cookie = ok.headers.getSetCookie().find((c) => c.startsWith('cv_session='))
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Lax/)
    expect(cookie).not.toMatch(/Secure/)
    const home = await client.get('/console')
    expect(home.headers.get('location')).toBe(`/console/accounts/${acme}`)
    const page = await client.get(`/console/accounts/${acme}`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("script-src 'nonce-")
    const html = await page.text()
    expect(html).toContain('Usage in 2026-11')
    expect(html).toContain('<svg class="chart"')
  })

  test('over https the cookies are Secure; a disabled user loses its session at once', async () => {
    const res = await ctx.app.request('https://localhost/console/sign-in')
    expect(res.headers.getSetCookie().join()).toMatch(/cv_form=[^;]+;.*Secure/)
    const client = consoleClient(ctx)
    const now = ctx.clock().getTime()
    const temp = createUser(
      ctx.deps.db,
      { email: 'temp@example.com', role: 'member', accountId: acme },
      now,
    )
    await setPassword(ctx.deps.db, temp.id, PASSWORD)
    await client.signIn('temp@example.com', PASSWORD)
    expect((await client.get(`/console/accounts/${acme}`)).status).toBe(200)
    expect((await runCliCaptured(ctx, ['users', 'disable', String(temp.id)])).code).toBe(0)
    expect((await client.get(`/console/accounts/${acme}`)).status).toBe(303)
    expect((await client.signIn('temp@example.com', PASSWORD)).status).toBe(401)
    // sign-out ends the session on the server too
    const again = consoleClient(ctx)
    await again.signIn('member@example.com', PASSWORD)
    const cookie = again.jar.get('cv_session') ?? ''
    const token = await again.csrf(`/console/accounts/${acme}`)
    expect((await again.post('/console/sign-out', { _csrf: token })).headers.get('location')).toBe(
      '/console/sign-in',
    )
    const replay = await ctx.app.request(`${ORIGIN}/console/accounts/${acme}`, {
      headers: { cookie: `cv_session=${cookie}` },
    })
    expect(replay.status).toBe(303)
  })

  test('sign-in attempts are rate-limited per e-mail', async () => {
    const client = consoleClient(ctx)
    const statuses: number[] = []
    for (let i = 0; i < 6; i++)
      statuses.push((await client.signIn('admin@example.com', `nope-${i}-xxxxxxxx`)).status)
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
    const blocked = await client.signIn('admin@example.com', PASSWORD)
    expect(blocked.status).toBe(429)
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0)
    ctx.clock.advance(16 * 60_000)
    expect((await client.signIn('admin@example.com', PASSWORD)).status).toBe(303)
  })

  test("a member never reaches another account's pages nor the admin pages (404)", async () => {
    const client = consoleClient(ctx)
    await client.signIn('member@example.com', PASSWORD)
    for (const path of [
      `/console/accounts/${other}`,
      `/console/accounts/${other}/keys`,
      `/console/accounts/${other}/usage.json`,
      `/console/accounts/${other}/webhooks`,
      `/console/accounts/${other}/lookup?dot=344554`,
      '/console/accounts/999999',
      '/console/admin',
      '/console/admin/users',
      '/console/admin/data',
      '/console/admin/audit',
    ]) {
      const res = await client.get(path)
      expect(res.status, path).toBe(404)
      expect(await res.text()).not.toContain('Other')
    }
    const token = await client.csrf(`/console/accounts/${acme}/keys`)
    const res = await client.post(`/console/accounts/${other}/keys`, {
      _csrf: token,
      name: 'x',
      mode: 'live',
    })
    expect(res.status).toBe(404)
  })

  test('a form without the CSRF token, or from another origin, is refused (403)', async () => {
    const client = consoleClient(ctx)
    await client.signIn('member@example.com', PASSWORD)
    const token = await client.csrf(`/console/accounts/${acme}/keys`)
    const keys = () =>
      ctx.deps.db.prepare('SELECT count(*) AS n FROM api_keys').get() as { n: number }
    const before = keys().n
    expect((await client.post(`/console/accounts/${acme}/keys`, { name: 'x' })).status).toBe(403)
    expect(
      (await client.post(`/console/accounts/${acme}/keys`, { _csrf: 'A'.repeat(43), name: 'x' }))
        .status,
    ).toBe(403)
    const foreign = await client.post(
      `/console/accounts/${acme}/keys`,
      { _csrf: token, name: 'x' },
      { origin: 'https://evil.example' },
    )
    expect(foreign.status).toBe(403)
    const noOrigin = await client.post(
      `/console/accounts/${acme}/keys`,
      { _csrf: token, name: 'x' },
      { origin: '' },
    )
    expect(noOrigin.status).toBe(403)
    expect(keys().n).toBe(before)
    // and sign-in itself needs its form token
    const anon = consoleClient(ctx)
    expect(
      (await anon.post('/console/sign-in', { email: 'member@example.com', password: PASSWORD }))
        .status,
    ).toBe(403)
  })

  test('create a key (shown once), call the API, usage.json follows, revoke → 401', async () => {
    const client = consoleClient(ctx)
    await client.signIn('member@example.com', PASSWORD)
    const token = await client.csrf(`/console/accounts/${acme}/keys`)
    const created = await client.post(`/console/accounts/${acme}/keys`, {
      _csrf: token,
      name: 'tms',
      mode: 'live',
    })
    expect(created.status).toBe(200)
    const html = await created.text()
    const secret = /<code id="new-secret">(cvk_live_[A-Za-z0-9_-]{43})<\/code>/.exec(html)?.[1]
    expect(secret).toBeDefined()
    const listed = await (await client.get(`/console/accounts/${acme}/keys`)).text()
    expect(listed).not.toContain(secret)
    expect(listed).toContain(secret?.slice(0, 13))

    const before = (await (await client.get(`/console/accounts/${acme}/usage.json`)).json()) as {
      used: number
    }
    for (let i = 0; i < 3; i++)
      expect((await ctx.get('/v1/carrier/344554', secret)).status).toBe(200)
    const after = (await (await client.get(`/console/accounts/${acme}/usage.json`)).json()) as {
      used: number
      chart_svg: string
      included: number
    }
    expect(after.used).toBe(before.used + 3)
    expect(after.included).toBe(10_000)
    expect(after.chart_svg).toContain('2026-11-15: 3 calls')

    const keyId = (
      ctx.deps.db.prepare('SELECT id FROM api_keys WHERE name = ?').get('tms') as { id: number }
    ).id
    const revoked = await client.post(`/console/accounts/${acme}/keys/${keyId}/revoke`, {
      _csrf: token,
    })
    expect(revoked.status).toBe(303)
    expect(await (await client.get(`/console/accounts/${acme}/keys`)).text()).toContain(
      'revoked: it answers 401',
    )
    expect((await ctx.get('/v1/carrier/344554', secret)).status).toBe(401)

    // no API key ever signs in to the console
    const withKey = await ctx.app.request(`${ORIGIN}/console/accounts/${acme}`, {
      headers: { authorization: `Bearer ${secret}` },
    })
    expect(withKey.status).toBe(303)
    expect(withKey.headers.get('location')).toMatch(/^\/console\/sign-in/)
  })

  test('rotate keeps the old secret for the chosen grace period', async () => {
    const client = consoleClient(ctx)
    await client.signIn('member@example.com', PASSWORD)
    const { key, account } = ctx.account('starter')
    void account
    const token = await client.csrf(`/console/accounts/${acme}/keys`)
    const html = await (
      await client.post(`/console/accounts/${acme}/keys`, { _csrf: token, mode: 'live' })
    ).text()
    const secret = /id="new-secret">([^<]+)</.exec(html)?.[1] ?? ''
    const id = (
      ctx.deps.db.prepare('SELECT id FROM api_keys WHERE start = ?').get(secret.slice(0, 13)) as {
        id: number
      }
    ).id
    const rotated = await (
      await client.post(`/console/accounts/${acme}/keys/${id}/rotate`, {
        _csrf: token,
        grace_hours: '1',
      })
    ).text()
    const fresh = /id="new-secret">([^<]+)</.exec(rotated)?.[1] ?? ''
    expect(fresh).not.toBe(secret)
    expect((await ctx.get('/v1/carrier/344554', secret)).status).toBe(200)
    expect((await ctx.get('/v1/carrier/344554', fresh)).status).toBe(200)
    ctx.clock.advance(3_600_001)
    expect((await ctx.get('/v1/carrier/344554', secret)).status).toBe(401)
    expect((await ctx.get('/v1/carrier/344554', fresh)).status).toBe(200)
    void key
  })

  test("the checks page lists the account's checks with their verdicts", async () => {
    const { createKey } = await import('../keys/keys.ts')
    const key = createKey(
      ctx.deps.db,
      { accountId: acme, mode: 'live' },
      ctx.clock().getTime(),
    ).secret
    const created = await ctx.post('/v1/checks', { dot: '344554', reference: 'LOAD-42' }, key)
    expect(created.status).toBe(201)
    const { check_id: id, verdict } = (await created.json()) as {
      check_id: string
      verdict: string
    }
    const client = consoleClient(ctx)
    await client.signIn('member@example.com', PASSWORD)
    const html = await (await client.get(`/console/accounts/${acme}/checks`)).text()
    expect(html).toContain(id)
    expect(html).toContain('LOAD-42')
    expect(html).toContain(
      `<span class="badge ${verdict === 'pass' ? 'ok' : verdict === 'review' ? 'warn' : 'bad'}">${verdict}</span>`,
    )
    expect(
      await (await client.get(`/console/accounts/${acme}/checks?dot=1000001`)).text(),
    ).toContain('No checks for USDOT 1000001')
    expect((await client.get(`/console/accounts/${other}/checks`)).status).toBe(404)
  })

  test('the lookup tester renders the record with the Trust Score factors and evidence', async () => {
    const client = consoleClient(ctx)
    await client.signIn('member@example.com', PASSWORD)
    const html = await (await client.get(`/console/accounts/${acme}/lookup?dot=344554`)).text()
    expect(html).toContain('HULL COOPERATIVE ASSOCIATION')
    expect(html).toContain('Factors and their evidence')
    expect(html).toContain('BASICs')
    expect(html).toContain('Operating authority')
    // the regulator's date and the arrival, apart
    expect(html).toContain('Data as of (the regulator&#39;s date)')
    expect(html).toMatch(/Imported here<\/dt><dd>census \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/)
    expect(
      await (await client.get(`/console/accounts/${acme}/lookup?dot=12345678`)).text(),
    ).toContain('No company with USDOT 12345678')
    expect(await (await client.get(`/console/accounts/${acme}/lookup?dot=abc`)).text()).toContain(
      '1 to 8 digits',
    )
  })

  test('admin: create an account, change plan, suspend (API 402) and resume; all audited', async () => {
    const client = consoleClient(ctx)
    await client.signIn('admin@example.com', PASSWORD)
    const token = await client.csrf('/console/admin')
    const res = await client.post('/console/admin/accounts', {
      _csrf: token,
      name: 'Console Co',
      plan: 'free',
      interval: 'monthly',
    })
    expect(res.status).toBe(303)
    const id = Number(/\/console\/accounts\/(\d+)/.exec(res.headers.get('location') ?? '')?.[1])
    expect(await (await client.get('/console/admin')).text()).toContain('Console Co')
    expect(
      (
        await client.post(`/console/accounts/${id}/plan`, {
          _csrf: token,
          plan: 'scale',
          interval: 'yearly',
        })
      ).status,
    ).toBe(303)
    expect(await (await client.get(`/console/accounts/${id}`)).text()).toContain(
      'Plan changed to scale',
    )
    const { createKey } = await import('../keys/keys.ts')
    const secret = createKey(
      ctx.deps.db,
      { accountId: id, mode: 'live' },
      ctx.clock().getTime(),
    ).secret
    await client.post(`/console/accounts/${id}/suspend`, { _csrf: token, reason: 'unpaid' })
    expect((await ctx.get('/v1/carrier/344554', secret)).status).toBe(402)
    await client.post(`/console/accounts/${id}/resume`, { _csrf: token })
    expect((await ctx.get('/v1/carrier/344554', secret)).status).toBe(200)
    // a bad form value comes back as a message on the page, not a 500
    const bad = await client.post(
      `/console/accounts/${id}/plan`,
      { _csrf: token, plan: 'platinum' },
      { referer: `${ORIGIN}/console/accounts/${id}` },
    )
    expect(bad.status).toBe(303)
    expect(await (await client.get(`/console/accounts/${id}`)).text()).toContain(
      'Unknown plan platinum',
    )
    const actions = listAudit(ctx.deps.db, { accountId: id }).map((a) => a.action)
    expect(actions).toEqual(
      expect.arrayContaining([
        'account.create',
        'account.set_plan',
        'account.suspend',
        'account.resume',
      ]),
    )
    const entry = listAudit(ctx.deps.db, { accountId: id }).find(
      (a) => a.action === 'account.suspend',
    )
    expect(entry).toMatchObject({ actor: 'admin@example.com', detail: { reason: 'unpaid' } })
    expect((await client.get('/console/admin/audit')).status).toBe(200)
  })

  test('admin: data mirror page and a sync started from the console records its failure', async () => {
    const own = await createTestContext({ liveDir: liveCensusDir(), env: { SYNC_RETRIES: '0' } })
    const admin = createUser(
      own.deps.db,
      { email: 'admin@example.com', role: 'admin' },
      own.clock().getTime(),
    )
    await setPassword(own.deps.db, admin.id, PASSWORD)
    const client = consoleClient(own)
    await client.signIn('admin@example.com', PASSWORD)
    const page = await (await client.get('/console/admin/data')).text()
    expect(page).toContain('census')
    const token = await client.csrf('/console/admin/data')
    expect((await client.post('/console/admin/data/sync', { _csrf: token })).status).toBe(303)
    let state: { running: boolean; results: { status: string }[] } = { running: true, results: [] }
    for (let i = 0; i < 200 && state.running; i++) {
      await new Promise((r) => setTimeout(r, 50))
      state = (await (await client.get('/console/admin/data/progress.json')).json()) as typeof state
    }
    expect(state.running).toBe(false)
    expect(state.results.length).toBeGreaterThan(0)
    expect(state.results.every((r) => r.status === 'failed')).toBe(true) // tests refuse the network
    expect(await (await client.get('/console/admin/data')).text()).toContain(
      'network access in tests is not allowed',
    )
    own.close()
  })

  test('CLI: users add with --password-stdin, with a one-time link; users list; audit --json', async () => {
    const added = await runCliCaptured(
      ctx,
      [
        'users',
        'add',
        '--email',
        'ops@example.com',
        '--role',
        'member',
        '--account',
        String(acme),
        '--password-stdin',
      ],
      `${PASSWORD}\n`,
    )
    expect(added.code).toBe(0)
    expect((await consoleClient(ctx).signIn('ops@example.com', PASSWORD)).status).toBe(303)
    const short = await runCliCaptured(
      ctx,
      ['users', 'add', '--email', 'x@example.com', '--role', 'admin', '--password-stdin'],
      'short\n',
    )
    expect(short.code).toBe(2)
    expect(short.stderr).toContain('at least 12 characters')
    const noAccount = await runCliCaptured(ctx, [
      'users',
      'add',
      '--email',
      'y@example.com',
      '--role',
      'member',
    ])
    expect(noAccount.code).toBe(2)

    const linked = await runCliCaptured(ctx, [
      'users',
      'add',
      '--email',
      'new@example.com',
      '--role',
      'admin',
      '--json',
    ])
    expect(linked.code).toBe(0)
    const link = String(linked.json().set_password_link)
    expect(link).toMatch(/^http:\/\/localhost:3000\/console\/set-password\/[A-Za-z0-9_-]{43}$/)
    const path = new URL(link).pathname
    const client = consoleClient(ctx)
    const form = await (await client.get(path)).text()
    const token = /name="_csrf" value="([^"]+)"/.exec(form)?.[1] ?? ''
    expect(
      (
        await client.post(path, {
          _csrf: token,
          password: 'another long password',
          password2: 'another long password',
        })
      ).status,
    ).toBe(303)
    expect((await client.get(path)).status).toBe(404) // used once
    expect(
      (await consoleClient(ctx).signIn('new@example.com', 'another long password')).status,
    ).toBe(303)

    const list = await runCliCaptured(ctx, ['users', 'list', '--json'])
    expect((list.json() as unknown as { email: string }[]).map((u) => u.email)).toContain(
      'new@example.com',
    )
    const audit = await runCliCaptured(ctx, ['audit', '--json'])
    const rows = audit.json() as unknown as { action: string; actor: string; at: string }[]
    expect(rows.map((r) => r.action)).toEqual(
      expect.arrayContaining([
        'user.create',
        'sign_in',
        'key.create',
        'key.revoke',
        'sign_in.failed',
      ]),
    )
    expect(rows.find((r) => r.action === 'user.create')?.actor).toBe('cli')
  })
})
