/** Composition root: config → deps → sample → app → listen → scheduler → graceful shutdown. */
import { RecordWorkers } from './carriers/record-workers.ts'
import { readFileSync } from 'node:fs'
import type { Server as HttpServer } from 'node:http'
import { setFlagsFromString } from 'node:v8'
import { createServer as createHttpsServer } from 'node:https'
import { createSecureContext } from 'node:tls'
import { serve as honoServe, type ServerType } from '@hono/node-server'
import { createApp } from './app.ts'
import { inflight } from './http/inflight.ts'
import { checksJobs } from './jobs/checks.ts'
import { onboardingJobs } from './jobs/onboarding.ts'
import { checksOnChange } from './checks/monitor.ts'
import { ConfigError, type Config } from './config.ts'
import { createDeps, pipelineDeps, type Deps } from './deps.ts'
import { maintenanceJobs } from './jobs/maintenance.ts'
import { createJobs, type Job, type RunHooks } from './jobs/jobs.ts'
import { startScheduler } from './jobs/scheduler.ts'
import { recoverRuns } from './sync/recover.ts'
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

export interface Running {
  deps: Deps
  server: ServerType
  port: number
  stop(): Promise<void>
}

/** Starts the appliance; resolves once it listens. */
export async function startServer(
  config: Config,
  deps: Deps = createDeps(config),
): Promise<Running> {
  const { log } = deps
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
  const sample = await ensureSample(
    { ...pipelineDeps(deps), ...hooks },
    config.paths.sample,
    lifetime.signal,
  )
  if (sample === 'absent') log.warn({ dir: config.paths.sample }, 'no bundled sample data found')
  else if (sample !== 'current')
    for (const r of sample)
      if (r.status !== 'activated') log.error({ result: r }, 'sample dataset build failed')
  deps.datasets.reconcile()
  if (config.records.workers > 0) {
    const pool = new RecordWorkers({
      size: config.records.workers,
      log,
      nationalAverages: config.safety.nationalAverages,
      appDb: config.paths.appDb,
    })
    deps.recordWorkers = pool
    deps.datasets.leaveRecordsToWorkers()
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
  const server = await new Promise<ServerType>((resolveListen, rejectListen) => {
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

  const stopJobs = startBackground(deps, hooks, lifetime.signal)

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
      await deps.recordWorkers?.close()
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
function startBackground(deps: Deps, hooks: RunHooks, signal: AbortSignal): () => Promise<void> {
  const stopScheduler = startScheduler(backgroundJobs(deps, hooks), deps.log)
  let initial: Promise<unknown> = Promise.resolve()
  const pending = deps.config.sync.enabled ? pendingDatasets(deps.db) : []
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
 * Under load V8 let the old generation grow to about three times what survives a full
 * collection before collecting again (140 MB committed for 45 MB live at full scale, serving
 * RSS 350–390 MB); a fixed growth factor keeps it near the live size (58 MB committed, RSS
 * 270 MB) at no measurable cost in throughput (the default, 30 %, keeps the batches' peak about
 * 15 MB under 50 %'s at the same rates). V8 reads the flag at every collection, so setting it at
 * start-up takes effect. 0 leaves V8's own heuristics.
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`)
}
