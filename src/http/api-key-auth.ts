import type { MiddlewareHandler } from 'hono'
import { AppError } from '../errors.ts'
import { refuseAccount, type BillingDeps } from '../keys/billing.ts'
import { SECRET_PATTERN, verifyKey } from '../keys/keys.ts'
import type { AppEnv } from './env.ts'

const BEARER = /^Bearer\s+(\S+)\s*$/i

/**
 * Resolves `Authorization: Bearer cvk_…` to a caller. Missing, malformed, unknown, revoked and
 * expired keys get the same 401; an account without an active subscription (or suspended) 402,
 * counted as a refused call (keys/billing.ts).
 */
export const apiKeyAuth =
  (deps: BillingDeps): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const header = c.req.header('authorization') ?? ''
    const secret = BEARER.exec(header)?.[1]
    const www = { 'www-authenticate': 'Bearer realm="carrier-verify"' }
    if (!secret || !SECRET_PATTERN.test(secret))
      throw new AppError('unauthorized', undefined, { headers: www })
    const result = verifyKey(deps.db, secret, deps.clock().getTime())
    if (!result.ok) {
      if (result.reason === 'no_subscription') throw refuseAccount(deps, result, 'plan')
      if (result.reason === 'suspended') throw refuseAccount(deps, result, 'suspended')
      throw new AppError('unauthorized', undefined, { headers: www })
    }
    c.set('caller', result.caller)
    await next()
  }
