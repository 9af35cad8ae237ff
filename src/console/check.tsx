/**
 * One check on the console: the same content as its PDF report (the effective verdict first, the
 * company, who ran it and when, every rule with the values found in words, the data sources, the
 * overrides), its PDF download, and the override form, which records the signed-in user as the
 * author (only a user who may see the account reaches it).
 */
import type { Hono } from 'hono'
import { checkEvidence, checkReport, overrideCheck } from '../checks/checks.ts'
import type { PageInput } from '../checks/html.ts'
import { OverrideRequest } from '../checks/schema.ts'
import { dateInWords, rulesInWords, warningsOf, whoInWords } from '../checks/words.ts'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Account } from '../keys/accounts.ts'
import { setFlash, type Session } from '../users/sessions.ts'
import { accountNav } from './account.tsx'
import type { ConsoleEnv } from './env.ts'
import { accountOf, audit, field, sessionOf } from './guard.ts'
import { Csrf, Layout } from './layout.tsx'

const tone = (v: string) =>
  v === 'pass' ? 'ok' : v === 'review' ? 'warn' : v === 'fail' ? 'bad' : 'muted'

const CHECK_ID = /^chk_[A-Za-z0-9_-]{16}$/

/** The check id of the path, else 404 (like a check of another account). */
function checkIdOf(raw: string | undefined): string {
  if (!raw || !CHECK_ID.test(raw)) throw new AppError('not_found', 'Page not found')
  return raw
}

