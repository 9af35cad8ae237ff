/** GET /v1/carrier/{dot}/history — a company's identity and contact changes, newest first. */
import { Hono } from 'hono'
import { findCensusRow } from '../../census/read.ts'
import { notFoundForDot } from '../../carriers/lookup.ts'
import { DotParam } from '../../carriers/docket.ts'
import { AppError } from '../../errors.ts'
import { carrierHistory } from '../../identity/history.ts'
import { HistoryJson, HistoryQuery } from '../../identity/schema.ts'
import { chargeGrouped, notFoundWithUsage, rateLimitHeaders } from '../../keys/billing.ts'
import type { AppEnv } from '../env.ts'
import type { RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { honoPath, type Endpoint } from './endpoint.ts'
import { DOT_PARAM } from './params.ts'

const doc: RouteDoc = {
  method: 'get',
  path: '/v1/carrier/{dot}/history',
  operationId: 'getCarrierHistory',
  summary: "A company's identity and contact changes",
  description:
    'Every change of the legal and DBA name, phone, cell phone, fax, e-mail, physical and mailing address, officers 1 and 2, USDOT status and MCS-150 date this appliance has seen in the daily Company Census since `history_since`, and the day the USDOT number appeared in or vanished from it; newest first, `limit` ≤ 100 (default 50), `next_cursor` pages on (docs/identity.md).',
  tags: ['companies'],
  auth: true,
  billing: 'one call when the company is known; a 404 is not billed.',
  params: [DOT_PARAM],
  query: HistoryQuery,
  responses: {
    200: {
      description: 'The history',
      schema: HistoryJson,
      name: 'CarrierHistory',
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
    'storage_unavailable',
  ],
}

export const carrierHistoryEndpoint: Endpoint = {
  docs: [doc],
  routes: (deps) =>
    new Hono<AppEnv>().get(honoPath(doc), async (c) => {
      const dot = parseOr(DotParam, c.req.param('dot'), 'invalid_dot')
      const q = parseOr(HistoryQuery, c.req.query(), 'invalid_request')
      const caller = c.get('caller')
      const view = deps.datasets.view(caller.mode)
      const census = view.get('census')
      if (!census) throw new AppError('dataset_unavailable')
      const channel = view.source === 'sample' ? 'sample' : 'live'
      const found = carrierHistory(deps.db, dot, findCensusRow(census, dot) !== null, channel, q)
      if (!found) throw notFoundWithUsage(deps, caller, notFoundForDot(dot).message)
      const usage = await chargeGrouped(deps, caller, { busy: deps.records.busy })
      return c.json(found, 200, rateLimitHeaders(usage, deps.clock()))
    }),
}
