import { existsSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { z } from 'zod'
import { pipelineDeps } from '../deps.ts'
import { filesInDir, importDir } from '../sync/pipeline.ts'
import { importMirror, type RefusedFile } from '../sync/import.ts'
import { isoDate } from '../clock.ts'
import type { LeaseHolder } from '../db/leases.ts'
import { checksOnChange } from '../checks/monitor.ts'
import { watchOnActivation } from '../webhooks/monitor.ts'
import { DATASET_NAMES } from '../db/names.ts'
import { json, parse, runSummary, table, UsageError, validateArgs, type CommandSpec } from './io.ts'
import { restrictMode } from '../db/app-db.ts'
import { PRIVATE_DIR_MODE } from '../db/paths.ts'

/** How long `import` waits for a dataset another run (the background sync) is building. */
const DEFAULT_WAIT_S = 1800

export const dataCommands: CommandSpec[] = [
  {
    name: 'import',
    usage:
      'import --dir PATH [--as-of YYYY-MM-DD] [--dataset NAME ...] [--sample] [--wait SECONDS] [--json]',
    summary:
      'build datasets from files named by dataset id (<id>.csv) in a directory (air-gapped networks), verified as a sync is',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        dir: { type: 'string' },
        dataset: { type: 'string', multiple: true },
        sample: { type: 'boolean' },
        wait: { type: 'string' },
        'as-of': { type: 'string' },
        json: { type: 'boolean' },
      })
      if (!values.dir) throw new UsageError('--dir is required')
      const dir = resolve(values.dir)
      if (!existsSync(dir)) throw new UsageError(`no such directory: ${dir}`)
      const only = values.dataset
        ? validateArgs(z.array(z.enum(DATASET_NAMES)), values.dataset)
        : undefined
      const waitS = validateArgs(
        z.coerce.number().int().min(0).max(86_400),
        values.wait ?? DEFAULT_WAIT_S,
      )
      const deps = ctx.deps()
      const asOf = asOfArg(values['as-of'], isoDate(deps.clock()))
      let lastDraw = 0
      const runDeps = {
        ...pipelineDeps(deps),
        onActivated: watchOnActivation({ ...deps, annotate: checksOnChange(deps) }),
      }
      const run = {
        trigger: 'cli' as const,
        signal: ctx.signal,
        only,
        waitMs: waitS * 1000,
        onWait: (dataset: string, h: LeaseHolder | null) =>
          ctx.io.stderr(
            `${dataset}: another run holds this dataset${h?.pid ? ` (process ${h.pid} on ${h.host ?? '?'})` : ''}; waiting up to ${waitS} s for it to finish…\n`,
          ),
        onProgress: (p: { dataset: string; file: string; rows: number }) => {
          const now = Date.now()
          if (!ctx.io.isTTY || now - lastDraw < 250) return
          lastDraw = now
          ctx.io.stderr(`\r\x1b[2K${p.dataset} ${p.file}: ${p.rows.toLocaleString('en-US')} rows`)
        },
      }
      const { results, refused } = values.sample
        ? {
            results: await importDir(runDeps, dir, { ...run, channel: 'sample', asOf }),
            refused: [],
          }
        : await importMirror(runDeps, dir, {
            ...run,
            asOf,
            sampleDir: deps.config.paths.sample,
            oosMinRows: deps.config.sync.oosMinRows,
          })
      if (ctx.io.isTTY) ctx.io.stderr('\r\x1b[2K')
      for (const line of refusedLines(dir, refused)) ctx.io.stderr(`refused: ${line}\n`)
      if (results.length === 0) {
        if (refused.length) return 1
        throw new Error(`no known dataset files in ${dir} (expected files such as az4n-8mr2.csv)`)
      }
      const rows = results.map((r) => ({
        dataset: r.dataset,
        status: r.status,
        version: r.status === 'skipped' ? null : r.version,
        rows: r.status === 'activated' ? r.rows : null,
        rejects: r.status === 'activated' ? r.rejects : null,
        error: r.error,
        reject_samples: r.status === 'activated' ? r.stats.rejectSamples.slice(0, 5) : [],
      }))
      ctx.io.stdout(values.json ? json(rows) : table(rows.map(({ reject_samples: _s, ...r }) => r)))
      if (!values.json) ctx.io.stderr(`${runSummary(results)}\n`)
      const again = results
        .filter((r) => r.status === 'skipped' || r.status === 'interrupted')
        .map((r) => r.dataset)
      if (again.length)
        ctx.io.stderr(
          `not imported: ${again.join(', ')}; re-run: carrier-verify import --dir ${dir} ${again.map((d) => `--dataset ${d}`).join(' ')}${asOf ? ` --as-of ${asOf}` : ''}${values.sample ? ' --sample' : ''}\n`,
        )
      if (ctx.signal.aborted) return 130
      return results.every((r) => r.status === 'activated') && refused.length === 0 ? 0 : 1
    },
  },
  {
    name: 'backup',
    usage: 'backup [--out DIR] [--json]',
    summary: 'write a consistent copy of app.db (accounts, keys, usage) to the backups folder',
    async run(argv, ctx) {
      const { values } = parse(argv, { out: { type: 'string' }, json: { type: 'boolean' } })
      const deps = ctx.deps()
      const dir = resolve(values.out ?? deps.config.paths.backups)
      mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
      const stamp = deps.clock().toISOString().replace(/[:.]/g, '-')
      const path = join(dir, `app-${stamp}.db`)
      restrictMode(path) // the copy holds key hashes and webhook secrets: 0600 like app.db
      await deps.db.backup(path)
      ctx.io.stdout(values.json ? json({ path }) : `${path}\n`)
      if (!values.json)
        ctx.io.stderr(
          `Backed up app.db to ${path} (mode 0600). Restore: stop the server, copy it over app.db, start.\n`,
        )
      return 0
    },
  },
]

/** `--as-of YYYY-MM-DD`: a real calendar date, not in the future. */
function asOfArg(value: string | undefined, today: string): string | undefined {
  if (value === undefined) return undefined
  const d = validateArgs(
    z.iso.date({ message: `--as-of must be a date YYYY-MM-DD (got "${value}")` }),
    value,
  )
  if (d > today)
    throw new UsageError(
      `--as-of ${d} is in the future (today is ${today}): give the date the files were published`,
    )
  return d
}

/** One line per refused file; a folder of nothing but the bundled sample gets one line. */
function refusedLines(dir: string, refused: readonly RefusedFile[]): string[] {
  if (refused.length === 0) return []
  const all = refused.length === filesInDir(dir).size
  if (all && refused.length > 1)
    return [
      `${dir} holds the bundled sample files (fictitious companies), not the regulator's; not imported as mirror data (\`import --dir ${dir} --sample\` rebuilds the sandbox sample)`,
    ]
  return refused.map((r) => `${r.file} ${r.reason}`)
}
