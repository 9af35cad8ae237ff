/** `carrier-verify webhooks …`: endpoints, test sends, secret rotation and the delivery log. */
import { z } from 'zod'
import { sendTestEvent, type AttemptOutcome } from '../webhooks/deliver.ts'
import { DELIVERY_STATUSES, listDeliveries, type DeliveryInfo } from '../webhooks/deliveries.ts'
import {
  addEndpoint,
  disableEndpoint,
  enableEndpoint,
  listEndpoints,
  parseEventTypes,
  removeEndpoint,
  rotateSecret,
  type Endpoint,
} from '../webhooks/endpoints.ts'
import { Id, iso, json, parse, table, UsageError, validateArgs, type CommandSpec } from './io.ts'

/** The JSON shape of an endpoint in CLI output (never its secret). */
export const endpointJson = (e: Endpoint, now: number) => ({
  id: e.id,
  account_id: e.accountId,
  url: e.url,
  /** null = every event type */
  events: e.events,
  status: e.removedAt !== null ? 'removed' : e.status,
  disabled_reason: e.disabledReason,
  consecutive_failures: e.consecutiveFailures,
  created_at: iso(e.createdAt),
  disabled_at: iso(e.disabledAt),
  removed_at: iso(e.removedAt),
  previous_secret_expires_at:
    e.previousSecretExpiresAt !== null && e.previousSecretExpiresAt > now
      ? iso(e.previousSecretExpiresAt)
      : null,
})

export const deliveryJson = (d: DeliveryInfo) => ({
  id: d.id,
  event_id: d.eventId,
  event_type: d.eventType,
  endpoint_id: d.endpointId,
  account_id: d.accountId,
  status: d.status,
  attempts: d.attempts,
  created_at: iso(d.createdAt),
  first_attempt_at: iso(d.firstAttemptAt),
  last_attempt_at: iso(d.lastAttemptAt),
  next_attempt_at: d.status === 'failed' || d.status === 'pending' ? iso(d.nextAttemptAt) : null,
  last_status_code: d.lastStatusCode,
  last_error: d.lastError,
  attempt_log: d.attemptLog.map((a) => ({
    attempted_at: iso(a.attemptedAt),
    status_code: a.statusCode,
    error: a.error,
    duration_ms: a.durationMs,
  })),
})

const outcomeJson = (o: AttemptOutcome) => ({
  delivery_id: o.deliveryId,
  event_id: o.eventId,
  endpoint_id: o.endpointId,
  status: o.status,
  status_code: o.statusCode,
  error: o.error,
  duration_ms: o.durationMs,
})

const oneId = (positionals: string[]) => {
  if (positionals.length !== 1) throw new UsageError('expected one endpoint id')
  return validateArgs(Id, positionals[0])
}

const LIST_COLUMNS = [
  'id',
  'account_id',
  'url',
  'events',
  'status',
  'consecutive_failures',
  'disabled_reason',
  'created_at',
]

/** A small command over one endpoint id that prints the endpoint (id, or JSON with --json). */
const endpointCommand = (
  name: string,
  summary: string,
  act: (db: Parameters<typeof removeEndpoint>[0], id: number, now: number) => Endpoint,
  message: (e: Endpoint) => string,
): CommandSpec => ({
  name: `webhooks ${name}`,
  usage: `webhooks ${name} ID [--json]`,
  summary,
  async run(argv, ctx) {
    const { values, positionals } = parse(argv, { json: { type: 'boolean' } }, true)
    const id = oneId(positionals)
    const deps = ctx.deps()
    const now = deps.clock().getTime()
    const e = act(deps.db, id, now)
    ctx.io.stdout(values.json ? json(endpointJson(e, now)) : `${e.id}\n`)
    ctx.io.stderr(`${message(e)}\n`)
    return 0
  },
})

