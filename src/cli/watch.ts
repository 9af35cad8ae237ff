/** `carrier-verify watch …`: the USDOT numbers an account monitors (carrier.changed events). */
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import {
  addToWatchlist,
  listWatchlist,
  parseDot,
  parseDotList,
  removeFromWatchlist,
  type InvalidLine,
} from '../webhooks/watchlist.ts'
import {
  Id,
  iso,
  json,
  parse,
  table,
  UsageError,
  validateArgs,
  type CommandSpec,
  type Io,
} from './io.ts'

/** Positional USDOT numbers: any invalid one is a usage error (nothing is changed). */
function dotArgs(positionals: string[]): number[] {
  const dots: number[] = []
  for (const p of positionals) {
    const r = parseDot(p)
    if (typeof r === 'string') throw new UsageError(`${JSON.stringify(p)}: ${r}`)
    dots.push(r)
  }
  return dots
}

const MAX_REPORTED = 50

function reportInvalid(io: Io, invalid: InvalidLine[]) {
  for (const i of invalid.slice(0, MAX_REPORTED))
    io.stderr(`line ${i.line}: ${JSON.stringify(i.value)}: ${i.reason}\n`)
  if (invalid.length > MAX_REPORTED)
    io.stderr(`… and ${invalid.length - MAX_REPORTED} more invalid lines\n`)
}

export const watchCommands: CommandSpec[] = [
  {
    name: 'watch add',
    usage: 'watch add --account ID (DOT [DOT...] | --file PATH|-) [--json]',
    summary:
      'watch USDOT numbers (paid plans): carrier.changed events when authority, insurance, OOS or rating change; --file reads one per line or a CSV first column',
    async run(argv, ctx) {
      const { values, positionals } = parse(
        argv,
        { account: { type: 'string' }, file: { type: 'string' }, json: { type: 'boolean' } },
        true,
      )
      const { account } = validateArgs(z.object({ account: Id }), values)
      if (values.file === undefined && positionals.length === 0)
        throw new UsageError('give USDOT numbers or --file PATH (- for stdin)')
      const dots = dotArgs(positionals)
      let invalid: InvalidLine[] = []
      if (values.file !== undefined) {
        const text =
          values.file === '-' ? await ctx.io.readStdin() : readFileSync(values.file, 'utf8')
        const parsed = parseDotList(text)
        dots.push(...parsed.dots)
        invalid = parsed.invalid
      }
      const deps = ctx.deps()
      const r = addToWatchlist(deps.db, account, dots, deps.clock().getTime())
      reportInvalid(ctx.io, invalid)
      const result = {
        account_id: account,
        added: r.added,
        already_watched: r.alreadyWatched,
        invalid: invalid.length,
        total: r.total,
      }
      ctx.io.stdout(
        values.json
          ? json({ ...result, invalid_lines: invalid })
          : `${r.added} added, ${r.alreadyWatched} already watched, ${invalid.length} invalid; ${r.total} watched\n`,
      )
      if (invalid.length > 0)
        ctx.io.stderr(
          'Some lines were not USDOT numbers: fix them and run again (adding is idempotent).\n',
        )
      return invalid.length > 0 ? 1 : 0
    },
  },
  {
    name: 'watch remove',
    usage: 'watch remove --account ID DOT [DOT...] [--json]',
    summary: 'stop watching USDOT numbers',
    async run(argv, ctx) {
      const { values, positionals } = parse(
        argv,
        { account: { type: 'string' }, json: { type: 'boolean' } },
        true,
      )
      const { account } = validateArgs(z.object({ account: Id }), values)
      if (positionals.length === 0) throw new UsageError('give the USDOT numbers to remove')
      const r = removeFromWatchlist(ctx.deps().db, account, dotArgs(positionals))
      ctx.io.stdout(
        values.json
          ? json({ account_id: account, removed: r.removed, not_watched: r.notWatched })
          : `${r.removed} removed, ${r.notWatched} were not watched\n`,
      )
      return 0
    },
  },
  {
    name: 'watch list',
    usage: 'watch list --account ID [--json]',
    summary: 'list the USDOT numbers an account watches, with when each was last compared',
    async run(argv, ctx) {
      const { values } = parse(argv, { account: { type: 'string' }, json: { type: 'boolean' } })
      const { account } = validateArgs(z.object({ account: Id }), values)
      const rows = listWatchlist(ctx.deps().db, account).map((w) => ({
        dot_number: String(w.dotNumber),
        created_at: iso(w.createdAt),
        checked_at: iso(w.checkedAt),
      }))
      ctx.io.stdout(values.json ? json(rows) : table(rows))
      return 0
    },
  },
]
