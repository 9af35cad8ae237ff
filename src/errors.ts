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
  no_contact_email: {
    status: 409,
    message: 'The company has no usable e-mail address on its FMCSA record',
  },
  payload_too_large: { status: 413, message: 'Request body too large' },
  unsupported_media_type: { status: 415, message: 'Content-Type must be application/json' },
  quota_exceeded: { status: 429, message: 'Monthly quota reached; upgrade to continue' },
  rate_limited: { status: 429, message: 'Too many requests of this kind; try again later' },
  internal: { status: 500, message: 'Internal server error' },
  dataset_unavailable: {
    status: 503,
    message: 'Data is not imported yet; try again later',
    retryAfter: 60,
  },
  mirror_not_ready: {
    status: 503,
    message: "The regulator's data is not mirrored yet; only the sample companies are loaded",
    retryAfter: 600,
  },
  mail_unavailable: {
    status: 503,
    message: 'E-mail is not configured on this appliance (SMTP_URL)',
    retryAfter: 3600,
  },
  storage_unavailable: {
    status: 503,
    message: 'Storage is unavailable (disk full, read-only or busy); try again later',
    retryAfter: 30,
  },
} as const satisfies Record<string, { status: number; message: string; retryAfter?: number }>
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

/** Seconds a client should wait before retrying (every 503 code declares it: Retry-After). */
export function retryAfterOf(code: ErrorCode): number | null {
  const e = errorCodes[code]
  return 'retryAfter' in e ? e.retryAfter : null
}

/**
 * SQLite result codes (better-sqlite3's `SqliteError.code`, extended codes included) and Node file
 * system errors that mean the data directory cannot be written or read: a full disk, a read-only
 * or failing volume, a missing or unopenable file, a lock held too long. They are an outage the
 * appliance reports (503 `storage_unavailable` with Retry-After), never a bug (500).
 */
const STORAGE_CODES = [
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'SQLITE_READONLY',
  'SQLITE_CANTOPEN',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_PROTOCOL',
  'SQLITE_NOLFS',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'ENOSPC',
  'EDQUOT',
  'EROFS',
  'EIO',
]

/** The storage failure inside `err` (walking `cause`), as its code, or null. */
export function storageFailureCode(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code
    if (
      typeof code === 'string' &&
      STORAGE_CODES.some((c) => code === c || code.startsWith(`${c}_`))
    )
      return code
    e = (e as { cause?: unknown }).cause
  }
  return null
}

/**
 * The one place an error becomes an AppError: AppErrors as they are, storage failures as 503
 * `storage_unavailable` (the code kept as cause for the log), anything else null (a bug: 500).
 */
export function toAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err
  const storage = storageFailureCode(err)
  if (storage !== null) return new AppError('storage_unavailable', undefined, { cause: err })
  return null
}

/** Input quoted back in a message is cut to this many characters (never echo unbounded input). */
export const ECHO_LIMIT = 256

/** `s` cut to `max` characters with an ellipsis. */
export const clip = (s: string, max = ECHO_LIMIT): string =>
  s.length <= max ? s : `${s.slice(0, max)}…`
