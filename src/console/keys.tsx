/** An account's API keys: list, create (secret shown once, with a copy button), rotate, revoke. */
import type { Hono } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Account } from '../keys/accounts.ts'
import { createKey, getKey, listKeys, revokeKey, rotateKey, type KeyInfo } from '../keys/keys.ts'
import type { Session } from '../users/sessions.ts'
import { accountNav } from './account.tsx'
import type { ConsoleEnv } from './env.ts'
import { accountOf, audit, field, sessionOf, type Ctx } from './guard.ts'
import { Csrf, iso, Layout } from './layout.tsx'
import { setFlash } from '../users/sessions.ts'

const COPY_SCRIPT = `
document.querySelectorAll('[data-copy]').forEach(function(b){
  b.addEventListener('click',function(){
    var el=document.getElementById(b.getAttribute('data-copy'));
    navigator.clipboard.writeText(el.textContent).then(function(){b.textContent='Copied'},function(){
      var r=document.createRange();r.selectNodeContents(el);var s=getSelection();s.removeAllRanges();s.addRange(r);b.textContent='Selected: press Ctrl+C'});
  });
});`

export function keyState(k: KeyInfo, now: number): { label: string; tone: string } {
  if (k.revokedAt !== null && k.revokedAt <= now) return { label: 'revoked', tone: 'bad' }
  if (k.expiresAt !== null && k.expiresAt <= now) return { label: 'expired', tone: 'muted' }
  if (k.expiresAt !== null)
    return { label: `rotated, works until ${iso(k.expiresAt)}`, tone: 'warn' }
  return { label: 'active', tone: 'ok' }
}

function KeysTable(props: {
  keys: KeyInfo[]
  now: number
  base: string
  session: Session
  graceHours: number
}) {
  const { keys, now, base, session, graceHours } = props
  return keys.length === 0 ? (
    <p class="muted">No keys yet.</p>
  ) : (
    <table>
      <thead>
        <tr>
          <th scope="col">Prefix</th>
          <th scope="col">Name</th>
          <th scope="col">Kind</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">State</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {keys
          .slice()
          .reverse()
          .map((k) => {
            const st = keyState(k, now)
            const usable = st.label === 'active'
            return (
              <tr>
                <td>
                  <code>{k.start}…</code>
                </td>
                <td>{k.name ?? '—'}</td>
                <td>{k.mode === 'test' ? 'sandbox' : 'live'}</td>
                <td>{iso(k.createdAt)}</td>
                <td>{iso(k.lastUsedAt)}</td>
                <td>
                  <span class={`badge ${st.tone}`}>{st.label}</span>
                </td>
                <td>
                  {usable ? (
                    <>
                      <form class="inline" method="post" action={`${base}/${k.id}/rotate`}>
                        <Csrf session={session} />
                        <label class="visually-hidden" for={`grace-${k.id}`}>
                          Grace period for key {k.start}
                        </label>
                        <select id={`grace-${k.id}`} name="grace_hours">
                          <option value={String(graceHours)}>old key works {graceHours} h</option>
                          <option value="1">old key works 1 h</option>
                          <option value="0">old key stops now</option>
                        </select>{' '}
                        <button
                          type="submit"
                          class="secondary"
                          aria-label={`Rotate key ${k.start}`}
                        >
                          Rotate
                        </button>
                      </form>{' '}
                    </>
                  ) : null}
                  {st.label !== 'revoked' ? (
                    <form class="inline" method="post" action={`${base}/${k.id}/revoke`}>
                      <Csrf session={session} />
                      <button type="submit" class="danger" aria-label={`Revoke key ${k.start}`}>
                        Revoke
                      </button>
                    </form>
                  ) : null}
                </td>
              </tr>
            )
          })}
      </tbody>
    </table>
  )
}

