/**
 * Sign-in, sign-out and the one-time set-password page. Sign-in has no session yet, so its form
 * carries a double-submit token (a random cookie echoed in the form) plus the Origin check; failed
 * attempts are limited per address and per e-mail.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { Hono } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { verifyPassword } from '../users/password.ts'
import { RateLimiter } from '../users/rate-limit.ts'
import { createSession, deleteSession, SESSION_MAX_MS } from '../users/sessions.ts'
import { findForSignIn, markSignedIn, passwordTokenUser, usePasswordToken } from '../users/users.ts'
import type { ConsoleEnv } from './env.ts'
import { audit, field, requireSession, sameOrigin, SESSION_COOKIE, type Ctx } from './guard.ts'
import { Layout } from './layout.tsx'

const PRE_COOKIE = 'cv_form'
/** Failed sign-ins allowed per 15 minutes: per address, and per e-mail. */
export const SIGN_IN_LIMITS = { perAddress: 20, perEmail: 5, windowMs: 15 * 60_000 }

/** Cookies are Secure when the console is reached over https (own TLS, PUBLIC_URL or the request). */
const secure = (c: Ctx, deps: Deps) =>
  deps.config.tls !== null ||
  deps.config.publicUrl.startsWith('https:') ||
  new URL(c.req.url).protocol === 'https:'

/** A form token for pages without a session: a cookie and the same value in the form. */
function formToken(c: Ctx, deps: Deps): string {
  const existing = getCookie(c, PRE_COOKIE)
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing
  const t = randomBytes(32).toString('base64url')
  setCookie(c, PRE_COOKIE, t, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: secure(c, deps),
    path: '/console',
  })
  return t
}

async function checkFormToken(c: Ctx, deps: Deps): Promise<void> {
  if (!sameOrigin(c, deps.config.publicUrl))
    throw new AppError('forbidden', 'Refused: the request did not come from this console')
  const cookie = getCookie(c, PRE_COOKIE) ?? ''
  const sent = await field(c, '_csrf')
  const ok =
    cookie.length > 0 &&
    cookie.length === sent.length &&
    timingSafeEqual(Buffer.from(cookie), Buffer.from(sent))
  if (!ok)
    throw new AppError('forbidden', 'Refused: the form has expired; reload the page and try again')
}

/**
 * The e-mail field as the audit log keeps it: only when it looks like an e-mail address (a
 * password typed into the wrong field is never stored).
 */
export const auditedEmail = (email: string): string | null =>
  email.length <= 254 && /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/.test(email) ? email : null

const safeNext = (v: string | undefined) =>
  v && /^\/console(\/[A-Za-z0-9/_.-]*)?$/.test(v) ? v : '/console'

function SignInPage(props: {
  nonce: string
  token: string
  next: string
  error?: string | null
  email?: string
}) {
  return (
    <Layout title="Sign in" nonce={props.nonce} session={null} error={props.error}>
      <h1>Sign in</h1>
      <form class="stack" method="post" action="/console/sign-in">
        <input type="hidden" name="_csrf" value={props.token} />
        <input type="hidden" name="next" value={props.next} />
        <label for="email">E-mail</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value={props.email ?? ''}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
        />
        <div>
          <button type="submit">Sign in</button>
        </div>
      </form>
      <p class="muted">
        Console users are created by an administrator (<code>carrier-verify users add</code>). API
        keys cannot sign in here.
      </p>
    </Layout>
  )
}

/** The sign-in throttle: per client address and per e-mail, over one window. */
function signInLimiter() {
  const byAddress = new RateLimiter(SIGN_IN_LIMITS.perAddress, SIGN_IN_LIMITS.windowMs)
  const byEmail = new RateLimiter(SIGN_IN_LIMITS.perEmail, SIGN_IN_LIMITS.windowMs)
  return {
    /** Counts one attempt of both keys, or none when either is at its limit (seconds to wait). */
    reserve(address: string, email: string, now: number): number {
      const wait = Math.max(byAddress.retryAfter(address, now), byEmail.retryAfter(email, now))
      if (wait > 0) return wait
      byAddress.hit(address, now)
      byEmail.hit(email, now)
      return 0
    },
    /** A right password clears the e-mail's count and gives back the address's attempt. */
    succeeded(address: string, email: string, now: number): void {
      byEmail.reset(email)
      byAddress.release(address, now)
    },
  }
}
type SignInLimiter = ReturnType<typeof signInLimiter>

export function authRoutes(app: Hono<ConsoleEnv>, deps: Deps) {
  const limiter = signInLimiter()
  app.get('/sign-in', (c) => signInPage(c, deps))
  app.post('/sign-in', (c) => signInForm(c, deps, limiter))
  app.post('/sign-out', requireSession(deps), (c) => signOutForm(c, deps))
  app.get('/set-password/:token', (c) => setPasswordPage(c, deps, c.req.param('token')))
  app.post('/set-password/:token', (c) => setPasswordForm(c, deps, c.req.param('token')))
}

