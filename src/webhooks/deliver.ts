/**
 * The delivery job: claims due deliveries, POSTs them in the Standard Webhooks format and records
 * every attempt. At-least-once: a claim is a lease (status 'delivering' until `next_attempt_at`),
 * so a process that dies mid-send leaves a claim that expires and is retried; a result is written
 * only while the claim is still ours, and a delivery marked succeeded is never sent again.
 */
import { performance } from 'node:perf_hooks'
import { DAY, type Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import type { Sqlite } from '../db/open.ts'
import { AppError } from '../errors.ts'
import type { Logger } from '../log.ts'
import { dispatchEvents } from './dispatch.ts'
import { endpointSecrets, mustGetEndpoint, signingSecrets } from './endpoints.ts'
import { newMessageId, type EventType } from '../db/outbox.ts'
import { signatureHeader } from './sign.ts'
import { checkTarget, systemLookup, type LookupAll } from './targets.ts'

/** A delivery is abandoned once this long has passed since its first attempt. */
export const RETRY_WINDOW_MS = 3 * DAY
/**
 * A claim lasts two request timeouts (DNS lookup, then the request) plus this margin before
 * another worker may take it over.
 */
export const CLAIM_MARGIN_MS = 60_000
/**
 * An endpoint is disabled for persistent failure when a delivery to it is abandoned (3 days of
 * failed retries), nothing to it succeeded since that delivery's first attempt, and at least this
 * many attempts in a row failed.
 */
export const DISABLE_AFTER_CONSECUTIVE_FAILURES = 10
const USER_AGENT = 'carrier-verify-webhooks/1'
const CONCURRENCY = 8

export interface DeliverDeps {
  db: Sqlite
  config: Pick<Config, 'webhooks'>
  clock: Clock
  fetch: typeof globalThis.fetch
  random: () => number
  log: Logger
  /** DNS lookup for the send-time target check (node:dns by default) */
  lookup?: LookupAll
}

/**
 * Delay before retry number `attempts` (1 after the first failure): ×4 from 10 s (10 s, 40 s,
 * 2.7 min, 11 min, 43 min, 2.8 h, 11 h, then daily), capped at a day, ±20% jitter.
 */
export const retryDelayMs = (attempts: number, random: () => number) =>
  Math.round(Math.min(DAY, 10_000 * 4 ** Math.max(0, attempts - 1)) * (0.8 + 0.4 * random()))

/** Retry-After as seconds or an HTTP date, in ms from `now`; null when absent or unparsable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null
  const v = value.trim()
  if (/^\d+$/.test(v)) return Number(v) * 1000
  const at = Date.parse(v)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

/** The exact body sent (and signed): `{type, timestamp, data}` with `data` as stored. */
export const payloadOf = (type: string, createdAt: number, data: string) =>
  `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(new Date(createdAt).toISOString())},"data":${data}}`

interface Claimed {
  id: number
  eventId: string
  endpointId: number
  /** the attempt number this claim owns (the fencing token of the lease) */
  attempts: number
  firstAttemptAt: number
  url: string
  type: EventType
  data: string
  eventCreatedAt: number
}

type SendResult =
  | { kind: 'success'; statusCode: number; durationMs: number }
  | {
      kind: 'failure'
      statusCode: number | null
      error: string
      retryAfterMs: number | null
      durationMs: number
    }
  | { kind: 'interrupted'; error: string; durationMs: number }

export interface AttemptOutcome {
  deliveryId: number
  eventId: string
  endpointId: number
  status: 'succeeded' | 'failed' | 'abandoned'
  statusCode: number | null
  error: string | null
  durationMs: number
  nextAttemptAt: number | null
  endpointDisabled: string | null
}

const claimExpiry = (deps: DeliverDeps, now: number) =>
  now + 2 * deps.config.webhooks.timeoutMs + CLAIM_MARGIN_MS

const CLAIMED_COLS = `d.id, d.event_id AS eventId, d.endpoint_id AS endpointId, d.attempts,
  d.first_attempt_at AS firstAttemptAt, e.url, ev.type, ev.data, ev.created_at AS eventCreatedAt`

/**
 * Claims up to `limit` due deliveries of enabled endpoints in one immediate transaction, skipping
 * endpoints with a send in flight (one request at a time per endpoint: a slow receiver holds one
 * worker, not all). An expired claim (a process stopped mid-send) is taken over, and its lost
 * attempt is recorded.
 */
export function claimDue(deps: DeliverDeps, limit: number): Claimed[] {
  const { db } = deps
  const now = deps.clock().getTime()
  const until = claimExpiry(deps, now)
  return db
    .transaction((): Claimed[] => {
      const due = db
        .prepare(
          `SELECT d.id, d.status, d.attempts, d.last_attempt_at AS lastAttemptAt FROM webhook_deliveries d
             JOIN webhook_endpoints e ON e.id = d.endpoint_id
           WHERE d.status IN ('pending', 'failed', 'delivering') AND d.next_attempt_at <= @now
             AND e.status = 'enabled' AND e.removed_at IS NULL
             AND NOT EXISTS (SELECT 1 FROM webhook_deliveries x WHERE x.status = 'delivering'
               AND x.next_attempt_at > @now AND x.endpoint_id = d.endpoint_id)
           ORDER BY d.next_attempt_at, d.id LIMIT @limit`,
        )
        .all({ now, limit }) as {
        id: number
        status: string
        attempts: number
        lastAttemptAt: number | null
      }[]
      const out: Claimed[] = []
      for (const d of due) {
        if (d.status === 'delivering')
          db.prepare(
            'INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, error) VALUES (?, ?, NULL, ?)',
          ).run(
            d.id,
            d.lastAttemptAt ?? now,
            'interrupted: no result was recorded before the claim expired (process stopped?)',
          )
        const claimed = claimRow(db, d.id, d.status, d.attempts, now, until)
        if (claimed) out.push(claimed)
      }
      return out
    })
    .immediate()
}

function claimRow(
  db: Sqlite,
  id: number,
  status: string,
  attempts: number,
  now: number,
  until: number,
): Claimed | null {
  const changed = db
    .prepare(
      `UPDATE webhook_deliveries SET status = 'delivering', attempts = attempts + 1, next_attempt_at = ?,
         first_attempt_at = coalesce(first_attempt_at, ?), last_attempt_at = ?
       WHERE id = ? AND status = ? AND attempts = ?`,
    )
    .run(until, now, now, id, status, attempts).changes
  if (changed !== 1) return null
  return (
    (db
      .prepare(
        `SELECT ${CLAIMED_COLS} FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
           JOIN webhook_events ev ON ev.id = d.event_id WHERE d.id = ?`,
      )
      .get(id) as Claimed | undefined) ?? null
  )
}

/** dns.lookup cannot be aborted: bound it so a claim outlives the whole attempt. */
const withTimeout =
  (lookupAll: LookupAll, ms: number): LookupAll =>
  (host) => {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error('DNS lookup timed out'), { code: 'ETIMEOUT' })),
        ms,
      )
    })
    return Promise.race([lookupAll(host), timeout]).finally(() => clearTimeout(timer))
  }

