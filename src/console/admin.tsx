/** Admin pages: every account (plan, state, usage), create account, plan/suspend/resume, users, audit. */
import type { Hono } from 'hono'
import { periodOf } from '../clock.ts'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import {
  createAccount,
  listAccounts,
  resumeAccount,
  setPlan,
  suspendAccount,
  type Interval,
} from '../keys/accounts.ts'
import { isPlanName, PLAN_NAMES } from '../keys/plans.ts'
import { usageReport } from '../keys/usage.ts'
import { listAudit } from '../users/audit.ts'
import { setFlash } from '../users/sessions.ts'
import {
  createPasswordToken,
  createUser,
  listUsers,
  mustGetUser,
  ROLES,
  setUserDisabled,
  type Role,
} from '../users/users.ts'
import { accountState } from './account.tsx'
import type { ConsoleEnv } from './env.ts'
import { accountOf, audit, field, requireAdmin, sessionOf, type Ctx } from './guard.ts'
import { Csrf, iso, Layout, num, usd } from './layout.tsx'

const interval = (v: string): Interval => (v === 'yearly' ? 'yearly' : 'monthly')
const flash = (c: Ctx, deps: Deps, m: string) => setFlash(deps.db, sessionOf(c).id, m)

export function adminRoutes(app: Hono<ConsoleEnv>, deps: Deps) {
  app.get('/admin', (c) => accountsPage(c, deps))
  app.post('/admin/accounts', (c) => createAccountForm(c, deps))
  app.post('/accounts/:id/plan', (c) => setPlanForm(c, deps))
  app.post('/accounts/:id/suspend', (c) => suspendForm(c, deps))
  app.post('/accounts/:id/resume', (c) => resumeForm(c, deps))
  app.get('/admin/users', (c) => usersPage(c, deps))
  app.post('/admin/users', (c) => createUserForm(c, deps))
  app.post('/admin/users/:uid/:verb{disable|enable}', (c) => disableUserForm(c, deps))
  app.get('/admin/audit', (c) => auditPage(c, deps))
}

