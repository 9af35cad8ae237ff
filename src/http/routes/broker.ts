/** GET /v1/broker/{mc} — the verification record by docket, with the bond view and the lookup. */
import { Hono } from 'hono'
import type { z } from 'zod'
import { BondJson, toBondJson } from '../../carriers/bond.ts'
import {
  DocketLookupJson,
  McParam,
  resolveAnswer,
  resolveIdentifier,
  toDocketLookupJson,
} from '../../carriers/docket.ts'
import { shapeMetered } from '../../carriers/lookup.ts'
import { notFoundFor } from '../../carriers/mirror-state.ts'
import { openRecords } from '../../carriers/records.ts'
import { crosscheckAnswered } from '../../crosscheck/crosscheck.ts'
import { CarrierJson } from '../../carriers/schema.ts'
import { AppError } from '../../errors.ts'
import { chargeGrouped, rateLimitHeaders } from '../../keys/billing.ts'
import type { AppEnv } from '../env.ts'
import type { RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { billedAnswer } from './dot-lookup.ts'
import { honoPath, type Endpoint } from './endpoint.ts'
import { CROSSCHECK_PARAM, CrosscheckQuery } from './params.ts'

/** GET /v1/broker/{mc}: the verification record plus the bond view and how the docket resolved. */
export const BrokerJson = CarrierJson.extend({ bond: BondJson, lookup: DocketLookupJson })
export type BrokerJson = z.infer<typeof BrokerJson>

const doc: RouteDoc = {
  method: 'get',
  path: '/v1/broker/{mc}',
  operationId: 'getBroker',
  summary: 'Broker authority, bond and reputation by docket',
  description:
    "The verification record of the company holding a docket (MC, FF, MX) or USDOT-suffix identifier, plus `bond` (the BMC-84/85 view) and `lookup` (how the identifier resolved). A docket resolves through the licensing files (Motus, then legacy L&I), then the census, then the regulator's QCMobile API when configured. When several USDOT numbers hold the docket, the one with active authority (then an active USDOT, then the most recent registration) is shown and the others are listed in `lookup.other_dot_numbers`. A USDOT-suffix identifier resolves to its USDOT and must match the authority its letter names (B broker, C/P/H carrier, F forwarder, V private).",
  tags: ['companies'],
  auth: true,
  billing: 'one call when found; a 404 or 503 is not billed.',
  params: [
    {
      name: 'mc',
      in: 'path',
      required: true,
      description: McParam.description ?? 'docket',
      schema: McParam,
      example: 'MC-421775',
    },
    CROSSCHECK_PARAM,
  ],
  responses: {
    200: {
      description: 'The record',
      schema: BrokerJson,
      name: 'BrokerRecord',
      rateLimited: true,
    },
  },
  errors: [
    'invalid_docket',
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

const missing = () => {
  throw new AppError('invalid_docket', `Docket number is required: GET ${doc.path}`)
}

export const brokerEndpoint: Endpoint = {
  docs: [doc],
  routes: (deps) =>
    new Hono<AppEnv>()
      .get('/broker', missing)
      .get('/broker/', missing)
      .get(honoPath(doc), async (c) => {
        const raw = c.req.param('mc') ?? ''
        const id = parseOr(McParam, raw, 'invalid_docket')
        const crosscheck = parseOr(CrosscheckQuery, c.req.query('crosscheck'), 'invalid_request')
        const caller = c.get('caller')
        const read = openRecords(deps, caller.mode)
        const r = crosscheckAnswered(deps.config.crosscheck.mode, crosscheck)
          ? await resolveIdentifier(deps, caller, id, read)
          : await resolveAnswer(deps, caller, id, read, true)
        if (!r.ok) throw notFoundFor(deps, read.view, caller, r.message)
        if ('answered' in r) {
          // a docket's one holder, answered as text (by a record worker when it was not cached)
          const { answer, lookup } = r.answered
          if (answer.bond === undefined) throw new Error('a broker answer without its bond block')
          const blocks = `,"bond":${answer.bond},"lookup":${JSON.stringify(toDocketLookupJson(raw, lookup))}`
          return billedAnswer(c, deps, answer, blocks)
        }
        const usage = await chargeGrouped(deps, caller, { busy: deps.records.busy })
        const json = await shapeMetered(deps, r.match.record, usage, c.get('requestId'), crosscheck)
        const { meta, ...rest } = json
        const body: BrokerJson = {
          ...rest,
          bond: toBondJson(json.insurance, json.authority),
          lookup: toDocketLookupJson(raw, r.match),
          meta,
        }
        return c.json(body, 200, rateLimitHeaders(usage, deps.clock()))
      }),
}
