/**
 * Spreadsheet onboarding: a member uploads a CSV or XLSX of USDOT or MC numbers, sees the preview
 * (the rows it cannot read and why), starts it, watches its progress and gets the results table
 * and a CSV. The list is checked by the onboarding job with the same domain functions as
 * POST /v1/onboarding, billed to the account like POST /v1/checks (live data, no API key).
 */
import type { Hono } from 'hono'
import type { Child } from 'hono/jsx'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import {
  createOnboarding,
  getOnboarding,
  listOnboardings,
  onboardingRows,
  resultsCsv,
  startOnboarding,
  type OnboardingJson,
  type OnboardingRow,
} from '../onboarding/onboarding.ts'
import { MAX_FILE_BYTES, MAX_ROWS, parseFile } from '../onboarding/parse.ts'
import { accountNav } from './account.tsx'
import type { ConsoleEnv } from './env.ts'
import { accountOf, audit, sessionOf, type Ctx } from './guard.ts'
import { Csrf, Layout, num } from './layout.tsx'

const tone = (v: string | null) => (v === 'pass' ? 'ok' : v === 'review' ? 'warn' : 'bad')

const PROGRESS_SCRIPT = `
(function(){
  var root=document.getElementById('progress');if(!root)return;
  var url=root.getAttribute('data-src');
  function set(name,v){var el=root.querySelector('[data-f="'+name+'"]');if(el)el.textContent=v}
  function tick(){
    fetch(url,{credentials:'same-origin',headers:{accept:'application/json'}}).then(function(r){return r.ok?r.json():null}).then(function(o){
      if(!o)return;
      var p=o.progress;var bar=root.querySelector('progress');if(bar){bar.max=p.total;bar.value=p.processed}
      set('processed',p.processed.toLocaleString('en-US'));set('pass',p.pass);set('review',p.review);set('fail',p.fail);set('not_found',p.not_found);
      set('status',o.status);
      if(o.status==='done'||o.status==='failed')location.reload();
    }).catch(function(){});
  }
  setInterval(tick,1000);
})();`

/** A member may see the page; its actions are the account's (a console user without one cannot). */
const starter = (c: Ctx, accountId: number) => ({
  accountId,
  apiKeyId: null,
  mode: 'live' as const,
  by: sessionOf(c).user.email,
})

