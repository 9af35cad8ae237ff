import { randomUUID } from 'node:crypto'
import type { Context, MiddlewareHandler } from 'hono'
import { matchedRoutes, routePath } from 'hono/route'
import type { Logger } from '../log.ts'
import type { Metrics } from '../metrics.ts'
import type { AppEnv } from './env.ts'

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/

/**
 * Gives every request an id (a well-formed incoming X-Request-Id is kept), echoes it in the
 * response, and logs one line when the request ends. Never logs headers, bodies or query strings.
 */
export const requestContext = (log: Logger, metrics: Metrics): MiddlewareHandler<AppEnv> => {
  // a request line holds only the fields below, none of them a secret: no redaction pass over
  // them (its wildcard paths ran over every value of every line)
  const lines = log.child({}, { redact: [] })
  return async (c, next) => {
    const incoming = c.req.header('x-request-id')
    const id = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID()
    c.set('requestId', id)
    // set before the response exists, so it is built with it: c.header() on a finished response
    // turns it into a web Response whose body is then streamed (a large part of a lookup's cost)
    c.header('x-request-id', id)
    const started = performance.now()
    try {
      await next()
    } finally {
      if (!c.res.headers.has('x-request-id')) c.header('x-request-id', id)
      const ms = performance.now() - started
      const route = routeLabel(c)
      const caller = c.get('caller') as AppEnv['Variables']['caller'] | undefined
      metrics.httpRequests.inc({ method: c.req.method, route, status: String(c.res.status) })
      metrics.httpDuration.observe({ route }, ms / 1000)
      const line = {
        request_id: id,
        method: c.req.method,
        route,
        status: c.res.status,
        duration_ms: Math.round(ms * 100) / 100,
        account_id: caller?.accountId,
        key_id: caller?.keyId,
      }
      if (c.res.status >= 500) lines.error(line, 'request')
      else lines.info(line, 'request')
    }
  }
}

/**
 * The route label of logs and metrics: the pattern of the route that answered (`/v1/carrier/:dot`;
 * the `/api/v1` alias is counted under `/v1`, so one endpoint is one label), `unmatched` for a 404
 * no route answered, else the middleware that answered (`/v1/*` for a 401).
 */
export function routeLabel(c: Context<AppEnv>): string {
  const reached = matchedRoutes(c)[c.req.routeIndex]
  if ((!reached || reached.method === 'ALL') && c.res.status === 404) return 'unmatched'
  return routePath(c).replace(/^\/api\/v1(?=\/|$)/, '/v1')
}
