/** Webhook endpoints per account: add, list, remove, rotate the secret, enable, disable. */
import { DAY } from '../clock.ts'
import type { Config } from '../config.ts'
import type { Sqlite } from '../db/open.ts'
import { AppError } from '../errors.ts'
import { hasAccess, mustGetAccount } from '../keys/accounts.ts'
import { PLANS } from '../keys/plans.ts'
import { EVENT_TYPES, type EventType } from '../db/outbox.ts'
import { generateSecret } from './sign.ts'
import { checkTarget, parseTargetUrl, systemLookup, type LookupAll } from './targets.ts'

/** Event types an endpoint can subscribe to (`webhook.test` always reaches the tested endpoint). */
export const SUBSCRIBABLE_EVENTS = EVENT_TYPES.filter((t) => t !== 'webhook.test')
export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number]

export const MAX_ENDPOINTS_PER_ACCOUNT = 20
/** How long the previous secret keeps signing after a rotation. */
export const SECRET_ROTATION_GRACE_MS = DAY

export type EndpointStatus = 'enabled' | 'disabled'

export interface Endpoint {
  id: number
  accountId: number
  url: string
  /** null = every event type */
  events: EventType[] | null
  status: EndpointStatus
  disabledReason: string | null
  consecutiveFailures: number
  createdAt: number
  disabledAt: number | null
  removedAt: number | null
  /** while set and in the future, the previous secret signs too */
  previousSecretExpiresAt: number | null
}

/** The stored row with its secrets: only the delivery path reads these. */
export interface EndpointSecrets {
  secret: string
  previousSecret: string | null
  previousSecretExpiresAt: number | null
}

export interface EndpointDeps {
  db: Sqlite
  config: Pick<Config, 'webhooks'>
  lookup?: LookupAll
}

const COLS = `id, account_id AS accountId, url, events, status, disabled_reason AS disabledReason,
  consecutive_failures AS consecutiveFailures, created_at AS createdAt, disabled_at AS disabledAt,
  removed_at AS removedAt, previous_secret_expires_at AS previousSecretExpiresAt`

type Row = Omit<Endpoint, 'events'> & { events: string | null }
const fromRow = (r: Row): Endpoint => ({
  ...r,
  events: r.events === null ? null : (JSON.parse(r.events) as EventType[]),
})

/** Parses `--events a,b` (empty, `*` or `all` = every type); throws invalid_request on an unknown type. */
export function parseEventTypes(text: string | undefined): SubscribableEvent[] | null {
  if (text === undefined) return null
  const items = [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ]
  if (items.length === 0 || items.includes('*') || items.includes('all')) return null
  const known = SUBSCRIBABLE_EVENTS as readonly string[]
  const unknown = items.filter((t) => !known.includes(t))
  if (unknown.length)
    throw new AppError(
      'invalid_request',
      `unknown event type(s) ${unknown.join(', ')}; one of ${SUBSCRIBABLE_EVENTS.join(', ')}`,
    )
  return items as SubscribableEvent[]
}

/** Throws unless the account's current plan includes webhooks (paid plans) and is in force. */
export function assertWebhooksAllowed(db: Sqlite, accountId: number, now: number): void {
  const account = mustGetAccount(db, accountId)
  const sub = account.subscription
  if (!sub || !hasAccess(sub, now))
    throw new AppError(
      'payment_required',
      `Account ${accountId} has no active subscription; webhooks need a paid plan`,
    )
  if (!PLANS[sub.plan].webhooks)
    throw new AppError(
      'forbidden',
      `Webhooks and carrier monitoring are available on paid plans only; account ${accountId} is on the ${sub.plan} plan (carrier-verify accounts set-plan ${accountId} starter)`,
    )
}

export function getEndpoint(db: Sqlite, id: number): Endpoint | null {
  const row = db.prepare(`SELECT ${COLS} FROM webhook_endpoints WHERE id = ?`).get(id) as
    Row | undefined
  return row ? fromRow(row) : null
}

/** An endpoint that exists and was not removed; throws not_found otherwise. */
export function mustGetEndpoint(db: Sqlite, id: number): Endpoint {
  const e = getEndpoint(db, id)
  if (!e || e.removedAt !== null)
    throw new AppError('not_found', `No webhook endpoint with id ${id}`)
  return e
}

export function endpointSecrets(db: Sqlite, id: number): EndpointSecrets | null {
  return (
    (db
      .prepare(
        `SELECT secret, previous_secret AS previousSecret, previous_secret_expires_at AS previousSecretExpiresAt
         FROM webhook_endpoints WHERE id = ?`,
      )
      .get(id) as EndpointSecrets | undefined) ?? null
  )
}

/** The secrets that sign a message now: the current one, plus the previous one within its grace. */
export function signingSecrets(s: EndpointSecrets, now: number): string[] {
  return s.previousSecret !== null &&
    s.previousSecretExpiresAt !== null &&
    s.previousSecretExpiresAt > now
    ? [s.secret, s.previousSecret]
    : [s.secret]
}

