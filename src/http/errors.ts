import type { Context, ErrorHandler, NotFoundHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { AppError, errorCodes, type ErrorCode } from '../errors.ts'
import type { Logger } from '../log.ts'
import type { AppEnv } from './env.ts'

/** The one error body: `{status, error, code, request_id}` as application/json. */
export const errorResponse = (err: AppError, requestId: string) =>
  new Response(
    JSON.stringify({
      status: err.status,
      error: err.message,
      code: err.code,
      request_id: requestId,
      ...err.options.extra,
    }),
    {
      status: err.status,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-request-id': requestId,
        ...err.options.headers,
      },
    },
  )

function fromHttpException(err: HTTPException): AppError {
  const code = (Object.entries(errorCodes).find(([, v]) => v.status === err.status)?.[0] ??
    'invalid_request') as ErrorCode
  return new AppError(code)
}

export const onError =
  (log: Logger): ErrorHandler<AppEnv> =>
  (err, c) => {
    const id = c.get('requestId') ?? 'unknown'
    if (err instanceof AppError) return errorResponse(err, id)
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
        `Method ${c.req.method} is not allowed on ${path}; use ${allowed.join(', ')}`,
        { headers: { allow: allowed.join(', ') } },
      )
      return errorResponse(err, id)
    }
    return errorResponse(new AppError('not_found', `No route for ${c.req.method} ${path}`), id)
  }
