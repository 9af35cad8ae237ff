import { pino, type Logger, type DestinationStream } from 'pino'

export type { Logger }

/** Paths pino blanks out wherever they appear: secrets never reach a log line. */
export const REDACT = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'secret',
  '*.secret',
  'webKey',
  '*.webKey',
  'token',
  '*.token',
  'adminToken',
]

/**
 * Log lines are written to stderr in batches of at least this many bytes (one write for many
 * request lines instead of one each: a write per line is a noticeable share of a lookup's CPU)...
 */
export const LOG_BATCH_BYTES = 4096
/** ...and at most this late when traffic is too light to fill a batch. pino writes what is left
 * when the process exits (also after an uncaught error); a SIGKILL loses at most this much. */
export const LOG_FLUSH_MS = 250

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'carrier-verify' },
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ??
      pino.destination({
        dest: 2,
        sync: false,
        minLength: LOG_BATCH_BYTES,
        periodicFlush: LOG_FLUSH_MS,
      }),
  )
}

export const silentLogger = (): Logger => pino({ level: 'silent' })