function Rejected(props: { o: OnboardingJson }) {
  const { o } = props
  if (o.rejected.length === 0) return <p>Every row could be read.</p>
  return (
    <section aria-labelledby="rejected-h">
      <h2 id="rejected-h">
        {num(o.rejected.length)} row{o.rejected.length > 1 ? 's' : ''} cannot be read (left out)
      </h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">Value</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {o.rejected.slice(0, 500).map((r) => (
            <tr>
              <td>{r.row}</td>
              <td>
                <code>{r.input || '—'}</code>
              </td>
              <td>{r.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}

function Results(props: { accountId: number; rows: OnboardingRow[] }) {
  const checks = `/console/accounts/${props.accountId}/checks`
  return (
    <table aria-label="Results">
      <thead>
        <tr>
          <th scope="col">Row</th>
          <th scope="col">Company</th>
          <th scope="col">Reference</th>
          <th scope="col">Verdict</th>
          <th scope="col">Reasons</th>
          <th scope="col">Check</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((r) => (
          <tr>
            <td>{r.row}</td>
            <td>{r.kind === 'dot' ? `USDOT ${r.input}` : r.input}</td>
            <td>{r.reference ?? '—'}</td>
            <td>
              {r.verdict ? (
                <span class={`badge ${tone(r.verdict)}`}>{r.verdict}</span>
              ) : (
                <span class="muted">{r.status.replace('_', ' ')}</span>
              )}
            </td>
            <td>{r.message ?? (r.reasons.length ? r.reasons.join('; ') : r.verdict ? '—' : '')}</td>
            <td>
              {r.check_id ? (
                <a href={`${checks}?dot=${r.kind === 'dot' ? r.input : ''}#${r.check_id}`}>
                  <code>{r.check_id}</code>
                </a>
              ) : (
                '—'
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

const page = (c: Ctx, title: string, accountId: number, body: Child) =>
  c.html(
    <Layout
      title={title}
      nonce={c.get('nonce')}
      session={sessionOf(c)}
      flash={c.get('flash')}
      nav={accountNav(accountId)}
      current={`/console/accounts/${accountId}/onboarding`}
    >
      {body}
    </Layout>,
  )

export function onboardingRoutes(app: Hono<ConsoleEnv>, deps: Deps) {
  app.get('/accounts/:id/onboarding', (c) => onboardingsPage(c, deps))
  app.post('/accounts/:id/onboarding', (c) => uploadForm(c, deps))
  app.post('/accounts/:id/onboarding/:oid/start', (c) => startForm(c, deps, c.req.param('oid')))
  app.get('/accounts/:id/onboarding/:oid/progress.json', (c) =>
    progressJson(c, deps, c.req.param('oid')),
  )
  app.get('/accounts/:id/onboarding/:oid/results.csv', (c) =>
    resultsCsvDownload(c, deps, c.req.param('oid')),
  )
  app.get('/accounts/:id/onboarding/:oid', (c) => onboardingPage(c, deps, c.req.param('oid')))
}

function onboardingsPage(c: Ctx, deps: Deps) {
  const account = accountOf(c, deps)
  const base = `/console/accounts/${account.id}/onboarding`
  const past = listOnboardings(deps, account.id)
  return page(
    c,
    `Onboarding · ${account.name}`,
    account.id,
    <>
      <h1>Onboard carriers from a spreadsheet</h1>
      <p class="muted">
        A CSV or XLSX with one company a row: a column <code>dot</code> (USDOT number) or{' '}
        <code>mc</code> (MC/FF/MX docket), and optionally <code>reference</code>. Without a header,
        column A is the number and column B the reference. Up to {num(MAX_ROWS)} rows,{' '}
        {num(MAX_FILE_BYTES / 1024 / 1024)} MB; formulas and macros are refused. Each company found
        is checked against your policy and billed as one call, like <code>POST /v1/checks</code>.
      </p>
      <form method="post" action={base} enctype="multipart/form-data" class="row">
        <Csrf session={sessionOf(c)} />
        <div>
          <label for="onb-file">Spreadsheet (CSV or XLSX)</label>
          <br />
          <input id="onb-file" name="file" type="file" accept=".csv,.xlsx,text/csv" required />
        </div>
        <button type="submit">Upload and preview</button>
      </form>
      {past.length ? (
        <section aria-labelledby="past-h">
          <h2 id="past-h">Recent onboardings</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Created (UTC)</th>
                <th scope="col">File</th>
                <th scope="col">Rows</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {past.map((o) => (
                <tr>
                  <td>{o.created_at.replace('T', ' ').slice(0, 19)}</td>
                  <td>
                    <a href={`${base}/${o.id}`}>{o.file_name ?? o.id}</a>
                  </td>
                  <td>{num(o.rows)}</td>
                  <td>{o.status}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
    </>,
  )
}

async function uploadForm(c: Ctx, deps: Deps) {
  const account = accountOf(c, deps)
  const body = await c.req.parseBody()
  const file = body.file
  if (!(file instanceof File) || file.size === 0)
    throw new AppError('invalid_request', 'Choose a CSV or XLSX file to upload')
  const list = await parseFile(file.name, new Uint8Array(await file.arrayBuffer()))
  const o = createOnboarding(deps, starter(c, account.id), list, {
    fileName: file.name.slice(0, 200),
    start: false,
  })
  audit(c, deps, 'onboarding.upload', {
    accountId: account.id,
    target: o.id,
    detail: { file: o.file_name, rows: o.rows, rejected: o.rejected.length },
  })
  return c.redirect(`/console/accounts/${account.id}/onboarding/${o.id}`, 303)
}

function startForm(c: Ctx, deps: Deps, oid: string) {
  const account = accountOf(c, deps)
  const o = startOnboarding(deps, account.id, oid)
  audit(c, deps, 'onboarding.start', { accountId: account.id, target: o.id })
  return c.redirect(`/console/accounts/${account.id}/onboarding/${o.id}`, 303)
}

function progressJson(c: Ctx, deps: Deps, oid: string) {
  const account = accountOf(c, deps)
  return c.json(getOnboarding(deps, account.id, oid))
}

function resultsCsvDownload(c: Ctx, deps: Deps, oid: string) {
  const account = accountOf(c, deps)
  const id = oid
  const csv = resultsCsv(deps, account.id, id)
  return c.body(csv, 200, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="onboarding-${id}.csv"`,
  })
}

function onboardingPage(c: Ctx, deps: Deps, oid: string) {
  const account = accountOf(c, deps)
  const o = getOnboarding(deps, account.id, oid)
  const base = `/console/accounts/${account.id}/onboarding/${o.id}`
  const p = o.progress
  const title = o.file_name ?? o.id
  if (o.status === 'draft') {
    const rows = onboardingRows(deps, account.id, o.id)
    return page(
      c,
      `Preview · ${title}`,
      account.id,
      <>
        <h1>Preview of {title}</h1>
        <p>
          <strong>{num(o.rows)}</strong> compan{o.rows === 1 ? 'y' : 'ies'} can be checked
          {o.rows > 0 ? ` (at most ${num(o.rows)} billed calls: one per company found)` : ''}.
        </p>
        <Rejected o={o} />
        {o.rows > 0 ? (
          <form method="post" action={`${base}/start`}>
            <Csrf session={sessionOf(c)} />
            <button type="submit">Start onboarding</button>
          </form>
        ) : (
          <p>Nothing to check: correct the file and upload it again.</p>
        )}
        <h2>First rows</h2>
        <Results accountId={account.id} rows={rows.slice(0, 20)} />
      </>,
    )
  }
  if (o.status === 'queued' || o.status === 'running')
    return page(
      c,
      `Onboarding · ${title}`,
      account.id,
      <>
        <h1>Onboarding {title}</h1>
        <section id="progress" data-src={`${base}/progress.json`} aria-live="polite">
          <p>
            Status <strong data-f="status">{o.status}</strong>:{' '}
            <span data-f="processed">{num(p.processed)}</span> of {num(p.total)} checked
          </p>
          <progress max={p.total} value={p.processed} aria-label="Onboarding progress" />
          <p class="muted">
            pass <span data-f="pass">{p.pass}</span> · review{' '}
            <span data-f="review">{p.review}</span> · fail <span data-f="fail">{p.fail}</span> · not
            found <span data-f="not_found">{p.not_found}</span>
          </p>
        </section>
        <script nonce={c.get('nonce')} dangerouslySetInnerHTML={{ __html: PROGRESS_SCRIPT }} />
      </>,
    )
  const rows = onboardingRows(deps, account.id, o.id)
  return page(
    c,
    `Results · ${title}`,
    account.id,
    <>
      <h1>Results of {title}</h1>
      {o.error ? (
        <p class="flash error" role="alert">
          {o.error}
        </p>
      ) : null}
      <p>
        {num(p.processed)} of {num(p.total)} processed:{' '}
        <span class="badge ok">pass {num(p.pass)}</span>{' '}
        <span class="badge warn">review {num(p.review)}</span>{' '}
        <span class="badge bad">fail {num(p.fail)}</span> · not found {num(p.not_found)} · errors{' '}
        {num(p.errors)} · rejected {num(o.rejected.length)}
      </p>
      <p>
        <a href={`${base}/results.csv`} download>
          Download results (CSV)
        </a>
      </p>
      <Results accountId={account.id} rows={rows} />
      <Rejected o={o} />
    </>,
  )
}
