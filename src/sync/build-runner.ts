import { buildDatasetFile, type BuildOptions } from '../ingest/build.ts'
import { siblingModule, startWorker } from '../ingest/worker-module.ts'
import { removeDbFile } from '../db/open.ts'
import type { BuildJob, BuildToMain, MainToBuild } from './build-worker.ts'
import { datasetSpec } from './datasets.ts'
import type { DatasetSpec } from '../ingest/types.ts'
import type { BuildStats } from '../db/names.ts'

const ENTRY = siblingModule('./build-worker', import.meta.url)

/** An error from the build worker, keeping the original error's name (FormatError, VerifyError…). */
class BuildError extends Error {
  constructor(name: string, message: string) {
    super(message)
    this.name = name
  }
}

/**
 * Builds a registered dataset in a worker thread (see build-worker.ts); progress and abort cross
 * the thread boundary. Specs that are not in the registry (ad-hoc test specs) build in-thread.
 * On any failure the partial file is gone, whoever failed.
 */
export async function buildInWorker(
  spec: DatasetSpec,
  inputs: ReadonlyMap<string, string>,
  path: string,
  opts: BuildOptions,
): Promise<BuildStats> {
  if (datasetSpec(spec.name) !== spec) return buildDatasetFile(spec, inputs, path, opts)
  opts.signal.throwIfAborted()
  const job: BuildJob = {
    dataset: spec.name,
    inputs: [...inputs.entries()],
    path,
    asOf: opts.asOf,
    today: opts.today,
    sorting: opts.sorting,
  }
  // a young generation of 16 MB, as the parse workers have: V8's default lets each build thread's
  // grow to twice that, memory two builds side by side would hold at once for no gain in speed
  const worker = startWorker(ENTRY, {
    workerData: job,
    resourceLimits: { maxYoungGenerationSizeMb: 16 },
  })
  const onAbort = () => {
    const reason = opts.signal.reason instanceof Error ? opts.signal.reason.message : 'aborted'
    worker.postMessage({ kind: 'abort', reason } satisfies MainToBuild)
  }
  opts.signal.addEventListener('abort', onAbort, { once: true })
  try {
    return await new Promise<BuildStats>((resolve, reject) => {
      worker.on('message', (m: BuildToMain) => {
        if (m.kind === 'progress') opts.onProgress?.(m.progress)
        else if (m.kind === 'done') resolve(m.stats)
        else reject(new BuildError(m.name, m.message))
      })
      worker.on('error', reject)
      worker.on('exit', (code) => reject(new Error(`build worker exited with code ${code}`)))
    })
  } catch (err) {
    removeDbFile(path)
    throw err
  } finally {
    opts.signal.removeEventListener('abort', onAbort)
    await worker.terminate()
  }
}
