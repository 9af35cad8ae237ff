/** The bench's tools: data files and imports, servers, load generation, CPU and memory readings. */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { createReadStream, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { isAbsolute, join, resolve } from 'node:path'
import autocannon from 'autocannon'
import Database from 'better-sqlite3'
import { writeScaleDataset } from '../tools/generate/dataset.ts'
import { FILE_IDS, FILE_KEYS } from '../tools/generate/columns.ts'

import { args, censusRows, connections, duration, FIRST_DOT, jitWarmup, log } from './options.ts'

export async function freePort(): Promise<number> {
  return new Promise((r) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address()
      s.close(() => r(typeof a === 'object' && a ? a.port : 0))
    })
  })
}

export async function ensureFiles(dir: string, all: boolean) {
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

export function runImport(dataDir: string, inDir: string, only?: string) {
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
export function censusSlice(filesDir: string, rows: number): string {
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

export function rssNowMb(pid: number | undefined): number {
  if (!pid) return 0
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)
}

export function startChild(
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

export async function load(
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
export function processCpuSeconds(pid: number | undefined, thread: 'all' | 'main' = 'all'): number {
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
export const CLOCK_TICKS = 100

export function rssMb(pid: number | undefined): number {
  if (!pid) return 0
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)
}

/** The server's RSS now and its peak so far, appended to each serving load's line. */
export const memOf = (pid: number | undefined): string =>
  `; server RSS ${rssNowMb(pid)} MB, peak so far ${rssMb(pid)} MB`

export function cli(dataDir: string, ...argv: string[]): string {
  return execFileSync(process.execPath, ['dist/main.js', ...argv], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
  }).toString()
}

export const randomDot = () => FIRST_DOT + Math.floor(Math.random() * censusRows)

/**
 * The host's page cache in GB (/proc/meminfo `Cached`), or `unknown` where there is none to read. A
 * lookup whose dataset pages are no longer cached waits for the disk, and a VM may give back
 * idle page-cache pages, so the loads that depend on it print it.
 */
export function pageCacheGb(): string {
  try {
    const kb = /^Cached:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1]
    return kb === undefined ? 'unknown' : `${(Number(kb) / 1024 / 1024).toFixed(1)} GB`
  } catch {
    return 'unknown'
  }
}

/** Reads files end to end (into the OS page cache) and says how much and how long. */
export async function readWhole(paths: string[]): Promise<{ gb: number; seconds: number }> {
  const started = performance.now()
  let bytes = 0
  for (const p of paths)
    for await (const chunk of createReadStream(p, { highWaterMark: 1 << 20 }))
      bytes += (chunk as Buffer).length
  return { gb: bytes / 1e9, seconds: (performance.now() - started) / 1000 }
}

/** Mean size of the API's record body over 50 random found USDOTs. */
export async function averageRecordBytes(
  url: string,
  headers: Record<string, string>,
): Promise<number> {
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
export async function answerHeaders(url: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${url}/v1/carrier/${FIRST_DOT}`, { headers })
  await res.arrayBuffer()
  const own = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'])
  return JSON.stringify(Object.fromEntries([...res.headers].filter(([k]) => !own.has(k))))
}

/**
 * An account, a live key and a server over a data directory (request logs on, as in production);
 * `nodeArgs` go to the server's node (e.g. --cpu-prof).
 */
export async function startApi(
  dataDir: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
) {
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
    // the semi-space size bin/carrier-verify (the image's command) gives the server
    ['--max-semi-space-size=8', ...nodeArgs, 'dist/main.js', 'serve'],
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

export const fmt = (n: number) => n.toLocaleString('en-US')

export function importLine(
  label: string,
  imp: ReturnType<typeof runImport>,
  dataset: string,
): string {
  const r = imp.results.find((x) => x.dataset === dataset)
  const phases = imp.phases
    ? `; phases ${Object.entries(imp.phases)
        .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
        .join(', ')}`
    : ''
  return `${label}: ${fmt(r?.rows ?? 0)} rows in ${imp.seconds.toFixed(1)} s = ${fmt(Math.round((r?.rows ?? 0) / imp.seconds))} rows/s, ${imp.cpuSeconds.toFixed(1)} CPU-s (${(imp.cpuSeconds / imp.seconds).toFixed(2)} cores), peak RSS ${imp.maxRssMb} MB${phases}`
}

/** The active file of a dataset in a data directory (null when none is active). */
export function activeFile(dataDir: string, dataset: string): string | null {
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
export function activeFilesOf(dataDir: string): string[] {
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
export function equipmentFacts(file: string, limit: number) {
  const db = new Database(file, { readonly: true })
  try {
    const count = (sql: string) => (db.prepare(sql).pluck().get() as number) ?? 0
    // the distinct VINs and plates the build counted (equipment_meta)
    const meta = (key: string) =>
      Number(db.prepare('SELECT value FROM equipment_meta WHERE key = ?').pluck().get(key) ?? 0)
    return {
      bytes: statSync(file).size,
      vins: meta('vins'),
      validVins: meta('valid_vins'),
      vinCarriers: count('SELECT count(*) FROM vin_carriers'),
      plates: meta('plates'),
      carriers: count('SELECT count(*) FROM carrier_equipment'),
      sample: db
        .prepare(
          'SELECT vin FROM (SELECT DISTINCT vin FROM vin_carriers) ORDER BY random() LIMIT ?',
        )
        .pluck()
        .all(limit) as string[],
    }
  } finally {
    db.close()
  }
}

/** GET /v1/equipment/{vin} over random VINs of the built dataset, after a warm-up. */
export async function equipmentLoad(
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
    `${label} GET /v1/equipment/{vin}, random VINs (${fmt(vins.length)} drawn, ${connections} connections): ${fmt(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors} (${r.codes}), server CPU ${r.cpuUs} µs/request (main thread ${r.mainUs})${memOf(api.server.pid)}`,
  )
}

/** A single-endpoint bench's `--data-dir` (absolute) and the path of its active `dataset` file. */
export function dataDirWith(dataset: string): { dataDir: string; file: string } {
  const given = args['data-dir']
  if (!given) throw new Error('--data-dir DIR is required')
  const dataDir = resolve(given)
  const file = activeFile(dataDir, dataset)
  if (!file) throw new Error(`no active ${dataset} dataset in ${given}`)
  return { dataDir, file }
}
