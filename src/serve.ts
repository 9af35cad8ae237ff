/** Composition root: config → deps → sample → app → listen → scheduler → graceful shutdown. */
import { RecordWorkers } from './carriers/record-workers.ts'
import { readFileSync } from 'node:fs'
import type { Server as HttpServer } from 'node:http'
import { createServer as createNetServer } from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { createServer as createHttpsServer } from 'node:https'
import { createSecureContext } from 'node:tls'
import { serve as honoServe, type ServerType } from '@hono/node-server'
import { createApp } from './app.ts'
import { inflight } from './http/inflight.ts'
import { checksJobs } from './jobs/checks.ts'
import { identityJobs } from './jobs/identity.ts'
import { onboardingJobs } from './jobs/onboarding.ts'
import { checksOnChange } from './checks/monitor.ts'
import { ConfigError, type Config } from './config.ts'
import { createDeps } from './compose.ts'
import { pipelineDeps, type Deps, type Job } from './deps.ts'
import { maintenanceJobs } from './jobs/maintenance.ts'
import { mailJobs } from './mail/jobs.ts'
import { createJobs, type RunHooks } from './jobs/jobs.ts'
import { startScheduler } from './jobs/scheduler.ts'
import { recoverRuns } from './sync/recover.ts'
import { prepareDataDir } from './db/paths.ts'
import { storageFailureCode } from './errors.ts'
import { ensureSample } from './sync/sample.ts'
import { catchUpSync, pendingDatasets } from './sync/startup.ts'
import { webhookJobs } from './webhooks/jobs.ts'
import { watchOnActivation } from './webhooks/monitor.ts'

/**
 * How long a stopping server waits for request handlers still running after their connections
 * closed (http/inflight.ts); well inside compose's 30 s stop grace period, and longer than any
 * handler's own wait (a cross-check times out after CROSSCHECK_TIMEOUT_MS, 3 s by default).
 */
export const DRAIN_MS = 10_000

/**
 * The page cache (KiB) of the serving thread's connections to the dataset files other than the
 * census while record workers read the records.
 */
const READER_CACHE_KIB = 1_024

export interface Running {
  deps: Deps
  server: ServerType
  port: number
  stop(): Promise<void>
}

