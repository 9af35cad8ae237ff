import type { Context, ErrorHandler, NotFoundHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import {
  AppError,
  clip,
  errorCodes,
  retryAfterOf,
  storageFailureCode,
  toAppError,
  type ErrorCode,
} from '../errors.ts'
import type { Logger } from '../log.ts'
import type { AppEnv } from './env.ts'

/** At most this many validation issues are listed in an error body. */
const MAX_ISSUES = 10

/**
 * The one error body: `{status, error, code, request_id}` as application/json. The message and the
 * listed issues are bounded (they may quote client input), and every 503 carries Retry-After.
 */
export const errorResponse = (err: AppError, requestId: string) => {
  const extra = { ...err.options.extra }
  if (Array.isArray(extra.issues))
    extra.issues = (extra.issues as { path: string; message: string }[])
      .slice(0, MAX_ISSUES)
      .map((i) => ({ path: clip(String(i.path)), message: clip(String(i.message)) }))
  const retryAfter = retryAfterOf(err.code)
  return new Response(
    JSON.stringify({
      status: err.status,
      error: clip(err.message, 1024),
      code: err.code,
      request_id: requestId,
      ...extra,
    }),
    {
      status: err.status,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-request-id': requestId,
        ...(retryAfter === null ? {} : { 'retry-after': String(retryAfter) }),
        ...err.options.headers,
      },
    },
  )
}

function fromHttpException(err: HTTPException): AppError {
  const code = (Object.entries(errorCodes).find(([, v]) => v.status === err.status)?.[0] ??
    'invalid_request') as ErrorCode
  return new AppError(code)
}

export const onError =
  (log: Logger): ErrorHandler<AppEnv> =>
  (err, c) => {
    const id = c.get('requestId') ?? 'unknown'
    const known = toAppError(err)
    if (known) {
      if (known.code === 'storage_unavailable')
        log.error(
          { request_id: id, storage_error: storageFailureCode(err), detail: String(err) },
          'storage unavailable',
        )
      return errorResponse(known, id)
    }
    if (err instanceof HTTPException && err.status < 500)
      return errorResponse(fromHttpException(err), id)
    log.error({ err, request_id: id }, 'unhandled error')
    return errorResponse(new AppError('internal'), id) // never echo err.message
  }

/** Route patterns and their methods, for 405 vs 404 on unmatched requests. */
export interface KnownRoute {
  method: string
  pattern: RegExp
}

export const notFound =
  (known: () => readonly KnownRoute[]): NotFoundHandler<AppEnv> =>
  (c: Context<AppEnv>) => {
    const id = c.get('requestId') ?? 'unknown'
    const path = c.req.path
    const allowed = [
      ...new Set(
        known()
          .filter((r) => r.pattern.test(path))
          .map((r) => r.method),
      ),
    ]
    if (allowed.length > 0) {
      const err = new AppError(
        'method_not_allowed',
        `Method ${clip(c.req.method, 32)} is not allowed on ${clip(path)}; use ${allowed.join(', ')}`,
        { headers: { allow: allowed.join(', ') } },
      )
      return errorResponse(err, id)
    }
    return errorResponse(
      new AppError('not_found', `No route for ${c.req.method} ${clip(path)}`),
      id,
    )
  }
