/**
 * GET /v1/equipment/{vin} and GET /v1/equipment?plate=&state= — the USDOT numbers a VIN or a
 * plate was seen under at the roadside and in crashes (equipment/read.ts, docs/equipment.md).
 */
import { Hono, type Context } from 'hono'
import { toMetaJson, viewDates } from '../../carriers/json.ts'
import { notFoundFor } from '../../carriers/mirror-state.ts'
import { MetaJson } from '../../carriers/schema.ts'
import { censusLegalNames } from '../../census/read.ts'
import type { Deps } from '../../deps.ts'
import { toEquipmentJson, sightingsOf, type SightingQuery } from '../../equipment/read.ts'
import { EquipmentAnswerJson } from '../../equipment/schema.ts'
import { isPlaceholderVin } from '../../equipment/vin.ts'
import { PlateQuery, VinParam } from '../../equipment/request.ts'
import { AppError } from '../../errors.ts'
import { chargeGrouped, notFoundWithUsage, rateLimitHeaders } from '../../keys/billing.ts'
import type { AppEnv } from '../env.ts'
import type { ParamDoc, RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { honoPath, type Endpoint } from './endpoint.ts'

const VIN_PARAM: ParamDoc = {
  name: 'vin',
  in: 'path',
  required: true,
  description:
    'A VIN, case-insensitive; spaces and dashes are ignored. Any VIN up to 17 characters is looked up; `vin_valid` says whether it is a conforming one.',
  schema: VinParam,
  example: '1HGCM82633A004352',
}

const EquipmentResponse = EquipmentAnswerJson.extend({ meta: MetaJson })

const ERRORS = [
  'invalid_request',
  'unauthorized',
  'payment_required',
  'not_found',
  'quota_exceeded',
  'dataset_unavailable',
  'mirror_not_ready',
  'storage_unavailable',
] as const

const DESCRIPTION =
  'Every USDOT number the unit was seen under in the last 24 months, from roadside inspections (SMS inspection file, MCMIS Vehicle Inspection File and Inspections Per Unit) and crash reports, newest `last_seen` first. One inspection counts once, whichever files name it. A VIN or plate seen under more than 5 USDOT numbers is `shared_widely` (lessors, rental fleets): shown, never a link on its own. Placeholder VINs (`UNKNOWN`, `NONE`, one repeated character, fewer than 11 characters) are never stored and answer 404. Seeing a unit under another carrier is a review fact (leasing is legitimate), not proof of fraud.'

const vinDoc: RouteDoc = {
  method: 'get',
  path: '/v1/equipment/{vin}',
  operationId: 'getEquipmentByVin',
  summary: 'Carriers a VIN was seen under',
  description: DESCRIPTION,
  tags: ['equipment'],
  auth: true,
  billing: 'one call when the VIN was seen; a 404 or 503 is not billed.',
  params: [VIN_PARAM],
  responses: {
    200: {
      description: 'The VIN and its carriers',
      schema: EquipmentResponse,
      name: 'EquipmentResponse',
      rateLimited: true,
    },
  },
  errors: ERRORS,
}

const plateDoc: RouteDoc = {
  method: 'get',
  path: '/v1/equipment',
  operationId: 'getEquipmentByPlate',
  summary: 'Carriers a licence plate was seen under',
  description: `${DESCRIPTION} For a plate, \`vin\` is the VIN seen with it most recently and each carrier lists the VINs seen with the plate.`,
  tags: ['equipment'],
  auth: true,
  billing: 'one call when the plate was seen; a 404 or 503 is not billed.',
  query: PlateQuery,
  responses: {
    200: {
      description: 'The plate and its carriers',
      schema: EquipmentResponse,
      name: 'EquipmentResponse',
      rateLimited: true,
    },
  },
  errors: ERRORS,
}

/**
 * Looks the unit up in the caller's view; billed one call when it was seen, else 404 (503
 * mirror_not_ready for a live key before the mirror is built). The data is read before the call
 * is billed, in one synchronous step; the call is then metered with the others answered in the
 * same turn of the event loop (billing.ts `chargeGrouped`).
 */
async function answer(
  c: Context<AppEnv>,
  deps: Deps,
  q: SightingQuery,
  what: string,
): Promise<Response> {
  const caller = c.get('caller')
  const view = deps.datasets.view(caller.mode)
  const ds = view.get('equipment')
  if (!ds) throw new AppError('dataset_unavailable')
  // a placeholder is never stored in any data: a 404 whatever is loaded
  if ('vin' in q && isPlaceholderVin(q.vin))
    throw notFoundWithUsage(
      deps,
      caller,
      `${what} is a placeholder, not a vehicle identifier: placeholders are never stored or linked`,
    )
  const found = sightingsOf(ds, q)
  if (!found) throw notFoundFor(deps, view, caller, `${what} was not seen in the last 24 months`)
  const census = view.get('census')
  const names = census
    ? censusLegalNames(census, [...new Set(found.carriers.map((s) => s.dot))])
    : null
  const at = deps.clock()
  const json = toEquipmentJson(
    found,
    (dot) => names?.get(dot) ?? null,
    at.getUTCFullYear(),
    !('vin' in q),
  )
  const usage = await chargeGrouped(deps, caller, { at, busy: deps.records.busy })
  const meta = toMetaJson(viewDates(view), {
    usage,
    requestId: c.get('requestId'),
    source: view.source,
  })
  return c.json({ ...json, meta }, 200, rateLimitHeaders(usage, at))
}

export const equipmentEndpoint: Endpoint = {
  docs: [vinDoc, plateDoc],
  routes: (deps) =>
    new Hono<AppEnv>()
      .get(honoPath(vinDoc), (c) => {
        const vin = parseOr(VinParam, c.req.param('vin'), 'invalid_request')
        return answer(c, deps, { vin }, `VIN ${vin}`)
      })
      .get(honoPath(plateDoc), (c) => {
        const q = parseOr(PlateQuery, c.req.query(), 'invalid_request')
        return answer(c, deps, q, `Plate ${q.plate} (${q.state})`)
      }),
}
