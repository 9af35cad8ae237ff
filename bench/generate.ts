/**
 * Writes synthetic FMCSA files at scale for benchmarks (git-ignored data/bench/):
 *
 *   npx tsx bench/generate.ts --out data/bench --census-rows 500000
 *   npx tsx bench/generate.ts --scale full            # 4.5 M census rows, every file at its real size
 *   npx tsx bench/generate.ts --only az4n-8mr2        # census only (comma-separated ids or keys)
 *
 * Every other file scales with the census (one USDOT space, so joins are realistic). Deterministic
 * for a given --seed. Progress and the summary go to stderr; stdout gets a JSON summary.
 */
import { statSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { FILE_IDS, FILE_KEYS, type FileKey } from '../tools/generate/columns.ts'
import { DEFAULT_SEED, writeScaleDataset, type Progress } from '../tools/generate/dataset.ts'

const FULL_CENSUS_ROWS = 4_500_000
const DEFAULT_CENSUS_ROWS = 500_000
const USAGE =
  'usage: npx tsx bench/generate.ts [--out data/bench] [--census-rows N | --scale full] [--seed N] [--only id,id]\n'

const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
const err = (s: string) => process.stderr.write(s)

/** Resolves --only names (dataset ids like `az4n-8mr2` or keys like `census`) to file keys. */
function selectFiles(only: string | undefined): FileKey[] | string {
  if (!only) return FILE_KEYS
  const byId = new Map<string, FileKey>(FILE_KEYS.map((k) => [FILE_IDS[k], k]))
  const files: FileKey[] = []
  for (const name of only.split(',').map((s) => s.trim().replace(/\.csv$/, ''))) {
    const key = byId.get(name) ?? FILE_KEYS.find((k) => k === name)
    if (!key)
      return `unknown file ${name}; use dataset ids: ${FILE_KEYS.map((k) => FILE_IDS[k]).join(', ')}`
    files.push(key)
  }
  return files
}

async function main(argv: string[]): Promise<number> {
  let values
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: {
        out: { type: 'string', default: 'data/bench' },
        'census-rows': { type: 'string' },
        scale: { type: 'string' },
        seed: { type: 'string', default: String(DEFAULT_SEED) },
        only: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }))
  } catch (e) {
    err(`${e instanceof Error ? e.message : String(e)}\n${USAGE}`)
    return 2
  }
  if (values.help) {
    process.stdout.write(USAGE)
    return 0
  }
  if (values.scale !== undefined && values.scale !== 'full') {
    err(`unknown --scale ${values.scale} (only "full")\n${USAGE}`)
    return 2
  }
  const censusRows = Number(
    values['census-rows'] ?? (values.scale === 'full' ? FULL_CENSUS_ROWS : DEFAULT_CENSUS_ROWS),
  )
  const seed = Number(values.seed)
  if (!Number.isInteger(censusRows) || censusRows <= 0 || !Number.isInteger(seed)) {
    err(`--census-rows and --seed must be positive integers\n${USAGE}`)
    return 2
  }
  const files = selectFiles(values.only)
  if (typeof files === 'string') {
    err(`${files}\n`)
    return 2
  }

  const tty = process.stderr.isTTY
  const onProgress = (p: Progress) => {
    const line = `${fmt(p.companies)}/${fmt(p.total)} USDOTs, ${fmt(p.companies / (p.elapsedMs / 1000))} census rows/s`
    err(tty ? `\r${line}   ` : `${line}\n`)
  }
  err(
    `writing ${files.length} files for ${fmt(censusRows)} USDOTs into ${values.out} (seed ${seed})\n`,
  )
  const cpuStart = process.cpuUsage()
  const result = await writeScaleDataset(values.out, {
    censusRows,
    seed,
    files,
    onProgress,
    progressEvery: 100_000,
  })
  if (tty) err('\n')

  const seconds = result.elapsedMs / 1000
  const cpu = process.cpuUsage(cpuStart)
  const cpuSeconds = (cpu.user + cpu.system) / 1e6
  let totalRows = 0
  let totalBytes = 0
  const summary: Record<string, { rows: number; bytes: number }> = {}
  for (const key of files) {
    const f = result.files[key]
    if (!f) continue
    const bytes = statSync(f.path).size
    totalRows += f.rows
    totalBytes += bytes
    summary[FILE_IDS[key]] = { rows: f.rows, bytes }
    err(
      `${FILE_IDS[key].padEnd(10)} ${String(f.rows).padStart(11)} rows ${(bytes / 1e6).toFixed(1).padStart(9)} MB  ${key}\n`,
    )
  }
  err(
    `${fmt(totalRows)} rows, ${(totalBytes / 1e6).toFixed(0)} MB in ${seconds.toFixed(1)} s ` +
      `(${cpuSeconds.toFixed(1)} s CPU): ${fmt(censusRows / seconds)} census rows/s, ${fmt(totalRows / seconds)} rows/s overall; ` +
      `per CPU second ${fmt(censusRows / cpuSeconds)} census rows, ${fmt(totalRows / cpuSeconds)} rows\n`,
  )
  process.stdout.write(
    `${JSON.stringify({
      out: values.out,
      seed,
      censusRows,
      seconds: Number(seconds.toFixed(2)),
      cpuSeconds: Number(cpuSeconds.toFixed(2)),
      censusRowsPerSecond: Math.round(censusRows / seconds),
      rowsPerSecond: Math.round(totalRows / seconds),
      files: summary,
    })}\n`,
  )
  return 0
}

process.exitCode = await main(process.argv.slice(2))
