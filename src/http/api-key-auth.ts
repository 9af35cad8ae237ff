import type { MiddlewareHandler } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { SECRET_PATTERN, verifyKey } from '../keys/keys.ts'
import type { AppEnv } from './env.ts'

const BEARER = /^Bearer\s+(\S+)\s*$/i

/**
 * Resolves `Authorization: Bearer cvk_…` to a caller. Missing, malformed, unknown, revoked and
 * expired keys get the same 401; an account without an active subscription (or suspended) 402.
 */
export const apiKeyAuth =
  ({ db, clock }: Pick<Deps, 'db' | 'clock'>): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const header = c.req.header('authorization') ?? ''
    const secret = BEARER.exec(header)?.[1]
    const www = { 'www-authenticate': 'Bearer realm="carrier-verify"' }
    if (!secret || !SECRET_PATTERN.test(secret))
      throw new AppError('unauthorized', undefined, { headers: www })
    const result = verifyKey(db, secret, clock().getTime())
    if (!result.ok) {
      if (result.reason === 'no_subscription' || result.reason === 'suspended')
        throw new AppError(
          'payment_required',
          result.reason === 'suspended'
            ? 'The account is suspended; contact your administrator'
            : 'The account has no active API subscription',
        )
      throw new AppError('unauthorized', undefined, { headers: www })
    }
    c.set('caller', result.caller)
    await next()
  }
