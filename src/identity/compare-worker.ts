/** Worker thread of the history's census comparison (history.ts starts it; compare.ts does it). */
import { parentPort, workerData } from 'node:worker_threads'
import { yieldToRequests } from '../ingest/worker-module.ts'
import { compareCensusFiles } from './compare.ts'

const { nextPath, prevPath } = workerData as { nextPath: string; prevPath: string }
yieldToRequests()
try {
  parentPort?.postMessage({ ok: true, result: compareCensusFiles(nextPath, prevPath) })
} catch (err) {
  parentPort?.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) })
}
