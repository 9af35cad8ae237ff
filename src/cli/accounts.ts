import { z } from 'zod'
import {
  cancelSubscription,
  createAccount,
  listAccounts,
  mustGetAccount,
  resumeAccount,
  setPlan,
  suspendAccount,
  type Account,
} from '../keys/accounts.ts'
import { PLAN_NAMES, planPrice } from '../keys/plans.ts'
import { listKeys } from '../keys/keys.ts'
import { usageReport } from '../keys/usage.ts'
import { periodOf } from '../clock.ts'
import {
  Id,
  iso,
  json,
  parse,
  table,
  UsageError,
  validateArgs,
  type CliContext,
  type CommandSpec,
} from './io.ts'
import type { Deps } from '../deps.ts'

const Plan = z.enum(PLAN_NAMES, { message: `plan must be one of ${PLAN_NAMES.join(', ')}` })
const Interval = z.enum(['monthly', 'yearly']).optional()
const PositiveInt = z.coerce.number().int().positive().optional()

/** The JSON shape of an account in CLI output (stable: scripts read it). */
export function accountJson(deps: Deps, a: Account) {
  const s = a.subscription
  return {
    id: a.id,
    name: a.name,
    email: a.email,
    status: a.suspendedAt !== null ? 'suspended' : 'active',
    suspended_at: iso(a.suspendedAt),
    created_at: iso(a.createdAt),
    subscription: s && {
      plan: s.plan,
      interval: s.interval,
      status: s.status,
      period_start: iso(s.periodStart),
      period_end: iso(s.periodEnd),
      canceled_at: iso(s.canceledAt),
      price_usd: planPrice(s.plan, s.interval, deps.config.prices),
      included_override: s.includedOverride,
    },
  }
}

const oneAccount = (ctx: CliContext, a: Account, asJson: boolean | undefined, message: string) => {
  const deps = ctx.deps()
  if (asJson) ctx.io.stdout(json(accountJson(deps, a)))
  else ctx.io.stdout(`${a.id}\n`)
  ctx.io.stderr(`${message}\n`)
  return 0
}

const idArg = (positionals: string[], name = 'account id') => {
  if (positionals.length !== 1) throw new UsageError(`expected one ${name}`)
  return validateArgs(Id, positionals[0])
}

