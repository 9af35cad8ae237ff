/**
 * Benchmarks (docs/benchmarks.md): prints figures, asserts nothing. `npm run bench` (500k census rows),
 * `npm run bench -- --full` (full scale: 4.5 M census rows and every other file at its real size),
 * `npm run bench -- --census-rows N`, `npm run bench -- --smoke` (CI).
 * Servers and load generators are separate processes on 127.0.0.1; every run stops by itself.
 */
import { spawn, spawnSync, execFileSync, type ChildProcess } from 'node:child_process'
import { createReadStream, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { isAbsolute, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import Database from 'better-sqlite3'
import { linkIndexFacts } from './link-facts.ts'
import { writeScaleDataset } from '../tools/generate/dataset.ts'
import { FILE_IDS, FILE_KEYS } from '../tools/generate/columns.ts'
import { loadConfig } from '../src/config.ts'

const { values: args } = parseArgs({
  options: {
    smoke: { type: 'boolean' },
    full: { type: 'boolean' },
    'reuse-data': { type: 'boolean' },
    'census-rows': { type: 'string' },
    all: { type: 'boolean' },
    duration: { type: 'string' },
    connections: { type: 'string' },
    lookups: { type: 'string' },
  },
})
const smoke = args.smoke === true
// --full: every dataset at its real size around a 4.5 M-row census (generation 6–9 min the first
// time, kept under data/bench/; then about 16 minutes of imports and load on a 2-core machine)
const full = args.full === true
const censusRows = Number(args['census-rows'] ?? (smoke ? 20_000 : full ? 4_500_000 : 500_000))
const duration = Number(args.duration ?? (smoke ? 2 : 10))
/**
 * Seconds of lookups before a server's lookups are measured. V8 optimises the server's code over
 * its first tens of seconds of load: its compiler threads take a large share of the CPU at first
 * and almost none after 30 s, and throughput rises meanwhile. The
 * figures are a server's that has been answering for a while; its first seconds are printed too.
 */
const jitWarmup = smoke ? 1 : 30
const connections = Number(args.connections ?? 32)
// the memory curve: this many lookups against one server, its RSS sampled ten times on the way
const curveLookups = Number(args.lookups ?? (smoke ? 5_000 : full ? 1_000_000 : 200_000))
const root = resolve('data/bench')
const tsx = ['--import', 'tsx']
const FIRST_DOT = 10_000
// every server and importer this bench starts inherits its environment: glibc's malloc arenas
// capped as the Docker image caps them (Dockerfile), unless the caller chose otherwise
process.env.MALLOC_ARENA_MAX ??= '2'

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
  // a directory generated before a file was added to the generator is generated again
  const present = !all || FILE_KEYS.every((k) => existsSync(join(dir, `${FILE_IDS[k]}.csv`)))
  if (existsSync(marker) && present) return
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
    ['bench/import-child.mjs', dataDir, inDir, ...(only ? [only] : [])],
    { maxBuffer: 1 << 24 },
  )
  return JSON.parse(out.toString()) as {
    seconds: number
    /** CPU seconds of the importing process, all its threads */
    cpuSeconds: number
    maxRssMb: number
    results: { dataset: string; rows: number; rejects: number; phases?: Record<string, number> }[]
    /** seconds per build phase, when the importer reports them */
    phases?: Record<string, number>
  }
}

/** The first `rows` census rows of a files directory, as a directory of their own (cost growth). */
function censusSlice(filesDir: string, rows: number): string {
  const dir = `${filesDir}-census-${rows}`
  const marker = join(dir, '.complete')
  if (existsSync(marker)) return dir
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  // the generated census has no quoted line breaks: the header and the first `rows` lines
  execFileSync('sh', [
    '-c',
    `head -n ${rows + 1} "${join(filesDir, 'az4n-8mr2.csv')}" > "${join(dir, 'az4n-8mr2.csv')}"`,
  ])
  execFileSync('touch', [marker])
  return dir
}

