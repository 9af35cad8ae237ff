/** Composition root: config → deps → sample → app → listen → scheduler → graceful shutdown. */
import { readFileSync } from 'node:fs'
import { createServer as createHttpsServer } from 'node:https'
import { serve as honoServe, type ServerType } from '@hono/node-server'
import { createApp } from './app.ts'
import type { Config } from './config.ts'
import { createDeps, pipelineDeps, type Deps } from './deps.ts'
import { ensureSample } from './sync/sample.ts'

export interface Running {
  deps: Deps
  server: ServerType
  port: number
  stop(): Promise<void>
}

/** Starts the appliance; resolves once it listens. */
export async function startServer(config: Config, deps: Deps = createDeps(config)): Promise<Running> {
  const { log } = deps
  const lifetime = new AbortController()
  const sample = await ensureSample(pipelineDeps(deps), config.paths.sample, lifetime.signal)
  if (sample === 'absent') log.warn({ dir: config.paths.sample }, 'no bundled sample data found')
  else if (sample !== 'current') for (const r of sample) if (r.status !== 'activated') log.error({ result: r }, 'sample dataset build failed')
  deps.datasets.reconcile()

  const app = createApp(deps)
  const tls = config.tls
  const server = await new Promise<ServerType>((resolveListen) => {
    const s = honoServe(
      {
        fetch: app.fetch,
        port: config.port,
        hostname: config.host,
        ...(tls
          ? { createServer: createHttpsServer, serverOptions: { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) } }
          : {}),
      },
      () => resolveListen(s),
    )
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : config.port
  log.info({ port, host: config.host, tls: tls !== null, sync: config.sync.enabled, source: deps.datasets.view('live').source }, 'listening')

  const stopJobs = startBackground(deps, lifetime.signal)

  let stopping: Promise<void> | null = null
  const stop = () =>
    (stopping ??= (async () => {
      log.info('shutting down')
      lifetime.abort(new Error('shutting down'))
      await stopJobs()
      await new Promise<void>((r) => server.close(() => r()))
      deps.close()
      log.info('stopped')
    })())
  return { deps, server, port, stop }
}

/** Scheduled jobs (sync, reconcile, webhooks, maintenance); returns a function that stops them. */
function startBackground(deps: Deps, _signal: AbortSignal): () => Promise<void> {
  const timer = setInterval(() => deps.datasets.reconcile(), 10_000)
  timer.unref()
  return async () => clearInterval(timer)
}