function accountsPage(c: Ctx, deps: Deps) {
  const session = requireAdmin(c)
  const now = deps.clock().getTime()
  const accounts = listAccounts(deps.db)
  const usage = new Map(usageReport(deps.db, periodOf(deps.clock())).map((r) => [r.account_id, r]))
  return c.html(
    <Layout title="Accounts" nonce={c.get('nonce')} session={session} flash={c.get('flash')}>
      <h1>Accounts</h1>
      <table>
        <caption class="visually-hidden">
          Every account with plan, state and this month's usage
        </caption>
        <thead>
          <tr>
            <th scope="col">Account</th>
            <th scope="col">Plan</th>
            <th scope="col">State</th>
            <th scope="col" class="num">
              Used this month
            </th>
            <th scope="col" class="num">
              Included
            </th>
            <th scope="col" class="num">
              Overage charge
            </th>
          </tr>
        </thead>
        <tbody>
          {accounts.map((a) => {
            const u = usage.get(a.id)
            const st = accountState(a, now)
            return (
              <tr>
                <th scope="row">
                  <a href={`/console/accounts/${a.id}`}>{a.name}</a>{' '}
                  <span class="muted">#{a.id}</span>
                </th>
                <td>
                  {a.subscription ? `${a.subscription.plan} (${a.subscription.interval})` : '—'}
                </td>
                <td>
                  <span class={`badge ${st.tone}`}>{st.label}</span>
                </td>
                <td class="num">{num(u?.used ?? 0)}</td>
                <td class="num">{num(u?.included)}</td>
                <td class="num">{usd(u?.overage_charge_usd ?? 0)}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
      <h2>Create an account</h2>
      <form class="row" method="post" action="/console/admin/accounts">
        <Csrf session={session} />
        <div>
          <label for="acct-name">Name</label>
          <br />
          <input id="acct-name" name="name" required maxlength={200} />
        </div>
        <div>
          <label for="acct-email">
            Billing e-mail <span class="hint">(optional)</span>
          </label>
          <br />
          <input id="acct-email" name="email" type="email" />
        </div>
        <div>
          <label for="acct-plan">Plan</label>
          <br />
          <select id="acct-plan" name="plan">
            {PLAN_NAMES.map((p) => (
              <option value={p} selected={p === 'starter'}>
                {p}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="acct-interval">Billing</label>
          <br />
          <select id="acct-interval" name="interval">
            <option value="monthly">monthly</option>
            <option value="yearly">yearly</option>
          </select>
        </div>
        <button type="submit">Create account</button>
      </form>
    </Layout>,
  )
}

async function createAccountForm(c: Ctx, deps: Deps) {
  requireAdmin(c)
  const name = await field(c, 'name')
  const plan = await field(c, 'plan')
  if (!name || name.length > 200)
    throw new AppError('invalid_request', 'An account needs a name (at most 200 characters)')
  if (!isPlanName(plan)) throw new AppError('invalid_request', `Unknown plan ${plan}`)
  const email = (await field(c, 'email')) || null
  const a = createAccount(
    deps.db,
    {
      name,
      email,
      plan,
      interval: plan === 'free' ? 'none' : interval(await field(c, 'interval')),
    },
    deps.clock().getTime(),
  )
  audit(c, deps, 'account.create', {
    accountId: a.id,
    target: `account:${a.id}`,
    detail: { name, plan },
  })
  flash(c, deps, `Account ${a.name} created.`)
  return c.redirect(`/console/accounts/${a.id}`, 303)
}

async function setPlanForm(c: Ctx, deps: Deps) {
  requireAdmin(c)
  const a = accountOf(c, deps)
  const plan = await field(c, 'plan')
  if (!isPlanName(plan)) throw new AppError('invalid_request', `Unknown plan ${plan}`)
  const updated = setPlan(
    deps.db,
    a.id,
    plan,
    plan === 'free' ? 'none' : interval(await field(c, 'interval')),
    deps.clock().getTime(),
  )
  audit(c, deps, 'account.set_plan', {
    accountId: a.id,
    target: `account:${a.id}`,
    detail: { from: a.subscription?.plan ?? null, to: plan },
  })
  flash(c, deps, `Plan changed to ${updated.subscription?.plan ?? plan}.`)
  return c.redirect(`/console/accounts/${a.id}`, 303)
}

async function suspendForm(c: Ctx, deps: Deps) {
  requireAdmin(c)
  const a = accountOf(c, deps)
  const reason = (await field(c, 'reason')).slice(0, 200) || null
  suspendAccount(deps.db, a.id, reason, deps.clock().getTime())
  audit(c, deps, 'account.suspend', {
    accountId: a.id,
    target: `account:${a.id}`,
    detail: { reason },
  })
  flash(c, deps, 'Account suspended: its keys answer 402 until it is resumed.')
  return c.redirect(`/console/accounts/${a.id}`, 303)
}

function resumeForm(c: Ctx, deps: Deps) {
  requireAdmin(c)
  const a = accountOf(c, deps)
  resumeAccount(deps.db, a.id)
  audit(c, deps, 'account.resume', { accountId: a.id, target: `account:${a.id}` })
  flash(c, deps, 'Account resumed.')
  return c.redirect(`/console/accounts/${a.id}`, 303)
}

async function createUserForm(c: Ctx, deps: Deps) {
  requireAdmin(c)
  const role = await field(c, 'role')
  if (!(ROLES as readonly string[]).includes(role))
    throw new AppError('invalid_request', 'Role must be admin or member')
  const acct = await field(c, 'account')
  const now = deps.clock().getTime()
  const user = createUser(
    deps.db,
    {
      email: await field(c, 'email'),
      role: role as Role,
      accountId: role === 'member' && acct ? Number(acct) : null,
    },
    now,
  )
  const url = `${deps.config.publicUrl.replace(/\/$/, '')}/console/set-password/${createPasswordToken(deps.db, user.id, now)}`
  audit(c, deps, 'user.create', {
    accountId: user.accountId,
    target: `user:${user.id}`,
    detail: { email: user.email, role: user.role },
  })
  return usersPage(c, deps, { email: user.email, url })
}

function disableUserForm(c: Ctx, deps: Deps) {
  const session = requireAdmin(c)
  const id = Number(c.req.param('uid'))
  const verb = c.req.param('verb')
  const u = mustGetUser(deps.db, Number.isSafeInteger(id) ? id : 0)
  if (u.id === session.user.id) throw new AppError('invalid_request', 'You cannot disable yourself')
  setUserDisabled(deps.db, u.id, verb === 'disable', deps.clock().getTime())
  audit(c, deps, `user.${verb}`, {
    accountId: u.accountId,
    target: `user:${u.id}`,
    detail: { email: u.email },
  })
  flash(c, deps, `${u.email} ${verb}d.`)
  return c.redirect('/console/admin/users', 303)
}

function auditPage(c: Ctx, deps: Deps) {
  const session = requireAdmin(c)
  const rows = listAudit(deps.db, { limit: 300 })
  return c.html(
    <Layout title="Audit log" nonce={c.get('nonce')} session={session} flash={c.get('flash')}>
      <h1>Audit log</h1>
      <p class="muted">
        The newest 300 entries; all of them with <code>carrier-verify audit --json</code>.
      </p>
      <div class="scroll">
        <table class="audit">
          <thead>
            <tr>
              <th scope="col">When (UTC)</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Account</th>
              <th scope="col">Target</th>
              <th scope="col">Address</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr>
                <td>{r.at.replace('T', ' ').slice(0, 19)}</td>
                <td>{r.actor}</td>
                <td>{r.action}</td>
                <td>{r.account_id ?? '—'}</td>
                <td>{r.target ?? '—'}</td>
                <td>{r.address ?? '—'}</td>
                <td>
                  <code class="detail">{r.detail ? JSON.stringify(r.detail) : ''}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Layout>,
  )
}

function usersPage(c: Ctx, deps: Deps, link: { email: string; url: string } | null = null) {
  const session = requireAdmin(c)
  const users = listUsers(deps.db)
  const accounts = listAccounts(deps.db)
  return c.html(
    <Layout title="Console users" nonce={c.get('nonce')} session={session} flash={c.get('flash')}>
      <h1>Console users</h1>
      {link ? (
        <div class="secret" role="alert">
          <p>
            <strong>User {link.email} created.</strong> Send this one-time link (valid 3 days) to
            set the password:
          </p>
          <p>
            <code>{link.url}</code>
          </p>
        </div>
      ) : null}
      <table>
        <thead>
          <tr>
            <th scope="col">E-mail</th>
            <th scope="col">Role</th>
            <th scope="col">Account</th>
            <th scope="col">Password</th>
            <th scope="col">Last sign-in</th>
            <th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {users.map((u) => (
            <tr>
              <td>{u.email}</td>
              <td>{u.role}</td>
              <td>
                {u.accountId === null ? (
                  'all'
                ) : (
                  <a href={`/console/accounts/${u.accountId}`}>#{u.accountId}</a>
                )}
              </td>
              <td>{u.hasPassword ? 'set' : 'link pending'}</td>
              <td>{iso(u.lastSignInAt)}</td>
              <td>
                {u.disabledAt === null ? (
                  <span class="badge ok">active</span>
                ) : (
                  <span class="badge bad">disabled</span>
                )}
              </td>
              <td>
                {u.id !== session.user.id ? (
                  <form
                    class="inline"
                    method="post"
                    action={`/console/admin/users/${u.id}/${u.disabledAt === null ? 'disable' : 'enable'}`}
                  >
                    <Csrf session={session} />
                    <button type="submit" class={u.disabledAt === null ? 'danger' : 'secondary'}>
                      {u.disabledAt === null ? 'Disable' : 'Enable'}
                    </button>
                  </form>
                ) : (
                  <span class="muted">you</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Add a user</h2>
      <form class="row" method="post" action="/console/admin/users">
        <Csrf session={session} />
        <div>
          <label for="u-email">E-mail</label>
          <br />
          <input id="u-email" name="email" type="email" required />
        </div>
        <div>
          <label for="u-role">Role</label>
          <br />
          <select id="u-role" name="role">
            {ROLES.map((r) => (
              <option value={r} selected={r === 'member'}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="u-account">
            Account <span class="hint">(members)</span>
          </label>
          <br />
          <select id="u-account" name="account">
            <option value="">—</option>
            {accounts.map((a) => (
              <option value={String(a.id)}>
                #{a.id} {a.name}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Add user</button>
      </form>
    </Layout>,
  )
}
