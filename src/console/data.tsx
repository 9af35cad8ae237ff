/**
 * The data mirror for admins: per dataset its version, rows, as-of, last attempt and error, the
 * sync history, and a button that starts a sync in this server (progress polled as JSON).
 */
import type { Hono } from 'hono'
import type { Deps } from '../deps.ts'
import { recentRuns } from '../db/versions.ts'
import { AppError } from '../errors.ts'
import { isUnreachable } from '../sync/offline.ts'
import { syncOverview } from '../sync/status.ts'
import { syncAll, type SyncProgress } from '../sync/sync.ts'
import { setFlash } from '../users/sessions.ts'
import { watchOnActivation } from '../webhooks/monitor.ts'
import type { ConsoleEnv } from './env.ts'
import { audit, requireAdmin, sessionOf, type Ctx } from './guard.ts'
import { Csrf, Layout, num } from './layout.tsx'

/** The sync this server started from the console (one at a time). */
export interface ConsoleSync {
  running: boolean
  startedAt: number | null
  finishedAt: number | null
  startedBy: string | null
  progress: SyncProgress | null
  results: { dataset: string; status: string; error: string | null }[]
}

const PROGRESS_SCRIPT = `
(function(){
  var box=document.getElementById('sync-progress');if(!box)return;
  function tick(){
    fetch('/console/admin/data/progress.json',{credentials:'same-origin'}).then(function(r){return r.ok?r.json():null}).then(function(s){
      if(!s)return;
      var p=s.progress, t;
      if(s.running){t='Sync running'+(p?': '+p.dataset+' '+p.phase+' '+p.file+' '+(p.phase==='download'?Math.round(p.bytes/1048576)+' MiB'+(p.total?' of '+Math.round(p.total/1048576)+' MiB':''):p.rows+' rows'):'')}
      else if(s.finishedAt){t='Last console sync finished: '+s.results.map(function(r){return r.dataset+' '+r.status+(r.error?' ('+r.error+')':'')}).join(', ')}
      else t='No sync started from the console since the server started.';
      box.textContent=t;
      if(!s.running&&box.getAttribute('data-running')==='true'){location.reload()}
      box.setAttribute('data-running',String(s.running));
    }).catch(function(){});
  }
  tick();setInterval(tick,2000);
})();`

export function dataRoutes(app: Hono<ConsoleEnv>, deps: Deps) {
  const state: ConsoleSync = {
    running: false,
    startedAt: null,
    finishedAt: null,
    startedBy: null,
    progress: null,
    results: [],
  }
  app.get('/admin/data', (c) => dataPage(c, deps, state))
  app.get('/admin/data/progress.json', (c) => progressJson(c, deps, state))
  app.post('/admin/data/sync', (c) => startSync(c, deps, state))
}

function dataPage(c: Ctx, deps: Deps, state: ConsoleSync) {
  const session = requireAdmin(c)
  const overview = syncOverview(deps)
  const status = overview.datasets
  const history = recentRuns(deps.db, 40)
  const t = (ms: number | null) =>
    ms === null ? '—' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19)
  return c.html(
    <Layout title="Data mirror" nonce={c.get('nonce')} session={session} flash={c.get('flash')}>
      <h1>Data mirror</h1>
      {overview.regulator.sentence ? (
        <p class="flash error" role="status" id="regulator-offline">
          {overview.regulator.sentence}
        </p>
      ) : null}
      <table>
        <caption class="visually-hidden">Datasets</caption>
        <thead>
          <tr>
            <th scope="col">Dataset</th>
            <th scope="col">Version</th>
            <th scope="col" class="num">
              Rows
            </th>
            <th scope="col">As of</th>
            <th scope="col">Last attempt</th>
            <th scope="col">Last error</th>
            <th scope="col">Schedule (UTC)</th>
          </tr>
        </thead>
        <tbody>
          {status.map((d) => (
            <tr>
              <th scope="row">
                {d.dataset}
                <br />
                <span class="muted">{d.title}</span>
              </th>
              <td>
                {d.active
                  ? `#${d.active.version}`
                  : d.sample
                    ? `sample #${d.sample.version}`
                    : 'none'}
              </td>
              <td class="num">{num(d.active?.rows ?? d.sample?.rows ?? null)}</td>
              <td>{d.active?.as_of ?? d.sample?.as_of ?? '—'}</td>
              <td>
                {d.running ? (
                  <span class="badge warn">running</span>
                ) : d.last_run ? (
                  `${d.last_run.status}, ${d.last_run.started_at.replace('T', ' ').slice(0, 19)}`
                ) : (
                  '—'
                )}
              </td>
              <td>
                {d.last_error ? (
                  isUnreachable(d.last_error.message) ? (
                    <span class="badge bad" title={d.last_error.message}>
                      the portal cannot be reached
                    </span>
                  ) : (
                    <span class="badge bad">{d.last_error.message}</span>
                  )
                ) : (
                  '—'
                )}
              </td>
              <td>{d.cron ?? 'sync disabled'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Sync now</h2>
      <p id="sync-progress" role="status" aria-live="polite" data-running={String(state.running)}>
        {state.running ? 'Sync running…' : 'No sync running from the console.'}
      </p>
      <form method="post" action="/console/admin/data/sync">
        <Csrf session={session} />
        <button type="submit" disabled={state.running}>
          Start a sync of every dataset
        </button>
      </form>
      <script nonce={c.get('nonce')} dangerouslySetInnerHTML={{ __html: PROGRESS_SCRIPT }} />
      <h2>Sync history</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Dataset</th>
            <th scope="col">Trigger</th>
            <th scope="col">Result</th>
            <th scope="col">Started (UTC)</th>
            <th scope="col">Finished (UTC)</th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>
          {history.map((r) => (
            <tr>
              <td>{r.id}</td>
              <td>{r.dataset}</td>
              <td>{r.trigger}</td>
              <td>{r.status}</td>
              <td>{t(r.startedAt)}</td>
              <td>{t(r.finishedAt)}</td>
              <td>{r.error ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>,
  )
}

function progressJson(c: Ctx, deps: Deps, state: ConsoleSync) {
  requireAdmin(c)
  return c.json(state)
}

function startSync(c: Ctx, deps: Deps, state: ConsoleSync) {
  const session = requireAdmin(c)
  if (state.running)
    throw new AppError('conflict', 'A sync started from the console is still running')
  Object.assign(state, {
    running: true,
    startedAt: deps.clock().getTime(),
    finishedAt: null,
    startedBy: session.user.email,
    progress: null,
    results: [],
  })
  audit(c, deps, 'sync.start')
  // runs in the background of this server; the dataset leases stop a second sync of a dataset
  void syncAll(
    { ...deps, onActivated: watchOnActivation(deps) },
    {
      signal: AbortSignal.timeout(6 * 3_600_000),
      trigger: 'console',
      onProgress: (p) => (state.progress = p),
    },
  )
    .then(
      (results) =>
        (state.results = results.map((r) => ({
          dataset: r.dataset,
          status: r.status,
          error: r.error,
        }))),
      (err: unknown) =>
        (state.results = [
          {
            dataset: 'all',
            status: 'failed',
            error: err instanceof Error ? err.message : String(err),
          },
        ]),
    )
    .finally(() =>
      Object.assign(state, {
        running: false,
        finishedAt: deps.clock().getTime(),
        progress: null,
      }),
    )
  setFlash(deps.db, sessionOf(c).id, 'Sync started.')
  return c.redirect('/console/admin/data', 303)
}