/** Starts the appliance; resolves once it listens. */
export async function startServer(config: Config, given?: Deps): Promise<Running> {
  // a taken port fails the start at once, not after the sample build and the record workers
  await checkPortFree(config.host, config.port)
  // the data directory is checked before anything opens it (a clear start failure, or read-only)
  const storage = prepareDataDir(config.paths.dataDir)
  const deps = given ?? createDeps(config, { fullDisk: storage === 'full' })
  const { log } = deps
  if (storage === 'full')
    log.warn(
      { dir: config.paths.dataDir },
      'the volume of the data directory is full: serving read-only (writes answer 503 storage_unavailable, /readyz is not ready) until space is freed; no sync runs',
    )
  limitHeapGrowth(config.memory.heapGrowingPercent)
  const tls = config.tls
  const tlsFiles = tls ? readTls(tls) : null // a bad path stops the start before any work
  const lifetime = new AbortController()
  const hooks = runHooks(deps)
  // a previous process that crashed or was killed mid-run left a lease, a run and a partial file
  try {
    recoverRuns(pipelineDeps(deps))
  } catch (err) {
    log.warn({ err }, 'recovering interrupted runs failed; the next dataset run tries again')
  }
  const sample =
    storage === 'full'
      ? 'current'
      : await ensureSample(
          { ...pipelineDeps(deps), ...hooks },
          config.paths.sample,
          lifetime.signal,
        )
  if (sample === 'absent') log.warn({ dir: config.paths.sample }, 'no bundled sample data found')
  else if (sample !== 'current')
    for (const r of sample)
      if (r.status !== 'activated') log.error({ result: r }, 'sample dataset build failed')
  deps.datasets.reconcile()
  // the record port: the worker pool when configured, else records assembled in process
  if (config.records.workers > 0) {
    const pool = new RecordWorkers({
      size: config.records.workers,
      log,
      nationalAverages: config.safety.nationalAverages,
      appDb: config.paths.appDb,
    })
    deps.records = pool
    // this thread's connections to the files other than the census then serve only the holders
    // of dockets and rare reads: a small page cache instead of one filled by the pages they pass
    deps.datasets.setCacheKib(READER_CACHE_KIB)
    deps.datasets.onChange(() =>
      pool.follow([deps.datasets.view('live'), deps.datasets.view('test')]),
    )
  }

  const app = createApp(deps)
  const requests = inflight()
  const timeouts = {
    headersTimeout: config.http.headersTimeoutMs,
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    // how often Node checks the two request timeouts (default 30 s would double them)
    connectionsCheckingInterval: Math.min(1000, config.http.headersTimeoutMs),
  }
  const serverOptions = tlsFiles ? { ...timeouts, ...tlsFiles } : timeouts
  const listening = new Promise<ServerType>((resolveListen, rejectListen) => {
    const s = honoServe(
      {
        fetch: requests.track(app.fetch),
        port: config.port,
        hostname: config.host,
        serverOptions,
        ...(tls ? { createServer: createHttpsServer } : {}),
      },
      () => {
        s.off('error', rejectListen)
        resolveListen(s)
      },
    )
    s.once('error', rejectListen) // e.g. the port is taken
  })
  const server = await listening.catch(async (err: unknown) => {
    // nothing may keep a process that cannot serve alive (worker threads, app.db)
    await deps.records.close()
    deps.close()
    throw err
  })
  ;(server as HttpServer).keepAliveTimeout = config.http.keepAliveTimeoutMs
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  log.info(
    {
      port,
      host: config.host,
      tls: tls !== null,
      sync: config.sync.enabled,
      source: deps.datasets.view('live').source,
    },
    'listening',
  )

  const stopJobs = startBackground(deps, hooks, lifetime.signal, storage === 'writable')

  let stopping: Promise<void> | null = null
  const stop = () =>
    (stopping ??= (async () => {
      log.info('shutting down')
      lifetime.abort(new Error('shutting down'))
      await stopJobs()
      await new Promise<void>((r) => server.close(() => r()))
      // handlers whose client went away outlive their connection: let them finish first
      if (!(await requests.drained(DRAIN_MS)))
        log.warn({ running: requests.running }, 'requests still running at shutdown')
      await deps.records.close()
      deps.close()
      log.info('stopped')
    })())
  return { deps, server, port, stop }
}

/** What every dataset run of the server reacts with: a live activation compares the watchlists. */
export const runHooks = (deps: Deps): RunHooks => ({
  onActivated: watchOnActivation({ ...deps, annotate: checksOnChange(deps) }),
})

/** Reads and checks the TLS files; a missing, unreadable or unusable one is a one-line configuration error. */
function readTls(tls: NonNullable<Config['tls']>): { cert: Buffer; key: Buffer } {
  const read = (name: string, path: string) => {
    try {
      return readFileSync(path)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      throw new ConfigError(
        `${name}: cannot read ${path} (${code === 'ENOENT' ? 'no such file' : (code ?? String(err))})`,
      )
    }
  }
  const files = {
    cert: read('TLS_CERT_FILE', tls.certFile),
    key: read('TLS_KEY_FILE', tls.keyFile),
  }
  try {
    createSecureContext(files)
  } catch (err) {
    throw new ConfigError(
      `TLS_CERT_FILE/TLS_KEY_FILE: not a usable PEM certificate and key (${(err as Error).message})`,
    )
  }
  return files
}

/** The server's scheduled jobs: sync per dataset, reconcile, webhooks, watchlists, maintenance. */
export const backgroundJobs = (deps: Deps, hooks: RunHooks = runHooks(deps)): Job[] =>
  createJobs(
    deps,
    [
      maintenanceJobs,
      (d) => webhookJobs({ ...d, annotate: checksOnChange(d) }),
      checksJobs,
      mailJobs,
      identityJobs,
      onboardingJobs,
    ],
    hooks,
  )

/**
 * Scheduled jobs (backgroundJobs) and, with syncing enabled, a sync in the background of every
 * dataset the mirror lacks or whose last run was interrupted or skipped (pendingDatasets): the
 * full mirror on a first start, the rest of it after a restart. Returns a function that stops
 * them (running work stops at its next checkpoint and is recorded as interrupted).
 */
