import { Hono } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { AppEnv } from '../http/env.ts'
import { parseOr } from '../http/validate.ts'
import { rateLimitHeaders } from '../keys/usage.ts'
import { billAndShape, CrosscheckQuery, DotParam, findRecord, notFoundForDot, peekUsage } from './lookup.ts'

/** GET /carrier/:dot — the verification record by USDOT number (1 call if found; 404 not billed). */
export const carrierRoutes = (deps: Deps) =>
  new Hono<AppEnv>()
    .get('/carrier', () => {
      throw new AppError('invalid_dot', 'USDOT number is required: GET /v1/carrier/{dot}')
    })
    .get('/carrier/', () => {
      throw new AppError('invalid_dot', 'USDOT number is required: GET /v1/carrier/{dot}')
    })
    .get('/carrier/:dot', async (c) => {
      c.set('route', '/v1/carrier/:dot')
      const dot = parseOr(DotParam, c.req.param('dot'), 'invalid_dot')
      const crosscheck = parseOr(CrosscheckQuery, c.req.query('crosscheck'), 'invalid_request')
      const caller = c.var.caller
      const record = findRecord(deps, caller, dot)
      const at = deps.clock()
      if (!record) {
        const err = notFoundForDot(dot)
        err.options.headers = rateLimitHeaders(peekUsage(deps.db, caller, at), at)
        throw err
      }
      try {
        const { json, usage } = await billAndShape(deps, caller, record, c.var.requestId, crosscheck)
        return c.json(json, 200, rateLimitHeaders(usage, at))
      } catch (err) {
        if (err instanceof AppError && err.code === 'quota_exceeded') deps.metrics.quotaRefusals.inc()
        throw err
      }
    })
