/** `users add|list|link|disable|enable` and `audit`: console users and the audit log from the CLI. */
import { z } from 'zod'
import type { Config } from '../config.ts'
import { listAudit, recordAudit } from '../users/audit.ts'
import {
  createPasswordToken,
  createUser,
  listUsers,
  mustGetUser,
  ROLES,
  setPassword,
  setUserDisabled,
  type ConsoleUser,
} from '../users/users.ts'
import { Id, iso, json, parse, table, UsageError, validateArgs, type CommandSpec } from './io.ts'

const userJson = (u: ConsoleUser) => ({
  id: u.id,
  email: u.email,
  role: u.role,
  account_id: u.accountId,
  password_set: u.hasPassword,
  disabled: u.disabledAt !== null,
  created_at: iso(u.createdAt),
  last_sign_in_at: iso(u.lastSignInAt),
})

/** The address a set-password link points at (PUBLIC_URL, default http://localhost:PORT). */
export const setPasswordLink = (config: Pick<Config, 'publicUrl'>, token: string) =>
  `${config.publicUrl.replace(/\/$/, '')}/console/set-password/${token}`

const oneId = (positionals: string[]) => {
  if (positionals.length !== 1) throw new UsageError('expected one user id')
  return validateArgs(Id, positionals[0])
}

export const usersCommands: CommandSpec[] = [
  {
    name: 'users add',
    usage:
      'users add --email E --role admin|member [--account ID] [--password-stdin | --link] [--json]',
    summary:
      'create a console user; the password is asked at the prompt, read from stdin (--password-stdin), or set through a one-time link printed here (--link, or when stdin is not a terminal)',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        email: { type: 'string' },
        role: { type: 'string' },
        account: { type: 'string' },
        'password-stdin': { type: 'boolean' },
        link: { type: 'boolean' },
        json: { type: 'boolean' },
      })
      const input = validateArgs(
        z.object({
          email: z.string({ error: '--email is required' }).min(3),
          role: z.enum(ROLES, { error: '--role must be admin or member' }),
          account: Id.optional(),
        }),
        values,
      )
      if (values['password-stdin'] && values.link)
        throw new UsageError('give --password-stdin or --link, not both')
      let password: string | null = null
      if (values['password-stdin']) password = (await ctx.io.readStdin()).replace(/\r?\n$/, '')
      else if (!values.link && ctx.io.promptSecret) {
        password = await ctx.io.promptSecret('Password (at least 12 characters): ')
        const again = await ctx.io.promptSecret('Repeat the password: ')
        if (again !== password) throw new UsageError('the passwords differ')
      }
      const deps = ctx.deps()
      const now = deps.clock().getTime()
      if (password !== null) {
        // check the rules before creating the user, so a bad password leaves nothing behind
        const { checkPasswordRules } = await import('../users/password.ts')
        checkPasswordRules(password)
      }
      const user = createUser(
        deps.db,
        { email: input.email, role: input.role, accountId: input.account ?? null },
        now,
      )
      let link: string | null = null
      if (password !== null) await setPassword(deps.db, user.id, password)
      else link = setPasswordLink(deps.config, createPasswordToken(deps.db, user.id, now))
      recordAudit(
        deps.db,
        {
          userId: null,
          actor: 'cli',
          action: 'user.create',
          accountId: user.accountId,
          target: `user:${user.id}`,
          detail: { email: user.email, role: user.role, password: link ? 'link' : 'set' },
        },
        now,
      )
      const out = userJson(mustGetUser(deps.db, user.id))
      ctx.io.stdout(
        values.json ? json({ ...out, set_password_link: link }) : `${link ?? user.id}\n`,
      )
      ctx.io.stderr(
        link
          ? `Created ${user.role} ${user.email} (id ${user.id}). Send this one-time link to set the password (valid 3 days):\n`
          : `Created ${user.role} ${user.email} (id ${user.id}); sign in at /console.\n`,
      )
      return 0
    },
  },
  {
    name: 'users list',
    usage: 'users list [--account ID] [--json]',
    summary: 'console users with role, account, whether a password is set, last sign-in',
    async run(argv, ctx) {
      const { values } = parse(argv, { account: { type: 'string' }, json: { type: 'boolean' } })
      const account = values.account === undefined ? undefined : validateArgs(Id, values.account)
      const rows = listUsers(ctx.deps().db, account).map(userJson)
      ctx.io.stdout(values.json ? json(rows) : table(rows))
      return 0
    },
  },
  {
    name: 'users link',
    usage: 'users link ID [--json]',
    summary: 'print a new one-time set-password link for a user (earlier links stop working)',
    async run(argv, ctx) {
      const { values, positionals } = parse(argv, { json: { type: 'boolean' } }, true)
      const id = oneId(positionals)
      const deps = ctx.deps()
      const now = deps.clock().getTime()
      const link = setPasswordLink(deps.config, createPasswordToken(deps.db, id, now))
      recordAudit(
        deps.db,
        { userId: null, actor: 'cli', action: 'user.password_link', target: `user:${id}` },
        now,
      )
      ctx.io.stdout(values.json ? json({ id, set_password_link: link }) : `${link}\n`)
      return 0
    },
  },
  ...(['disable', 'enable'] as const).map((verb): CommandSpec => ({
    name: `users ${verb}`,
    usage: `users ${verb} ID`,
    summary:
      verb === 'disable'
        ? 'stop a user from signing in and end its sessions'
        : 'let a disabled user sign in again',
    async run(argv, ctx) {
      const { positionals } = parse(argv, {}, true)
      const id = oneId(positionals)
      const deps = ctx.deps()
      const now = deps.clock().getTime()
      const u = setUserDisabled(deps.db, id, verb === 'disable', now)
      recordAudit(
        deps.db,
        { userId: null, actor: 'cli', action: `user.${verb}`, target: `user:${id}` },
        now,
      )
      ctx.io.stdout(`${u.id}\n`)
      return 0
    },
  })),
  {
    name: 'audit',
    usage: 'audit [--account ID] [--limit N] [--json]',
    summary: 'the audit log of console actions, newest first: who, what, when, from which address',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        account: { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean' },
      })
      const input = validateArgs(
        z.object({
          account: Id.optional(),
          limit: z.coerce.number().int().min(1).max(100_000).optional(),
        }),
        values,
      )
      const rows = listAudit(ctx.deps().db, { accountId: input.account, limit: input.limit ?? 200 })
      ctx.io.stdout(
        values.json
          ? json(rows)
          : table(
              rows.map((r) => ({ ...r, detail: r.detail ? JSON.stringify(r.detail) : null })),
              ['at', 'actor', 'action', 'account_id', 'target', 'address', 'detail'],
            ),
      )
      return 0
    },
  },
]