function startBackground(
  deps: Deps,
  hooks: RunHooks,
  signal: AbortSignal,
  writable: boolean,
): () => Promise<void> {
  const stopScheduler = startScheduler(backgroundJobs(deps, hooks), deps.log)
  let initial: Promise<unknown> = Promise.resolve()
  const pending =
    deps.config.sync.enabled && writable ? pendingDatasets(deps.db, deps.config.paths.dataDir) : []
  if (pending.length) {
    deps.log.info({ datasets: pending }, 'starting a sync in the background of the datasets owed')
    initial = catchUpSync({ ...deps, ...hooks }, pending, { signal }).then(
      (results) =>
        deps.log.info(
          {
            results: results.map((r) => ({ dataset: r.dataset, status: r.status, error: r.error })),
          },
          signal.aborted ? 'initial sync interrupted by shutdown' : 'initial sync finished',
        ),
      (err: unknown) => deps.log.error({ err }, 'initial sync failed'),
    )
  }
  return async () => {
    await Promise.all([stopScheduler(), initial])
  }
}

/**
 * Under load V8 lets the old generation grow to several times what survives a full
 * collection before collecting again; a fixed growth factor keeps the heap near its live size at
 * little cost in throughput. A lower factor than the default (30 %) costs the equipment lookups'
 * tail latency more collections; a higher one lets batches beside lookups raise the peak RSS. V8
 * reads the flag at every collection, so setting it at start-up takes effect. 0 leaves V8's own
 * heuristics.
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`)
}

/** Binds and releases the port: throws the listen error (EADDRINUSE, EACCES) when it cannot be used. */
async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return
  const probe = createNetServer()
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject)
    probe.listen({ port, host, exclusive: true }, () => resolve())
  })
  await new Promise<void>((resolve) => probe.close(() => resolve()))
}

/** The user the Docker image runs as (Dockerfile `USER node`): its volume must belong to it. */
const IMAGE_UID = 1000

/**
 * One line that names why the server could not start and what to do, for the errors an operator
 * can fix (a taken port, a data directory that cannot be used, a full volume); null for others.
 */
export function explainStartFailure(err: unknown, config: Config): string | null {
  const e = err as NodeJS.ErrnoException & { syscall?: string }
  const code = typeof e?.code === 'string' ? e.code : ''
  const dir = config.paths.dataDir
  const where = `${config.host}:${config.port}`
  if (e?.syscall === 'listen' || code === 'EADDRINUSE') {
    if (code === 'EADDRINUSE')
      return `cannot start: port ${config.port} is already in use (${where}); stop the process that holds it or set PORT to a free port`
    if (code === 'EACCES')
      return `cannot start: no permission to listen on port ${config.port} (${where}); set PORT to 1024 or above`
    if (code === 'EADDRNOTAVAIL')
      return `cannot start: HOST ${config.host} is not an address of this machine; set HOST to 0.0.0.0 or one of its addresses`
  }
  const uid = process.getuid?.() ?? IMAGE_UID
  const gid = process.getgid?.() ?? IMAGE_UID
  const storage = storageFailureCode(err)
  if (code === 'ENOTDIR' || code === 'EEXIST')
    return `cannot start: DATA_DIR ${dir} is not a directory (a file is in the way); set DATA_DIR to a directory, or remove the file`
  if (
    code === 'EACCES' ||
    code === 'EPERM' ||
    code === 'EROFS' ||
    storage?.startsWith('SQLITE_READONLY') ||
    storage?.startsWith('SQLITE_CANTOPEN')
  )
    return `cannot start: the data directory ${dir} is not writable by this process (uid ${uid}, gid ${gid}); make it writable (chown -R ${uid}:${gid} ${dir}; the Docker image runs as uid ${IMAGE_UID}: chown -R ${IMAGE_UID}:${IMAGE_UID} the host folder or volume mounted at /data) or set DATA_DIR to a writable directory`
  if (code === 'ENOSPC' || code === 'EDQUOT' || storage?.startsWith('SQLITE_FULL'))
    return `cannot start: no space left on the volume of the data directory ${dir} and no data to serve yet; free space or set DATA_DIR to a larger volume (the full mirror needs about 25 GB)`
  if (storage !== null)
    return `cannot start: the data directory ${dir} cannot be used (${storage}: ${e.message}); check that it exists, is writable and has free space`
  return null
}
