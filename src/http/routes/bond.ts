/** GET /v1/bond/{dot} — the surety bond or trust fund, and the insurance on file. */
import { BondResponseJson, toBondResponseJson } from '../../carriers/bond.ts'
import type { RouteDoc } from '../openapi.ts'
import { dotLookupRoutes } from './dot-lookup.ts'
import type { Endpoint } from './endpoint.ts'
import { CROSSCHECK_PARAM, DOT_PARAM } from './params.ts'

const doc: RouteDoc = {
  method: 'get',
  path: '/v1/bond/{dot}',
  operationId: 'getBond',
  summary: 'Surety bond or trust fund, and insurance on file',
  description:
    'The BMC-84 surety bond or BMC-85 trust fund on file (amount, form, surety or trustee, bond number, effective and cancellation dates, status, and the full BMC-84/85 history) and the insurance block of the record. A company without a bond is a 200 with `bond.on_file: false`.',
  tags: ['companies'],
  auth: true,
  billing: 'one call when the company is found; a 404 or 503 is not billed.',
  params: [DOT_PARAM, CROSSCHECK_PARAM],
  responses: {
    200: {
      description: 'Bond and insurance',
      schema: BondResponseJson,
      name: 'BondResponse',
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

export const bondEndpoint: Endpoint = {
  docs: [doc],
  routes: (deps) => dotLookupRoutes(deps, doc, (json) => JSON.stringify(toBondResponseJson(json))),
}
