/** The account's stored checks with their verdicts (newest first, 50 a page, filter by USDOT). */
import type { Hono } from 'hono'
import { CheckListQuery, listChecks } from '../checks/list.ts'
import type { CheckListJson } from '../checks/schema.ts'
import { formatFingerprint, proveKeys, publicKeys, trustPins } from '../checks/signing.ts'
import type { Deps } from '../deps.ts'
import { accountNav } from './account.tsx'
import { checkRoutes } from './check.tsx'
import type { ConsoleEnv } from './env.ts'
import { accountOf, sessionOf } from './guard.ts'
import { Layout } from './layout.tsx'

const tone = (v: string) => (v === 'pass' ? 'ok' : v === 'review' ? 'warn' : 'bad')

/** The current signing key and its fingerprint, to be pinned by a third party. */
function SigningKey(props: { deps: Deps }) {
  const { deps } = props
  const current = publicKeys(deps.db).findLast((k) => k.retired_at === null)
  const proven = current
    ? proveKeys(
        publicKeys(deps.db),
        trustPins(deps.config.paths.dataDir, deps.config.checks.trustedKey),
      ).proven.has(current.key_id)
    : false
  return (
    <p id="signing-key">
      {current ? (
        <>
          Signing key <code>{current.key_id}</code>, fingerprint{' '}
          <code>{formatFingerprint(current.fingerprint)}</code>
          {proven ? '' : ' (not proven by the key history: run checks keys)'}. A third party pins it
          with <code>node verify.mjs --expect-key {current.fingerprint}</code>.
        </>
      ) : (
        'No signing key yet (one is made with the first check).'
      )}
    </p>
  )
}

/** One row a check; the company and the check id open the check. */
function ChecksTable(props: { accountId: number; checks: CheckListJson['checks'] }) {
  const account = { id: props.accountId }
  const open = (id: string) => `/console/accounts/${account.id}/checks/${id}`
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Created (UTC)</th>
          <th scope="col">USDOT</th>
          <th scope="col">Company</th>
          <th scope="col">Reference</th>
          <th scope="col">Verdict</th>
          <th scope="col">Effective verdict</th>
          <th scope="col">Policy</th>
          <th scope="col">Mode</th>
          <th scope="col">Check id</th>
        </tr>
      </thead>
      <tbody>
        {props.checks.map((k) => (
          <tr id={k.check_id}>
            <td>{k.created_at.replace('T', ' ').slice(0, 19)}</td>
            <td>
              <a href={`/console/accounts/${account.id}/lookup?dot=${k.dot_number}`}>
                {k.dot_number}
              </a>
            </td>
            <td>
              <a href={open(k.check_id)}>{k.legal_name ?? '—'}</a>
            </td>
            <td>{k.reference ?? '—'}</td>
            <td>
              <span class={`badge ${tone(k.verdict)}`}>{k.verdict}</span>
            </td>
            <td>
              <span class={`badge ${tone(k.effective_verdict)}`}>{k.effective_verdict}</span>
              {k.overrides ? ` (${k.overrides} override${k.overrides > 1 ? 's' : ''})` : ''}
            </td>
            <td>{k.policy_id}</td>
            <td>{k.mode === 'test' ? <span class="badge warn">sandbox</span> : 'live'}</td>
            <td>
              <a href={open(k.check_id)}>
                <code>{k.check_id}</code>
              </a>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

export function checksRoutes(app: Hono<ConsoleEnv>, deps: Deps) {
  app.get('/accounts/:id/checks', (c) => {
    const account = accountOf(c, deps)
    const base = `/console/accounts/${account.id}/checks`
    const dot = c.req.query('dot')?.trim() || undefined
    const q = CheckListQuery.safeParse({ dot, cursor: c.req.query('cursor'), limit: '50' })
    // a bad filter is named beside the field, with the form kept (not a whole error page)
    const bad = q.success
      ? null
      : q.error.issues.some((i) => i.path[0] === 'dot')
        ? `"${(dot ?? '').slice(0, 20)}" is not a USDOT number: a USDOT number has 1 to 8 digits.`
        : 'This page link is out of date (bad cursor): start again from the first page.'
    const list = q.success
      ? listChecks(deps.db, account.id, q.data)
      : { checks: [], next_cursor: null }
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
          Checks are created through the API (<code>POST /v1/checks</code>); each is a signed,
          chained document. Open a check for its rules in words, its PDF report and the override
          form; an override keeps the original verdict and sets the effective one.
        </p>
        <SigningKey deps={deps} />
        <form class="row" method="get" action={base} role="search">
          <div>
            <label for="check-dot">USDOT number</label>
            <br />
            <input
              id="check-dot"
              name="dot"
              inputmode="numeric"
              value={dot ?? ''}
              aria-invalid={bad ? 'true' : undefined}
              aria-describedby={bad ? 'check-dot-error' : undefined}
            />
          </div>
          <button type="submit">Filter</button>
        </form>
        {bad ? (
          <p id="check-dot-error" class="flash error" role="alert">
            {bad}
          </p>
        ) : list.checks.length === 0 ? (
          <p class="muted">No checks{dot ? ` for USDOT ${dot}` : ''}.</p>
        ) : (
          <ChecksTable accountId={account.id} checks={list.checks} />
        )}
        {list.next_cursor ? (
          <p>
            <a
              href={`${base}?${new URLSearchParams({ ...(dot ? { dot } : {}), cursor: list.next_cursor }).toString()}`}
            >
              Older checks
            </a>
          </p>
        ) : null}
      </Layout>,
    )
  })
  checkRoutes(app, deps)
}
