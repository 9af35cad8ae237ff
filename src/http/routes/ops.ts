import { statfsSync } from 'node:fs'
import { Hono } from 'hono'
import { z } from 'zod'
import { mirrorStateMessage } from '../../carriers/mirror-state.ts'
import { probeWrite } from '../../db/app-db.ts'
import type { Deps } from '../../deps.ts'
import { retryAfterOf, storageFailureCode } from '../../errors.ts'
import { DATASET_NAMES } from '../../db/names.ts'
import { lastLiveRunStatuses, versionRows } from '../../db/versions.ts'
import type { AppEnv } from '../env.ts'
import type { RouteDoc } from '../openapi.ts'
import type { Endpoint } from './endpoint.ts'

/** Operational routes, no key: liveness, readiness, Prometheus metrics. */
export const opsRoutes = (deps: Deps) =>
  new Hono<AppEnv>()
    .get('/healthz', (c) => c.json({ status: 'ok' }))
    .get('/readyz', (c) => {
      const checks = { dataset: deps.datasets.isReady(), app_db: appDbWritable(deps) }
      const ok = checks.dataset && checks.app_db
      const data = servedData(deps)
      // active versions whose files are missing (an app.db restored alone): the next sync rebuilds them
      const missing = deps.datasets.missingFiles()
      const files = missing.length
        ? {
            missing_files: missing,
            message: `the files of ${missing.length} active dataset version(s) are missing from the data directory; the next sync rebuilds them`,
          }
        : data.data === 'sample'
          ? { message: data.message }
          : {}
      if (ok) return c.json({ status: 'ready', checks, data: data.data, ...files }, 200)
      const code = checks.app_db ? 'dataset_unavailable' : 'storage_unavailable'
      return c.json({ status: 'not_ready', checks, data: data.data, ...files }, 503, {
        'retry-after': String(retryAfterOf(code)),
      })
    })
    .get('/metrics', async (c) => {
      const m = deps.metrics
      const now = deps.clock().getTime()
      m.datasetInfo.reset()
      m.datasetAge.reset()
      for (const channel of ['live', 'sample'] as const)
        for (const name of DATASET_NAMES) {
          const ds = deps.datasets.get(name, channel)
          if (!ds) continue
          m.datasetInfo.set({ dataset: name, channel }, versionRows(deps.db, ds.versionId) ?? 0)
          if (ds.activatedAt !== null)
            m.datasetAge.set({ dataset: name, channel }, (now - ds.activatedAt) / 1000)
        }
      const last = lastLiveRunStatuses(deps.db)
      diskSpace(deps)
      m.syncFailures.reset()
      for (const r of last)
        m.syncFailures.set({ dataset: r.dataset }, r.status === 'failed' ? 1 : 0)
      return c.body(await m.registry.metrics(), 200, { 'content-type': m.registry.contentType })
    })

/**
 * What live keys are answered from: `mirror` (the regulator's data), `sample` (the bundled sample,
 * while the mirror is not built: a live key's miss answers 503 mirror_not_ready), or `none`.
 */
function servedData(deps: Deps): { data: 'mirror' | 'sample' | 'none'; message: string } {
  const view = deps.datasets.view('live')
  if (!view.get('census')) return { data: 'none', message: 'no data is loaded' }
  if (view.source === 'mirror') return { data: 'mirror', message: "the regulator's data" }
  return { data: 'sample', message: mirrorStateMessage(deps, view) }
}

/** A real commit (the write probe): a full disk or a read-only app.db fails readiness. */
function appDbWritable(deps: Deps): boolean {
  try {
    probeWrite(deps.db, deps.clock().getTime())
    return true
  } catch (err) {
    deps.log.error(
      { storage_error: storageFailureCode(err) ?? String(err) },
      'readiness: app.db cannot be written',
    )
    return false
  }
}

/** Free and total bytes of the file system holding the data directory. */
function diskSpace(deps: Deps): void {
  const m = deps.metrics
  try {
    const s = statfsSync(deps.config.paths.dataDir)
    m.dataDirFreeBytes.set(s.bavail * s.bsize)
    m.dataDirSizeBytes.set(s.blocks * s.bsize)
  } catch {
    m.dataDirFreeBytes.reset()
    m.dataDirSizeBytes.reset()
  }
}

/** Body of GET /healthz. */
export const HealthzJson = z.object({ status: z.literal('ok') })
/** Body of GET /readyz (200 ready, 503 not_ready). */
export const ReadyzJson = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.object({ dataset: z.boolean(), app_db: z.boolean() }),
  data: z.enum(['mirror', 'sample', 'none']).meta({
    description:
      "what live keys are answered from: `mirror` (the regulator's data), `sample` (the bundled sample companies only, while the mirror is not built: a live key's miss answers 503 `mirror_not_ready`), `none`",
  }),
  /** active dataset versions (`channel:dataset`) whose files are missing, when any */
  missing_files: z.array(z.string()).optional(),
  message: z.string().optional(),
})

/** OpenAPI entries of the operational routes. */
export const opsDocs: readonly RouteDoc[] = [
  {
    method: 'get',
    path: '/healthz',
    operationId: 'healthz',
    summary: 'Liveness',
    description: 'The process is up.',
    tags: ['operations'],
    auth: false,
    responses: { 200: { description: 'Alive', schema: HealthzJson, name: 'Healthz' } },
    errors: [],
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'readyz',
    summary: 'Readiness',
    description:
      'A dataset is loaded and app.db is writable: a real one-row commit, so a full disk or a read-only volume fails readiness (503 `not_ready` otherwise, same body, with Retry-After).',
    tags: ['operations'],
    auth: false,
    responses: {
      200: { description: 'Ready', schema: ReadyzJson, name: 'Readyz' },
      503: { description: 'Not ready', schema: ReadyzJson, name: 'Readyz' },
    },
    errors: [],
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    description: 'Prometheus text exposition format; no per-key labels.',
    tags: ['operations'],
    auth: false,
    responses: { 200: { description: 'Metrics', contentType: 'text/plain' } },
    errors: [],
  },
]

/** /healthz, /readyz and /metrics: no key. */
export const opsEndpoint: Endpoint = { docs: opsDocs, routes: opsRoutes }
