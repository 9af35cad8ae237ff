/**
 * The account console at /console: server-rendered pages (hono/jsx), no external assets, a small
 * inline script only for live usage, sync progress and the copy button. Sign-in with console users
 * (never API keys); the console calls domain functions, never the data API.
 */
import { Hono } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError, retryAfterOf, toAppError } from '../errors.ts'
import { setFlash } from '../users/sessions.ts'
import { accountRoutes } from './account.tsx'
import { adminRoutes } from './admin.tsx'
import { authRoutes } from './auth.tsx'
import { checksRoutes } from './checks.tsx'
import { dataRoutes } from './data.tsx'
import type { ConsoleEnv } from './env.ts'
import { equipmentRoutes } from './equipment.tsx'
import { consoleContext, requireSession, sameOrigin, type Ctx } from './guard.ts'
import { keysRoutes } from './keys.tsx'
import { Layout } from './layout.tsx'
import { lookupRoutes } from './lookup.tsx'
import { mailRoutes, unsubscribeRoutes } from './mail.tsx'
import { blocklistRoutes } from './blocklist.tsx'
import { onboardingRoutes } from './onboarding.tsx'
import { webhookRoutes } from './webhooks.tsx'

function ErrorPage(props: { c: Ctx; status: number; message: string }) {
  const { c } = props
  return (
    <Layout
      title={props.status === 404 ? 'Not found' : 'Error'}
      nonce={c.get('nonce')}
      session={c.get('session')}
    >
      <h1>
        {props.status === 404
          ? 'Page not found'
          : props.status === 403
            ? 'Refused'
            : props.status === 503
              ? 'Storage unavailable'
              : 'Something went wrong'}
      </h1>
      <p>{props.message}</p>
      <p>
        <a href="/console">Back to the console</a>
      </p>
    </Layout>
  )
}

const STORAGE_MESSAGE =
  'The data directory cannot be written: its disk is full or read-only. Nothing was changed. Free space on the volume (or make it writable); the console works again without a restart.'

/** The console's routes, mounted by createApp under /console. */
export function consoleRoutes(deps: Deps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>()
  app.use(consoleContext(deps))
  authRoutes(app, deps)
  unsubscribeRoutes(app, deps)
  app.use(requireSession(deps))
  app.get('/', (c) => {
    const user = c.get('session')?.user
    return c.redirect(
      user?.role === 'admin' ? '/console/admin' : `/console/accounts/${user?.accountId ?? 0}`,
      303,
    )
  })
  accountRoutes(app, deps)
  keysRoutes(app, deps)
  webhookRoutes(app, deps)
  mailRoutes(app, deps)
  checksRoutes(app, deps)
  onboardingRoutes(app, deps)
  lookupRoutes(app, deps)
  blocklistRoutes(app, deps)
  equipmentRoutes(app, deps)
  adminRoutes(app, deps)
  dataRoutes(app, deps)
  app.all('*', () => {
    throw new AppError('not_found', 'Page not found')
  })

  app.onError((err, c) => {
    // a full or read-only disk is an outage with its own page (503), never a 500
    const e = toAppError(err)
    if (!e) deps.log.error({ err, path: c.req.path }, 'console error')
    else if (e.code === 'storage_unavailable')
      deps.log.error(
        { err: e.options.cause ?? err, path: c.req.path },
        'console: storage unavailable',
      )
    const status = e?.status ?? 500
    const message =
      e?.code === 'storage_unavailable'
        ? STORAGE_MESSAGE
        : e && status < 500
          ? e.message
          : 'An internal error occurred; it has been logged.'
    if (e && retryAfterOf(e.code) !== null) c.header('retry-after', String(retryAfterOf(e.code)))
    const session = c.get('session')
    if (c.req.path.endsWith('.json') || c.req.header('accept') === 'application/json')
      return c.json({ status, error: message, code: e?.code ?? 'internal' }, status as 400)
    // a refused form action goes back to its page with the message (not for CSRF/origin refusals)
    if (
      session &&
      c.req.method === 'POST' &&
      e &&
      [400, 402, 409, 413].includes(status) &&
      sameOrigin(c, deps.config.publicUrl)
    ) {
      setFlash(deps.db, session.id, `!${message}`)
      const back = new URL(c.req.header('referer') ?? '/console', 'http://x').pathname
      return c.redirect(back.startsWith('/console') ? back : '/console', 303)
    }
    c.status(status as 400)
    return c.html(<ErrorPage c={c} status={status} message={message} />)
  })
  return app
}
