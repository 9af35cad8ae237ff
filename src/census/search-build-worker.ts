/**
 * Worker thread building part of the census' search tiers into a file of its own
 * (search-build.ts starts it; buildSearchPart does the work). It runs at the lowest priority, as
 * every import thread does.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { openBuildFile } from '../ingest/build.ts'
import { threadCpuSeconds } from '../ingest/cpu.ts'
import { yieldToRequests } from '../ingest/worker-module.ts'
import { removeDbFile } from '../db/open.ts'
import { buildSearchPart, type SearchPartJob } from './search-index.ts'
import type { SearchPartMessage } from './search-build.ts'

yieldToRequests()
const job = workerData as SearchPartJob
const post = (m: SearchPartMessage) => parentPort?.postMessage(m)
const t0 = performance.now()
const c0 = threadCpuSeconds()
try {
  const db = openBuildFile(job.target, 8_192)
  try {
    buildSearchPart(job, db)
  } finally {
    db.close()
  }
  const c1 = threadCpuSeconds()
  post({
    kind: 'done',
    seconds: (performance.now() - t0) / 1000,
    cpu: c0 !== null && c1 !== null ? c1 - c0 : null,
  })
} catch (err) {
  removeDbFile(job.target)
  post({ kind: 'error', message: err instanceof Error ? err.message : String(err) })
}
