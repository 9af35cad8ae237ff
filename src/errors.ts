export const errorCodes = {
  invalid_request: { status: 400, message: 'Invalid request' },
  invalid_dot: { status: 400, message: 'Missing or invalid USDOT number' },
  invalid_docket: { status: 400, message: 'Invalid MC/FF/MX docket number' },
  unauthorized: { status: 401, message: 'Missing, invalid or revoked API key' },
  payment_required: { status: 402, message: 'No active API subscription' },
  forbidden: { status: 403, message: 'Not allowed' },
  not_found: { status: 404, message: 'Not found' },
  method_not_allowed: { status: 405, message: 'Method not allowed' },
  conflict: { status: 409, message: 'Conflict' },
  payload_too_large: { status: 413, message: 'Request body too large' },
  unsupported_media_type: { status: 415, message: 'Content-Type must be application/json' },
  quota_exceeded: { status: 429, message: 'Monthly quota reached; upgrade to continue' },
  internal: { status: 500, message: 'Internal server error' },
  dataset_unavailable: { status: 503, message: 'Data is not imported yet; try again later' },
} as const satisfies Record<string, { status: number; message: string }>
export type ErrorCode = keyof typeof errorCodes

export interface AppErrorOptions {
  cause?: unknown
  headers?: Record<string, string>
  extra?: Record<string, unknown>
}

/** The only error we throw on purpose. `message` is for API clients; `cause` never leaves the server. */
export class AppError extends Error {
  readonly code: ErrorCode
  readonly options: AppErrorOptions
  constructor(code: ErrorCode, message?: string, options: AppErrorOptions = {}) {
    super(message ?? errorCodes[code].message, { cause: options.cause })
    this.code = code
    this.options = options
  }
  get status(): number {
    return errorCodes[this.code].status
  }
}