export const accountsCommands: CommandSpec[] = [
  {
    name: 'accounts create',
    usage:
      'accounts create --name NAME --plan PLAN [--interval monthly|yearly] [--email E] [--included N --overage-mills N] [--json]',
    summary: 'create an account with an active subscription; prints its id',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        name: { type: 'string' },
        plan: { type: 'string' },
        interval: { type: 'string' },
        email: { type: 'string' },
        included: { type: 'string' },
        'overage-mills': { type: 'string' },
        json: { type: 'boolean' },
      })
      const input = validateArgs(
        z.object({
          name: z.string().trim().min(1, 'name is required').max(200),
          plan: Plan,
          interval: Interval,
          email: z.email().optional(),
          included: PositiveInt,
          'overage-mills': z.coerce.number().int().min(0).optional(),
        }),
        values,
      )
      if (
        (input.included !== undefined || input['overage-mills'] !== undefined) &&
        input.plan !== 'enterprise'
      )
        throw new UsageError('--included and --overage-mills apply to the enterprise plan only')
      const deps = ctx.deps()
      const a = createAccount(
        deps.db,
        {
          name: input.name,
          email: input.email ?? null,
          plan: input.plan,
          interval: input.interval,
          included: input.included ?? null,
          overageMills: input['overage-mills'] ?? null,
        },
        deps.clock().getTime(),
      )
      return oneAccount(
        ctx,
        a,
        values.json,
        `Created account ${a.id} (${a.name}) on the ${input.plan} plan`,
      )
    },
  },
  {
    name: 'accounts list',
    usage: 'accounts list [--json]',
    summary: "list accounts with plan, status and this month's usage",
    async run(argv, ctx) {
      const { values } = parse(argv, { json: { type: 'boolean' } })
      const deps = ctx.deps()
      const period = periodOf(deps.clock())
      const usage = new Map(usageReport(deps.db, period).map((u) => [u.account_id, u]))
      const rows = listAccounts(deps.db).map((a) => ({
        ...accountJson(deps, a),
        usage: usage.get(a.id) ?? null,
      }))
      if (values.json) ctx.io.stdout(json(rows))
      else
        ctx.io.stdout(
          table(
            rows.map((r) => ({
              id: r.id,
              name: r.name,
              status: r.status,
              plan: r.subscription?.plan,
              subscription: r.subscription?.status,
              interval: r.subscription?.interval,
              used: r.usage?.used,
              included: r.usage?.included,
            })),
          ),
        )
      return 0
    },
  },
  {
    name: 'accounts show',
    usage: 'accounts show ID [--json]',
    summary: 'show one account with its keys and usage',
    async run(argv, ctx) {
      const { values, positionals } = parse(argv, { json: { type: 'boolean' } }, true)
      const id = idArg(positionals)
      const deps = ctx.deps()
      const a = mustGetAccount(deps.db, id)
      const out = {
        ...accountJson(deps, a),
        keys: listKeys(deps.db, id).map((k) => ({
          id: k.id,
          mode: k.mode,
          start: k.start,
          created_at: iso(k.createdAt),
          expires_at: iso(k.expiresAt),
          revoked_at: iso(k.revokedAt),
          last_used_at: iso(k.lastUsedAt),
        })),
        usage: usageReport(deps.db, periodOf(deps.clock()), id)[0] ?? null,
      }
      if (values.json) ctx.io.stdout(json(out))
      else {
        const { keys, usage, subscription, ...rest } = out
        ctx.io.stdout(
          `${table([{ ...rest, ...(subscription ?? {}) }])}\nkeys:\n${table(keys)}\nusage:\n${table(usage ? [usage] : [])}`,
        )
      }
      return 0
    },
  },
  {
    name: 'accounts set-plan',
    usage:
      'accounts set-plan ID --plan PLAN [--interval monthly|yearly] [--included N --overage-mills N] [--json]',
    summary: 'move an account to another plan (starts a new subscription period now)',
    async run(argv, ctx) {
      const { values, positionals } = parse(
        argv,
        {
          plan: { type: 'string' },
          interval: { type: 'string' },
          included: { type: 'string' },
          'overage-mills': { type: 'string' },
          json: { type: 'boolean' },
        },
        true,
      )
      const id = idArg(positionals)
      const input = validateArgs(
        z.object({
          plan: Plan,
          interval: Interval,
          included: PositiveInt,
          'overage-mills': z.coerce.number().int().min(0).optional(),
        }),
        values,
      )
      if (
        (input.included !== undefined || input['overage-mills'] !== undefined) &&
        input.plan !== 'enterprise'
      )
        throw new UsageError('--included and --overage-mills apply to the enterprise plan only')
      const deps = ctx.deps()
      const a = setPlan(deps.db, id, input.plan, input.interval, deps.clock().getTime(), {
        included: input.included ?? null,
        overageMills: input['overage-mills'] ?? null,
      })
      return oneAccount(ctx, a, values.json, `Account ${id} is now on the ${input.plan} plan`)
    },
  },
  {
    name: 'accounts cancel',
    usage: 'accounts cancel ID [--json]',
    summary: 'stop renewal; access continues to the end of the paid period',
    async run(argv, ctx) {
      const { values, positionals } = parse(argv, { json: { type: 'boolean' } }, true)
      const id = idArg(positionals)
      const deps = ctx.deps()
      const a = cancelSubscription(deps.db, id, deps.clock().getTime())
      return oneAccount(
        ctx,
        a,
        values.json,
        `Subscription of account ${id} cancelled; access until ${iso(a.subscription?.periodEnd) ?? 'now'}`,
      )
    },
  },
  {
    name: 'accounts suspend',
    usage: 'accounts suspend ID [--reason TEXT] [--json]',
    summary: 'block every data call of an account (402) until resumed',
    async run(argv, ctx) {
      const { values, positionals } = parse(
        argv,
        { reason: { type: 'string' }, json: { type: 'boolean' } },
        true,
      )
      const id = idArg(positionals)
      const deps = ctx.deps()
      const a = suspendAccount(deps.db, id, values.reason ?? null, deps.clock().getTime())
      return oneAccount(ctx, a, values.json, `Account ${id} suspended`)
    },
  },
  {
    name: 'accounts resume',
    usage: 'accounts resume ID [--json]',
    summary: 'lift a suspension',
    async run(argv, ctx) {
      const { values, positionals } = parse(argv, { json: { type: 'boolean' } }, true)
      const id = idArg(positionals)
      const a = resumeAccount(ctx.deps().db, id)
      return oneAccount(ctx, a, values.json, `Account ${id} resumed`)
    },
  },
]
