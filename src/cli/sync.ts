/** `sync run`, `sync status`, `sync rollback`: the mirror from the command line (also while a server runs). */
import { z } from 'zod'
import { rollbackDataset } from '../sync/rollback.ts'
import { isUnreachable } from '../sync/offline.ts'
import { syncOverview, type SyncOverview } from '../sync/status.ts'
import { mailStatus, mailStatusLine } from '../mail/status.ts'
import { syncAll } from '../sync/sync.ts'
import { checksOnChange } from '../checks/monitor.ts'
import { watchOnActivation } from '../webhooks/monitor.ts'
import { DATASET_NAMES } from '../db/names.ts'
import { json, parse, runSummary, table, UsageError, validateArgs, type CommandSpec } from './io.ts'
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
        { ...deps, onActivated: watchOnActivation({ ...deps, annotate: checksOnChange(deps) }) },
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
      if (ctx.signal.aborted) {
        ctx.io.stderr(
          `interrupted; run \`carrier-verify sync run${only ? ` ${only.join(' ')}` : ''}\` again to finish (a server retries at its next start)\n`,
        )
        return 130
      }
      const skipped = results.filter((r) => r.status === 'skipped')
      if (skipped.length)
        ctx.io.stderr(
          `skipped (another sync holds them): ${skipped.map((r) => r.dataset).join(', ')}; re-run \`carrier-verify sync run ${skipped.map((r) => r.dataset).join(' ')}\` once it is done\n`,
        )
      return results.some((r) => r.status === 'failed' || r.status === 'skipped') ? 1 : 0
    },
  },
  {
    name: 'sync status',
    usage: 'sync status [--verbose] [--json]',
    summary:
      'what serves now (mirror or sample, as-of), the next scheduled run, and per dataset: version, rows, last attempt, error',
    async run(argv, ctx) {
      const { values } = parse(argv, { json: { type: 'boolean' }, verbose: { type: 'boolean' } })
      const status = syncOverview(ctx.deps())
      if (values.json) {
        ctx.io.stdout(json(status))
        return 0
      }
      ctx.io.stdout(`${overviewLines(status)}${mailStatusLine(mailStatus(ctx.deps()))}\n\n`)
      ctx.io.stdout(
        table(
          status.datasets.map((s) => ({
            dataset: s.dataset,
            version: s.active?.version ?? null,
            rows: s.active?.rows ?? null,
            as_of: s.active?.as_of ?? null,
            serving:
              s.serving?.source === 'sample'
                ? `sample v${s.serving.version} (${s.serving.rows ?? 0} rows)`
                : (s.serving?.source ?? null),
            last_run: s.last_run ? `${s.last_run.status} ${s.last_run.started_at}` : null,
            next_run: s.next_run,
            running: s.running ? 'yes' : 'no',
            error: s.last_error
              ? `${s.last_error.at.slice(0, 16)}Z ${isUnreachable(s.last_error.message) ? 'the portal cannot be reached' : (s.error_summary ?? '')}`
              : null,
          })),
        ),
      )
      const errors = status.datasets.filter((s) => s.last_error)
      if (values.verbose)
        for (const s of errors)
          ctx.io.stdout(`\n${s.dataset} (${s.last_error?.at}):\n  ${s.last_error?.message}\n`)
      else if (errors.length) ctx.io.stdout('\n(full errors: sync status --verbose)\n')
      return 0
    },
  },
  {
    name: 'sync rollback',
    usage: `sync rollback DATASET [--json]   (DATASET: ${DATASET_NAMES.join(', ')})`,
    summary:
      "make the mirror's previous version of a dataset the active one again (run it again to undo)",
    async run(argv, ctx) {
      const { values, positionals } = parse(argv, { json: { type: 'boolean' } }, true)
      if (positionals.length !== 1) throw new UsageError('name exactly one DATASET to roll back')
      const [dataset] = validateArgs(z.tuple([z.enum(DATASET_NAMES)]), positionals)
      const deps = ctx.deps()
      const r = rollbackDataset({ ...deps, onActivated: watchOnActivation(deps) }, dataset)
      if (values.json) ctx.io.stdout(json(r))
      else
        ctx.io.stdout(
          `${dataset}: version ${r.version} (as of ${r.as_of ?? '?'}, ${r.rows ?? 0} rows) is active again; version ${r.previous} is kept for \`sync rollback ${dataset}\` to undo\n`,
        )
      return 0
    },
  },
]

/** The header of `sync status`: what serves, whether and when the mirror syncs, its last update. */
function overviewLines(s: SyncOverview): string {
  const serving =
    s.serving.source === 'mirror'
      ? `serving: the mirror, census as of ${s.serving.as_of ?? '?'}`
      : s.serving.source === 'sample'
        ? `serving: the bundled SAMPLE data (census as of ${s.serving.as_of ?? '?'}); the mirror has no census yet`
        : 'serving: nothing (no dataset loaded; every lookup answers 503)'
  const sync = !s.sync_enabled
    ? 'sync: disabled (SYNC_ENABLED=false); data changes only with `import --dir`'
    : `sync: enabled; next run ${s.next_run ? `${s.next_run.at} (${s.next_run.datasets.join(', ')})` : 'not scheduled'}`
  const last = s.last_mirror
    ? `last mirror update: ${s.last_mirror.updated_at ?? 'never'}; last checked: ${s.last_mirror.checked_at ?? 'never'}${s.last_mirror.last_sync ? `; last sync of ${s.last_mirror.last_sync.datasets.length} datasets took ${s.last_mirror.last_sync.seconds} s (${s.last_mirror.last_sync.parallel} downloads at once)` : ''}`
    : 'last mirror update: never'
  const missing = s.missing_files.length
    ? [
        `missing files: the mirror's files of ${s.missing_files.join(', ')} are not in the data directory (app.db restored without them?); the next sync rebuilds them (\`sync run\`, no --force needed)`,
      ]
    : []
  const offline = s.regulator.sentence ? [s.regulator.sentence] : []
  return [...offline, serving, ...missing, sync, last, ''].join('\n')
}
