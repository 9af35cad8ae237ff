/** An account's overview: this month's usage (live), the 80 % alert, overage, the daily chart, past months. */
import type { Hono } from 'hono'
import { periodOf } from '../clock.ts'
import type { Deps } from '../deps.ts'
import { hasAccess, limitsOf, type Account } from '../keys/accounts.ts'
import { PLAN_NAMES } from '../keys/plans.ts'
import { dailyUsage, usageMonths, usageReport, type UsageReportRow } from '../keys/usage.ts'
import { dailyChartSvg } from './chart.ts'
import type { ConsoleEnv } from './env.ts'
import { accountOf, type Ctx } from './guard.ts'
import { Csrf, Layout, num, usd, type NavItem } from './layout.tsx'
import type { Session } from '../users/sessions.ts'

export function accountNav(id: number): NavItem[] {
  const base = `/console/accounts/${id}`
  return [
    { href: base, label: 'Usage' },
    { href: `${base}/keys`, label: 'API keys' },
    { href: `${base}/webhooks`, label: 'Webhooks' },
    { href: `${base}/watchlist`, label: 'Watchlist' },
    { href: `${base}/mail`, label: 'E-mail' },
    { href: `${base}/checks`, label: 'Checks' },
    { href: `${base}/blocklist`, label: 'Blocked list' },
    { href: `${base}/onboarding`, label: 'Onboarding' },
    { href: `${base}/lookup`, label: 'Lookup tester' },
    { href: `${base}/equipment`, label: 'Equipment' },
  ]
}

/** Subscription state in words: active, canceled (until …), suspended, none. */
export function accountState(
  a: Account,
  now: number,
): { label: string; tone: 'ok' | 'warn' | 'bad' } {
  if (a.suspendedAt !== null) return { label: 'suspended', tone: 'bad' }
  const sub = a.subscription
  if (!sub || !hasAccess(sub, now)) return { label: 'no active subscription', tone: 'bad' }
  if (sub.status === 'canceled') return { label: 'canceled (runs to period end)', tone: 'warn' }
  return { label: 'active', tone: 'ok' }
}

export interface LiveUsage {
  period: string
  plan: string | null
  included: number | null
  used: number
  remaining: number | null
  percent: number
  alert_80: boolean
  exhausted: boolean
  hard_cap: boolean
  overage_calls: number
  overage_charge_usd: number
  refused_calls: number
  chart_svg: string
}

/** This month's usage of one account: what the page shows and the polling endpoint returns. */
export function liveUsage(deps: Deps, account: Account): LiveUsage {
  const period = periodOf(deps.clock())
  const row = usageReport(deps.db, period, account.id)[0] as UsageReportRow
  const hardCap = account.subscription ? limitsOf(account.subscription).hardCap : false
  const included = row.included
  return {
    period,
    plan: row.plan,
    included,
    used: row.used,
    remaining: included === null ? null : Math.max(0, included - row.used),
    percent: included ? Math.round((row.used / included) * 1000) / 10 : 0,
    alert_80:
      row.alerts.some((a) => a.kind === 'threshold_80') ||
      (included !== null && row.used * 5 >= included * 4 && included > 0),
    exhausted: hardCap && included !== null && row.used >= included,
    hard_cap: hardCap,
    overage_calls: row.overage_calls,
    overage_charge_usd: row.overage_charge_usd,
    refused_calls: row.refused_calls,
    chart_svg: dailyChartSvg(period, dailyUsage(deps.db, account.id, period)),
  }
}

const POLL_SCRIPT = `
(function(){
  var root=document.getElementById('live');if(!root)return;
  var url=root.getAttribute('data-src');
  function set(name,v){var el=root.querySelector('[data-f="'+name+'"]');if(el)el.textContent=v}
  function tick(){
    fetch(url,{credentials:'same-origin',headers:{accept:'application/json'}}).then(function(r){return r.ok?r.json():null}).then(function(u){
      if(!u)return;
      set('used',u.used.toLocaleString('en-US'));
      set('remaining',u.remaining===null?'—':u.remaining.toLocaleString('en-US'));
      set('percent',u.percent+' %');
      set('overage_calls',u.overage_calls.toLocaleString('en-US'));
      set('overage_charge',"$"+u.overage_charge_usd.toFixed(2));
      set('refused',u.refused_calls.toLocaleString('en-US'));
      var m=root.querySelector('meter');if(m){m.value=u.used}
      var a=root.querySelector('[data-f="alert"]');if(a){a.hidden=!u.alert_80}
      var c=document.getElementById('chart');if(c)c.innerHTML=u.chart_svg;
      root.setAttribute('data-updated',String(Date.now()));
    }).catch(function(){});
  }
  setInterval(tick,2000);
})();`