const errorText = (err: unknown): string => {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause
  if (cause && typeof cause.message === 'string' && cause.message) return cause.message
  if (cause && typeof cause.code === 'string') return cause.code
  return err instanceof Error ? err.message : String(err)
}

/** One HTTP attempt: signs the exact bytes, no redirects, a timeout, the job's abort signal. */
async function send(deps: DeliverDeps, c: Claimed, signal: AbortSignal): Promise<SendResult> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const secrets = endpointSecrets(deps.db, c.endpointId)
  if (!secrets)
    return {
      kind: 'failure',
      statusCode: null,
      error: 'endpoint not found',
      retryAfterMs: null,
      durationMs: 0,
    }
  const target = await checkTarget(
    c.url,
    deps.config.webhooks.allowedTargets,
    withTimeout(deps.lookup ?? systemLookup, deps.config.webhooks.timeoutMs),
    'send',
  )
  if (!target.ok)
    return {
      kind: 'failure',
      statusCode: null,
      error: `target refused: ${target.reason}`,
      retryAfterMs: null,
      durationMs: elapsed(),
    }
  const now = deps.clock().getTime()
  const timestamp = Math.floor(now / 1000)
  const body = payloadOf(c.type, c.eventCreatedAt, c.data)
  const timeout = AbortSignal.timeout(deps.config.webhooks.timeoutMs)
  try {
    const res = await deps.fetch(c.url, {
      method: 'POST',
      body,
      redirect: 'manual',
      signal: AbortSignal.any([timeout, signal]),
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': c.eventId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(
          signingSecrets(secrets, now),
          c.eventId,
          timestamp,
          body,
        ),
      },
    })
    // the body is not used: release the connection without reading it
    await res.body?.cancel().catch(() => undefined)
    const durationMs = elapsed()
    if (res.status >= 200 && res.status < 300)
      return { kind: 'success', statusCode: res.status, durationMs }
    const redirect = res.status === 0 || (res.status >= 300 && res.status < 400)
    return {
      kind: 'failure',
      statusCode: res.status === 0 ? null : res.status,
      error: redirect
        ? `HTTP ${res.status}: redirects are not followed`
        : `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`,
      retryAfterMs:
        res.status === 429 || res.status === 503
          ? parseRetryAfter(res.headers.get('retry-after'), now)
          : null,
      durationMs,
    }
  } catch (err) {
    const durationMs = elapsed()
    if (signal.aborted)
      return { kind: 'interrupted', error: 'interrupted: the job was stopped', durationMs }
    if (timeout.aborted)
      return {
        kind: 'failure',
        statusCode: null,
        error: `timeout after ${deps.config.webhooks.timeoutMs} ms`,
        retryAfterMs: null,
        durationMs,
      }
    return {
      kind: 'failure',
      statusCode: null,
      error: errorText(err).slice(0, 500),
      retryAfterMs: null,
      durationMs,
    }
  }
}

