import { Hono } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { AppEnv } from '../http/env.ts'
import type { RouteDoc } from '../http/openapi.ts'
import { parseOr } from '../http/validate.ts'
import { rateLimitHeaders } from '../keys/usage.ts'
import {
  billAndShape,
  CrosscheckQuery,
  DotParam,
  findRecord,
  notFoundForDot,
  notFoundWithUsage,
} from './lookup.ts'
import { CarrierJson } from './schema.ts'

/**
 * GET /<name>/:dot — a record found by USDOT number, billed once when found (a 404 is not billed),
 * and shaped by `shape`; GET /<name> and /<name>/ answer 400 invalid_dot. Serves /carrier and /bond.
 */
export function dotLookupRoutes(
  deps: Deps,
  name: 'carrier' | 'bond',
  shape: (json: CarrierJson) => unknown,
) {
  const missing = () => {
    throw new AppError('invalid_dot', `USDOT number is required: GET /v1/${name}/{dot}`)
  }
  return new Hono<AppEnv>()
    .get(`/${name}`, missing)
    .get(`/${name}/`, missing)
    .get(`/${name}/:dot`, async (c) => {
      c.set('route', `/v1/${name}/:dot`)
      const dot = parseOr(DotParam, c.req.param('dot'), 'invalid_dot')
      const crosscheck = parseOr(CrosscheckQuery, c.req.query('crosscheck'), 'invalid_request')
      const caller = c.var.caller
      const record = findRecord(deps, caller, dot)
      if (!record) throw notFoundWithUsage(deps, caller, notFoundForDot(dot).message)
      const { json, usage } = await billAndShape(deps, caller, record, c.var.requestId, crosscheck)
      return c.json(shape(json), 200, rateLimitHeaders(usage, deps.clock()))
    })
}

/** GET /carrier/:dot — the verification record by USDOT number. */
export const carrierRoutes = (deps: Deps) => dotLookupRoutes(deps, 'carrier', (json) => json)

/** OpenAPI entry of GET /v1/carrier/{dot}, built from the schemas that validate and shape it. */
export const carrierDocs: readonly RouteDoc[] = [
  {
    method: 'get',
    path: '/v1/carrier/{dot}',
    operationId: 'getCarrier',
    summary: 'Get a carrier or broker by USDOT number',
    description:
      'The company verification record: identity (top level and `identity`), contact, authority, insurance, fleet, safety, trust (Trust Score with its gates and factors), reviews and meta; with `?crosscheck=true` also a `crosscheck` block compared against the regulator. A value not on file is null.',
    tags: ['companies'],
    auth: true,
    billing: 'one call when found; a 404 is not billed.',
    params: [
      {
        name: 'dot',
        in: 'path',
        required: true,
        description: 'USDOT number: 1 to 8 digits, not 0',
        schema: DotParam,
        example: '344554',
      },
      {
        name: 'crosscheck',
        in: 'query',
        required: false,
        description:
          '`true` also asks the regulator (QCMobile) and adds a `crosscheck` block; a regulator outage never fails the lookup',
        schema: CrosscheckQuery,
      },
    ],
    responses: {
      200: {
        description: 'The record',
        schema: CarrierJson,
        name: 'CarrierRecord',
        rateLimited: true,
      },
    },
    errors: [
      'invalid_dot',
      'invalid_request',
      'unauthorized',
      'payment_required',
      'not_found',
      'quota_exceeded',
      'dataset_unavailable',
    ],
  },
]
