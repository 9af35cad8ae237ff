/** The console's page frame: header, navigation, flash message, inline styles (no external assets). */
import type { Child } from 'hono/jsx'
import type { Session } from '../users/sessions.ts'

const CSS = `
:root{--fg:#1b1f24;--muted:#4a5563;--bg:#fff;--line:#c9d1d9;--accent:#0b5cad;--ok:#1a6e34;--warn:#8a5200;--bad:#b3261e;--panel:#f4f6f8}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
a:focus,button:focus,input:focus,select:focus,textarea:focus{outline:3px solid #f2a900;outline-offset:2px}
header.top{display:flex;gap:1rem;align-items:center;justify-content:space-between;padding:.6rem 1.2rem;background:#10243a;color:#fff}
header.top a{color:#fff}
header.top .brand{font-weight:700;text-decoration:none}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.2rem 1rem}
nav.sub{border-bottom:1px solid var(--line);padding:.5rem 1.2rem;background:var(--panel)}
nav.sub a[aria-current=page]{font-weight:700;color:var(--fg);text-decoration:none}
main{max-width:72rem;margin:0 auto;padding:1rem 1.2rem 3rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}h2{font-size:1.15rem;margin:1.6rem 0 .6rem}
table{border-collapse:collapse;width:100%;margin:.4rem 0 1rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--panel);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
form.inline{display:inline}
form.stack{display:grid;gap:.5rem;max-width:28rem}
form.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin:.5rem 0}
label{font-weight:600}
label span.hint{font-weight:400;color:var(--muted)}
input,select,textarea{font:inherit;padding:.35rem .5rem;border:1px solid #6b7785;border-radius:4px;background:#fff;color:var(--fg)}
button{font:inherit;padding:.35rem .8rem;border-radius:4px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button.secondary{background:#fff;color:var(--accent)}
button.danger{background:#fff;color:var(--bad);border-color:var(--bad)}
.flash{padding:.6rem .8rem;border-radius:4px;background:#e8f1fb;border:1px solid #9cc3ea;margin:0 0 1rem}
.flash.error{background:#fdecea;border-color:#e8a29c}
.secret{padding:.8rem;border:2px solid var(--warn);border-radius:4px;background:#fff8e6;margin:0 0 1rem}
.secret code{font-size:1rem;word-break:break-all}
.badge{display:inline-block;padding:0 .45rem;border-radius:10px;font-size:.85rem;border:1px solid currentColor}
.badge.ok{color:var(--ok)}.badge.warn{color:var(--warn)}.badge.bad{color:var(--bad)}.badge.muted{color:var(--muted)}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));gap:.8rem;margin:.5rem 0 1rem}
.card{border:1px solid var(--line);border-radius:6px;padding:.6rem .8rem}
.card .label{color:var(--muted);font-size:.85rem}.card .value{font-size:1.4rem;font-weight:700;font-variant-numeric:tabular-nums}
meter{width:100%;height:1.2rem}
.muted{color:var(--muted)}
svg.chart{max-width:100%;height:auto;border:1px solid var(--line);border-radius:6px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
.skip{position:absolute;left:-999px;top:0;background:#fff;color:var(--accent);padding:.4rem .8rem;z-index:10}.skip:focus{left:.5rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.scroll{max-width:100%;overflow-x:auto}code.detail{white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word}
`

export interface NavItem {
  href: string
  label: string
}

export function Layout(props: {
  title: string
  nonce: string
  session: Session | null
  flash?: string | null
  error?: string | null
  nav?: NavItem[]
  current?: string
  children?: Child
}) {
  const s = props.session
  const admin = s?.user.role === 'admin'
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · carrier-verify console`}</title>
        <style nonce={props.nonce} dangerouslySetInnerHTML={{ __html: CSS }} />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href="/console">
            carrier-verify console
          </a>
          {s ? (
            <nav aria-label="Main">
              <ul>
                {admin ? (
                  <>
                    <li>
                      <a href="/console/admin">Accounts</a>
                    </li>
                    <li>
                      <a href="/console/admin/users">Users</a>
                    </li>
                    <li>
                      <a href="/console/admin/data">Data mirror</a>
                    </li>
                    <li>
                      <a href="/console/admin/audit">Audit log</a>
                    </li>
                  </>
                ) : (
                  <li>
                    <a href={`/console/accounts/${s.user.accountId ?? ''}`}>My account</a>
                  </li>
                )}
                <li>
                  <span class="visually-hidden">Signed in as </span>
                  {s.user.email} ({s.user.role})
                </li>
                <li>
                  <form class="inline" method="post" action="/console/sign-out">
                    <input type="hidden" name="_csrf" value={s.csrfToken} />
                    <button class="secondary" type="submit">
                      Sign out
                    </button>
                  </form>
                </li>
              </ul>
            </nav>
          ) : null}
        </header>
        {props.nav ? (
          <nav class="sub" aria-label="Account">
            <ul>
              {props.nav.map((n) => (
                <li>
                  <a href={n.href} aria-current={n.href === props.current ? 'page' : undefined}>
                    {n.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
        <main id="main">
          {props.flash && !props.flash.startsWith('!') ? (
            <p class="flash" role="status">
              {props.flash}
            </p>
          ) : null}
          {props.flash?.startsWith('!') ? (
            <p class="flash error" role="alert">
              {props.flash.slice(1)}
            </p>
          ) : null}
          {props.error ? (
            <p class="flash error" role="alert">
              {props.error}
            </p>
          ) : null}
          {props.children}
        </main>
      </body>
    </html>
  )
}

/** The hidden CSRF field every form carries. */
export const Csrf = (props: { session: Session }) => (
  <input type="hidden" name="_csrf" value={props.session.csrfToken} />
)

export const iso = (ms: number | null | undefined) =>
  ms == null ? '—' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC'

export const usd = (n: number) => `$${n.toFixed(2)}`
export const num = (n: number | null | undefined) => (n == null ? '—' : n.toLocaleString('en-US'))
