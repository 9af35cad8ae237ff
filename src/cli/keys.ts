import { z } from 'zod'
import { createKey, listKeys, revokeKey, rotateKey, type KeyInfo } from '../keys/keys.ts'
import { Id, iso, json, parse, table, UsageError, validateArgs, type CommandSpec } from './io.ts'

export const keyJson = (k: KeyInfo, now: number) => ({
  id: k.id,
  account_id: k.accountId,
  mode: k.mode,
  start: k.start,
  name: k.name,
  status:
    k.revokedAt !== null && k.revokedAt <= now
      ? 'revoked'
      : k.expiresAt !== null && k.expiresAt <= now
        ? 'expired'
        : k.expiresAt !== null
          ? 'expiring'
          : 'active',
  created_at: iso(k.createdAt),
  expires_at: iso(k.expiresAt),
  revoked_at: iso(k.revokedAt),
  last_used_at: iso(k.lastUsedAt),
  rotated_from_id: k.rotatedFromId,
})

const keyIdArg = (positionals: string[]) => {
  if (positionals.length !== 1) throw new UsageError('expected one key id')
  return validateArgs(Id, positionals[0])
}

export const keysCommands: CommandSpec[] = [
  {
    name: 'keys create',
    usage: 'keys create --account ID [--sandbox] [--name NAME] [--scope override] [--json]',
    summary:
      'create an API key; prints the secret once (cvk_live_… or, with --sandbox, cvk_test_…)',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        account: { type: 'string' },
        sandbox: { type: 'boolean' },
        name: { type: 'string' },
        scope: { type: 'string', multiple: true },
        json: { type: 'boolean' },
      })
      const input = validateArgs(
        z.object({
          account: Id,
          name: z.string().max(100).optional(),
          scope: z.array(z.enum(['override'])).optional(),
        }),
        values,
      )
      const deps = ctx.deps()
      const { key, secret } = createKey(
        deps.db,
        {
          accountId: input.account,
          mode: values.sandbox ? 'test' : 'live',
          name: input.name ?? null,
          scopes: input.scope ?? [],
        },
        deps.clock().getTime(),
      )
      ctx.io.stdout(
        values.json ? json({ ...keyJson(key, deps.clock().getTime()), secret }) : `${secret}\n`,
      )
      ctx.io.stderr(
        `Created ${key.mode === 'test' ? 'sandbox' : 'live'} key ${key.id} (${key.start}…) for account ${key.accountId}. The secret is shown only once: store it now.\n`,
      )
      return 0
    },
  },
  {
    name: 'keys list',
    usage: 'keys list [--account ID] [--json]',
    summary: 'list keys by prefix (secrets are never shown again)',
    async run(argv, ctx) {
      const { values } = parse(argv, { account: { type: 'string' }, json: { type: 'boolean' } })
      const account = values.account === undefined ? undefined : validateArgs(Id, values.account)
      const deps = ctx.deps()
      const now = deps.clock().getTime()
      const rows = listKeys(deps.db, account).map((k) => keyJson(k, now))
      ctx.io.stdout(
        values.json
          ? json(rows)
          : table(rows, [
              'id',
              'account_id',
              'mode',
              'start',
              'status',
              'created_at',
              'expires_at',
              'last_used_at',
            ]),
      )
      return 0
    },
  },
  {
    name: 'keys rotate',
    usage: 'keys rotate ID [--grace-hours H] [--json]',
    summary:
      'issue a new secret; the old one keeps working for the grace period (default KEY_ROTATION_GRACE_HOURS)',
    async run(argv, ctx) {
      const { values, positionals } = parse(
        argv,
        { 'grace-hours': { type: 'string' }, json: { type: 'boolean' } },
        true,
      )
      const id = keyIdArg(positionals)
      const deps = ctx.deps()
      const graceMs =
        values['grace-hours'] === undefined
          ? deps.config.keys.rotationGraceMs
          : validateArgs(
              z.coerce
                .number()
                .min(0)
                .max(24 * 90),
              values['grace-hours'],
            ) * 3_600_000
      const now = deps.clock().getTime()
      const { key, secret, oldExpiresAt } = rotateKey(deps.db, id, now, graceMs)
      ctx.io.stdout(
        values.json
          ? json({
              ...keyJson(key, now),
              secret,
              old_key_id: id,
              old_key_expires_at: iso(oldExpiresAt),
            })
          : `${secret}\n`,
      )
      ctx.io.stderr(
        `Rotated key ${id} → ${key.id} (${key.start}…). The old secret stops working at ${iso(oldExpiresAt)}.\n`,
      )
      return 0
    },
  },
  {
    name: 'keys revoke',
    usage: 'keys revoke ID [--json]',
    summary: 'revoke a key at once (401 from the next call)',
    async run(argv, ctx) {
      const { values, positionals } = parse(argv, { json: { type: 'boolean' } }, true)
      const id = keyIdArg(positionals)
      const deps = ctx.deps()
      const now = deps.clock().getTime()
      const k = revokeKey(deps.db, id, now)
      ctx.io.stdout(values.json ? json(keyJson(k, now)) : `${k.id}\n`)
      ctx.io.stderr(`Revoked key ${k.id} (${k.start}…)\n`)
      return 0
    },
  },
]
