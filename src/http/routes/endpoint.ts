/**
 * One file per endpoint lives in this folder. To add an endpoint (e.g. `POST /v1/checks`):
 *
 * 1. Create `src/http/routes/<name>.ts`. Declare its request schemas (path, query, body) and its
 *    OpenAPI entry (`doc: RouteDoc`, see ../openapi.ts) ONCE in that file; the doc's `path` is the
 *    route's path (`honoPath(doc)` derives the Hono pattern, so they cannot drift).
 * 2. Write `routes(deps)`: a Hono app whose handler parses with those schemas (`parseOr`, `readJson`
 *    in ./params.ts), calls a domain function (carriers/, search/, checks/ … — no HTTP there; a
 *    billed call goes through `chargeCall`/`meterCall` in carriers/lookup.ts) and maps the result
 *    to JSON. Errors are thrown as `AppError`; the app turns them into the one error body.
 * 3. Export `const <name>Endpoint: Endpoint = { docs: [doc], routes }` and list it in
 *    `API_ENDPOINTS` (needs a key; served under /v1 and /api/v1) or `OPEN_ENDPOINTS` (no key) in
 *    src/app.ts. /openapi.json, the 404/405 answers and the request log/metrics (route label =
 *    the Hono route pattern via `routePath`) pick it up from there; src/http/openapi.test.ts and
 *    contract.test.ts check that every documented operation is mounted and answers as documented.
 */
import type { Hono } from 'hono'
import type { Deps } from '../../deps.ts'
import type { AppEnv } from '../env.ts'
import type { RouteDoc } from '../openapi.ts'

/** One endpoint (or a small group of operational ones): its OpenAPI entries and its handlers. */
export interface Endpoint {
  docs: readonly RouteDoc[]
  /** API endpoints: paths relative to /v1 (mounted under /v1 and /api/v1) */
  routes: (deps: Deps) => Hono<AppEnv>
}

/** The Hono pattern of a documented path, relative to /v1: `/v1/carrier/{dot}` → `/carrier/:dot`. */
export const honoPath = (doc: Pick<RouteDoc, 'path'>): string =>
  doc.path.replace(/^\/v1(?=\/)/, '').replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1')
