/**
 * Benchmarks (docs/benchmarks.md): prints figures, asserts nothing. `npm run bench` (500k census rows),
 * `npm run bench -- --full` (full scale: 4.5 M census rows and every other file at its real size),
 * `npm run bench -- --census-rows N`, `npm run bench -- --smoke` (CI).
 * Servers and load generators are separate processes on 127.0.0.1; every run stops by itself.
 */
import { spawn, spawnSync, execFileSync } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import autocannon from 'autocannon'
import Database from 'better-sqlite3'
import { loadConfig } from '../src/config.ts'
import { linkIndexFacts } from './link-facts.ts'
import {
  args,
  censusRows,
  connections,
  curveLookups,
  duration,
  FIRST_DOT,
  full,
  jitWarmup,
  log,
  root,
  smoke,
  tsx,
} from './options.ts'
import {
  freePort,
  ensureFiles,
  runImport,
  censusSlice,
  rssNowMb,
  startChild,
  load,
  rssMb,
  memOf,
  randomDot,
  pageCacheGb,
  readWhole,
  averageRecordBytes,
  answerHeaders,
  startApi,
  fmt,
  importLine,
  activeFile,
  activeFilesOf,
  equipmentFacts,
  equipmentLoad,
} from './harness.ts'

/** 1. The census import, the equipment dataset beside it, and every dataset with --all or --full. */
function importData(filesDir: string) {
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
      `equipment dataset: ${(equipment.bytes / 1048576).toFixed(0)} MB on disk (${(equipment.bytes / 1e9).toFixed(2)} GB), ${fmt(equipment.vins)} distinct VINs (${fmt(equipment.validVins)} valid), ${fmt(equipment.vinCarriers)} VIN-carrier rows, ${fmt(equipment.plates)} plates, ${fmt(equipment.carriers)} carriers inspected`,
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
  return { censusDir, equipmentDir, dataDir, censusSeconds, equipment }
}

/** 2. The API server over the data, a bare node:http server on the same census file, the MC numbers drawn. */
async function startServers(
  dataDir: string,
  filesDir: string,
  equipment: ReturnType<typeof equipmentFacts> | null,
) {
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
  return {
    server,
    url,
    auth,
    bare,
    barePort,
    bodyBytes,
    censusFile,
    lookups,
    randomMc,
    mcs,
    activeFiles,
    dataDir,
    filesDir,
    equipment,
  }
}
type Served = Awaited<ReturnType<typeof startServers>>

/** Random lookups: the first seconds, a cold and a warm page cache, against bare node:http servers, and with the records on the main thread. */
async function lookupLoads(s: Served) {
  const {
    server,
    url,
    auth,
    bare,
    barePort,
    bodyBytes,
    censusFile,
    lookups,
    activeFiles,
    dataDir,
  } = s
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
      await load(single.url, { ...lookups, headers: single.auth, cpuOf: single.server }, jitWarmup)
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
}

/** Lookups of recurring USDOTs (the record cache's case), broker lookups by MC number and name searches. */
async function recurringLoads(s: Served) {
  const { server, url, auth, randomMc, mcs } = s
  // a broker's day: the same carriers again and again (the record cache's case)
  const hot = Array.from({ length: 1_000 }, randomDot)
  // its morning: three passes over them fill the record cache (a record enters on its third miss)
  let next = 0
  const fillStarted = performance.now()
  await autocannon({
    url,
    connections,
    amount: 3 * hot.length,
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
    `lookup over 1,000 recurring USDOTs (after three passes over them, ${fillSeconds.toFixed(1)} s, filled the record cache): ${fmt(repeat.rps)} req/s, p50 ${repeat.p50} ms, p99 ${repeat.p99} ms, errors ${repeat.errors}, server CPU ${repeat.cpuUs} µs/request (main thread ${repeat.mainUs}), load generator ${repeat.loadUs} µs/request${memOf(server.pid)}`,
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
}

/** Batches of 100 companies: the same body again and again, then never-read companies alone and beside single lookups. */
async function batchLoads(s: Served) {
  const { server, url, auth, lookups, randomMc } = s
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
}

/** Equipment lookups when this server has the dataset, then lookups while a full census import runs in another process. */
async function importBeside(s: Served) {
  const { server, url, auth, lookups, activeFiles, dataDir, filesDir, equipment } = s
  // equipment lookups: on this server when it serves the equipment dataset (every dataset
  // loaded), else on a server over the census and equipment data directory below
  if (activeFiles.some((f) => f.dataset === 'equipment'))
    await equipmentLoad('equipment lookup', { server, url, auth }, equipment?.sample ?? [])

  // 3. lookups while a full census import runs in another process
  const cachedBefore = pageCacheGb()
  const importer = spawn(
    process.execPath,
    // generated files carry no `.meta` sidecar: their data date is given, as an operator would
    [
      'dist/main.js',
      'import',
      '--dir',
      filesDir,
      '--dataset',
      'census',
      '--as-of',
      new Date().toISOString().slice(0, 10),
    ],
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
}

/** The memory curve: RSS over `curveLookups` lookups (does it grow?). */
async function memoryCurve(s: Served) {
  const { server, url, auth } = s
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
}

/** 5. Name search in process, every kind of query, cold (no cache of ranked searches). */
function searchStep(filesDir: string, censusDir: string) {
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
}

/** 6. Cost growth: census import and lookups at 10 %, 50 % and 100 % of the census. */
async function costGrowth(filesDir: string, censusDir: string, censusSeconds: number | null) {
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

  const { censusDir, equipmentDir, dataDir, censusSeconds, equipment } = importData(filesDir)
  const s = await startServers(dataDir, filesDir, equipment)
  try {
    await lookupLoads(s)
    await recurringLoads(s)
    await batchLoads(s)
    await importBeside(s)
    await memoryCurve(s)
  } finally {
    s.server.kill('SIGTERM')
    s.bare.kill('SIGTERM')
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

  searchStep(filesDir, censusDir)
  await costGrowth(filesDir, censusDir, censusSeconds)
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
