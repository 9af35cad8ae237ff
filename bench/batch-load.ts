/**
 * The bench's batches step (bench/run.ts `batchLoads`) against an existing data directory, with
 * the server's memory followed the whole time: random lookups, recurring lookups and name search
 * first (as the bench's earlier steps run), then POST /v1/verify with the same 100 companies again and again, batches of 100
 * companies never read before alone and beside single lookups at 500/s, and the same named by MC
 * number. Each step prints its figures with the server's RSS (its peak while the step ran, sampled
 * every 100 ms) and, at that peak, the main thread's heap and external memory (/metrics) and the
 * process's anonymous and file-backed resident memory (/proc smaps_rollup). Prints, asserts
 * nothing. The server inherits this process's environment (e.g. RECORD_WORKERS). The run adds
 * an account and a key to the directory's app.db.
 * `npx tsx bench/batch-load.ts --data-dir DIR [--duration 10]`
 */
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import { dataDirWith, fmt, load, rssMb, rssNowMb, startApi } from './harness.ts'
import { duration, jitWarmup, log } from './options.ts'

const { dataDir, file: censusFile } = dataDirWith('census')
const db = new Database(censusFile, { readonly: true })
const range = db
  .prepare('SELECT min(dot_number) AS lo, max(dot_number) AS hi FROM companies')
  .get() as { lo: number; hi: number }
// MC numbers as bench/run.ts draws them: a tenth of the census's, so few repeat
const mcs = db
  .prepare(
    "SELECT number FROM census_dockets WHERE prefix = 'MC' AND number % 10 = 3 ORDER BY random() LIMIT 400000",
  )
  .pluck()
  .all() as number[]
db.close()

const randomDot = () => range.lo + Math.floor(Math.random() * (range.hi - range.lo + 1))
const randomMc = () => `MC-${mcs[Math.floor(Math.random() * mcs.length)] ?? 0}`
const newBatch = () =>
  JSON.stringify({ companies: Array.from({ length: 100 }, () => ({ dot: String(randomDot()) })) })
const mcBatch = () =>
  JSON.stringify({ companies: Array.from({ length: 100 }, () => ({ mc: randomMc() })) })

/** The server's memory at its highest RSS while a step ran. */
interface Peak {
  rss: number
  detail: string
}

/** Samples the server's RSS every 100 ms; at each new high, reads where the memory is. */
function watchMemory(pid: number, url: string) {
  let peak: Peak = { rss: 0, detail: '' }
  let reading = false
  const timer = setInterval(() => {
    const rss = rssNowMb(pid)
    if (rss <= peak.rss || reading) return
    peak = { rss, detail: peak.detail }
    reading = true
    void memoryDetail(pid, url)
      .then((detail) => {
        if (peak.rss === rss) peak.detail = detail
      })
      .finally(() => (reading = false))
  }, 100)
  return {
    /** the peak since the last call, and a new watch from now */
    take(): Peak {
      const p = peak
      peak = { rss: 0, detail: '' }
      return p
    },
    stop: () => clearInterval(timer),
  }
}

const MB = 1024 * 1024

