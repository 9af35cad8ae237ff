/** An account's webhook endpoints (recent deliveries, send test) and its watchlist. */
import type { Hono } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Account } from '../keys/accounts.ts'
import { PLANS } from '../keys/plans.ts'
import { setFlash, type Session } from '../users/sessions.ts'
import { sendTestEvent } from '../webhooks/deliver.ts'
import { listDeliveries } from '../webhooks/deliveries.ts'
import {
  addEndpoint,
  getEndpoint,
  listEndpoints,
  removeEndpoint,
  type Endpoint,
} from '../webhooks/endpoints.ts'
import {
  addToWatchlist,
  listWatchlist,
  parseDotList,
  removeFromWatchlist,
} from '../webhooks/watchlist.ts'
import { accountNav } from './account.tsx'
import type { ConsoleEnv } from './env.ts'
import { accountOf, audit, field, sessionOf, type Ctx } from './guard.ts'
import { Csrf, iso, Layout } from './layout.tsx'

const paid = (a: Account) => (a.subscription ? PLANS[a.subscription.plan].webhooks : false)

function EndpointsTable(props: { endpoints: Endpoint[]; base: string; session: Session }) {
  const { endpoints, base, session } = props
  return endpoints.length === 0 ? (
    <p class="muted">No endpoints.</p>
  ) : (
    <table>
      <thead>
        <tr>
          <th scope="col">URL</th>
          <th scope="col">Events</th>
          <th scope="col">State</th>
          <th scope="col" class="num">
            Failures in a row
          </th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {endpoints.map((e: Endpoint) => (
          <tr>
            <td>
              <code>{e.url}</code>
            </td>
            <td>{e.events ? e.events.join(', ') : 'all'}</td>
            <td>
              <span class={`badge ${e.status === 'enabled' ? 'ok' : 'bad'}`}>{e.status}</span>
              {e.disabledReason ? ` ${e.disabledReason}` : ''}
            </td>
            <td class="num">{e.consecutiveFailures}</td>
            <td>
              <form class="inline" method="post" action={`${base}/${e.id}/test`}>
                <Csrf session={session} />
                <button type="submit" class="secondary">
                  Send test
                </button>
              </form>{' '}
              <form class="inline" method="post" action={`${base}/${e.id}/remove`}>
                <Csrf session={session} />
                <button type="submit" class="danger">
                  Remove
                </button>
              </form>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function DeliveriesTable(props: { deliveries: ReturnType<typeof listDeliveries> }) {
  const { deliveries } = props
  return deliveries.length === 0 ? (
    <p class="muted">No deliveries yet.</p>
  ) : (
    <table>
      <thead>
        <tr>
          <th scope="col">Created</th>
          <th scope="col">Event</th>
          <th scope="col">Endpoint</th>
          <th scope="col">State</th>
          <th scope="col" class="num">
            Attempts
          </th>
          <th scope="col">Last answer</th>
          <th scope="col">Next attempt</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.map((d) => (
          <tr>
            <td>{iso(d.createdAt)}</td>
            <td>{d.eventType}</td>
            <td>{d.endpointId}</td>
            <td>
              <span
                class={`badge ${d.status === 'succeeded' ? 'ok' : d.status === 'pending' || d.status === 'delivering' ? 'warn' : 'bad'}`}
              >
                {d.status}
              </span>
            </td>
            <td class="num">{d.attempts}</td>
            <td>{d.lastStatusCode ?? d.lastError ?? '—'}</td>
            <td>{iso(d.nextAttemptAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function WebhooksPage(props: {
  deps: Deps
  account: Account
  session: Session
  nonce: string
  flash: string | null
  secret?: string | null
}) {
  const { account, session, deps } = props
  const base = `/console/accounts/${account.id}/webhooks`
  const endpoints = listEndpoints(deps.db, { accountId: account.id })
  const deliveries = listDeliveries(deps.db, { accountId: account.id, limit: 25 })
  return (
    <Layout
      title={`Webhooks · ${account.name}`}
      nonce={props.nonce}
      session={session}
      flash={props.flash}
      nav={accountNav(account.id)}
      current={base}
    >
      <h1>Webhooks of {account.name}</h1>
      {!paid(account) ? (
        <p class="flash">
          Webhooks and watchlists are part of the paid plans; this account is on{' '}
          {account.subscription?.plan ?? 'no plan'}.
        </p>
      ) : null}
      {props.secret ? (
        <div class="secret" role="alert">
          <p>
            <strong>Endpoint added.</strong> Its signing secret is shown only once:
          </p>
          <p>
            <code>{props.secret}</code>
          </p>
        </div>
      ) : null}
      <h2>Add an endpoint</h2>
      <form class="row" method="post" action={base}>
        <Csrf session={session} />
        <div>
          <label for="wh-url">URL</label>
          <br />
          <input
            id="wh-url"
            name="url"
            type="url"
            required
            size={50}
            placeholder="https://tms.example.com/hooks/carrier-verify"
          />
        </div>
        <button type="submit">Add endpoint</button>
      </form>
      <h2>Endpoints</h2>
      <EndpointsTable endpoints={endpoints} base={base} session={session} />
      <h2>Recent deliveries</h2>
      <DeliveriesTable deliveries={deliveries} />
    </Layout>
  )
}

function WatchlistPage(props: {
  deps: Deps
  account: Account
  session: Session
  nonce: string
  flash: string | null
  /** the lines that were not added, named (shown above the form) */
  error?: string | null
  /** what the box holds again: the lines that were not added, to fix and send again */
  kept?: string
}) {
  const { account, session, deps } = props
  const base = `/console/accounts/${account.id}/watchlist`
  const list = listWatchlist(deps.db, account.id)
  return (
    <Layout
      title={`Watchlist · ${account.name}`}
      nonce={props.nonce}
      session={session}
      flash={props.flash}
      error={props.error ?? null}
      nav={accountNav(account.id)}
      current={base}
    >
      <h1>Watchlist of {account.name}</h1>
      <p class="muted">
        A <code>carrier.changed</code> webhook is sent when a watched company's authority,
        insurance, safety rating or out-of-service state changes in a new data version.
      </p>
      <form class="stack" method="post" action={base}>
        <Csrf session={session} />
        <label for="dots">
          USDOT numbers to watch <span class="hint">(one per line, or separated by commas)</span>
        </label>
        <textarea
          id="dots"
          name="dots"
          rows={4}
          required
          aria-invalid={props.kept ? 'true' : undefined}
        >
          {props.kept ?? ''}
        </textarea>
        <div>
          <button type="submit">Add to watchlist</button>
        </div>
      </form>
      <h2>Watched companies ({list.length})</h2>
      {list.length === 0 ? (
        <p class="muted">Nothing watched.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">USDOT</th>
              <th scope="col">Added</th>
              <th scope="col">Last compared</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.slice(0, 500).map((w) => (
              <tr>
                <td>
                  <a href={`/console/accounts/${account.id}/lookup?dot=${w.dotNumber}`}>
                    {w.dotNumber}
                  </a>
                </td>
                <td>{iso(w.createdAt)}</td>
                <td>{iso(w.checkedAt)}</td>
                <td>
                  <form class="inline" method="post" action={`${base}/remove`}>
                    <Csrf session={session} />
                    <input type="hidden" name="dot" value={String(w.dotNumber)} />
                    <button
                      type="submit"
                      class="danger"
                      aria-label={`Stop watching ${w.dotNumber}`}
                    >
                      Remove
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  )
}

function endpointOf(c: Ctx, deps: Deps, account: Account): Endpoint {
  const raw = c.req.param('wid') ?? ''
  const e = /^\d{1,12}$/.test(raw) ? getEndpoint(deps.db, Number(raw)) : null
  if (!e || e.accountId !== account.id || e.removedAt !== null)
    throw new AppError('not_found', 'No such endpoint')
  return e
}

const page = (c: Ctx, deps: Deps, secret: string | null = null) =>
  c.html(
    <WebhooksPage
      deps={deps}
      account={accountOf(c, deps)}
      session={sessionOf(c)}
      nonce={c.get('nonce')}
      flash={c.get('flash')}
      secret={secret}
    />,
  )

export function webhookRoutes(app: Hono<ConsoleEnv>, deps: Deps) {
  app.get('/accounts/:id/webhooks', (c) => page(c, deps))
  app.post('/accounts/:id/webhooks', (c) => addEndpointForm(c, deps))
  app.post('/accounts/:id/webhooks/:wid/test', (c) => testEndpointForm(c, deps))
  app.post('/accounts/:id/webhooks/:wid/remove', (c) => removeEndpointForm(c, deps))
  app.get('/accounts/:id/watchlist', (c) =>
    c.html(
      <WatchlistPage
        deps={deps}
        account={accountOf(c, deps)}
        session={sessionOf(c)}
        nonce={c.get('nonce')}
        flash={c.get('flash')}
      />,
    ),
  )
  app.post('/accounts/:id/watchlist', (c) => addWatchForm(c, deps))
  app.post('/accounts/:id/watchlist/remove', (c) => removeWatchForm(c, deps))
}

async function addEndpointForm(c: Ctx, deps: Deps) {
  const account = accountOf(c, deps)
  const { endpoint, secret } = await addEndpoint(
    deps,
    { accountId: account.id, url: await field(c, 'url') },
    deps.clock().getTime(),
  )
  audit(c, deps, 'webhook.add', {
    accountId: account.id,
    target: `endpoint:${endpoint.id}`,
    detail: { url: endpoint.url },
  })
  return page(c, deps, secret)
}

async function testEndpointForm(c: Ctx, deps: Deps) {
  const account = accountOf(c, deps)
  const e = endpointOf(c, deps, account)
  const outcome = await sendTestEvent(
    deps,
    e.id,
    AbortSignal.timeout(deps.config.webhooks.timeoutMs + 1000),
  )
  audit(c, deps, 'webhook.test', {
    accountId: account.id,
    target: `endpoint:${e.id}`,
    detail: { status: outcome.status, http_status: outcome.statusCode },
  })
  setFlash(
    deps.db,
    sessionOf(c).id,
    outcome.status === 'succeeded'
      ? `Test event delivered to ${e.url} (HTTP ${outcome.statusCode ?? '?'}).`
      : `!Test event to ${e.url} failed: ${outcome.error ?? `HTTP ${outcome.statusCode ?? '?'}`}`,
  )
  return c.redirect(`/console/accounts/${account.id}/webhooks`, 303)
}

function removeEndpointForm(c: Ctx, deps: Deps) {
  const account = accountOf(c, deps)
  const e = endpointOf(c, deps, account)
  removeEndpoint(deps.db, e.id, deps.clock().getTime())
  audit(c, deps, 'webhook.remove', {
    accountId: account.id,
    target: `endpoint:${e.id}`,
    detail: { url: e.url },
  })
  setFlash(deps.db, sessionOf(c).id, `Endpoint ${e.url} removed.`)
  return c.redirect(`/console/accounts/${account.id}/webhooks`, 303)
}

async function addWatchForm(c: Ctx, deps: Deps) {
  const account = accountOf(c, deps)
  const text = (await field(c, 'dots')).replace(/,/g, '\n')
  const { dots, invalid } = parseDotList(text)
  if (invalid.length) {
    // the good lines are added; the bad ones stay in the box, named, to fix and send again
    const lines = text.split(/\r?\n/)
    const r = dots.length ? addToWatchlist(deps.db, account.id, dots, deps.clock().getTime()) : null
    if (r)
      audit(c, deps, 'watchlist.add', {
        accountId: account.id,
        detail: { dots: dots.slice(0, 100), added: r.added },
      })
    const named = invalid
      .slice(0, 5)
      .map((i) => `line ${i.line} "${i.value}" (${i.reason})`)
      .join(', ')
    const more = invalid.length > 5 ? ` and ${invalid.length - 5} more` : ''
    return c.html(
      <WatchlistPage
        deps={deps}
        account={account}
        session={sessionOf(c)}
        nonce={c.get('nonce')}
        flash={r ? `${r.added} added, ${r.alreadyWatched} already watched.` : null}
        error={`Not a USDOT number, not added: ${named}${more}. Fix ${invalid.length === 1 ? 'it' : 'them'} below and add again.`}
        kept={invalid.map((i) => lines[i.line - 1] ?? i.value).join('\n')}
      />,
      r ? 200 : 400,
    )
  }
  if (dots.length === 0) throw new AppError('invalid_request', 'Give at least one USDOT number')
  const r = addToWatchlist(deps.db, account.id, dots, deps.clock().getTime())
  audit(c, deps, 'watchlist.add', {
    accountId: account.id,
    detail: { dots: dots.slice(0, 100), added: r.added },
  })
  setFlash(deps.db, sessionOf(c).id, `${r.added} added, ${r.alreadyWatched} already watched.`)
  return c.redirect(`/console/accounts/${account.id}/watchlist`, 303)
}

async function removeWatchForm(c: Ctx, deps: Deps) {
  const account = accountOf(c, deps)
  const dot = Number(await field(c, 'dot'))
  if (!Number.isSafeInteger(dot) || dot <= 0)
    throw new AppError('invalid_request', 'Not a USDOT number')
  removeFromWatchlist(deps.db, account.id, [dot])
  audit(c, deps, 'watchlist.remove', { accountId: account.id, target: `dot:${dot}` })
  setFlash(deps.db, sessionOf(c).id, `${dot} is no longer watched.`)
  return c.redirect(`/console/accounts/${account.id}/watchlist`, 303)
}
