/**
 * Benchmarks (DESIGN.md §7): prints figures, asserts nothing. `npm run bench` (500k census rows),
 * `npm run bench -- --full` (full scale: 4.5 M census rows and every other file at its real size),
 * `npm run bench -- --census-rows N`, `npm run bench -- --smoke` (CI).
 * Servers and load generators are separate processes on 127.0.0.1; every run stops by itself.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { isAbsolute, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import Database from 'better-sqlite3'
import { writeScaleDataset } from '../tools/generate/dataset.ts'
import { FILE_KEYS } from '../tools/generate/columns.ts'

const { values: args } = parseArgs({
  options: {
    smoke: { type: 'boolean' },
    full: { type: 'boolean' },
    'reuse-data': { type: 'boolean' },
    'census-rows': { type: 'string' },
    all: { type: 'boolean' },
    duration: { type: 'string' },
    connections: { type: 'string' },
  },
})
const smoke = args.smoke === true
// --full: every dataset at its real size around a 4.5 M-row census (generation ~17 min the first
// time, kept under data/bench/; then about 25 minutes of imports and load on a 2-core machine)
const full = args.full === true
const censusRows = Number(args['census-rows'] ?? (smoke ? 20_000 : full ? 4_500_000 : 500_000))
const duration = Number(args.duration ?? (smoke ? 2 : 10))
const connections = Number(args.connections ?? 32)
const root = resolve('data/bench')
const tsx = ['--import', 'tsx']
const FIRST_DOT = 10_000

function log(s: string) {
  process.stdout.write(`${s}\n`)
}

async function freePort(): Promise<number> {
  return new Promise((r) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address()
      s.close(() => r(typeof a === 'object' && a ? a.port : 0))
    })
  })
}

async function ensureFiles(dir: string, all: boolean) {
  const marker = join(dir, all ? '.complete-all' : '.complete-census')
  if (existsSync(marker)) return
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const t = performance.now()
  const r = await writeScaleDataset(dir, {
    censusRows,
    firstDot: FIRST_DOT,
    files: all ? FILE_KEYS : ['census'],
  })
  log(
    `generated ${r.companies.toLocaleString('en-US')} companies in ${((performance.now() - t) / 1000).toFixed(1)} s into ${dir}`,
  )
  execFileSync('touch', [marker])
}

function runImport(dataDir: string, inDir: string, only?: string) {
  rmSync(dataDir, { recursive: true, force: true })
  const out = execFileSync(
    process.execPath,
    [...tsx, 'bench/import-child.ts', dataDir, inDir, ...(only ? [only] : [])],
    { maxBuffer: 1 << 24 },
  )
  return JSON.parse(out.toString()) as {
    seconds: number
    maxRssMb: number
    results: { dataset: string; rows: number; rejects: number }[]
  }
}

function startChild(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<ChildProcess> {
  return new Promise((resolveStart, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let buf = ''
    const onData = (d: Buffer) => {
      buf += d.toString()
      if (ready.test(buf)) {
        child.stdout?.off('data', onData)
        child.stderr?.off('data', onData)
        // keep draining its output (request logs) so the child never blocks on a full pipe
        child.stdout?.resume()
        child.stderr?.resume()
        resolveStart(child)
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.on('exit', (code) => reject(new Error(`child exited ${code}: ${buf.slice(-2000)}`)))
  })
}

async function load(
  url: string,
  opts: {
    paths?: () => string
    method?: string
    body?: string
    headers?: Record<string, string>
    connections?: number
  },
  seconds = duration,
) {
  const result = await autocannon({
    url,
    connections: opts.connections ?? connections,
    duration: seconds,
    method: (opts.method ?? 'GET') as 'GET',
    headers: { ...opts.headers, ...(opts.body ? { 'content-type': 'application/json' } : {}) },
    body: opts.body,
    requests: opts.paths
      ? [{ setupRequest: (req) => ({ ...req, path: opts.paths?.() ?? '/' }) }]
      : undefined,
  })
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    total: result.requests.total,
    codes: Object.entries(result.statusCodeStats ?? {})
      .map(([code, v]) => `${code}×${(v as { count: number }).count}`)
      .join(' '),
  }
}

function rssMb(pid: number | undefined): number {
  if (!pid) return 0
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)
}

function cli(dataDir: string, ...argv: string[]): string {
  return execFileSync(process.execPath, [...tsx, 'src/main.ts', ...argv], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
  }).toString()
}

const randomDot = () => FIRST_DOT + Math.floor(Math.random() * censusRows)

async function main() {
  log(
    `# carrier-verify bench: ${censusRows.toLocaleString('en-US')} census rows, ${connections} connections, ${duration} s per load${smoke ? ' (smoke)' : ''}`,
  )
  log(`node ${process.version}, ${(await import('node:os')).cpus().length} CPUs`)
  const filesDir = join(root, `files-${censusRows}`)
  await ensureFiles(filesDir, args.all === true || full)

  // 1. census import
  // --reuse-data: keep the data directories of an earlier run (skips the imports)
  const reuse = (dir: string) => args['reuse-data'] === true && existsSync(join(dir, 'app.db'))
  let dataDir = join(root, `data-${censusRows}`)
  if (!reuse(dataDir)) {
    const imp = runImport(dataDir, filesDir, 'census')
    const census = imp.results.find((r) => r.dataset === 'census')
    log(
      `census import: ${census?.rows.toLocaleString('en-US')} rows in ${imp.seconds.toFixed(1)} s = ${Math.round((census?.rows ?? 0) / imp.seconds).toLocaleString('en-US')} rows/s, peak RSS ${imp.maxRssMb} MB`,
    )
  }
  if (args.all || full) {
    const allDir = join(root, `data-all-${censusRows}`)
    if (!reuse(allDir)) {
      const all = runImport(allDir, filesDir)
      log(`all datasets import: ${all.seconds.toFixed(1)} s, peak RSS ${all.maxRssMb} MB`)
      for (const r of all.results) log(`  ${JSON.stringify(r)}`)
    }
    // the loads below read the record as it is served: every dataset loaded
    dataDir = allDir
  }

  // 2. authenticated, metered lookups vs a bare node:http server on the same file
  const id = JSON.parse(
    cli(
      dataDir,
      'accounts',
      'create',
      '--name',
      'bench',
      '--plan',
      'enterprise',
      '--included',
      '100000000',
      '--json',
    ),
  ) as { id: number }
  const key = JSON.parse(cli(dataDir, 'keys', 'create', '--account', String(id.id), '--json')) as {
    secret: string
  }
  const port = await freePort()
  const server = await startChild(
    [...tsx, 'src/main.ts', 'serve'],
    {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      // the default level: a request log line each, as in production
      LOG_LEVEL: 'info',
      SYNC_ENABLED: 'false',
    },
    /"msg":"listening"/,
  )
  const barePort = await freePort()
  const appDb = new Database(join(dataDir, 'app.db'), { readonly: true })
  const storedPath = (
    appDb
      .prepare(
        "SELECT path FROM dataset_versions WHERE dataset = 'census' AND channel = 'live' AND status = 'active'",
      )
      .get() as { path: string }
  ).path
  // stored relative to the data directory
  const censusFile = isAbsolute(storedPath) ? storedPath : join(dataDir, storedPath)
  appDb.close()
  const bare = await startChild(
    [...tsx, 'bench/bare-server.ts', censusFile, String(barePort)],
    {},
    /ready/,
  )
  try {
    const auth = { authorization: `Bearer ${key.secret}` }
    await load(
      `http://127.0.0.1:${port}`,
      { paths: () => `/v1/carrier/${randomDot()}`, headers: auth },
      1,
    ) // warm-up
    const api = await load(`http://127.0.0.1:${port}`, {
      paths: () => `/v1/carrier/${randomDot()}`,
      headers: auth,
    })
    const base = await load(`http://127.0.0.1:${barePort}`, {
      paths: () => `/v1/carrier/${randomDot()}`,
    })
    log(
      `lookup GET /v1/carrier/{dot} (auth + metering): ${api.rps.toLocaleString('en-US')} req/s, p50 ${api.p50} ms, p99 ${api.p99} ms, errors ${api.errors}`,
    )
    log(
      `bare node:http same row:                       ${base.rps.toLocaleString('en-US')} req/s, p50 ${base.p50} ms, p99 ${base.p99} ms`,
    )
    log(`ratio: ${(api.rps / base.rps).toFixed(2)}x of bare`)

    const names = [
      'TRUCKING',
      'LOGISTICS',
      'EXPRESS',
      'FREIGHT',
      'TRANSPORT',
      'SMITH',
      'JOHNSON',
      'CARRIERS',
    ]
    const search = await load(`http://127.0.0.1:${port}`, {
      paths: () => `/v1/search?q=${names[Math.floor(Math.random() * names.length)]}`,
      headers: auth,
      connections: 4,
    })
    log(
      `search GET /v1/search?q=<common word> (4 connections): ${search.rps.toLocaleString('en-US')} req/s, p50 ${search.p50} ms, p99 ${search.p99} ms, non-2xx ${search.errors} (${search.codes})`,
    )

    const batch = JSON.stringify({
      companies: Array.from({ length: 100 }, () => ({ dot: String(randomDot()) })),
    })
    const verify = await load(
      `http://127.0.0.1:${port}/v1/verify`,
      { method: 'POST', body: batch, headers: auth, connections: 4 },
      Math.max(2, Math.round(duration / 2)),
    )
    log(
      `batch POST /v1/verify (100 items, 4 connections): ${verify.rps.toLocaleString('en-US')} req/s, p50 ${verify.p50} ms, p99 ${verify.p99} ms, non-2xx ${verify.errors} (${verify.codes})`,
    )

    // 3. lookups while a full census import runs in another process
    const importer = spawn(
      process.execPath,
      [...tsx, 'src/main.ts', 'import', '--dir', filesDir, '--dataset', 'census'],
      { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, stdio: 'ignore' },
    )
    const during = await load(`http://127.0.0.1:${port}`, {
      paths: () => `/v1/carrier/${randomDot()}`,
      headers: auth,
    })
    const exit = await new Promise<number | null>((r) => importer.on('exit', r))
    log(
      `lookup during a census import: ${during.rps.toLocaleString('en-US')} req/s, p50 ${during.p50} ms, p99 ${during.p99} ms, errors ${during.errors} (import exit ${exit})`,
    )
    log(`serving peak RSS: ${rssMb(server.pid)} MB`)
  } finally {
    server.kill('SIGTERM')
    bare.kill('SIGTERM')
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    )
    process.exit(1)
  },
)
