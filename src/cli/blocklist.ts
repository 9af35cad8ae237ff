/** `carrier-verify blocklist …`: an account's own blocked identifiers (docs/identity.md). */
import { z } from 'zod'
import {
  addEntry,
  BLOCKLIST_TYPES,
  BlocklistInput,
  listEntries,
  removeEntry,
} from '../blocklist/blocklist.ts'
import type { Sqlite } from '../db/open.ts'
import { getAccount } from '../keys/accounts.ts'
import { Id, json, parse, table, UsageError, validateArgs, type CommandSpec } from './io.ts'

const accountExists = (db: Sqlite, id: number) => getAccount(db, id) !== null

export const blocklistCommands: CommandSpec[] = [
  {
    name: 'blocklist add',
    usage: `blocklist add --account ID --type ${BLOCKLIST_TYPES.join('|')} --value VALUE --reason TEXT [--by NAME] [--json]`,
    summary:
      'add an identifier the account has been burned by to its blocked list (checks flag it)',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        account: { type: 'string' },
        type: { type: 'string' },
        value: { type: 'string' },
        reason: { type: 'string' },
        by: { type: 'string' },
        json: { type: 'boolean' },
      })
      const { account } = validateArgs(z.object({ account: Id }), values)
      const input = validateArgs(BlocklistInput, {
        type: values.type,
        value: values.value,
        reason: values.reason,
      })
      const deps = ctx.deps()
      if (!accountExists(deps.db, account)) throw new UsageError(`no account ${account}`)
      const entry = addEntry(
        deps.db,
        account,
        input,
        values.by ? `cli:${values.by}` : 'cli',
        deps.clock().getTime(),
      )
      ctx.io.stdout(values.json ? json(entry) : `${entry.id}\t${entry.type}\t${entry.value}\n`)
      return 0
    },
  },
  {
    name: 'blocklist list',
    usage: 'blocklist list --account ID [--json]',
    summary: "list an account's blocked identifiers with their reasons",
    async run(argv, ctx) {
      const { values } = parse(argv, { account: { type: 'string' }, json: { type: 'boolean' } })
      const { account } = validateArgs(z.object({ account: Id }), values)
      const entries = listEntries(ctx.deps().db, account)
      ctx.io.stdout(
        values.json
          ? json({ entries })
          : table(entries, ['id', 'type', 'value', 'reason', 'created_at', 'created_by']),
      )
      return 0
    },
  },
  {
    name: 'blocklist remove',
    usage: 'blocklist remove --account ID ENTRY_ID [--json]',
    summary: "remove an entry from an account's blocked list",
    async run(argv, ctx) {
      const { values, positionals } = parse(
        argv,
        { account: { type: 'string' }, json: { type: 'boolean' } },
        true,
      )
      const { account } = validateArgs(z.object({ account: Id }), values)
      if (positionals.length !== 1) throw new UsageError('give one entry id')
      const id = validateArgs(Id, positionals[0])
      const removed = removeEntry(ctx.deps().db, account, id)
      ctx.io.stdout(
        values.json ? json({ id: String(id), removed }) : removed ? `removed ${id}\n` : '',
      )
      if (!removed) ctx.io.stderr(`account ${account} has no blocked-list entry ${id}\n`)
      return removed ? 0 : 1
    },
  },
]