function KeysPage(props: {
  deps: Deps
  account: Account
  session: Session
  nonce: string
  flash: string | null
  error?: string | null
  secret?: { secret: string; key: KeyInfo; note: string } | null
}) {
  const { account, session } = props
  const now = props.deps.clock().getTime()
  const keys = listKeys(props.deps.db, account.id)
  const base = `/console/accounts/${account.id}/keys`
  const graceHours = props.deps.config.keys.rotationGraceMs / 3_600_000
  return (
    <Layout
      title={`API keys · ${account.name}`}
      nonce={props.nonce}
      session={session}
      flash={props.flash}
      error={props.error}
      nav={accountNav(account.id)}
      current={base}
    >
      <h1>API keys of {account.name}</h1>
      {props.secret ? (
        <div class="secret" role="alert">
          <p>
            <strong>{props.secret.note}</strong> Copy the secret now: it is shown only once and
            cannot be recovered.
          </p>
          <p>
            <code id="new-secret">{props.secret.secret}</code>{' '}
            <button type="button" class="secondary" data-copy="new-secret">
              Copy
            </button>
          </p>
          <script nonce={props.nonce} dangerouslySetInnerHTML={{ __html: COPY_SCRIPT }} />
        </div>
      ) : null}
      <h2>Create a key</h2>
      <form class="row" method="post" action={base}>
        <Csrf session={session} />
        <div>
          <label for="key-name">
            Name <span class="hint">(optional)</span>
          </label>
          <br />
          <input id="key-name" name="name" maxlength={100} />
        </div>
        <div>
          <label for="key-mode">Kind</label>
          <br />
          <select id="key-mode" name="mode">
            <option value="live">
              {props.deps.datasets.view('live').source === 'mirror'
                ? 'live (billed, mirror data)'
                : 'live (billed; answers the bundled SAMPLE data until the mirror has a census)'}
            </option>
            <option value="test">sandbox (never billed, sample data)</option>
          </select>
        </div>
        <button type="submit">Create key</button>
      </form>
      <h2>Keys</h2>
      <KeysTable keys={keys} now={now} base={base} session={session} graceHours={graceHours} />
    </Layout>
  )
}

/** A key of this account, else 404. */
function keyOf(c: Ctx, deps: Deps, account: Account): KeyInfo {
  const raw = c.req.param('kid') ?? ''
  const k = /^\d{1,12}$/.test(raw) ? getKey(deps.db, Number(raw)) : null
  if (!k || k.accountId !== account.id) throw new AppError('not_found', 'No such key')
  return k
}

export function keysRoutes(app: Hono<ConsoleEnv>, deps: Deps) {
  const page = (
    c: Ctx,
    extra: {
      secret?: { secret: string; key: KeyInfo; note: string } | null
      error?: string | null
    } = {},
  ) =>
    c.html(
      <KeysPage
        deps={deps}
        account={accountOf(c, deps)}
        session={sessionOf(c)}
        nonce={c.get('nonce')}
        flash={c.get('flash')}
        {...extra}
      />,
    )

  app.get('/accounts/:id/keys', (c) => page(c))

  app.post('/accounts/:id/keys', async (c) => {
    const account = accountOf(c, deps)
    const name = (await field(c, 'name')).slice(0, 100) || null
    const mode = (await field(c, 'mode')) === 'test' ? 'test' : 'live'
    const { key, secret } = createKey(
      deps.db,
      { accountId: account.id, mode, name },
      deps.clock().getTime(),
    )
    audit(c, deps, 'key.create', {
      accountId: account.id,
      target: `key:${key.id}`,
      detail: { mode, start: key.start, name },
    })
    return page(c, { secret: { secret, key, note: `Key ${key.start}… created.` } })
  })

  app.post('/accounts/:id/keys/:kid/rotate', async (c) => {
    const account = accountOf(c, deps)
    const old = keyOf(c, deps, account)
    const hours = Number(await field(c, 'grace_hours'))
    const graceMs =
      Number.isFinite(hours) && hours >= 0 && hours <= 24 * 90
        ? hours * 3_600_000
        : deps.config.keys.rotationGraceMs
    const { key, secret, oldExpiresAt } = rotateKey(
      deps.db,
      old.id,
      deps.clock().getTime(),
      graceMs,
    )
    audit(c, deps, 'key.rotate', {
      accountId: account.id,
      target: `key:${old.id}`,
      detail: { new_key: key.id, old_expires_at: new Date(oldExpiresAt).toISOString() },
    })
    return page(c, {
      secret: {
        secret,
        key,
        note: `Key ${old.start}… rotated; the old secret works until ${iso(oldExpiresAt)}.`,
      },
    })
  })

  app.post('/accounts/:id/keys/:kid/revoke', (c) => {
    const account = accountOf(c, deps)
    const k = keyOf(c, deps, account)
    revokeKey(deps.db, k.id, deps.clock().getTime())
    audit(c, deps, 'key.revoke', {
      accountId: account.id,
      target: `key:${k.id}`,
      detail: { start: k.start },
    })
    setFlash(deps.db, sessionOf(c).id, `Key ${k.start}… revoked: it answers 401 from now on.`)
    return c.redirect(`/console/accounts/${account.id}/keys`, 303)
  })
}
