/**
 * Worker thread: builds one dataset file (buildDatasetFile) away from the serving thread, so
 * parsing, inserting, FTS and index builds and quick_check never pause HTTP requests.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { buildDatasetFile, type BuildSorting } from '../ingest/build.ts'
import { yieldToRequests } from '../ingest/worker-module.ts'
import { datasetSpec } from './datasets.ts'
import type { BuildProgress } from '../ingest/types.ts'
import type { BuildStats, DatasetName } from '../db/names.ts'

export interface BuildJob {
  dataset: DatasetName
  inputs: [string, string][]
  path: string
  asOf: string
  today: string
  sorting: BuildSorting | undefined
}

export type BuildToMain =
  | { kind: 'progress'; progress: BuildProgress }
  | { kind: 'done'; stats: BuildStats }
  | { kind: 'error'; name: string; message: string }

export type MainToBuild = { kind: 'abort'; reason: string }

async function run(job: BuildJob): Promise<void> {
  const port = parentPort
  if (!port) throw new Error('build-worker must run in a worker thread')
  yieldToRequests()
  const controller = new AbortController()
  port.on('message', (m: MainToBuild) => {
    if (m.kind === 'abort') controller.abort(new Error(m.reason))
  })
  const spec = datasetSpec(job.dataset)
  if (!spec) throw new Error(`unknown dataset ${job.dataset}`)
  let last = 0
  const stats = await buildDatasetFile(spec, new Map(job.inputs), job.path, {
    asOf: job.asOf,
    today: job.today,
    sorting: job.sorting,
    signal: controller.signal,
    onProgress: (progress) => {
      // progress every batch would flood the port; 4 a second is plenty for a progress line
      const now = Date.now()
      if (now - last < 250) return
      last = now
      port.postMessage({ kind: 'progress', progress } satisfies BuildToMain)
    },
  })
  port.postMessage({ kind: 'done', stats } satisfies BuildToMain)
}

if (parentPort && workerData) {
  run(workerData as BuildJob).catch((err: unknown) => {
    const e = err instanceof Error ? err : new Error(String(err))
    parentPort?.postMessage({
      kind: 'error',
      name: e.name,
      message: e.message,
    } satisfies BuildToMain)
  })
}