/**
 * Records an attempt and its consequences in one transaction. Every write to the delivery checks
 * the claim (`status = 'delivering' AND attempts = claimed`), so a stale worker changes nothing.
 */
function record(deps: DeliverDeps, c: Claimed, r: SendResult): AttemptOutcome {
  const { db } = deps
  const now = deps.clock().getTime()
  const statusCode = r.kind === 'interrupted' ? null : r.statusCode
  const error = r.kind === 'success' ? null : r.error
  const claim = { id: c.id, attempts: c.attempts }
  const claimCheck = `id = @id AND status = 'delivering' AND attempts = @attempts`
  return db
    .transaction((): AttemptOutcome => {
      db.prepare(
        'INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, error, duration_ms) VALUES (?, ?, ?, ?, ?)',
      ).run(c.id, now - r.durationMs, statusCode, error, r.durationMs)
      const base = {
        deliveryId: c.id,
        eventId: c.eventId,
        endpointId: c.endpointId,
        statusCode,
        error,
        durationMs: r.durationMs,
        endpointDisabled: null,
      }
      const isTest = c.type === 'webhook.test'

      if (r.kind === 'success') {
        const ok = db
          .prepare(
            `UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL, last_status_code = @code,
               last_error = NULL WHERE ${claimCheck}`,
          )
          .run({ ...claim, code: r.statusCode }).changes
        if (ok && !isTest)
          db.prepare('UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = ?').run(
            c.endpointId,
          )
        return { ...base, status: 'succeeded', nextAttemptAt: null }
      }

      if (r.kind === 'interrupted') {
        // not the receiver's fault: retry as soon as a worker runs again, without counting it
        const status = isTest ? 'abandoned' : 'failed'
        const next = isTest ? null : now
        db.prepare(
          `UPDATE webhook_deliveries SET status = @status, next_attempt_at = @next, last_status_code = NULL,
             last_error = @error WHERE ${claimCheck}`,
        ).run({ ...claim, status, next, error: r.error })
        return { ...base, status, nextAttemptAt: next }
      }

      // a test is a single shot: it is not retried and does not count towards disabling
      const deadline = c.firstAttemptAt + RETRY_WINDOW_MS
      const abandon = isTest || now >= deadline
      const delay =
        r.retryAfterMs !== null
          ? Math.min(DAY, Math.max(1000, r.retryAfterMs))
          : retryDelayMs(c.attempts, deps.random)
      const nextAttemptAt = abandon ? null : Math.min(now + delay, deadline)
      const changed = db
        .prepare(
          `UPDATE webhook_deliveries SET status = @status, next_attempt_at = @next, last_status_code = @code,
             last_error = @error WHERE ${claimCheck}`,
        )
        .run({
          ...claim,
          status: abandon ? 'abandoned' : 'failed',
          next: nextAttemptAt,
          code: r.statusCode,
          error: r.error,
        }).changes
      let endpointDisabled: string | null = null
      if (changed && !isTest) {
        const { failures } = db
          .prepare(
            'UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1 WHERE id = ? RETURNING consecutive_failures AS failures',
          )
          .get(c.endpointId) as { failures: number }
        if (r.statusCode === 410) endpointDisabled = 'the endpoint answered 410 Gone'
        else if (
          abandon &&
          failures >= DISABLE_AFTER_CONSECUTIVE_FAILURES &&
          !db
            .prepare(
              `SELECT 1 FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'succeeded' AND last_attempt_at >= ? LIMIT 1`,
            )
            .get(c.endpointId, c.firstAttemptAt)
        )
          endpointDisabled = `persistent failure: nothing delivered for ${Math.round((now - c.firstAttemptAt) / 3_600_000)} h (${failures} failed attempts in a row)`
        if (endpointDisabled)
          db.prepare(
            `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ?, disabled_at = ?
             WHERE id = ? AND status = 'enabled'`,
          ).run(endpointDisabled, now, c.endpointId)
      }
      return {
        ...base,
        status: abandon ? 'abandoned' : 'failed',
        nextAttemptAt,
        endpointDisabled,
      }
    })
    .immediate()
}

