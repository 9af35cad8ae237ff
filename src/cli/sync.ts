/** `sync run` and `sync status`: the mirror from the command line (also while a server runs). */
import { z } from 'zod'
import { syncStatus } from '../sync/status.ts'
import { syncAll } from '../sync/sync.ts'
import { watchOnActivation } from '../webhooks/monitor.ts'
import { DATASET_NAMES } from '../db/names.ts'
import { json, parse, runSummary, table, validateArgs, type CommandSpec } from './io.ts'
import { createProgress } from './progress.ts'

export const syncCommands: CommandSpec[] = [
  {
    name: 'sync run',
    usage: `sync run [DATASET ...] [--force] [--json]   (DATASET: ${DATASET_NAMES.join(', ')})`,
    summary:
      'download the FMCSA files now (conditionally) and rebuild every dataset whose files changed',
    async run(argv, ctx) {
      const { values, positionals } = parse(
        argv,
        { json: { type: 'boolean' }, force: { type: 'boolean' } },
        true,
      )
      const only = positionals.length
        ? validateArgs(z.array(z.enum(DATASET_NAMES)), positionals)
        : undefined
      const deps = ctx.deps()
      const progress = createProgress(ctx.io)
      const results = await syncAll(
        { ...deps, onActivated: watchOnActivation(deps) },
        {
          signal: ctx.signal,
          trigger: 'cli',
          only,
          force: values.force === true,
          onProgress: (p) => progress.update(p),
        },
      )
      progress.done()
      const rows = results.map((r) => ({
        dataset: r.dataset,
        status: r.status,
        version: r.version,
        rows: r.rows,
        rejects: r.rejects,
        error: r.error,
        files: r.files,
      }))
      ctx.io.stdout(values.json ? json(rows) : table(rows.map(({ files: _f, ...r }) => r)))
      if (!values.json) ctx.io.stderr(`${runSummary(results)}\n`)
      return results.some((r) => r.status === 'failed' || r.status === 'skipped') ? 1 : 0
    },
  },
  {
    name: 'sync status',
    usage: 'sync status [--json]',
    summary: 'per dataset: active version, rows, as-of, last attempt and error, source files',
    async run(argv, ctx) {
      const { values } = parse(argv, { json: { type: 'boolean' } })
      const status = syncStatus(ctx.deps())
      if (values.json) {
        ctx.io.stdout(json(status))
        return 0
      }
      ctx.io.stdout(
        table(
          status.map((s) => ({
            dataset: s.dataset,
            version: s.active?.version ?? null,
            rows: s.active?.rows ?? null,
            as_of: s.active?.as_of ?? null,
            activated: s.active?.activated_at ?? null,
            last_run: s.last_run ? `${s.last_run.status} ${s.last_run.started_at}` : null,
            running: s.running ? 'yes' : 'no',
            error: s.last_error ? `${s.last_error.at}: ${s.last_error.message}` : null,
          })),
        ),
      )
      return 0
    },
  },
]
