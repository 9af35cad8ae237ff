/**
 * GET /: the front door. Names the service, its version, what it serves now (the regulator mirror
 * or the bundled sample, and the census's as-of date) and where to go next (/docs, /console).
 * A small HTML page for a browser; JSON for `Accept: application/json`.
 */
import { Hono } from 'hono'
import { html } from 'hono/html'
import { z } from 'zod'
import type { Deps } from '../../deps.ts'
import type { AppEnv } from '../env.ts'
import type { RouteDoc } from '../openapi.ts'
import { packageVersion } from './docs.ts'
import type { Endpoint } from './endpoint.ts'

/** Body of GET / (JSON). */
export const HomeJson = z.object({
  service: z.string(),
  version: z.string(),
  serving: z.object({
    source: z
      .enum(['mirror', 'sample', 'none'])
      .describe(
        '`mirror`: the regulator data this appliance mirrors; `sample`: the bundled fictitious sample (until the mirror has a census); `none`: no data loaded',
      ),
    as_of: z.string().nullable().describe("the census's data date (YYYY-MM-DD), the regulator's"),
  }),
  links: z.object({ docs: z.string(), openapi: z.string(), console: z.string() }),
})
type HomeJson = z.infer<typeof HomeJson>

const SERVICE = 'Carrier and Broker Verification API'

function homeOf(deps: Deps): HomeJson {
  const view = deps.datasets.view('live')
  const census = view.get('census')
  return {
    service: SERVICE,
    version: packageVersion(),
    serving: { source: census ? view.source : 'none', as_of: census?.asOf ?? null },
    links: { docs: '/docs', openapi: '/openapi.json', console: '/console' },
  }
}

function servingText(s: HomeJson['serving']): string {
  if (s.source === 'mirror')
    return `the FMCSA data mirrored by this appliance, as of ${s.as_of ?? '?'}`
  if (s.source === 'sample')
    return `the bundled SAMPLE data (fictitious companies, as of ${s.as_of ?? '?'}): the regulator's data is not mirrored yet`
  return 'no data yet: the regulator data is not loaded'
}

const page = (h: HomeJson) =>
  html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${h.service}</title>
        <style>
          body {
            font:
              16px/1.5 system-ui,
              sans-serif;
            max-width: 40rem;
            margin: 3rem auto;
            padding: 0 1rem;
            color: #1d2430;
          }
          h1 {
            font-size: 1.4rem;
            margin-bottom: 0.2rem;
          }
          .muted {
            color: #5b6472;
          }
          .sample {
            background: #fff4d6;
            border: 1px solid #e5c56a;
            padding: 0.6rem 0.8rem;
            border-radius: 6px;
          }
          li {
            margin: 0.3rem 0;
          }
        </style>
      </head>
      <body>
        <h1>${h.service}</h1>
        <p class="muted">version ${h.version}</p>
        <p class="${h.serving.source === 'mirror' ? '' : 'sample'}">
          Serving: ${servingText(h.serving)}.
        </p>
        <ul>
          <li><a href="/docs">API reference</a> (<a href="/openapi.json">OpenAPI document</a>)</li>
          <li>
            <a href="/console">Console</a>: accounts, keys, lookups, checks and the data's state
          </li>
        </ul>
      </body>
    </html>`

/** HTML unless the client asks for JSON first. */
function wantsJson(accept: string | undefined): boolean {
  if (!accept) return false
  const json = accept.indexOf('application/json')
  const htmlAt = accept.indexOf('text/html')
  return json !== -1 && (htmlAt === -1 || json < htmlAt)
}

export const homeRoutes = (deps: Deps) =>
  new Hono<AppEnv>().get('/', async (c) => {
    const h = homeOf(deps)
    c.header('vary', 'Accept')
    if (wantsJson(c.req.header('accept'))) return c.json(h, 200)
    return c.html(await page(h), 200)
  })

export const homeDocs: readonly RouteDoc[] = [
  {
    method: 'get',
    path: '/',
    operationId: 'home',
    summary: 'Front door',
    description:
      'The service, its version, what it serves (the regulator mirror or the bundled sample, with the census as-of date) and links to /docs and /console. A small HTML page; JSON with `Accept: application/json`.',
    tags: ['operations'],
    auth: false,
    responses: { 200: { description: 'The service', schema: HomeJson, name: 'Home' } },
    errors: [],
  },
]

/** GET /: no key. */
export const homeEndpoint: Endpoint = { docs: homeDocs, routes: homeRoutes }