function UsagePanel(props: { u: LiveUsage; id: number; nonce: string }) {
  const { u } = props
  return (
    <section
      id="live"
      aria-labelledby="usage-h"
      data-src={`/console/accounts/${props.id}/usage.json`}
    >
      <h2 id="usage-h">Usage in {u.period} (UTC)</h2>
      <p class="muted">Updates every two seconds while this page is open.</p>
      <p data-f="alert" class="flash error" role="status" hidden={!u.alert_80}>
        80 % alert: this account has used at least 80 % of its monthly quota.
      </p>
      <div class="cards" aria-live="polite">
        <div class="card">
          <div class="label">Billed calls</div>
          <div class="value" data-f="used">
            {num(u.used)}
          </div>
        </div>
        <div class="card">
          <div class="label">Included in plan ({u.plan ?? '—'})</div>
          <div class="value">{num(u.included)}</div>
        </div>
        <div class="card">
          <div class="label">Remaining</div>
          <div class="value" data-f="remaining">
            {num(u.remaining)}
          </div>
        </div>
        <div class="card">
          <div class="label">Of the quota</div>
          <div class="value" data-f="percent">
            {u.percent} %
          </div>
        </div>
        <div class="card">
          <div class="label">Overage calls</div>
          <div class="value" data-f="overage_calls">
            {num(u.overage_calls)}
          </div>
        </div>
        <div class="card">
          <div class="label">Overage charge</div>
          <div class="value" data-f="overage_charge">
            {usd(u.overage_charge_usd)}
          </div>
        </div>
        <div class="card">
          <div class="label">Refused at the cap</div>
          <div class="value" data-f="refused">
            {num(u.refused_calls)}
          </div>
        </div>
      </div>
      <label for="quota-meter">Quota used</label>
      <meter
        id="quota-meter"
        min={0}
        max={u.included ?? 0}
        low={(u.included ?? 0) * 0.8}
        high={(u.included ?? 0) * 0.8}
        optimum={0}
        value={u.used}
      >
        {u.percent} %
      </meter>
      <h2>Billed calls per day</h2>
      <div id="chart" dangerouslySetInnerHTML={{ __html: u.chart_svg }} />
      <script nonce={props.nonce} dangerouslySetInnerHTML={{ __html: POLL_SCRIPT }} />
    </section>
  )
}

function AdminControls(props: { account: Account; session: Session }) {
  const a = props.account
  const base = `/console/accounts/${a.id}`
  return (
    <section aria-labelledby="admin-h">
      <h2 id="admin-h">Administration</h2>
      <form class="row" method="post" action={`${base}/plan`}>
        <Csrf session={props.session} />
        <div>
          <label for="plan">Plan</label>
          <br />
          <select id="plan" name="plan">
            {PLAN_NAMES.map((p) => (
              <option value={p} selected={a.subscription?.plan === p}>
                {p}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="interval">Billing</label>
          <br />
          <select id="interval" name="interval">
            <option value="monthly" selected={a.subscription?.interval !== 'yearly'}>
              monthly
            </option>
            <option value="yearly" selected={a.subscription?.interval === 'yearly'}>
              yearly
            </option>
          </select>
        </div>
        <button type="submit">Change plan</button>
      </form>
      {a.suspendedAt === null ? (
        <form class="row" method="post" action={`${base}/suspend`}>
          <Csrf session={props.session} />
          <div>
            <label for="reason">
              Reason <span class="hint">(optional)</span>
            </label>
            <br />
            <input id="reason" name="reason" maxlength={200} />
          </div>
          <button class="danger" type="submit">
            Suspend account
          </button>
        </form>
      ) : (
        <form class="row" method="post" action={`${base}/resume`}>
          <Csrf session={props.session} />
          <button type="submit">Resume account</button>
        </form>
      )}
    </section>
  )
}

export function accountRoutes(app: Hono<ConsoleEnv>, deps: Deps) {
  app.get('/accounts/:id', (c) => {
    const account = accountOf(c, deps)
    const session = c.get('session') as Session
    const now = deps.clock().getTime()
    const u = liveUsage(deps, account)
    const state = accountState(account, now)
    const past = usageMonths(deps.db, account.id)
      .filter((p) => p !== u.period)
      .slice(0, 24)
      .map((p) => usageReport(deps.db, p, account.id)[0] as UsageReportRow)
    return c.html(
      <Layout
        title={account.name}
        nonce={c.get('nonce')}
        session={session}
        flash={c.get('flash')}
        nav={accountNav(account.id)}
        current={`/console/accounts/${account.id}`}
      >
        <h1>
          {account.name} <span class="muted">· account {account.id}</span>
        </h1>
        <p>
          Plan <strong>{account.subscription?.plan ?? 'none'}</strong>
          {account.subscription ? ` (${account.subscription.interval})` : ''} · state{' '}
          <span class={`badge ${state.tone}`}>{state.label}</span>
          {account.suspendedReason ? ` — ${account.suspendedReason}` : ''}
        </p>
        <UsagePanel u={u} id={account.id} nonce={c.get('nonce')} />
        <h2>Past months</h2>
        {past.length === 0 ? (
          <p class="muted">No earlier months.</p>
        ) : (
          <table>
            <caption class="visually-hidden">Usage of past months</caption>
            <thead>
              <tr>
                <th scope="col">Month</th>
                <th scope="col">Plan</th>
                <th scope="col" class="num">
                  Billed calls
                </th>
                <th scope="col" class="num">
                  Overage calls
                </th>
                <th scope="col" class="num">
                  Overage charge
                </th>
                <th scope="col" class="num">
                  Refused
                </th>
              </tr>
            </thead>
            <tbody>
              {past.map((r) => (
                <tr>
                  <th scope="row">{r.period}</th>
                  <td>{r.plan ?? '—'}</td>
                  <td class="num">{num(r.used)}</td>
                  <td class="num">{num(r.overage_calls)}</td>
                  <td class="num">{usd(r.overage_charge_usd)}</td>
                  <td class="num">{num(r.refused_calls)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {session.user.role === 'admin' ? (
          <AdminControls account={account} session={session} />
        ) : null}
      </Layout>,
    )
  })

  app.get('/accounts/:id/usage.json', (c: Ctx) => c.json(liveUsage(deps, accountOf(c, deps))))
}