function Rules(props: { p: PageInput }) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Result</th>
          <th scope="col">Rule</th>
          <th scope="col">Found, and required</th>
        </tr>
      </thead>
      <tbody>
        {rulesInWords(props.p.doc).map((r) => (
          <tr>
            <td>
              <span class={`badge ${tone(r.result)}`}>{r.result}</span>
            </td>
            <td>{r.description}</td>
            <td>{r.sentence}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function Sources(props: { p: PageInput }) {
  const d = props.p.doc
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Dataset</th>
          <th scope="col">Regulator's date</th>
          <th scope="col">Version</th>
          <th scope="col">Files (sha256)</th>
        </tr>
      </thead>
      <tbody>
        {(d.data_sources ?? []).map((s) => (
          <tr>
            <td>{s.dataset}</td>
            <td>{s.regulator_date ? dateInWords(s.regulator_date) : 'unknown'}</td>
            <td>
              {s.version_id} ({s.channel})
            </td>
            <td>
              {s.files.map((f) => (
                <div>
                  {f.id ?? f.url ?? 'file'}: <code>{f.sha256 ?? 'not recorded'}</code>
                </div>
              ))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function Overrides(props: { p: PageInput }) {
  const list = props.p.overrides
  if (!list.length) return <p class="muted">No override: the effective verdict is the policy's.</p>
  return (
    <table id="overrides">
      <thead>
        <tr>
          <th scope="col">When (UTC)</th>
          <th scope="col">Verdict</th>
          <th scope="col">By</th>
          <th scope="col">Reason</th>
        </tr>
      </thead>
      <tbody>
        {list.map((o) => (
          <tr>
            <td>{o.created_at.replace('T', ' ').slice(0, 19)}</td>
            <td>
              <span class={`badge ${tone(o.verdict)}`}>{o.verdict}</span> (was {o.original_verdict})
            </td>
            <td>
              {o.by}
              {o.by_verified ? ' (console user)' : ' (API key, unverified name)'}
            </td>
            <td>{o.reason}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function OverrideForm(props: { action: string; session: Session }) {
  return (
    <form class="stack" method="post" action={props.action}>
      <Csrf session={props.session} />
      <label for="override-verdict">Verdict decided</label>
      <select id="override-verdict" name="verdict">
        <option value="pass">pass</option>
        <option value="review">review</option>
        <option value="fail">fail</option>
      </select>
      <label for="override-reason">Reason</label>
      <textarea id="override-reason" name="reason" required maxlength={2000} rows={3} />
      <p class="muted">Recorded as decided by {props.session.user.email}.</p>
      <div>
        <button type="submit">Record override</button>
      </div>
    </form>
  )
}

function CheckPage(props: {
  account: Account
  p: PageInput
  session: Session
  nonce: string
  flash: string | null
}) {
  const { account, p } = props
  const d = p.doc
  const base = `/console/accounts/${account.id}/checks/${d.check_id}`
  const effective = p.overrides.at(-1)?.verdict ?? d.verdict
  const warnings = warningsOf(d)
  return (
    <Layout
      title={`Check ${d.check_id} · ${account.name}`}
      nonce={props.nonce}
      session={props.session}
      flash={props.flash}
      nav={accountNav(account.id)}
      current={`/console/accounts/${account.id}/checks`}
    >
      <h1>
        Effective verdict{' '}
        <span id="effective-verdict" class={`badge ${tone(effective)}`}>
          {effective.toUpperCase()}
        </span>
      </h1>
      {warnings.length ? (
        <p class="flash error" role="alert">
          Warning: {warnings.join('; ')}.
        </p>
      ) : null}
      <p>
        {effective === d.verdict && !p.overrides.length
          ? "The policy's verdict (no override)."
          : `Overridden; the policy's verdict was ${d.verdict.toUpperCase()}.`}{' '}
        <a id="report-pdf" href={`${base}/report.pdf`}>
          Download the PDF report
        </a>
      </p>
      <h2>{d.legal_name ?? `USDOT ${d.dot_number}`}</h2>
      <table>
        <tbody>
          <tr>
            <th scope="row">USDOT / MC</th>
            <td>
              {d.dot_number} / {d.record.mc_number ?? 'none'}
            </td>
          </tr>
          <tr>
            <th scope="row">Reference</th>
            <td>{d.request.reference ?? 'none given'}</td>
          </tr>
          <tr>
            <th scope="row">Checked at</th>
            <td>
              {dateInWords(d.created_at)}, {d.created_at.slice(11, 19)} UTC
            </td>
          </tr>
          <tr>
            <th scope="row">Run by</th>
            <td>{whoInWords(d)}</td>
          </tr>
          <tr>
            <th scope="row">Policy</th>
            <td>
              {d.policy.document.name} ({d.policy.id})
            </td>
          </tr>
          <tr>
            <th scope="row">Signing key fingerprint</th>
            <td>
              <code>{p.signature.fingerprint}</code>
            </td>
          </tr>
        </tbody>
      </table>
      <h2>Rules</h2>
      <Rules p={p} />
      <h2>Data sources</h2>
      <Sources p={p} />
      <h2>Overrides</h2>
      <Overrides p={p} />
      <h2>Override the verdict</h2>
      <OverrideForm action={`${base}/override`} session={props.session} />
    </Layout>
  )
}

/** The check page, its PDF and the override form's handler. */
export function checkRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  app.get('/accounts/:id/checks/:check', (c) => {
    const account = accountOf(c, deps)
    const p = checkEvidence(deps, account.id, checkIdOf(c.req.param('check')))
    return c.html(
      <CheckPage
        account={account}
        p={p}
        session={sessionOf(c)}
        nonce={c.get('nonce')}
        flash={c.get('flash')}
      />,
    )
  })
  app.get('/accounts/:id/checks/:check/report.pdf', (c) => {
    const account = accountOf(c, deps)
    const id = checkIdOf(c.req.param('check'))
    return c.body(new Uint8Array(checkReport(deps, account.id, id)), 200, {
      'content-type': 'application/pdf',
      'content-disposition': `attachment; filename="${id}.pdf"`,
    })
  })
  app.post('/accounts/:id/checks/:check/override', async (c) => {
    const account = accountOf(c, deps)
    const id = checkIdOf(c.req.param('check'))
    const session = sessionOf(c)
    const back = `/console/accounts/${account.id}/checks/${id}`
    const req = OverrideRequest.safeParse({
      by: session.user.email,
      reason: await field(c, 'reason'),
      verdict: await field(c, 'verdict'),
    })
    if (!req.success) {
      setFlash(deps.db, session.id, '!Give a reason and a verdict of pass, review or fail.')
      return c.redirect(back, 303)
    }
    const check = overrideCheck(
      deps,
      { accountId: account.id, consoleUser: session.user.email },
      id,
      req.data,
    )
    audit(c, deps, 'check.override', {
      accountId: account.id,
      target: `check:${id}`,
      detail: { verdict: req.data.verdict, original_verdict: check.verdict },
    })
    setFlash(deps.db, session.id, `Override recorded: ${req.data.verdict.toUpperCase()}.`)
    return c.redirect(back, 303)
  })
}
