import { z } from 'zod'
import { periodOf } from '../clock.ts'
import { mustGetAccount } from '../keys/accounts.ts'
import { usageReport } from '../keys/usage.ts'
import { Id, json, parse, table, validateArgs, type CommandSpec } from './io.ts'

export const usageCommands: CommandSpec[] = [
  {
    name: 'usage',
    usage: 'usage [--account ID] [--month YYYY-MM] [--json]',
    summary:
      'usage per account for a month: included, used, overage calls and charge, refusals, alerts',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        account: { type: 'string' },
        month: { type: 'string' },
        json: { type: 'boolean' },
      })
      const input = validateArgs(
        z.object({
          account: Id.optional(),
          month: z
            .string()
            .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'month must be YYYY-MM')
            .optional(),
        }),
        values,
      )
      const deps = ctx.deps()
      if (input.account !== undefined) mustGetAccount(deps.db, input.account)
      const rows = usageReport(deps.db, input.month ?? periodOf(deps.clock()), input.account)
      if (values.json) ctx.io.stdout(json(input.account !== undefined ? rows[0] : rows))
      else
        ctx.io.stdout(
          table(
            rows.map((r) => ({
              account: r.account_id,
              name: r.account_name,
              period: r.period,
              plan: r.plan,
              included: r.included,
              used: r.used,
              overage_calls: r.overage_calls,
              overage_usd: r.overage_charge_usd.toFixed(2),
              refused: r.refused_calls,
              alerts: r.alerts.map((a) => a.kind).join(',') || null,
            })),
          ),
        )
      return 0
    },
  },
]
