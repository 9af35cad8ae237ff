/**
 * The composition root of the HTTP API: middleware, then every endpoint of src/http/routes/ (one
 * file each; how to add one is at the top of src/http/routes/endpoint.ts), then 404/405 and errors.
 */
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { secureHeaders } from 'hono/secure-headers'
import { consoleRoutes } from './console/console.tsx'
import type { Deps } from './deps.ts'
import { AppError } from './errors.ts'
import { apiKeyAuth } from './http/api-key-auth.ts'
import { closeOnUnreadBody } from './http/connection.ts'
import type { AppEnv } from './http/env.ts'
import { notFound, onError, type KnownRoute } from './http/errors.ts'
import type { RouteDoc } from './http/openapi.ts'
import { requestContext } from './http/request-log.ts'
import { blocklistEndpoint } from './http/routes/blocklist.ts'
import { bondEndpoint } from './http/routes/bond.ts'
import { brokerEndpoint } from './http/routes/broker.ts'
import { carrierEndpoint } from './http/routes/carrier.ts'
import { carrierHistoryEndpoint } from './http/routes/carrier-history.ts'
import { carrierLinksEndpoint } from './http/routes/carrier-links.ts'
import { checksCreateEndpoint } from './http/routes/checks-create.ts'
import { checksGetEndpoint } from './http/routes/checks-get.ts'
import { checksListEndpoint } from './http/routes/checks-list.ts'
import { checksOverrideEndpoint } from './http/routes/checks-override.ts'
import { checksReportEndpoint } from './http/routes/checks-report.ts'
import { contactVerificationsConfirmEndpoint } from './http/routes/contact-verifications-confirm.ts'
import { contactVerificationsCreateEndpoint } from './http/routes/contact-verifications-create.ts'
import { docsEndpoint } from './http/routes/docs.ts'
import type { Endpoint } from './http/routes/endpoint.ts'
import { homeEndpoint } from './http/routes/home.ts'
import { onboardingEndpoint } from './http/routes/onboarding.ts'
import { opsEndpoint } from './http/routes/ops.ts'
import { searchEndpoint } from './http/routes/search.ts'
import { equipmentEndpoint } from './http/routes/equipment.ts'
import { verifyEndpoint } from './http/routes/verify.ts'
import { MAX_FILE_BYTES } from './onboarding/parse.ts'

/** Largest accepted request body: a 100-item batch is far below it. */
export const BODY_LIMIT = 64 * 1024

/** Routes that take an onboarding list (a file upload or 10,000 companies as JSON). */
const UPLOAD_ROUTES = /^(?:\/api)?\/v1\/onboarding\/?$|^\/console\/accounts\/\d+\/onboarding\/?$/

/** Largest body of an upload route: the largest onboarding file and its multipart framing. */
export const UPLOAD_LIMIT = MAX_FILE_BYTES + 64 * 1024

/** Endpoints that need an API key; served under /v1 and /api/v1 (paths relative to /v1). */
const API_ENDPOINTS: readonly Endpoint[] = [
  carrierEndpoint,
  carrierHistoryEndpoint,
  carrierLinksEndpoint,
  brokerEndpoint,
  bondEndpoint,
  verifyEndpoint,
  searchEndpoint,
  equipmentEndpoint,
  checksCreateEndpoint,
  checksListEndpoint,
  checksGetEndpoint,
  checksReportEndpoint,
  checksOverrideEndpoint,
  contactVerificationsCreateEndpoint,
  contactVerificationsConfirmEndpoint,
  blocklistEndpoint,
  onboardingEndpoint,
]

/** Endpoints without a key, at the root: liveness, readiness, metrics, the API reference. */
const OPEN_ENDPOINTS: readonly Endpoint[] = [
  homeEndpoint,
  opsEndpoint,
  docsEndpoint(() => ROUTE_DOCS),
]

/** Every documented route, for /openapi.json (a contract test checks it against app.routes). */
export const ROUTE_DOCS: readonly RouteDoc[] = [...OPEN_ENDPOINTS, ...API_ENDPOINTS].flatMap(
  (e) => e.docs,
)

/** Builds the HTTP app over injected deps; tests call app.request() on it. */
export function createApp(deps: Deps) {
  // `/v1/carrier/344554/` is `/v1/carrier/344554`: a trailing slash names the same route
  const app = new Hono<AppEnv>({ strict: false })
  app.use(requestContext(deps.log, deps.metrics))
  app.use(closeOnUnreadBody)
  // same-origin referrers: the console's forms need the browser to send their Origin (no-referrer sends "null")
  app.use(secureHeaders({ crossOriginResourcePolicy: false, referrerPolicy: 'same-origin' }))
  const limitBody = bodyLimit({
    maxSize: BODY_LIMIT,
    onError: () => {
      throw new AppError('payload_too_large', `Request body must be at most ${BODY_LIMIT} bytes`)
    },
  })
  const limitUpload = bodyLimit({
    maxSize: UPLOAD_LIMIT,
    onError: () => {
      throw new AppError(
        'payload_too_large',
        `An upload must be at most ${MAX_FILE_BYTES} bytes (a list of up to 10,000 companies)`,
      )
    },
  })
  // GET and HEAD bodies are never read; checking them would build a full web Request per lookup
  app.use((c, next) =>
    c.req.method === 'GET' || c.req.method === 'HEAD'
      ? next()
      : UPLOAD_ROUTES.test(c.req.path)
        ? limitUpload(c, next)
        : limitBody(c, next),
  )
  for (const e of OPEN_ENDPOINTS) app.route('/', e.routes(deps))

  const v1 = new Hono<AppEnv>()
  v1.use(apiKeyAuth(deps))
  for (const e of API_ENDPOINTS) v1.route('/', e.routes(deps))
  for (const base of ['/v1', '/api/v1']) app.route(base, v1)
  // the account console: its own sessions, never an API key
  app.route('/console', consoleRoutes(deps))

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
