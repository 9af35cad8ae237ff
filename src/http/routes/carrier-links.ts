/** GET /v1/carrier/{dot}/links — the companies linked to a company, with their time order. */
import { Hono } from 'hono'
import { notFoundForDot } from '../../carriers/lookup.ts'
import { DotParam } from '../../carriers/docket.ts'
import { AppError } from '../../errors.ts'
import { LinksJson } from '../../identity/schema.ts'
import { chargeGrouped, notFoundWithUsage, rateLimitHeaders } from '../../keys/billing.ts'
import type { AppEnv } from '../env.ts'
import type { RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { honoPath, type Endpoint } from './endpoint.ts'
import { DOT_PARAM } from './params.ts'

const doc: RouteDoc = {
  method: 'get',
  path: '/v1/carrier/{dot}/links',
  operationId: 'getCarrierLinks',
  summary: 'Companies linked to a company, with their time order',
  description:
    "The companies that share an officer, a phone, a fax, an e-mail, a physical address (the Company Census) or a VIN (roadside inspections) with this one. A *predecessor* was revoked, put out of service or made inactive at most 365 days before this company was added; a *successor* was added at most 365 days after this company's own such event; the others are *concurrent*. Officer names count only with one more shared identifier or an exact full-name match on a non-common name; a value shared by too many companies (VIN > 5, phone, fax, e-mail, address or officer > 20) is never a link and is counted under `suppressed` (docs/identity.md).",
  tags: ['companies'],
  auth: true,
  billing: 'one call when the company is known; a 404 is not billed.',
  params: [DOT_PARAM],
  responses: {
    200: {
      description: 'The links',
      schema: LinksJson,
      name: 'CarrierLinks',
      rateLimited: true,
    },
  },
  errors: [
    'invalid_dot',
    'unauthorized',
    'payment_required',
    'not_found',
    'quota_exceeded',
    'dataset_unavailable',
    'storage_unavailable',
  ],
}

export const carrierLinksEndpoint: Endpoint = {
  docs: [doc],
  routes: (deps) =>
    new Hono<AppEnv>().get(honoPath(doc), async (c) => {
      const dot = parseOr(DotParam, c.req.param('dot'), 'invalid_dot')
      const caller = c.get('caller')
      const view = deps.datasets.view(caller.mode)
      if (!view.get('census')) throw new AppError('dataset_unavailable')
      // read by the record port (a record worker, when there are any): this thread only bills
      // and writes the text
      const text = await deps.records.links(view, dot, deps)
      if (text === null) throw notFoundWithUsage(deps, caller, notFoundForDot(dot).message)
      const usage = await chargeGrouped(deps, caller, { busy: deps.records.busy })
      return c.body(text, 200, {
        'Content-Type': 'application/json',
        ...rateLimitHeaders(usage, deps.clock()),
      })
    }),
}