function rssNowMb(pid: number | undefined): number {
  if (!pid) return 0
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)
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
    /** a new body for every request (instead of `body`) */
    bodies?: () => string
    headers?: Record<string, string>
    connections?: number
    /** requests per second in all (a steady rate), instead of as many as the server answers */
    rate?: number
    /** a server process whose CPU time per request to report (all its threads, /proc) */
    cpuOf?: ChildProcess
  },
  seconds = duration,
) {
  const cpuBefore = processCpuSeconds(opts.cpuOf?.pid)
  const mainBefore = processCpuSeconds(opts.cpuOf?.pid, 'main')
  const ownBefore = process.cpuUsage()
  const result = await autocannon({
    url,
    connections: opts.connections ?? connections,
    duration: seconds,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
    method: (opts.method ?? 'GET') as 'GET',
    headers: {
      ...opts.headers,
      ...(opts.body || opts.bodies ? { 'content-type': 'application/json' } : {}),
    },
    body: opts.body,
    requests: opts.paths
      ? [{ setupRequest: (req) => ({ ...req, path: opts.paths?.() ?? '/' }) }]
      : opts.bodies
        ? [{ setupRequest: (req) => ({ ...req, body: opts.bodies?.() }) }]
        : undefined,
  })
  const cpu = processCpuSeconds(opts.cpuOf?.pid) - cpuBefore
  const mainCpu = processCpuSeconds(opts.cpuOf?.pid, 'main') - mainBefore
  const own = process.cpuUsage(ownBefore)
  return {
    /**
     * this process's CPU microseconds per request: the load generator (autocannon, whose HTTP
     * parser is JavaScript) with the draining of the servers' log pipes
     */
    loadUs:
      result.requests.total > 0 ? Math.round((own.user + own.system) / result.requests.total) : 0,
    /** server CPU microseconds per request (all threads), when `cpuOf` was given */
    cpuUs:
      opts.cpuOf && result.requests.total > 0
        ? Math.round((cpu * 1e6) / result.requests.total)
        : null,
    /** of which its main thread (the rest: record workers, V8's and libuv's threads) */
    mainUs:
      opts.cpuOf && result.requests.total > 0
        ? Math.round((mainCpu * 1e6) / result.requests.total)
        : null,
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

/**
 * User + system CPU seconds of a process so far, all threads, or only its main thread (Linux
 * /proc; 0 elsewhere).
 */
function processCpuSeconds(pid: number | undefined, thread: 'all' | 'main' = 'all'): number {
  if (!pid) return 0
  try {
    // fields after the command name; utime and stime are the 14th and 15th fields, in ticks
    const stat = readFileSync(
      thread === 'main' ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`,
      'utf8',
    )
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
  } catch {
    return 0
  }
}
const CLOCK_TICKS = 100

function rssMb(pid: number | undefined): number {
  if (!pid) return 0
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)
}

/** The server's RSS now and its peak so far, appended to each serving load's line. */
const memOf = (pid: number | undefined): string =>
  `; server RSS ${rssNowMb(pid)} MB, peak so far ${rssMb(pid)} MB`

function cli(dataDir: string, ...argv: string[]): string {
  return execFileSync(process.execPath, ['dist/main.js', ...argv], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
  }).toString()
}

const randomDot = () => FIRST_DOT + Math.floor(Math.random() * censusRows)

/**
 * The host's page cache in GB (/proc/meminfo `Cached`), or `unknown` where there is none to read. A
 * lookup whose dataset pages are no longer cached waits for the disk, and a VM may give back
 * idle page-cache pages, so the loads that depend on it print it.
 */
function pageCacheGb(): string {
  try {
    const kb = /^Cached:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1]
    return kb === undefined ? 'unknown' : `${(Number(kb) / 1024 / 1024).toFixed(1)} GB`
  } catch {
    return 'unknown'
  }
}

/** Reads files end to end (into the OS page cache) and says how much and how long. */
async function readWhole(paths: string[]): Promise<{ gb: number; seconds: number }> {
  const started = performance.now()
  let bytes = 0
  for (const p of paths)
    for await (const chunk of createReadStream(p, { highWaterMark: 1 << 20 }))
      bytes += (chunk as Buffer).length
  return { gb: bytes / 1e9, seconds: (performance.now() - started) / 1000 }
}

/** Mean size of the API's record body over 50 random found USDOTs. */
async function averageRecordBytes(url: string, headers: Record<string, string>): Promise<number> {
  const sizes: number[] = []
  for (let tries = 0; sizes.length < 50 && tries < 500; tries++) {
    const res = await fetch(`${url}/v1/carrier/${randomDot()}`, { headers })
    const body = await res.arrayBuffer()
    if (res.status === 200) sizes.push(body.byteLength)
  }
  if (sizes.length === 0) throw new Error('no record found for the body size')
  return Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length)
}

/** The headers of an API lookup's answer but those node:http writes itself (for the bare server). */
async function answerHeaders(url: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${url}/v1/carrier/${FIRST_DOT}`, { headers })
  await res.arrayBuffer()
  const own = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'])
  return JSON.stringify(Object.fromEntries([...res.headers].filter(([k]) => !own.has(k))))
}

/** An account, a live key and a server over a data directory (request logs on, as in production). */
async function startApi(dataDir: string, env: Record<string, string> = {}) {
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
    ['dist/main.js', 'serve'],
    {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      // the default level: a request log line each, as in production
      LOG_LEVEL: 'info',
      SYNC_ENABLED: 'false',
      ...env,
    },
    /"msg":"listening"/,
  )
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    auth: { authorization: `Bearer ${key.secret}` },
  }
}

const fmt = (n: number) => n.toLocaleString('en-US')

function importLine(label: string, imp: ReturnType<typeof runImport>, dataset: string): string {
  const r = imp.results.find((x) => x.dataset === dataset)
  const phases = imp.phases
    ? `; phases ${Object.entries(imp.phases)
        .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
        .join(', ')}`
    : ''
  return `${label}: ${fmt(r?.rows ?? 0)} rows in ${imp.seconds.toFixed(1)} s = ${fmt(Math.round((r?.rows ?? 0) / imp.seconds))} rows/s, ${imp.cpuSeconds.toFixed(1)} CPU-s (${(imp.cpuSeconds / imp.seconds).toFixed(2)} cores), peak RSS ${imp.maxRssMb} MB${phases}`
}

/** The active file of a dataset in a data directory (null when none is active). */
function activeFile(dataDir: string, dataset: string): string | null {
  const appDb = new Database(join(dataDir, 'app.db'), { readonly: true })
  try {
    const row = appDb
      .prepare(
        "SELECT path FROM dataset_versions WHERE channel = 'live' AND status = 'active' AND dataset = ?",
      )
      .get(dataset) as { path: string } | undefined
    return row ? (isAbsolute(row.path) ? row.path : join(dataDir, row.path)) : null
  } finally {
    appDb.close()
  }
}

/** The datasets active in a data directory. */
function activeFilesOf(dataDir: string): string[] {
  const appDb = new Database(join(dataDir, 'app.db'), { readonly: true })
  try {
    return appDb
      .prepare("SELECT dataset FROM dataset_versions WHERE channel = 'live' AND status = 'active'")
      .pluck()
      .all() as string[]
  } finally {
    appDb.close()
  }
}

/** Up to `limit` VINs of a built equipment file, drawn at random, with its size and counts. */
function equipmentFacts(file: string, limit: number) {
  const db = new Database(file, { readonly: true })
  try {
    const count = (sql: string) => (db.prepare(sql).pluck().get() as number) ?? 0
    return {
      bytes: statSync(file).size,
      vins: count('SELECT count(*) FROM vins'),
      validVins: count('SELECT count(*) FROM vins WHERE valid = 1'),
      vinCarriers: count('SELECT count(*) FROM vin_carriers'),
      plates: count('SELECT count(*) FROM plates'),
      carriers: count('SELECT count(*) FROM carrier_equipment'),
      sample: db
        .prepare('SELECT vin FROM vins ORDER BY random() LIMIT ?')
        .pluck()
        .all(limit) as string[],
    }
  } finally {
    db.close()
  }
}

/** GET /v1/equipment/{vin} over random VINs of the built dataset, after a warm-up. */
async function equipmentLoad(
  label: string,
  api: { url: string; auth: Record<string, string>; server: ChildProcess },
  vins: readonly string[],
) {
  if (vins.length === 0) {
    log(`${label}: no VIN in the dataset`)
    return
  }
  const paths = () => `/v1/equipment/${vins[Math.floor(Math.random() * vins.length)]}`
  await load(api.url, { paths, headers: api.auth }, Math.min(jitWarmup, 10))
  const r = await load(api.url, { paths, headers: api.auth, cpuOf: api.server })
  log(
    `${label} GET /v1/equipment/{vin}, random VINs (${fmt(vins.length)} drawn, ${connections} connections): ${fmt(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors} (${r.codes}), server CPU ${r.cpuUs} µs/request${memOf(api.server.pid)}`,
  )
}

async function main() {
  const benchStarted = performance.now()
  log(
    `# carrier-verify bench: ${fmt(censusRows)} census rows, ${connections} connections, ${duration} s per load${smoke ? ' (smoke)' : ''}`,
  )
  log(
    `node ${process.version}, ${(await import('node:os')).cpus().length} CPUs, MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '(unset)'}`,
  )
  if (full)
    log(
      'full scale on 2 cores: 6–9 min to generate the files the first time, then ~16 min (imports ~5.5, loads ~3, a million lookups ~3.5, search and cost growth ~4; ~11 min with --reuse-data)',
    )
  const filesDir = join(root, `files-${censusRows}`)
  await ensureFiles(filesDir, args.all === true || full)
  // imports and the server run as in the Docker image: the compiled JavaScript in dist/ (under
  // tsx's loader every thread holds the transpiler and the sources' maps, which would count in
  // the RSS, and every import worker inherits the loader)
  execFileSync('npm', ['run', 'build'], { stdio: 'ignore' })
  log('imports and server: dist/ (compiled by `npm run build`, as in the Docker image)')

  // 1. census import
  // --reuse-data: keep the data directories of an earlier run (skips the imports)
  const reuse = (dir: string) => args['reuse-data'] === true && existsSync(join(dir, 'app.db'))
  const censusDir = join(root, `data-${censusRows}`)
  let dataDir = censusDir
  let censusSeconds: number | null = null
  if (!reuse(censusDir)) {
    const imp = runImport(censusDir, filesDir, 'census')
    censusSeconds = imp.seconds
    log(importLine('census import', imp, 'census'))
    const census = activeFile(censusDir, 'census')
    if (census)
      log(`link index: ${JSON.stringify(linkIndexFacts(new Database(census, { readonly: true })))}`)
  }
  // the equipment dataset (VINs, plates and roadside names from four safety files) beside the
  // census (live keys read the mirror only once a live census is there): its build time, phases
  // and size on disk, then random VIN lookups against it
  const equipmentDir = join(root, `data-equipment-${censusRows}`)
  if (!reuse(equipmentDir)) {
    const imp = runImport(equipmentDir, filesDir, 'census,equipment')
    const r = imp.results.find((x) => x.dataset === 'equipment')
    const p = r?.phases ?? {}
    log(
      `equipment build: ${fmt(r?.rows ?? 0)} rows read in ${(p.total ?? 0).toFixed(1)} s (${(p['total.cpu'] ?? 0).toFixed(1)} CPU-s in the building thread; census and equipment import peak RSS ${imp.maxRssMb} MB); phases ${Object.entries(
        p,
      )
        .filter(([k]) => !k.endsWith('.cpu'))
        .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
        .join(', ')}`,
    )
  }
  const equipmentFile = activeFile(equipmentDir, 'equipment')
  const equipment = equipmentFile ? equipmentFacts(equipmentFile, 200_000) : null
  if (equipment)
    log(
      `equipment dataset: ${(equipment.bytes / 1048576).toFixed(0)} MB on disk, ${fmt(equipment.vins)} distinct VINs (${fmt(equipment.validVins)} valid), ${fmt(equipment.vinCarriers)} VIN-carrier rows, ${fmt(equipment.plates)} plates, ${fmt(equipment.carriers)} carriers inspected`,
    )
  if (args.all || full) {
    const allDir = join(root, `data-all-${censusRows}`)
    if (!reuse(allDir)) {
      const all = runImport(allDir, filesDir)
      log(
        `all datasets import: ${all.seconds.toFixed(1)} s, ${all.cpuSeconds.toFixed(1)} CPU-s, peak RSS ${all.maxRssMb} MB`,
      )
      for (const r of all.results) log(`  ${JSON.stringify(r)}`)
    }
    // the loads below read the record as it is served: every dataset loaded
    dataDir = allDir
  }

  // 2. authenticated, metered lookups vs a bare node:http server on the same file
  const { server, url, auth } = await startApi(dataDir)
  const barePort = await freePort()
  const appDb = new Database(join(dataDir, 'app.db'), { readonly: true })
  // stored relative to the data directory
  const activeFiles = (
    appDb
      .prepare(
        "SELECT dataset, path FROM dataset_versions WHERE channel = 'live' AND status = 'active'",
      )
      .all() as { dataset: string; path: string }[]
  ).map((r) => ({ ...r, path: isAbsolute(r.path) ? r.path : join(dataDir, r.path) }))
  appDb.close()
  const censusFile = activeFiles.find((f) => f.dataset === 'census')?.path
  if (!censusFile) throw new Error('no active census file')
  // the bare server answers a prebuilt body as large as the API's average record
  const bodyBytes = await averageRecordBytes(url, auth)
  const bare = await startChild(
    [...tsx, 'bench/bare-server.ts', censusFile, String(barePort), String(bodyBytes)],
    {},
    /ready/,
  )
  log(`record body: ${fmt(bodyBytes)} bytes on average (the bare server answers as many)`)
  const lookups = { paths: () => `/v1/carrier/${randomDot()}`, headers: auth, cpuOf: server }
  // MC numbers drawn from the census's dockets, a tenth of them at most (so few repeat): broker
  // lookups and batches named by docket
  const censusDb = new Database(censusFile, { readonly: true })
  const mcs = censusDb
    .prepare(
      "SELECT number FROM census_dockets WHERE prefix = 'MC' AND number % 10 = 3 ORDER BY random() LIMIT 400000",
    )
    .pluck()
    .all() as number[]
  censusDb.close()
  const randomMc = () => `MC-${mcs[Math.floor(Math.random() * mcs.length)] ?? 0}`
  try {
    log(`serving RSS at start: ${rssNowMb(server.pid)} MB`)
    const first = await load(url, lookups, jitWarmup)
    log(
      `lookup GET /v1/carrier/{dot}, the server's first ${jitWarmup} s (V8 still optimising): ${fmt(first.rps)} req/s, p50 ${first.p50} ms, p99 ${first.p99} ms, errors ${first.errors}, server CPU ${first.cpuUs} µs/request (main thread ${first.mainUs})${memOf(server.pid)}`,
    )
    // first as the page cache was left (a cold start: on a VM that reclaims idle page-cache
    // pages, many dataset pages come from the disk), then with every active dataset file read
    // once, as the page cache of a server that has been answering for a while holds them
    const cold = await load(url, lookups)
    log(
      `lookup GET /v1/carrier/{dot}, page cache as found: ${fmt(cold.rps)} req/s, p50 ${cold.p50} ms, p99 ${cold.p99} ms, errors ${cold.errors}, server CPU ${cold.cpuUs} µs/request (main thread ${cold.mainUs}), load generator ${cold.loadUs} µs/request${memOf(server.pid)}`,
    )
    const warmed = await readWhole(activeFiles.map((f) => f.path))
    log(
      `read the active dataset files once (${warmed.gb.toFixed(1)} GB in ${warmed.seconds.toFixed(0)} s; page cache now ${pageCacheGb()})`,
    )
    const api = await load(url, lookups)
    const base = await load(`http://127.0.0.1:${barePort}`, {
      paths: () => `/v1/carrier/${randomDot()}`,
      cpuOf: bare,
    })
    // the same bare server answering the API's response headers too: the load generator shares
    // the cores, and its HTTP parser (JavaScript) spends per header
    const headersJson = await answerHeaders(url, auth)
    const headerCount = Object.keys(JSON.parse(headersJson) as object).length
    const bareHeadersPort = await freePort()
    const bareHeaders = await startChild(
      [
        ...tsx,
        'bench/bare-server.ts',
        censusFile,
        String(bareHeadersPort),
        String(bodyBytes),
        headersJson,
      ],
      {},
      /ready/,
    )
    let baseHeaders: Awaited<ReturnType<typeof load>>
    try {
      baseHeaders = await load(`http://127.0.0.1:${bareHeadersPort}`, {
        paths: () => `/v1/carrier/${randomDot()}`,
        cpuOf: bareHeaders,
      })
    } finally {
      bareHeaders.kill('SIGTERM')
    }
    log(
      `lookup GET /v1/carrier/{dot} (auth + metering, ${loadConfig(process.env).records.workers} record worker thread(s)): ${fmt(api.rps)} req/s, p50 ${api.p50} ms, p99 ${api.p99} ms, errors ${api.errors}, server CPU ${api.cpuUs} µs/request (main thread ${api.mainUs}), load generator ${api.loadUs} µs/request${memOf(server.pid)}`,
    )
    if (!smoke) {
      // the same load with every record assembled on the main thread
      const single = await startApi(dataDir, { RECORD_WORKERS: '0' })
      try {
        await load(
          single.url,
          { ...lookups, headers: single.auth, cpuOf: single.server },
          jitWarmup,
        )
        const r = await load(single.url, {
          ...lookups,
          headers: single.auth,
          cpuOf: single.server,
        })
        log(
          `  the same with RECORD_WORKERS=0 (records on the main thread): ${fmt(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors}, server CPU ${r.cpuUs} µs/request (main thread ${r.mainUs}), load generator ${r.loadUs} µs/request`,
        )
      } finally {
        single.server.kill('SIGTERM')
      }
    }
    log(
      `bare node:http same row:                       ${fmt(base.rps)} req/s, p50 ${base.p50} ms, p99 ${base.p99} ms, server CPU ${base.cpuUs} µs/request, load generator ${base.loadUs} µs/request`,
    )
    log(
      `bare node:http same row, the API's ${headerCount} response headers: ${fmt(baseHeaders.rps)} req/s, p50 ${baseHeaders.p50} ms, p99 ${baseHeaders.p99} ms, server CPU ${baseHeaders.cpuUs} µs/request, load generator ${baseHeaders.loadUs} µs/request`,
    )
    log(
      `ratio: ${(api.rps / base.rps).toFixed(2)}x of bare (${(api.rps / baseHeaders.rps).toFixed(2)}x of bare with the API's headers)`,
    )
    bare.kill('SIGTERM')
    // a broker's day: the same carriers again and again (the record cache's case)
    const hot = Array.from({ length: 1_000 }, randomDot)
    // its morning: two passes over them fill the record cache (a record enters on its second miss)
    let next = 0
    const fillStarted = performance.now()
    await autocannon({
      url,
      connections,
      amount: 2 * hot.length,
      headers: auth,
      requests: [
        { setupRequest: (req) => ({ ...req, path: `/v1/carrier/${hot[next++ % hot.length]}` }) },
      ],
    })
    const fillSeconds = (performance.now() - fillStarted) / 1000
    const repeat = await load(url, {
      paths: () => `/v1/carrier/${hot[Math.floor(Math.random() * hot.length)]}`,
      headers: auth,
      cpuOf: server,
    })
    log(
      `lookup over 1,000 recurring USDOTs (after two passes over them, ${fillSeconds.toFixed(1)} s, filled the record cache): ${fmt(repeat.rps)} req/s, p50 ${repeat.p50} ms, p99 ${repeat.p99} ms, errors ${repeat.errors}, server CPU ${repeat.cpuUs} µs/request (main thread ${repeat.mainUs}), load generator ${repeat.loadUs} µs/request${memOf(server.pid)}`,
    )

    const broker = await load(url, {
      paths: () => `/v1/broker/${randomMc()}`,
      headers: auth,
      cpuOf: server,
    })
    log(
      `lookup GET /v1/broker/{mc}, random MC numbers (${fmt(mcs.length)} drawn): ${fmt(broker.rps)} req/s, p50 ${broker.p50} ms, p99 ${broker.p99} ms, errors ${broker.errors}, server CPU ${broker.cpuUs} µs/request (main thread ${broker.mainUs}), load generator ${broker.loadUs} µs/request${memOf(server.pid)}`,
    )

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
    const search = await load(url, {
      paths: () => `/v1/search?q=${names[Math.floor(Math.random() * names.length)]}`,
      headers: auth,
      connections: 4,
    })
    log(
      `search GET /v1/search?q=<common word> (4 connections): ${fmt(search.rps)} req/s, p50 ${search.p50} ms, p99 ${search.p99} ms, non-2xx ${search.errors} (${search.codes})${memOf(server.pid)}`,
    )

    // a batch: 100 random companies, the same body again and again (an onboarding list checked
    // by several clients), measured like the lookups after a second of warm-up; first the cold
    // answer alone (none of its records read before), then batches of 100 companies never seen
    const newBatch = () =>
      JSON.stringify({
        companies: Array.from({ length: 100 }, () => ({ dot: String(randomDot()) })),
      })
    const batch = newBatch()
    const batchReq = {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: batch,
    }
    const coldStarted = performance.now()
    const coldRes = await fetch(`${url}/v1/verify`, batchReq)
    await coldRes.arrayBuffer()
    const coldMs = performance.now() - coldStarted
    const verifyLoad = { method: 'POST', headers: auth, connections: 4, cpuOf: server }
    await load(`${url}/v1/verify`, { ...verifyLoad, body: batch }, 1) // warm-up
    const verify = await load(`${url}/v1/verify`, { ...verifyLoad, body: batch })
    log(
      `batch POST /v1/verify (100 items, 4 connections): ${fmt(verify.rps)} req/s, p50 ${verify.p50} ms, p99 ${verify.p99} ms, non-2xx ${verify.errors} (${verify.codes}), server CPU ${verify.cpuUs} µs/request; its first answer (cold, alone): ${coldMs.toFixed(0)} ms (${coldRes.status})${memOf(server.pid)}`,
    )
    // the never-read batches, and the lookups beside them, run half a load's time each
    const halfSeconds = Math.max(2, Math.round(duration / 2))
    // never-read batches alone, then beside single lookups at a steady rate: what an interactive
    // caller (a TMS) sees while an onboarding job posts batches of new companies
    const neverRead = async (what: string, bodies: () => string) => {
      const alone = await load(`${url}/v1/verify`, { ...verifyLoad, bodies }, halfSeconds)
      log(
        `  every batch 100 ${what} not read before: ${fmt(alone.rps)} req/s, p50 ${alone.p50} ms, p99 ${alone.p99} ms, non-2xx ${alone.errors} (${alone.codes}), server CPU ${alone.cpuUs} µs/request${memOf(server.pid)}`,
      )
      const [batches, beside] = await Promise.all([
        load(
          `${url}/v1/verify`,
          { method: 'POST', headers: auth, connections: 4, bodies },
          halfSeconds,
        ),
        load(url, { paths: lookups.paths, headers: auth, connections: 8, rate: 500 }, halfSeconds),
      ])
      log(
        `  random lookups at 500/s (8 connections) beside them: ${fmt(beside.rps)} req/s, p50 ${beside.p50} ms, p99 ${beside.p99} ms, errors ${beside.errors}; the batches meanwhile ${fmt(batches.rps)} req/s, p99 ${batches.p99} ms, non-2xx ${batches.errors}${memOf(server.pid)}`,
      )
    }
    await neverRead('companies', newBatch)
    // every item named by an MC number (how brokers often list carriers)
    await neverRead('MC numbers', () =>
      JSON.stringify({ companies: Array.from({ length: 100 }, () => ({ mc: randomMc() })) }),
    )

    // equipment lookups: on this server when it serves the equipment dataset (every dataset
    // loaded), else on a server over the census and equipment data directory below
    if (activeFiles.some((f) => f.dataset === 'equipment'))
      await equipmentLoad('equipment lookup', { server, url, auth }, equipment?.sample ?? [])

    // 3. lookups while a full census import runs in another process
    const cachedBefore = pageCacheGb()
    const importer = spawn(
      process.execPath,
      ['dist/main.js', 'import', '--dir', filesDir, '--dataset', 'census'],
      { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, stdio: 'ignore' },
    )
    // listened to from the start: a small import can end before the load does
    const exited = new Promise<number | null>((r) => importer.on('exit', r))
    const during = await load(url, lookups)
    const cachedAfter = pageCacheGb()
    const exit = await exited
    log(
      `lookup during a census import: ${fmt(during.rps)} req/s, p50 ${during.p50} ms, p99 ${during.p99} ms, errors ${during.errors} (import exit ${exit}; page cache ${cachedBefore} before, ${cachedAfter} after the load)${memOf(server.pid)}`,
    )

    // 4. the memory curve: RSS over `curveLookups` lookups (does it grow?)
    const step = Math.ceil(curveLookups / 10)
    const curve: string[] = []
    let done = 0
    let errors = 0
    const curveStarted = performance.now()
    while (done < curveLookups) {
      const r = await autocannon({
        url,
        connections,
        amount: Math.min(step, curveLookups - done),
        headers: auth,
        requests: [{ setupRequest: (req) => ({ ...req, path: `/v1/carrier/${randomDot()}` }) }],
      })
      done += r.requests.total
      errors += r.errors + r.non2xx
      curve.push(`${fmt(done)}: ${rssNowMb(server.pid)} MB`)
    }
    log(
      `serving RSS over ${fmt(done)} lookups (${((performance.now() - curveStarted) / 1000).toFixed(0)} s, errors ${errors}): ${curve.join(', ')}`,
    )
    log(`serving peak RSS: ${rssMb(server.pid)} MB`)
  } finally {
    server.kill('SIGTERM')
    bare.kill('SIGTERM')
  }

  if (equipment && !activeFilesOf(dataDir).includes('equipment')) {
    const api = await startApi(equipmentDir)
    try {
      log(`serving RSS at start (census and equipment): ${rssNowMb(api.server.pid)} MB`)
      await equipmentLoad('equipment lookup (census and equipment server)', api, equipment.sample)
    } finally {
      api.server.kill('SIGTERM')
    }
  }

  // 5. name search in process, every kind of query, cold (no cache of ranked searches)
  const search = spawnSync(
    process.execPath,
    [
      ...tsx,
      'bench/search.ts',
      '--dir',
      filesDir,
      '--data',
      censusDir,
      '--per-kind',
      smoke ? '20' : '200',
    ],
    { maxBuffer: 1 << 24, encoding: 'utf8' },
  )
  if (search.status !== 0) throw new Error(`bench/search.ts failed: ${search.stderr.slice(-2000)}`)
  log(search.stderr.trimEnd())

  // 6. cost growth: census import and lookups at 10 %, 50 % and 100 % of the census
  if (!smoke) {
    log('cost growth (census only, lookups at 32 connections):')
    for (const share of [0.1, 0.5, 1]) {
      const rows = Math.round(censusRows * share)
      const dir = share === 1 ? censusDir : join(root, `data-${censusRows}-census-${rows}`)
      let seconds = share === 1 ? censusSeconds : null
      if (share !== 1) {
        const imp = runImport(dir, censusSlice(filesDir, rows), 'census')
        seconds = imp.seconds
      }
      const api = await startApi(dir)
      try {
        const paths = () => `/v1/carrier/${FIRST_DOT + Math.floor(Math.random() * rows)}`
        await load(api.url, { paths, headers: api.auth }, jitWarmup)
        const r = await load(api.url, { paths, headers: api.auth })
        log(
          `  ${String(share * 100).padStart(3)} % (${fmt(rows)} rows): import ${seconds === null ? 'reused' : `${seconds.toFixed(1)} s`}, lookups ${fmt(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms`,
        )
      } finally {
        api.server.kill('SIGTERM')
      }
      if (share !== 1) rmSync(dir, { recursive: true, force: true })
    }
  }
  log(`bench took ${((performance.now() - benchStarted) / 60_000).toFixed(1)} min`)
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
