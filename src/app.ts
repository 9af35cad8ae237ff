import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { secureHeaders } from 'hono/secure-headers'
import { brokerDocs, brokerRoutes } from './carriers/broker-routes.ts'
import { carrierDocs, carrierRoutes } from './carriers/routes.ts'
import type { Deps } from './deps.ts'
import { AppError } from './errors.ts'
import { apiKeyAuth } from './http/api-key-auth.ts'
import type { AppEnv } from './http/env.ts'
import { notFound, onError, type KnownRoute } from './http/errors.ts'
import { docsDocs, docsRoutes } from './http/docs.ts'
import type { RouteDoc } from './http/openapi.ts'
import { opsDocs, opsRoutes } from './http/ops.ts'
import { requestContext } from './http/request-log.ts'
import { searchDocs, searchRoutes } from './search/routes.ts'

/** Largest accepted request body: a 100-item batch is far below it. */
export const BODY_LIMIT = 64 * 1024

/** Every documented route, for /openapi.json (a contract test checks it against app.routes). */
export const ROUTE_DOCS: readonly RouteDoc[] = [
  ...opsDocs,
  ...docsDocs,
  ...carrierDocs,
  ...brokerDocs,
  ...searchDocs,
]

/** Builds the HTTP app over injected deps; tests call app.request() on it. */
export function createApp(deps: Deps) {
  const app = new Hono<AppEnv>()
  app.use(requestContext(deps.log, deps.metrics))
  app.use(secureHeaders({ crossOriginResourcePolicy: false }))
  app.use(
    bodyLimit({
      maxSize: BODY_LIMIT,
      onError: () => {
        throw new AppError('payload_too_large', `Request body must be at most ${BODY_LIMIT} bytes`)
      },
    }),
  )
  app.route('/', opsRoutes(deps))
  app.route('/', docsRoutes({ publicUrl: deps.config.publicUrl, routes: () => ROUTE_DOCS }))

  const v1 = new Hono<AppEnv>()
  v1.use(apiKeyAuth(deps))
  v1.route('/', carrierRoutes(deps))
  v1.route('/', brokerRoutes(deps))
  v1.route('/', searchRoutes(deps))
  for (const base of ['/v1', '/api/v1']) app.route(base, v1)

  const known: KnownRoute[] = app.routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => ({ method: r.method, pattern: patternOf(r.path) }))
  app.notFound(notFound(() => known))
  app.onError(onError(deps.log))
  return app
}

/** `/v1/carrier/:dot` → a RegExp matching concrete paths. */
function patternOf(path: string): RegExp {
  const src = path
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/')
  return new RegExp(`^${src}/?$`)
}