function signInPage(c: Ctx, deps: Deps) {
  if (c.get('session')) return c.redirect('/console', 303)
  return c.html(
    <SignInPage
      nonce={c.get('nonce')}
      token={formToken(c, deps)}
      next={safeNext(c.req.query('next'))}
    />,
  )
}

async function signInForm(c: Ctx, deps: Deps, limiter: SignInLimiter) {
  await checkFormToken(c, deps)
  const now = deps.clock().getTime()
  const email = (await field(c, 'email')).toLowerCase()
  const password = (await c.req.parseBody()).password
  const next = safeNext(await field(c, 'next'))
  const address = c.get('address') ?? 'unknown'
  const again = (error: string, status: 401 | 429) => {
    c.status(status)
    return c.html(
      <SignInPage
        nonce={c.get('nonce')}
        token={formToken(c, deps)}
        next={next}
        error={error}
        email={email}
      />,
    )
  }
  // counted before the password is checked (synchronously, no await in between), so a burst of
  // parallel attempts checks at most the limit's number of passwords
  const wait = limiter.reserve(address, email, now)
  const shown = auditedEmail(email)
  if (wait > 0) {
    c.header('retry-after', String(wait))
    audit(c, deps, 'sign_in.throttled', { detail: { email: shown } })
    return again(`Too many failed sign-ins. Try again in ${Math.ceil(wait / 60)} minute(s).`, 429)
  }
  const found = findForSignIn(deps.db, email)
  deps.metrics.signInChecks.inc()
  const ok =
    typeof password === 'string' && (await verifyPassword(password, found?.passwordHash ?? null))
  if (!ok || !found || found.user.disabledAt !== null) {
    audit(c, deps, 'sign_in.failed', { detail: { email: shown } })
    return again('E-mail or password is wrong.', 401)
  }
  limiter.succeeded(address, email, now)
  const { token, session } = createSession(deps.db, found.user.id, c.get('address'), now)
  markSignedIn(deps.db, found.user.id, now)
  c.set('session', session)
  audit(c, deps, 'sign_in', { accountId: found.user.accountId })
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: secure(c, deps),
    path: '/console',
    maxAge: Math.floor(SESSION_MAX_MS / 1000),
  })
  deleteCookie(c, PRE_COOKIE, { path: '/console' })
  return c.redirect(next, 303)
}

function signOutForm(c: Ctx, deps: Deps) {
  const s = c.get('session')
  if (s) {
    audit(c, deps, 'sign_out', { accountId: s.user.accountId })
    deleteSession(deps.db, s.id)
  }
  deleteCookie(c, SESSION_COOKIE, { path: '/console' })
  return c.redirect('/console/sign-in', 303)
}

async function setPasswordForm(c: Ctx, deps: Deps, token: string) {
  await checkFormToken(c, deps)
  const body = await c.req.parseBody()
  const p1 = typeof body.password === 'string' ? body.password : ''
  if (p1 !== body.password2) return setPasswordPage(c, deps, token, 'The two passwords differ.')
  try {
    const user = await usePasswordToken(deps.db, token, p1, deps.clock().getTime())
    audit(c, deps, 'user.password_set', {
      accountId: user.accountId,
      target: `user:${user.id}`,
      detail: { email: user.email },
    })
  } catch (err) {
    if (err instanceof AppError && err.code === 'invalid_request')
      return setPasswordPage(c, deps, token, err.message)
    throw err
  }
  return c.redirect('/console/sign-in', 303)
}

function setPasswordPage(c: Ctx, deps: Deps, token: string, error: string | null = null) {
  const user = passwordTokenUser(deps.db, token, deps.clock().getTime())
  if (!user)
    throw new AppError(
      'not_found',
      'This link is unknown, used or expired; ask an administrator for a new one',
    )
  return c.html(
    <Layout title="Set your password" nonce={c.get('nonce')} session={null} error={error}>
      <h1>Set the password of {user.email}</h1>
      <form class="stack" method="post" action={`/console/set-password/${token}`}>
        <input type="hidden" name="_csrf" value={formToken(c, deps)} />
        <input type="hidden" name="email" autocomplete="username" value={user.email} />
        <label for="password">
          New password <span class="hint">(at least 12 characters)</span>
        </label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          minlength={12}
          required
        />
        <label for="password2">Repeat it</label>
        <input
          id="password2"
          name="password2"
          type="password"
          autocomplete="new-password"
          minlength={12}
          required
        />
        <div>
          <button type="submit">Set password</button>
        </div>
      </form>
    </Layout>,
  )
}
