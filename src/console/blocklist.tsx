/** An account's blocked list: identifiers it has been burned by, with the reason and who added them. */
import type { Hono } from 'hono'
import {
  addEntry,
  BLOCKLIST_TYPES,
  listEntries,
  parseBlocklistInput,
  removeEntry,
} from '../blocklist/blocklist.ts'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Account } from '../keys/accounts.ts'
import { setFlash, type Session } from '../users/sessions.ts'
import { accountNav } from './account.tsx'
import type { ConsoleEnv } from './env.ts'
import { accountOf, audit, field, sessionOf } from './guard.ts'
import { Csrf, Layout } from './layout.tsx'

const TYPE_LABELS: Record<(typeof BLOCKLIST_TYPES)[number], string> = {
  usdot: 'USDOT number',
  mc: 'MC/FF/MX docket',
  phone: 'Phone',
  email: 'E-mail',
  vin: 'VIN',
  officer: 'Officer name',
  address: 'Address',
}

function BlocklistPage(props: {
  deps: Deps
  account: Account
  session: Session
  nonce: string
  flash: string | null
}) {
  const { account, session, deps } = props
  const base = `/console/accounts/${account.id}/blocklist`
  const entries = listEntries(deps.db, account.id)
  return (
    <Layout
      title={`Blocked list · ${account.name}`}
      nonce={props.nonce}
      session={session}
      flash={props.flash}
      nav={accountNav(account.id)}
      current={base}
    >
      <h1>Blocked list of {account.name}</h1>
      <p class="muted">
        Identifiers this account has been burned by. Values are stored normalised (a phone in E.164,
        an e-mail in lower case), so a check matches them however they were written.
      </p>
      <form class="stack" method="post" action={base}>
        <Csrf session={session} />
        <label for="type">Type</label>
        <select id="type" name="type" required>
          {BLOCKLIST_TYPES.map((t) => (
            <option value={t}>{TYPE_LABELS[t]}</option>
          ))}
        </select>
        <label for="value">Value</label>
        <input id="value" name="value" required maxlength={300} />
        <label for="reason">Reason</label>
        <input id="reason" name="reason" required maxlength={1000} />
        <div>
          <button type="submit">Add to blocked list</button>
        </div>
      </form>
      <h2>Entries ({entries.length})</h2>
      {entries.length === 0 ? (
        <p class="muted">Nothing blocked.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Value</th>
              <th scope="col">Reason</th>
              <th scope="col">Added</th>
              <th scope="col">By</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr>
                <td>{TYPE_LABELS[e.type]}</td>
                <td>
                  <code>{e.value}</code>
                </td>
                <td>{e.reason}</td>
                <td>{e.created_at.slice(0, 16).replace('T', ' ')}</td>
                <td>{e.created_by}</td>
                <td>
                  <form class="inline" method="post" action={`${base}/remove`}>
                    <Csrf session={session} />
                    <input type="hidden" name="id" value={e.id} />
                    <button type="submit" class="danger" aria-label={`Remove ${e.value}`}>
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

export function blocklistRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  app.get('/accounts/:id/blocklist', (c) =>
    c.html(
      <BlocklistPage
        deps={deps}
        account={accountOf(c, deps)}
        session={sessionOf(c)}
        nonce={c.get('nonce')}
        flash={c.get('flash')}
      />,
    ),
  )
  app.post('/accounts/:id/blocklist', async (c) => {
    const account = accountOf(c, deps)
    const input = parseBlocklistInput({
      type: await field(c, 'type'),
      value: await field(c, 'value'),
      reason: await field(c, 'reason'),
    })
    const session = sessionOf(c)
    const entry = addEntry(
      deps.db,
      account.id,
      input,
      `user:${session.user.email}`,
      deps.clock().getTime(),
    )
    audit(c, deps, 'blocklist.add', {
      accountId: account.id,
      target: `blocklist:${entry.id}`,
      detail: { type: entry.type, value: entry.value },
    })
    setFlash(deps.db, session.id, `${TYPE_LABELS[entry.type]} ${entry.value} added.`)
    return c.redirect(`/console/accounts/${account.id}/blocklist`, 303)
  })
  app.post('/accounts/:id/blocklist/remove', async (c) => {
    const account = accountOf(c, deps)
    const id = Number(await field(c, 'id'))
    if (!Number.isSafeInteger(id) || id <= 0 || !removeEntry(deps.db, account.id, id))
      throw new AppError('not_found', 'No such blocked-list entry')
    audit(c, deps, 'blocklist.remove', { accountId: account.id, target: `blocklist:${id}` })
    setFlash(deps.db, sessionOf(c).id, 'Entry removed.')
    return c.redirect(`/console/accounts/${account.id}/blocklist`, 303)
  })
}
