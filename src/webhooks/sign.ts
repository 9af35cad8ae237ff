/** Standard Webhooks signing (https://www.standardwebhooks.com/, symmetric `v1`). */
import { createHmac, randomBytes } from 'node:crypto'

const PREFIX = 'whsec_'

/** A new endpoint secret: `whsec_` + 32 random bytes in base64 (the spec's format). */
export const generateSecret = () => `${PREFIX}${randomBytes(32).toString('base64')}`

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`; `timestamp` is Unix seconds. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(
    secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret,
    'base64',
  )
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`
}

/**
 * The `webhook-signature` header: one signature per secret, space-separated, so a receiver that
 * still holds the previous secret keeps verifying during a rotation's grace period.
 */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): string {
  return secrets.map((s) => sign(s, id, timestamp, body)).join(' ')
}