export function listEndpoints(
  db: Sqlite,
  opts: { accountId?: number; includeRemoved?: boolean } = {},
): Endpoint[] {
  const where: string[] = []
  const params: unknown[] = []
  if (opts.accountId !== undefined) {
    where.push('account_id = ?')
    params.push(opts.accountId)
  }
  if (!opts.includeRemoved) where.push('removed_at IS NULL')
  const rows = db
    .prepare(
      `SELECT ${COLS} FROM webhook_endpoints ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id`,
    )
    .all(...params) as Row[]
  return rows.map(fromRow)
}

export interface AddEndpointInput {
  accountId: number
  url: string
  events?: readonly SubscribableEvent[] | null
}

/**
 * Adds an endpoint for a paid account after checking the URL against the target policy, and
 * returns it with its new `whsec_` secret (shown once: it is never listed again).
 */
export async function addEndpoint(
  deps: EndpointDeps,
  input: AddEndpointInput,
  now: number,
): Promise<{ endpoint: Endpoint; secret: string }> {
  assertWebhooksAllowed(deps.db, input.accountId, now)
  const url = parseTargetUrl(input.url)
  const check = await checkTarget(
    url,
    deps.config.webhooks.allowedTargets,
    deps.lookup ?? systemLookup,
    'save',
  )
  if (!check.ok) throw new AppError('invalid_request', `webhook target refused: ${check.reason}`)
  const secret = generateSecret()
  const events = input.events && input.events.length > 0 ? JSON.stringify(input.events) : null
  const id = deps.db
    .transaction(() => {
      const { n } = deps.db
        .prepare(
          'SELECT count(*) AS n FROM webhook_endpoints WHERE account_id = ? AND removed_at IS NULL',
        )
        .get(input.accountId) as { n: number }
      if (n >= MAX_ENDPOINTS_PER_ACCOUNT)
        throw new AppError(
          'conflict',
          `Account ${input.accountId} already has ${n} webhook endpoints (the limit is ${MAX_ENDPOINTS_PER_ACCOUNT})`,
        )
      return Number(
        deps.db
          .prepare(
            `INSERT INTO webhook_endpoints (account_id, url, secret, events, status, consecutive_failures, created_at)
             VALUES (?, ?, ?, ?, 'enabled', 0, ?)`,
          )
          .run(input.accountId, url, secret, events, now).lastInsertRowid,
      )
    })
    .immediate()
  return { endpoint: mustGetEndpoint(deps.db, id), secret }
}

/**
 * Removes an endpoint: the row stays for the delivery history, its outstanding deliveries are
 * abandoned, and a removed id is not_found from then on.
 */
export function removeEndpoint(db: Sqlite, id: number, now: number): Endpoint {
  mustGetEndpoint(db, id)
  db.transaction(() => {
    db.prepare(
      `UPDATE webhook_endpoints SET removed_at = ?, status = 'disabled', disabled_at = coalesce(disabled_at, ?),
         disabled_reason = coalesce(disabled_reason, 'removed') WHERE id = ?`,
    ).run(now, now, id)
    db.prepare(
      `UPDATE webhook_deliveries SET status = 'abandoned', next_attempt_at = NULL, last_error = 'endpoint removed'
       WHERE endpoint_id = ? AND status IN ('pending', 'failed', 'delivering')`,
    ).run(id)
  }).immediate()
  const e = getEndpoint(db, id)
  if (!e) throw new AppError('not_found', `No webhook endpoint with id ${id}`)
  return e
}

/**
 * Issues a new secret. The previous one keeps signing (a second signature in the header) until
 * `now + graceMs`; a second rotation within the grace drops the oldest secret.
 */
export function rotateSecret(
  db: Sqlite,
  id: number,
  now: number,
  graceMs = SECRET_ROTATION_GRACE_MS,
): { endpoint: Endpoint; secret: string; previousExpiresAt: number } {
  mustGetEndpoint(db, id)
  const secret = generateSecret()
  const previousExpiresAt = now + graceMs
  db.prepare(
    `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = ?, secret = ?
     WHERE id = ? AND removed_at IS NULL`,
  ).run(previousExpiresAt, secret, id)
  return { endpoint: mustGetEndpoint(db, id), secret, previousExpiresAt }
}

/**
 * Re-enables an endpoint (paid plans only): clears the failure count and makes its outstanding
 * deliveries due now. A delivery older than the retry window gets one more attempt.
 */
export function enableEndpoint(db: Sqlite, id: number, now: number): Endpoint {
  const e = mustGetEndpoint(db, id)
  assertWebhooksAllowed(db, e.accountId, now)
  db.transaction(() => {
    db.prepare(
      `UPDATE webhook_endpoints SET status = 'enabled', disabled_reason = NULL, disabled_at = NULL,
         consecutive_failures = 0 WHERE id = ?`,
    ).run(id)
    db.prepare(
      `UPDATE webhook_deliveries SET next_attempt_at = ? WHERE endpoint_id = ? AND status IN ('pending', 'failed')`,
    ).run(now, id)
  }).immediate()
  return mustGetEndpoint(db, id)
}

/** Stops deliveries to an endpoint; outstanding ones wait (and resume on enable). */
export function disableEndpoint(db: Sqlite, id: number, reason: string, now: number): Endpoint {
  mustGetEndpoint(db, id)
  db.prepare(
    `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ?, disabled_at = ? WHERE id = ?`,
  ).run(reason, now, id)
  return mustGetEndpoint(db, id)
}
