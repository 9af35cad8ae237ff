/** An account's e-mail recipients and delivery log, and the List-Unsubscribe page (no session). */
import type { Hono } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Account } from '../keys/accounts.ts'
import { listMessages } from '../mail/queue.ts'
import {
  addRecipient,
  listRecipients,
  RECIPIENT_KINDS,
  removeRecipient,
  unsubscribe,
  type RecipientKind,
  isUnsubscribeToken,
} from '../mail/recipients.ts'
import { mailStatus, mailStatusLine } from '../mail/status.ts'
import { setFlash, type Session } from '../users/sessions.ts'
import { accountNav } from './account.tsx'
import type { ConsoleEnv } from './env.ts'
import { accountOf, audit, field, sessionOf, type Ctx } from './guard.ts'
import { Csrf, iso, Layout } from './layout.tsx'

const KIND_TEXT: Record<RecipientKind, string> = {
  quota: 'Quota alerts (80 % and 100 % of the month)',
  watchlist: 'Watchlist changes (a digest, at most one an hour)',
  verdicts: "Checks whose verdict a watched company's change would flip",
}

function RecipientsTable(props: {
  recipients: ReturnType<typeof listRecipients>
  base: string
  session: Session
}) {
  const { recipients, base, session } = props
  return recipients.length === 0 ? (
    <p class="muted">Nobody receives e-mail for this account.</p>
  ) : (
    <table>
      <thead>
        <tr>
          <th scope="col">Address</th>
          <th scope="col">Receives</th>
          <th scope="col">Since</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {recipients.map((r) => (
          <tr>
            <td>{r.email}</td>
            <td>{KIND_TEXT[r.kind]}</td>
            <td>{iso(r.createdAt)}</td>
            <td>
              <form class="inline" method="post" action={`${base}/remove`}>
                <Csrf session={session} />
                <input type="hidden" name="email" value={r.email} />
                <input type="hidden" name="kind" value={r.kind} />
                <button
                  type="submit"
                  class="danger"
                  aria-label={`Stop ${r.kind} e-mails to ${r.email}`}
                >
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

function MailPage(props: {
  deps: Deps
  account: Account
  session: Session
  nonce: string
  flash: string | null
}) {
  const { account, session, deps } = props
  const base = `/console/accounts/${account.id}/mail`
  const recipients = listRecipients(deps.db, account.id)
  const messages = listMessages(deps.db, { accountId: account.id, limit: 25 })
  const status = mailStatus(deps)
  return (
    <Layout
      title={`E-mail · ${account.name}`}
      nonce={props.nonce}
      session={session}
      flash={props.flash}
      nav={accountNav(account.id)}
      current={base}
    >
      <h1>E-mail of {account.name}</h1>
      <p class={status.configured ? 'muted' : 'flash'}>
        {session.user.role === 'admin'
          ? mailStatusLine(status)
          : status.configured
            ? 'E-mail is sent through the mail server this appliance is configured with.'
            : 'E-mail is not configured on this appliance yet (SMTP_URL); messages wait in the queue.'}
      </p>
      <h2>Add a recipient</h2>
      <form class="stack" method="post" action={base}>
        <Csrf session={session} />
        <label for="mail-email">E-mail address</label>
        <input id="mail-email" name="email" type="email" required size={40} />
        <fieldset>
          <legend>Sends</legend>
          {RECIPIENT_KINDS.map((k) => (
            <label>
              <input type="checkbox" name={`kind_${k}`} value="1" checked /> {KIND_TEXT[k]}
              <br />
            </label>
          ))}
        </fieldset>
        <div>
          <button type="submit">Add recipient</button>
        </div>
      </form>
      <h2>Recipients</h2>
      <RecipientsTable recipients={recipients} base={base} session={session} />
      <h2>Recent messages</h2>
      {messages.length === 0 ? (
        <p class="muted">No messages yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Kind</th>
              <th scope="col">To</th>
              <th scope="col">Subject</th>
              <th scope="col">State</th>
              <th scope="col" class="num">
                Attempts
              </th>
              <th scope="col">Last answer</th>
              <th scope="col">Next attempt</th>
            </tr>
          </thead>
          <tbody>
            {messages.map((m) => (
              <tr>
                <td>{iso(m.createdAt)}</td>
                <td>{m.kind}</td>
                <td>{m.to}</td>
                <td>{m.subject}</td>
                <td>
                  <span
                    class={`badge ${m.status === 'sent' ? 'ok' : m.status === 'abandoned' ? 'bad' : 'warn'}`}
                  >
                    {m.status}
                  </span>
                </td>
                <td class="num">{m.attempts}</td>
                <td>{m.lastError ?? m.lastResponse ?? '—'}</td>
                <td>
                  {m.status === 'failed' || m.status === 'pending' ? iso(m.nextAttemptAt) : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  )
}

function UnsubscribePage(props: { c: Ctx; token: string; done: string | null; unknown: boolean }) {
  return (
    <Layout title="Unsubscribe" nonce={props.c.get('nonce')} session={null}>
      <h1>Unsubscribe</h1>
      {props.unknown ? (
        <p>This link is not valid (any more).</p>
      ) : props.done ? (
        <p>{props.done}</p>
      ) : (
        <form method="post" action={`/console/unsubscribe/${props.token}`}>
          <p>Stop these e-mails?</p>
          <button type="submit">Unsubscribe</button>
        </form>
      )}
    </Layout>
  )
}

const TOKEN = /^[A-Za-z0-9_-]{20,40}$/

/**
 * The List-Unsubscribe link: GET shows a button (link scanners must not unsubscribe anyone), POST
 * (the button, or a mail client's RFC 8058 one-click POST) unsubscribes. The token is the secret;
 * no session. Registered before the console's session guard.
 */
export function unsubscribeRoutes(app: Hono<ConsoleEnv>, deps: Deps) {
  app.get('/unsubscribe/:token', (c) => {
    const token = c.req.param('token')
    const known = TOKEN.test(token) && isUnsubscribeToken(deps.db, token)
    if (!known) c.status(404)
    return c.html(<UnsubscribePage c={c} token={token} done={null} unknown={!known} />)
  })
  app.post('/unsubscribe/:token', (c) => {
    const token = c.req.param('token')
    const r = TOKEN.test(token) ? unsubscribe(deps.db, token, deps.clock().getTime()) : null
    if (!r) c.status(404)
    return c.html(
      <UnsubscribePage
        c={c}
        token={token}
        unknown={!r}
        done={r ? `${r.email} will receive no more ${r.what}.` : null}
      />,
    )
  })
}

export function mailRoutes(app: Hono<ConsoleEnv>, deps: Deps) {
  app.get('/accounts/:id/mail', (c) =>
    c.html(
      <MailPage
        deps={deps}
        account={accountOf(c, deps)}
        session={sessionOf(c)}
        nonce={c.get('nonce')}
        flash={c.get('flash')}
      />,
    ),
  )
  app.post('/accounts/:id/mail', async (c) => {
    const account = accountOf(c, deps)
    const email = await field(c, 'email')
    const kinds: RecipientKind[] = []
    for (const k of RECIPIENT_KINDS) if ((await field(c, `kind_${k}`)) === '1') kinds.push(k)
    const added = addRecipient(deps.db, account.id, email, kinds, deps.clock().getTime())
    audit(c, deps, 'mail.recipient.add', {
      accountId: account.id,
      target: `email:${added[0]?.email ?? email}`,
      detail: { kinds },
    })
    setFlash(deps.db, sessionOf(c).id, `${added[0]?.email ?? email} added.`)
    return c.redirect(`/console/accounts/${account.id}/mail`, 303)
  })
  app.post('/accounts/:id/mail/remove', async (c) => {
    const account = accountOf(c, deps)
    const email = await field(c, 'email')
    const kind = await field(c, 'kind')
    if (!(RECIPIENT_KINDS as readonly string[]).includes(kind))
      throw new AppError('invalid_request', 'Unknown kind')
    removeRecipient(deps.db, account.id, email, [kind as RecipientKind], deps.clock().getTime())
    audit(c, deps, 'mail.recipient.remove', {
      accountId: account.id,
      target: `email:${email}`,
      detail: { kind },
    })
    setFlash(deps.db, sessionOf(c).id, `${kind} e-mails to ${email} stopped.`)
    return c.redirect(`/console/accounts/${account.id}/mail`, 303)
  })
}
