/** GET /v1/carrier/{dot} — the verification record by USDOT number. */
import { carrierJsonText } from '../../carriers/json.ts'
import { CarrierJson } from '../../carriers/schema.ts'
import type { RouteDoc } from '../openapi.ts'
import { dotLookupRoutes } from './dot-lookup.ts'
import type { Endpoint } from './endpoint.ts'
import { CROSSCHECK_PARAM, DOT_PARAM } from './params.ts'

const doc: RouteDoc = {
  method: 'get',
  path: '/v1/carrier/{dot}',
  operationId: 'getCarrier',
  summary: 'Get a carrier or broker by USDOT number',
  description:
    'The company verification record: identity (top level and `identity`), contact, authority, insurance, fleet, safety, trust (Trust Score with its gates and factors), reviews and meta; with `?crosscheck=true` also a `crosscheck` block compared against the regulator. A value not on file is null.',
  tags: ['companies'],
  auth: true,
  billing: 'one call when found; a 404 or 503 is not billed.',
  params: [DOT_PARAM, CROSSCHECK_PARAM],
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
    'mirror_not_ready',
    'storage_unavailable',
  ],
}

export const carrierEndpoint: Endpoint = {
  docs: [doc],
  routes: (deps) => dotLookupRoutes(deps, doc, carrierJsonText, true),
}