async function attempt(deps: DeliverDeps, c: Claimed, signal: AbortSignal) {
  const outcome = record(deps, c, await send(deps, c, signal))
  const fields = {
    delivery_id: c.id,
    event_id: c.eventId,
    endpoint_id: c.endpointId,
    type: c.type,
    attempt: c.attempts,
    status_code: outcome.statusCode,
    duration_ms: outcome.durationMs,
  }
  if (outcome.status === 'succeeded') deps.log.debug(fields, 'webhook delivered')
  else
    deps.log.warn(
      { ...fields, error: outcome.error, next_attempt_at: outcome.nextAttemptAt },
      outcome.status === 'abandoned' ? 'webhook delivery abandoned' : 'webhook delivery failed',
    )
  if (outcome.endpointDisabled)
    deps.log.warn(
      { endpoint_id: c.endpointId, reason: outcome.endpointDisabled },
      'webhook endpoint disabled',
    )
  return outcome
}

export interface DeliverSummary {
  dispatched: number
  attempted: number
  succeeded: number
  failed: number
  abandoned: number
}

/**
 * One run of the delivery job: fans out new outbox events, then sends due deliveries with a few
 * workers until none is due, `maxAttempts` were made or the signal aborts.
 */
export async function deliverDue(
  deps: DeliverDeps,
  opts: { signal?: AbortSignal; maxAttempts?: number } = {},
): Promise<DeliverSummary> {
  const signal = opts.signal ?? new AbortController().signal
  const max = opts.maxAttempts ?? 1000
  const summary: DeliverSummary = {
    dispatched: 0,
    attempted: 0,
    succeeded: 0,
    failed: 0,
    abandoned: 0,
  }
  for (;;) {
    const d = dispatchEvents(deps.db, deps.clock().getTime())
    summary.dispatched += d.deliveries
    if (d.events === 0) break
  }
  // each worker claims one delivery at a time, so a claim only has to outlive one send
  let started = 0
  const worker = async () => {
    while (!signal.aborted && started < max) {
      started++
      const [c] = claimDue(deps, 1)
      if (!c) return
      const o = await attempt(deps, c, signal)
      summary.attempted++
      summary[o.status]++
    }
  }
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, max) }, worker))
  return summary
}

/**
 * `webhooks test`: writes a `webhook.test` event with its delivery to this one endpoint (claimed
 * at once, so no job sends it too) and attempts it now, whatever the endpoint's status.
 */
export async function sendTestEvent(
  deps: DeliverDeps,
  endpointId: number,
  signal: AbortSignal = new AbortController().signal,
): Promise<AttemptOutcome> {
  const endpoint = mustGetEndpoint(deps.db, endpointId)
  const now = deps.clock().getTime()
  const until = claimExpiry(deps, now)
  const eventId = newMessageId()
  const claimed = deps.db
    .transaction((): Claimed | null => {
      deps.db
        .prepare(
          `INSERT INTO webhook_events (id, account_id, type, data, created_at, dispatched_at)
           VALUES (?, ?, 'webhook.test', ?, ?, ?)`,
        )
        .run(
          eventId,
          endpoint.accountId,
          JSON.stringify({
            endpoint_id: endpoint.id,
            account_id: endpoint.accountId,
            message:
              'Test event from carrier-verify: your endpoint is reachable and verifies signatures.',
          }),
          now,
          now,
        )
      const id = Number(
        deps.db
          .prepare(
            `INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts, next_attempt_at, created_at)
             VALUES (?, ?, 'pending', 0, ?, ?)`,
          )
          .run(eventId, endpoint.id, now, now).lastInsertRowid,
      )
      return claimRow(deps.db, id, 'pending', 0, now, until)
    })
    .immediate()
  if (!claimed) throw new AppError('internal', 'could not claim the test delivery')
  return attempt(deps, claimed, signal)
}