export const webhooksCommands: CommandSpec[] = [
  {
    name: 'webhooks add',
    usage: 'webhooks add --account ID --url URL [--events TYPE,TYPE] [--json]',
    summary:
      'add a webhook endpoint (paid plans); prints its whsec_ signing secret once (--json: {id, secret, …})',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        account: { type: 'string' },
        url: { type: 'string' },
        events: { type: 'string' },
        json: { type: 'boolean' },
      })
      const input = validateArgs(
        z.object({ account: Id, url: z.string({ message: '--url is required' }).min(1) }),
        values,
      )
      const events = (() => {
        try {
          return parseEventTypes(values.events)
        } catch (err) {
          throw new UsageError(err instanceof Error ? err.message : String(err))
        }
      })()
      const deps = ctx.deps()
      const now = deps.clock().getTime()
      const { endpoint, secret } = await addEndpoint(
        deps,
        { accountId: input.account, url: input.url, events },
        now,
      )
      ctx.io.stdout(values.json ? json({ ...endpointJson(endpoint, now), secret }) : `${secret}\n`)
      if (endpoint.url.startsWith('http:'))
        ctx.io.stderr(
          'note: plain http: payloads travel unencrypted (signatures still authenticate them); prefer https outside a trusted network\n',
        )
      ctx.io.stderr(
        `Created webhook endpoint ${endpoint.id} for account ${endpoint.accountId} (${endpoint.events?.join(', ') ?? 'all events'}). The signing secret is shown only once: store it now.\n`,
      )
      return 0
    },
  },
  {
    name: 'webhooks list',
    usage: 'webhooks list [--account ID] [--all] [--json]',
    summary: 'list webhook endpoints (--all includes removed ones); secrets are never shown',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        account: { type: 'string' },
        all: { type: 'boolean' },
        json: { type: 'boolean' },
      })
      const accountId = values.account === undefined ? undefined : validateArgs(Id, values.account)
      const deps = ctx.deps()
      const now = deps.clock().getTime()
      const rows = listEndpoints(deps.db, { accountId, includeRemoved: values.all }).map((e) =>
        endpointJson(e, now),
      )
      ctx.io.stdout(
        values.json
          ? json(rows)
          : table(
              rows.map((r) => ({ ...r, events: r.events?.join(',') ?? 'all' })),
              LIST_COLUMNS,
            ),
      )
      return 0
    },
  },
  endpointCommand(
    'remove',
    'remove an endpoint; its pending deliveries are abandoned (the delivery log stays)',
    removeEndpoint,
    (e) => `Removed webhook endpoint ${e.id}`,
  ),
  endpointCommand(
    'enable',
    're-enable an endpoint (after a 410 or persistent failure); its waiting deliveries are retried now',
    enableEndpoint,
    (e) => `Enabled webhook endpoint ${e.id}`,
  ),
  {
    name: 'webhooks disable',
    usage: 'webhooks disable ID [--reason TEXT] [--json]',
    summary: 'stop deliveries to an endpoint; waiting deliveries resume on enable',
    async run(argv, ctx) {
      const { values, positionals } = parse(
        argv,
        { reason: { type: 'string' }, json: { type: 'boolean' } },
        true,
      )
      const id = oneId(positionals)
      const deps = ctx.deps()
      const now = deps.clock().getTime()
      const e = disableEndpoint(deps.db, id, values.reason ?? 'disabled by an administrator', now)
      ctx.io.stdout(values.json ? json(endpointJson(e, now)) : `${e.id}\n`)
      ctx.io.stderr(`Disabled webhook endpoint ${e.id}\n`)
      return 0
    },
  },
  {
    name: 'webhooks rotate-secret',
    usage: 'webhooks rotate-secret ID [--json]',
    summary:
      'issue a new signing secret (printed once); the old one also signs every message for 24 h',
    async run(argv, ctx) {
      const { values, positionals } = parse(argv, { json: { type: 'boolean' } }, true)
      const id = oneId(positionals)
      const deps = ctx.deps()
      const now = deps.clock().getTime()
      const { endpoint, secret, previousExpiresAt } = rotateSecret(deps.db, id, now)
      ctx.io.stdout(values.json ? json({ ...endpointJson(endpoint, now), secret }) : `${secret}\n`)
      ctx.io.stderr(
        `Rotated the secret of webhook endpoint ${id}. Messages carry signatures with both secrets until ${iso(previousExpiresAt)}.\n`,
      )
      return 0
    },
  },
  {
    name: 'webhooks test',
    usage: 'webhooks test ID [--json]',
    summary:
      'send a webhook.test event to an endpoint now and print the outcome (exit 1 on failure)',
    async run(argv, ctx) {
      const { values, positionals } = parse(argv, { json: { type: 'boolean' } }, true)
      const id = oneId(positionals)
      const o = await sendTestEvent(ctx.deps(), id, ctx.signal)
      if (values.json) ctx.io.stdout(json(outcomeJson(o)))
      else
        ctx.io.stdout(
          o.status === 'succeeded'
            ? `delivered: HTTP ${o.statusCode} in ${o.durationMs} ms (${o.eventId})\n`
            : `failed: ${o.error ?? 'unknown error'} after ${o.durationMs} ms (${o.eventId})\n`,
        )
      return o.status === 'succeeded' ? 0 : 1
    },
  },
  {
    name: 'webhooks deliveries',
    usage:
      'webhooks deliveries [--endpoint ID] [--account ID] [--status STATUS] [--limit N] [--json]',
    summary: `list deliveries, newest first, with every attempt (status: ${DELIVERY_STATUSES.join('|')})`,
    async run(argv, ctx) {
      const { values } = parse(argv, {
        endpoint: { type: 'string' },
        account: { type: 'string' },
        status: { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean' },
      })
      const opts = validateArgs(
        z.object({
          endpoint: Id.optional(),
          account: Id.optional(),
          status: z
            .enum(DELIVERY_STATUSES, {
              message: `status must be one of ${DELIVERY_STATUSES.join(', ')}`,
            })
            .optional(),
          limit: z.coerce.number().int().min(1).max(1000).default(50),
        }),
        values,
      )
      const rows = listDeliveries(ctx.deps().db, {
        endpointId: opts.endpoint,
        accountId: opts.account,
        status: opts.status,
        limit: opts.limit,
      }).map(deliveryJson)
      if (values.json) {
        ctx.io.stdout(json(rows))
        return 0
      }
      if (rows.length === 0) {
        ctx.io.stdout('(none)\n')
        return 0
      }
      const out: string[] = []
      for (const d of rows) {
        out.push(
          `delivery ${d.id}  ${d.event_type}  ${d.event_id}  endpoint ${d.endpoint_id}  ${d.status}  attempts ${d.attempts}${d.next_attempt_at ? `  next ${d.next_attempt_at}` : ''}`,
        )
        for (const a of d.attempt_log)
          out.push(
            `  ${a.attempted_at ?? '-'}  ${a.status_code ?? '-'}  ${a.duration_ms ?? '-'} ms${a.error ? `  ${a.error}` : ''}`,
          )
      }
      ctx.io.stdout(`${out.join('\n')}\n`)
      return 0
    },
  },
]
