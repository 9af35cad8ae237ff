/** A cookie-keeping client of the console for app.request tests: sign in, read the CSRF token, post forms. */
import type { TestContext } from './context.ts'

export const ORIGIN = 'http://localhost'

export function consoleClient(ctx: Pick<TestContext, 'app'>) {
  const jar = new Map<string, string>()
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const [k, ...v] = (pair ?? '').split('=')
      if (!k) continue
      const value = v.join('=')
      if (value === '' || /max-age=0/i.test(c)) jar.delete(k)
      else jar.set(k, value)
    }
    return res
  }
  const get = async (path: string, headers: Record<string, string> = {}) =>
    keep(
      await ctx.app.request(`${ORIGIN}${path}`, {
        headers: { cookie: cookieHeader(), ...headers },
      }),
    )
  const post = async (
    path: string,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ) =>
    keep(
      await ctx.app.request(`${ORIGIN}${path}`, {
        method: 'POST',
        body: new URLSearchParams(form).toString(),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: ORIGIN,
          cookie: cookieHeader(),
          ...headers,
        },
      }),
    )
  /** The CSRF token of the forms of a page. */
  const csrf = async (path: string) => {
    const html = await (await get(path)).text()
    const m = /name="_csrf" value="([^"]+)"/.exec(html)
    if (!m?.[1]) throw new Error(`no CSRF field on ${path}`)
    return m[1]
  }
  return {
    jar,
    get,
    post,
    csrf,
    async signIn(email: string, password: string) {
      const token = await csrf('/console/sign-in')
      return post('/console/sign-in', { _csrf: token, email, password, next: '/console' })
    },
  }
}
