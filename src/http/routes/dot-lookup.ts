/** The handler shape shared by GET /v1/carrier/{dot} and GET /v1/bond/{dot}. */
import { Hono, type Context } from 'hono'
import type { RecordAnswer } from '../../carriers/answer.ts'
import { DotParam } from '../../carriers/docket.ts'
import { answerText } from '../../carriers/json.ts'
import { notFoundForDot, shapeMetered } from '../../carriers/lookup.ts'
import { notFoundFor } from '../../carriers/mirror-state.ts'
import { openRecords } from '../../carriers/records.ts'
import { crosscheckAnswered } from '../../crosscheck/crosscheck.ts'
import type { CarrierJson } from '../../carriers/schema.ts'
import type { Deps } from '../../deps.ts'
import { AppError } from '../../errors.ts'
import { chargeGrouped, rateLimitHeaders } from '../../keys/billing.ts'
import type { AppEnv } from '../env.ts'
import type { RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { honoPath } from './endpoint.ts'
import { CrosscheckQuery } from './params.ts'

/**
 * GET <doc.path> — a record found by USDOT number, billed once when found (a 404 is not billed),
 * answered as the JSON text `text` makes of it; the parent path with and without a slash answers
 * 400 invalid_dot. `whole`: `text` is the record itself (json.ts `carrierJsonText`), so a lookup
 * without cross-check is answered from the record's text (records.ts `RecordReads.answer`).
 */
export function dotLookupRoutes(
  deps: Deps,
  doc: RouteDoc,
  text: (json: CarrierJson) => string,
  whole = false,
): Hono<AppEnv> {
  const path = honoPath(doc)
  const parent = path.replace(/\/:dot$/, '')
  const missing = () => {
    throw new AppError('invalid_dot', `USDOT number is required: GET ${doc.path}`)
  }
  return new Hono<AppEnv>()
    .get(parent, missing)
    .get(`${parent}/`, missing)
    .get(path, async (c) => {
      const dot = parseOr(DotParam, c.req.param('dot'), 'invalid_dot')
      const crosscheck = parseOr(CrosscheckQuery, c.req.query('crosscheck'), 'invalid_request')
      const caller = c.get('caller')
      const records = openRecords(deps, caller.mode)
      if (whole && !crosscheckAnswered(deps.config.crosscheck.mode, crosscheck)) {
        const found = await records.answer(dot)
        if (!found) throw notFoundFor(deps, records.view, caller, notFoundForDot(dot).message)
        return billedAnswer(c, deps, found)
      }
      const record = await records.record(dot)
      if (!record) throw notFoundFor(deps, records.view, caller, notFoundForDot(dot).message)
      const usage = await chargeGrouped(deps, caller, { busy: deps.records.busy })
      const json = await shapeMetered(deps, record, usage, c.get('requestId'), crosscheck)
      return c.body(text(json), 200, {
        'Content-Type': 'application/json',
        ...rateLimitHeaders(usage, deps.clock()),
      })
    })
}

/**
 * Bills a found record's call and answers its text (answer.ts `RecordAnswer`) with the meta block;
 * `blocks`: more of the answer's JSON text, written between the record and meta (`,"key":…`).
 */
export async function billedAnswer(
  c: Context<AppEnv>,
  deps: Deps,
  found: RecordAnswer,
  blocks = '',
): Promise<Response> {
  const usage = await chargeGrouped(deps, c.get('caller'), { busy: deps.records.busy })
  const meta = { usage, requestId: c.get('requestId'), source: found.source }
  return c.body(answerText(`${found.body}${blocks}`, found, meta), 200, {
    'Content-Type': 'application/json',
    ...rateLimitHeaders(usage, deps.clock()),
  })
}
