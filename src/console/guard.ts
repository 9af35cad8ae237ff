/**
 * The console's gate: security headers and CSP, the session cookie, the Origin check and the
 * per-session CSRF token on every state-changing request, who may see which account, the audit.
 */
import { randomBytes } from 'node:crypto'
import type { Context, MiddlewareHandler } from 'hono'
import { getCookie } from 'hono/cookie'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { getAccount, type Account } from '../keys/accounts.ts'
import { recordAudit } from '../users/audit.ts'
import { csrfMatches, getSession, takeFlash, type Session } from '../users/sessions.ts'
import type { ConsoleEnv } from './env.ts'

export const SESSION_COOKIE = 'cv_session'
export type Ctx = Context<ConsoleEnv>

/** The client's address as the socket saw it (no proxy headers are trusted). */
function clientAddress(c: Ctx): string | null {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined
  return env?.incoming?.socket?.remoteAddress ?? null
}

/** Headers, nonce, session (and its flash message) for every console request. */
export const consoleContext =
  (deps: Deps): MiddlewareHandler<ConsoleEnv> =>
  async (c, next) => {
    const nonce = randomBytes(16).toString('base64')
    c.set('nonce', nonce)
    c.set('address', clientAddress(c))
    const token = getCookie(c, SESSION_COOKIE)
    const session = token ? getSession(deps.db, token, deps.clock().getTime()) : null
    c.set('session', session)
    c.set('flash', session && c.req.method === 'GET' ? takeFlash(deps.db, session.id) : null)
    await next()
    c.header(
      'content-security-policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    )
    c.header('cache-control', 'no-store')
  }

/**
 * A state-changing request must come from a page of this console: its Origin (or, without one,
 * its Referer) must be this server's origin or PUBLIC_URL's.
 */
export function sameOrigin(c: Ctx, publicUrl: string): boolean {
  const from = c.req.header('origin') ?? c.req.header('referer')
  if (!from) return false
  let origin: URL
  try {
    origin = new URL(from)
  } catch {
    return false
  }
  const own = new URL(c.req.url)
  const host = c.req.header('host') ?? own.host
  return origin.host === host || origin.origin === new URL(publicUrl).origin
}

/** Signed in (else to the sign-in page) and, on POST, the Origin and CSRF checks passed. */
export const requireSession =
  (deps: Deps): MiddlewareHandler<ConsoleEnv> =>
  async (c, next) => {
    const session = c.get('session')
    if (!session) {
      if (c.req.method === 'GET' && !c.req.path.endsWith('.json'))
        return c.redirect(`/console/sign-in?next=${encodeURIComponent(c.req.path)}`, 303)
      throw new AppError('unauthorized', 'Sign in to the console first')
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      if (!sameOrigin(c, deps.config.publicUrl))
        throw new AppError('forbidden', 'Refused: the request did not come from this console')
      const body = await c.req.parseBody()
      const submitted = typeof body._csrf === 'string' ? body._csrf : c.req.header('x-csrf-token')
      if (!csrfMatches(session, submitted))
        throw new AppError(
          'forbidden',
          'Refused: the form has expired or was not sent by this console; reload the page and try again',
        )
    }
    await next()
  }

export const sessionOf = (c: Ctx): Session => {
  const s = c.get('session')
  if (!s) throw new AppError('unauthorized', 'Sign in to the console first')
  return s
}

export function requireAdmin(c: Ctx): Session {
  const s = sessionOf(c)
  // a member never learns that an admin page exists
  if (s.user.role !== 'admin') throw new AppError('not_found', 'Page not found')
  return s
}

/** The account of `/console/accounts/:id/…` if this user may see it; otherwise 404 (never its content). */
export function accountOf(c: Ctx, deps: Deps): Account {
  const s = sessionOf(c)
  const raw = c.req.param('id') ?? ''
  const id = /^\d{1,12}$/.test(raw) ? Number(raw) : NaN
  const visible = s.user.role === 'admin' || s.user.accountId === id
  const account = visible && Number.isSafeInteger(id) ? getAccount(deps.db, id) : null
  if (!account) throw new AppError('not_found', 'Page not found')
  return account
}

/** Writes one audit row for the signed-in user's action. */
export function audit(
  c: Ctx,
  deps: Deps,
  action: string,
  e: { accountId?: number | null; target?: string | null; detail?: Record<string, unknown> } = {},
): void {
  const s = c.get('session')
  recordAudit(
    deps.db,
    {
      userId: s?.user.id ?? null,
      actor: s?.user.email ?? 'anonymous',
      action,
      accountId: e.accountId ?? null,
      target: e.target ?? null,
      detail: e.detail ?? null,
      address: c.get('address'),
    },
    deps.clock().getTime(),
  )
}

/** A form field as a trimmed string ('' when absent). */
export async function field(c: Ctx, name: string): Promise<string> {
  const body = await c.req.parseBody()
  const v = body[name]
  return typeof v === 'string' ? v.trim() : ''
}
