import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { consoleClient } from '../testing/console-client.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { listAudit } from '../users/audit.ts'
import { checkPasswordRules, weakPasswordReason } from '../users/password.ts'
import { createUser, setPassword } from '../users/users.ts'
import { auditedEmail, SIGN_IN_LIMITS } from './auth.tsx'

const PASSWORD = 'correct horse battery'

async function checked(ctx: TestContext): Promise<number> {
  const m = await ctx.deps.metrics.signInChecks.get()
  return m.values[0]?.value ?? 0
}

describe('console sign-in limits under concurrency', () => {
  let ctx: TestContext
  beforeAll(async () => {
    ctx = await createTestContext({ env: { PUBLIC_URL: 'https://verify.example.com' } })
    const now = ctx.clock().getTime()
    const admin = createUser(ctx.deps.db, { email: 'admin@example.com', role: 'admin' }, now)
    await setPassword(ctx.deps.db, admin.id, PASSWORD)
  })
  afterAll(() => ctx.close())

  test('a burst of 200 parallel sign-ins against one e-mail checks at most the limit of passwords', async () => {
    const client = consoleClient(ctx)
    const token = await client.csrf('/console/sign-in')
    const before = await checked(ctx)
    const form = (password: string) => ({
      _csrf: token,
      email: 'admin@example.com',
      password,
      next: '/console',
    })
    // 199 wrong passwords, the right one last: all sent before any answer arrives
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        client.post('/console/sign-in', form(i === 199 ? PASSWORD : `wrong password ${i}`), {
          origin: 'https://verify.example.com',
        }),
      ),
    )
    const statuses = answers.map((r) => r.status)
    expect((await checked(ctx)) - before).toBe(SIGN_IN_LIMITS.perEmail)
    expect(statuses.filter((s) => s === 401)).toHaveLength(SIGN_IN_LIMITS.perEmail)
    expect(statuses.filter((s) => s === 429)).toHaveLength(200 - SIGN_IN_LIMITS.perEmail)
    expect(statuses).not.toContain(303)
  })

  test('the session cookie is Secure when PUBLIC_URL is https, even over plain http behind a proxy', async () => {
    ctx.clock.advance(16 * 60_000)
    const client = consoleClient(ctx)
    const token = await client.csrf('/console/sign-in')
    const res = await client.post(
      '/console/sign-in',
      { _csrf: token, email: 'admin@example.com', password: PASSWORD, next: '/console' },
      { origin: 'https://verify.example.com' },
    )
    expect(res.status).toBe(303)
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('cv_session='))
    expect(cookie).toMatch(/;\s*Secure/i)
  })

  test('a password typed into the e-mail field of a failed sign-in is never stored', async () => {
    ctx.clock.advance(16 * 60_000)
    const client = consoleClient(ctx)
    const token = await client.csrf('/console/sign-in')
    const res = await client.post(
      '/console/sign-in',
      { _csrf: token, email: 'hunter2 my secret pass', password: 'x', next: '/console' },
      { origin: 'https://verify.example.com' },
    )
    expect(res.status).toBe(401)
    const failed = listAudit(ctx.deps.db, { limit: 10 }).filter(
      (e) => e.action === 'sign_in.failed',
    )
    expect(failed.length).toBeGreaterThan(0)
    expect(JSON.stringify(failed)).not.toContain('hunter2')
    expect(failed[0]?.detail).toEqual({ email: null })
  })
})

describe('console on a full disk', () => {
  test('a form that must write answers a clear 503 page with Retry-After, not a 500', async () => {
    const ctx = await createTestContext()
    try {
      const now = ctx.clock().getTime()
      const admin = createUser(ctx.deps.db, { email: 'admin@example.com', role: 'admin' }, now)
      await setPassword(ctx.deps.db, admin.id, PASSWORD)
      const client = consoleClient(ctx)
      const token = await client.csrf('/console/sign-in')
      const db = ctx.deps.db
      // a real SQLITE_FULL: app.db may not grow by one page
      db.pragma('wal_checkpoint(TRUNCATE)')
      db.pragma(`max_page_count = ${String(db.pragma('page_count', { simple: true }))}`)
      const filler = db.prepare(
        'INSERT INTO audit_log (at, actor, action, detail) VALUES (?, ?, ?, ?)',
      )
      try {
        for (;;) filler.run(now, 'cli', 'fill', 'x'.repeat(2000))
      } catch (err) {
        expect((err as { code: string }).code).toBe('SQLITE_FULL')
      }
      const res = await client.post('/console/sign-in', {
        _csrf: token,
        email: 'admin@example.com',
        password: PASSWORD,
        next: '/console',
      })
      expect(res.status).toBe(503)
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
      const html = await res.text()
      expect(html).toContain('Storage unavailable')
      expect(html).toContain('its disk is full or read-only')
    } finally {
      ctx.close()
    }
  })
})

describe('password rules', () => {
  test.each([
    ['aaaaaaaaaaaa', 'one character repeated'],
    ['            ', 'only blanks'],
    ['password1234', 'common password'],
    ['Password1234!', 'common password'],
    ['qwertyuiop12', 'common password'],
    ['123456789012', 'common password'],
    ['abcabcabcabc', 'short pattern repeated'],
    ['234567890123', 'run of digits'],
  ])('%j is refused (%s)', (password, why) => {
    expect(weakPasswordReason(password)).toContain(why)
    expect(() => checkPasswordRules(password)).toThrow(/too easy to guess/)
  })

  test('a long phrase of unrelated words is accepted; 11 characters are not', () => {
    expect(weakPasswordReason(PASSWORD)).toBeNull()
    expect(() => checkPasswordRules('staple horse lamp')).not.toThrow()
    expect(() => checkPasswordRules('short words')).toThrow(/at least 12/)
  })

  test('the audit log keeps the e-mail field only when it is an e-mail address', () => {
    expect(auditedEmail('admin@example.com')).toBe('admin@example.com')
    expect(auditedEmail('password1234')).toBeNull()
    expect(auditedEmail('my pass@word.x y')).toBeNull()
  })
})
