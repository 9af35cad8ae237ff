import { existsSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { z } from 'zod'
import { pipelineDeps } from '../deps.ts'
import { importDir } from '../sync/pipeline.ts'
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
    usage: 'import --dir PATH [--dataset NAME ...] [--sample] [--wait SECONDS] [--json]',
    summary:
      'build datasets from files named by dataset id (<id>.csv) in a directory (air-gapped networks)',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        dir: { type: 'string' },
        dataset: { type: 'string', multiple: true },
        sample: { type: 'boolean' },
        wait: { type: 'string' },
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
      let lastDraw = 0
      const runDeps = {
        ...pipelineDeps(deps),
        onActivated: watchOnActivation({ ...deps, annotate: checksOnChange(deps) }),
      }
      const results = await importDir(runDeps, dir, {
        channel: values.sample ? 'sample' : 'live',
        trigger: 'cli',
        signal: ctx.signal,
        only,
        waitMs: waitS * 1000,
        onWait: (dataset, h) =>
          ctx.io.stderr(
            `${dataset}: another run holds this dataset${h?.pid ? ` (process ${h.pid} on ${h.host ?? '?'})` : ''}; waiting up to ${waitS} s for it to finish…\n`,
          ),
        onProgress: (p) => {
          const now = Date.now()
          if (!ctx.io.isTTY || now - lastDraw < 250) return
          lastDraw = now
          ctx.io.stderr(`\r\x1b[2K${p.dataset} ${p.file}: ${p.rows.toLocaleString('en-US')} rows`)
        },
      })
      if (ctx.io.isTTY) ctx.io.stderr('\r\x1b[2K')
      if (results.length === 0)
        throw new Error(`no known dataset files in ${dir} (expected files such as az4n-8mr2.csv)`)
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
          `not imported: ${again.join(', ')}; re-run: carrier-verify import --dir ${dir} ${again.map((d) => `--dataset ${d}`).join(' ')}${values.sample ? ' --sample' : ''}\n`,
        )
      if (ctx.signal.aborted) return 130
      return results.every((r) => r.status === 'activated') ? 0 : 1
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
