/** `carrier-verify mail …`: e-mail's status, the delivery log, a test message and the recipients. */
import { z } from 'zod'
import { sendTestMail, type MailOutcome } from '../mail/deliver.ts'
import { listMessages, MESSAGE_KINDS, MESSAGE_STATUSES, type MessageInfo } from '../mail/queue.ts'
import {
  addRecipient,
  listRecipients,
  RECIPIENT_KINDS,
  removeRecipient,
  type Recipient,
} from '../mail/recipients.ts'
import { mailStatus, mailStatusLine } from '../mail/status.ts'
import { Id, iso, json, parse, table, validateArgs, type CommandSpec } from './io.ts'

export const messageJson = (m: MessageInfo) => ({
  id: m.id,
  account_id: m.accountId,
  kind: m.kind,
  to: m.to,
  subject: m.subject,
  status: m.status,
  attempts: m.attempts,
  created_at: iso(m.createdAt),
  last_attempt_at: iso(m.lastAttemptAt),
  next_attempt_at: m.status === 'failed' || m.status === 'pending' ? iso(m.nextAttemptAt) : null,
  last_response: m.lastResponse,
  last_error: m.lastError,
  attempt_log: m.attemptLog.map((a) => ({
    attempted_at: iso(a.attemptedAt),
    response: a.response,
    error: a.error,
    duration_ms: a.durationMs,
  })),
})

const recipientJson = (r: Recipient) => ({
  id: r.id,
  account_id: r.accountId,
  email: r.email,
  kind: r.kind,
  created_at: iso(r.createdAt),
})

const outcomeJson = (o: MailOutcome) => ({
  message_id: o.id,
  status: o.status,
  response: o.response,
  error: o.error,
})

const Kinds = z
  .string()
  .transform((s) => s.split(',').map((k) => k.trim()))
  .pipe(z.array(z.enum(RECIPIENT_KINDS)).min(1))

export const mailCommands: CommandSpec[] = [
  {
    name: 'mail status',
    usage: 'mail status [--json]',
    summary:
      'whether e-mail is configured (SMTP_URL, password hidden), the queue, and the last error',
    async run(argv, ctx) {
      const { values } = parse(argv, { json: { type: 'boolean' } })
      const s = mailStatus(ctx.deps())
      ctx.io.stdout(values.json ? json(s) : `${mailStatusLine(s)}\n`)
      return 0
    },
  },
  {
    name: 'mail deliveries',
    usage: `mail deliveries [--account ID] [--status ${MESSAGE_STATUSES.join('|')}] [--kind ${MESSAGE_KINDS.join('|')}] [--limit N] [--json]`,
    summary:
      'the e-mail delivery log, newest first (--json: with every attempt and the server answers)',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        account: { type: 'string' },
        status: { type: 'string' },
        kind: { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean' },
      })
      const o = validateArgs(
        z.object({
          account: Id.optional(),
          status: z.enum(MESSAGE_STATUSES).optional(),
          kind: z.enum(MESSAGE_KINDS).optional(),
          limit: z.coerce.number().int().min(1).max(1000).optional(),
        }),
        values,
      )
      const rows = listMessages(ctx.deps().db, {
        ...(o.account !== undefined ? { accountId: o.account } : {}),
        ...(o.status ? { status: o.status } : {}),
        ...(o.kind ? { kind: o.kind } : {}),
        limit: o.limit ?? 50,
      }).map(messageJson)
      if (values.json) ctx.io.stdout(json(rows))
      else
        ctx.io.stdout(
          table(
            rows.map((r) => ({ ...r, error: r.last_error ?? r.last_response })),
            [
              'id',
              'account_id',
              'kind',
              'to',
              'status',
              'attempts',
              'created_at',
              'next_attempt_at',
              'error',
            ],
          ),
        )
      return 0
    },
  },
  {
    name: 'mail test',
    usage: 'mail test --to ADDRESS [--account ID] [--json]',
    summary:
      'send a test message now through SMTP_URL and print the server answer (exit 1 when it fails)',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        to: { type: 'string' },
        account: { type: 'string' },
        json: { type: 'boolean' },
      })
      const o = validateArgs(z.object({ to: z.string().min(3), account: Id.optional() }), values)
      const outcome = await sendTestMail(ctx.deps(), o.to, o.account ?? null)
      if (values.json) ctx.io.stdout(json(outcomeJson(outcome)))
      else
        ctx.io.stdout(
          outcome.status === 'sent'
            ? `sent: ${outcome.response ?? ''}\n`
            : `not sent: ${outcome.error ?? ''}\n`,
        )
      return outcome.status === 'sent' ? 0 : 1
    },
  },
  {
    name: 'mail recipients',
    usage: 'mail recipients [--account ID] [--json]',
    summary: 'who receives which e-mails (kinds: quota, watchlist, verdicts)',
    async run(argv, ctx) {
      const { values } = parse(argv, { account: { type: 'string' }, json: { type: 'boolean' } })
      const o = validateArgs(z.object({ account: Id.optional() }), values)
      const rows = listRecipients(ctx.deps().db, o.account).map(recipientJson)
      ctx.io.stdout(values.json ? json(rows) : table(rows))
      return 0
    },
  },
  {
    name: 'mail add',
    usage: `mail add --account ID --email ADDRESS --kinds ${RECIPIENT_KINDS.join(',')} [--json]`,
    summary:
      "add a recipient of an account's quota alerts, watchlist digests and/or verdict changes",
    async run(argv, ctx) {
      const { values } = parse(argv, {
        account: { type: 'string' },
        email: { type: 'string' },
        kinds: { type: 'string' },
        json: { type: 'boolean' },
      })
      const o = validateArgs(
        z.object({
          account: Id,
          email: z.string({ message: '--email is required' }),
          kinds: Kinds,
        }),
        values,
      )
      const deps = ctx.deps()
      const rows = addRecipient(deps.db, o.account, o.email, o.kinds, deps.clock().getTime()).map(
        recipientJson,
      )
      ctx.io.stdout(values.json ? json(rows) : table(rows))
      return 0
    },
  },
  {
    name: 'mail remove',
    usage: `mail remove --account ID --email ADDRESS [--kinds ${RECIPIENT_KINDS.join(',')}]`,
    summary: 'stop e-mails to an address (all kinds, or those named)',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        account: { type: 'string' },
        email: { type: 'string' },
        kinds: { type: 'string' },
      })
      const o = validateArgs(
        z.object({
          account: Id,
          email: z.string({ message: '--email is required' }),
          kinds: Kinds.optional(),
        }),
        values,
      )
      const deps = ctx.deps()
      const n = removeRecipient(
        deps.db,
        o.account,
        o.email,
        o.kinds ?? null,
        deps.clock().getTime(),
      )
      ctx.io.stdout(`${n} removed\n`)
      return n > 0 ? 0 : 1
    },
  },
]
