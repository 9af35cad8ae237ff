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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'carrier-verify' },
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ dest: 2, sync: false }),
  )
}

export const silentLogger = (): Logger => pino({ level: 'silent' })
