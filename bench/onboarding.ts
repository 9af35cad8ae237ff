/**
 * The time to onboard a list of companies: a census of N generated companies is imported, then a
 * CSV of distinct USDOT numbers drawn from it (10,000 by default) is read, stored and checked by
 * the onboarding job, in process, exactly as the server's job runs it (a stored, signed, billed
 * check per company). Prints figures, asserts nothing.
 * `npx tsx bench/onboarding.ts [--census-rows 500000] [--rows 10000] [--all]`
 * (files are kept under data/bench/onboarding-<N>/; --all also generates the other datasets).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config.ts'
import { createDeps } from '../src/compose.ts'
import { pipelineDeps } from '../src/deps.ts'
import { createAccount } from '../src/keys/accounts.ts'
import { silentLogger } from '../src/log.ts'
import { createOnboarding, getOnboarding, runOnboardings } from '../src/onboarding/onboarding.ts'
import { parseFile } from '../src/onboarding/parse.ts'
import { importDir } from '../src/sync/pipeline.ts'
import { FILE_KEYS } from '../tools/generate/columns.ts'
import { writeScaleDataset } from '../tools/generate/dataset.ts'

const { values: args } = parseArgs({
  options: {
    'census-rows': { type: 'string' },
    rows: { type: 'string' },
    all: { type: 'boolean' },
  },
})
const censusRows = Number(args['census-rows'] ?? 500_000)
const rows = Number(args.rows ?? 10_000)
const FIRST_DOT = 10_000
const log = (s: string) => process.stdout.write(`${s}\n`)
const secs = (t: number) => ((performance.now() - t) / 1000).toFixed(1)

const files = resolve(`data/bench/onboarding-${censusRows}${args.all ? '-all' : ''}`)
if (!existsSync(join(files, '.complete'))) {
  rmSync(files, { recursive: true, force: true })
  mkdirSync(files, { recursive: true })
  const t = performance.now()
  await writeScaleDataset(files, {
    censusRows,
    firstDot: FIRST_DOT,
    files: args.all ? FILE_KEYS : ['census'],
  })
  writeFileSync(join(files, '.complete'), '')
  log(`generated ${censusRows.toLocaleString('en-US')} companies in ${secs(t)} s`)
}

const dataDir = mkdtempSync(join(tmpdir(), 'cvk-bench-onboarding-'))
try {
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    SYNC_ENABLED: 'false',
    LOG_LEVEL: 'silent',
    SYNC_MIN_FREE_MB: '1',
  })
  const deps = createDeps(config, { log: silentLogger() })
  let t = performance.now()
  const imported = await importDir(pipelineDeps(deps), files, {
    channel: 'live',
    trigger: 'import',
    signal: AbortSignal.timeout(3_600_000),
  })
  log(`imported ${imported.map((r) => `${r.dataset}: ${r.status}`).join(', ')} in ${secs(t)} s`)

  // distinct USDOT numbers drawn at random from the census
  const picked = new Set<number>()
  while (picked.size < Math.min(rows, censusRows))
    picked.add(FIRST_DOT + Math.floor(Math.random() * censusRows))
  const csv = `usdot,reference\n${[...picked].map((d, i) => `${d},REF-${i + 1}`).join('\n')}\n`
  const account = createAccount(deps.db, { name: 'bench', plan: 'enterprise' }, Date.now())

  t = performance.now()
  const list = await parseFile('bench.csv', new TextEncoder().encode(csv))
  const parsedIn = secs(t)
  const o = createOnboarding(
    deps,
    { accountId: account.id, apiKeyId: null, mode: 'live', by: 'bench' },
    list,
    { fileName: 'bench.csv', start: true },
  )
  log(
    `read and stored ${list.rows.length.toLocaleString('en-US')} rows (${csv.length} bytes) in ${parsedIn} s`,
  )

  t = performance.now()
  await runOnboardings(deps)
  const ms = performance.now() - t
  const done = getOnboarding(deps, account.id, o.id)
  const used = deps.db
    .prepare('SELECT SUM(used) FROM usage_counters WHERE account_id = ?')
    .pluck()
    .get(account.id) as number
  log(
    `onboarded ${done.progress.processed.toLocaleString('en-US')} companies (census ${censusRows.toLocaleString('en-US')}) in ${(ms / 1000).toFixed(1)} s: ${((done.progress.processed / ms) * 1000).toFixed(0)} a second; status ${done.status}, checked ${done.progress.checked}, not found ${done.progress.not_found}, billed ${used}; pass ${done.progress.pass}, review ${done.progress.review}, fail ${done.progress.fail}`,
  )
  deps.close()
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
