/**
 * The account's stored checks. A placeholder until the checks domain (src/checks/) lands: wire its
 * list here (read the account's checks with their verdicts and render them in this page).
 */
import type { Hono } from 'hono'
import type { Deps } from '../deps.ts'
import { accountNav } from './account.tsx'
import type { ConsoleEnv } from './env.ts'
import { accountOf, sessionOf } from './guard.ts'
import { Layout } from './layout.tsx'

export function checksRoutes(app: Hono<ConsoleEnv>, deps: Deps) {
  app.get('/accounts/:id/checks', (c) => {
    const account = accountOf(c, deps)
    const base = `/console/accounts/${account.id}/checks`
    return c.html(
      <Layout
        title={`Checks · ${account.name}`}
        nonce={c.get('nonce')}
        session={sessionOf(c)}
        flash={c.get('flash')}
        nav={accountNav(account.id)}
        current={base}
      >
        <h1>Checks of {account.name}</h1>
        <p class="muted">
          Stored checks and their verdicts appear here once checks are enabled on this appliance.
        </p>
      </Layout>,
    )
  })
}