/** The main thread's heap and external memory (/metrics), and the process's anon and file RSS. */
async function memoryDetail(pid: number, url: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const metric = (name: string) =>
    Math.round(Number(new RegExp(`^cvk_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0) / MB)
  const space = (name: string) =>
    Math.round(
      Number(
        new RegExp(
          `^cvk_nodejs_heap_space_size_total_bytes\\{space="${name}"\\} (\\S+)$`,
          'm',
        ).exec(text)?.[1] ?? 0,
      ) / MB,
    )
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
  const kb = (field: string) =>
    Math.round(Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0) / 1024)
  return `main heap ${metric('nodejs_heap_size_used_bytes')}/${metric('nodejs_heap_size_total_bytes')} MB (new space ${space('new')}, old ${space('old')}, large objects ${space('large_object')}), external ${metric('nodejs_external_memory_bytes')} MB; RSS anon ${kb('Anonymous')} MB, file ${kb('Rss') - kb('Anonymous')} MB`
}

const api = await startApi(dataDir)
const pid = api.server.pid ?? 0
const memory = watchMemory(pid, api.url)
const mem = () => {
  const p = memory.take()
  return `; server RSS now ${rssNowMb(pid)} MB, step peak ${p.rss} MB (${p.detail}), process peak ${rssMb(pid)} MB`
}
try {
  const auth = api.auth
  const lookups = { paths: () => `/v1/carrier/${randomDot()}`, headers: auth }
  log(`start: server RSS ${rssNowMb(pid)} MB`)
  await load(api.url, lookups, Math.min(jitWarmup, 10))
  const warm = await load(api.url, { ...lookups, cpuOf: api.server })
  log(
    `random lookups (32 connections, after 10 s of them): ${fmt(warm.rps)} req/s, p99 ${warm.p99} ms, server CPU ${warm.cpuUs} µs/request${mem()}`,
  )
  // as the bench's steps before its batches: recurring USDOTs (they fill the record cache) and
  // name search (the census's page cache on this thread)
  const recurring = Array.from({ length: 1000 }, randomDot)
  const repeat = await load(api.url, {
    paths: () => `/v1/carrier/${recurring[Math.floor(Math.random() * recurring.length)]}`,
    headers: auth,
    cpuOf: api.server,
  })
  log(
    `1,000 recurring USDOTs: ${fmt(repeat.rps)} req/s, p99 ${repeat.p99} ms, server CPU ${repeat.cpuUs} µs/request${mem()}`,
  )
  const words = ['TRUCKING', 'LOGISTICS', 'EXPRESS', 'FREIGHT', 'TRANSPORT', 'SMITH', 'CARRIERS']
  const search = await load(
    api.url,
    {
      paths: () => `/v1/search?q=${words[Math.floor(Math.random() * words.length)]}`,
      headers: auth,
      connections: 4,
    },
    Math.max(2, Math.round(duration / 2)),
  )
  log(`search, 4 connections: ${fmt(search.rps)} req/s, p99 ${search.p99} ms${mem()}`)

  const batch = newBatch()
  const verifyLoad = { method: 'POST', headers: auth, connections: 4, cpuOf: api.server }
  await load(`${api.url}/v1/verify`, { ...verifyLoad, body: batch }, 1)
  const same = await load(`${api.url}/v1/verify`, { ...verifyLoad, body: batch })
  log(
    `batch POST /v1/verify, the same 100 companies (4 connections): ${fmt(same.rps)} req/s, p50 ${same.p50} ms, p99 ${same.p99} ms, non-2xx ${same.errors}, server CPU ${same.cpuUs} µs/request${mem()}`,
  )
  const halfSeconds = Math.max(2, Math.round(duration / 2))
  for (const [what, bodies] of [
    ['companies', newBatch],
    ['MC numbers', mcBatch],
  ] as const) {
    const alone = await load(`${api.url}/v1/verify`, { ...verifyLoad, bodies }, halfSeconds)
    log(
      `  every batch 100 ${what} not read before: ${fmt(alone.rps)} req/s, p50 ${alone.p50} ms, p99 ${alone.p99} ms, non-2xx ${alone.errors}, server CPU ${alone.cpuUs} µs/request${mem()}`,
    )
    const [batches, beside] = await Promise.all([
      load(`${api.url}/v1/verify`, { ...verifyLoad, bodies }, halfSeconds),
      load(api.url, { ...lookups, connections: 8, rate: 500 }, halfSeconds),
    ])
    log(
      `  random lookups at 500/s (8 connections) beside them: ${fmt(beside.rps)} req/s, p50 ${beside.p50} ms, p99 ${beside.p99} ms, errors ${beside.errors}; the batches meanwhile ${fmt(batches.rps)} req/s, p99 ${batches.p99} ms, non-2xx ${batches.errors}, server CPU ${batches.cpuUs} µs/batch and its lookups${mem()}`,
    )
  }
} finally {
  memory.stop()
  const exited = once(api.server, 'exit')
  api.server.kill('SIGTERM')
  await exited
}
