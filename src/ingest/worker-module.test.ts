import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Worker } from 'node:worker_threads'
import { afterAll, describe, expect, test } from 'vitest'
import { getPriority } from 'node:os'
import { IMPORT_THREAD_NICE, siblingModule, startWorker } from './worker-module.ts'

// an ES module package, like the project and its compiled dist/
const dir = mkdtempSync(join(tmpdir(), 'cv-worker-module-'))
writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const firstMessage = (w: Worker) =>
  new Promise<unknown>((resolve, reject) => {
    w.once('message', resolve)
    w.once('error', reject)
  }).finally(() => w.terminate())

describe('siblingModule', () => {
  test('takes the extension of the calling module: .ts from the sources, .js once compiled', () => {
    expect(siblingModule('./parse-worker', 'file:///app/src/ingest/parallel.ts')).toBe(
      'file:///app/src/ingest/parse-worker.ts',
    )
    expect(siblingModule('./parse-worker', 'file:///app/dist/ingest/parallel.js')).toBe(
      'file:///app/dist/ingest/parse-worker.js',
    )
    expect(siblingModule('../sync/build-worker', 'file:///app/dist/ingest/x.js')).toBe(
      'file:///app/dist/sync/build-worker.js',
    )
  })
})

describe('startWorker', () => {
  test('runs compiled JavaScript directly, with the workerData given', async () => {
    const file = join(dir, 'echo.js')
    writeFileSync(
      file,
      "import { parentPort, workerData } from 'node:worker_threads'\nparentPort.postMessage(workerData)\n",
    )
    const w = startWorker(pathToFileURL(file).href, { workerData: { n: 1 } })
    expect(await firstMessage(w)).toEqual({ n: 1 })
  })

  test('runs a TypeScript module through the tsx bootstrap', async () => {
    const file = join(dir, 'echo.ts')
    writeFileSync(
      file,
      "import { parentPort, workerData } from 'node:worker_threads'\nconst n: number = workerData.n\nparentPort?.postMessage({ n: n + 1, entry: workerData.entry })\n",
    )
    const entry = pathToFileURL(file).href
    const w = startWorker(entry, { workerData: { n: 1 } })
    expect(await firstMessage(w)).toEqual({ n: 2, entry })
  })

  test.runIf(process.platform === 'linux')(
    'an import thread yields: its own priority drops, the serving thread keeps its own',
    async () => {
      const file = join(dir, 'nice.ts')
      const helper = new URL('./worker-module.ts', import.meta.url).href
      writeFileSync(
        file,
        `import { getPriority } from 'node:os'\nimport { parentPort } from 'node:worker_threads'\nimport { yieldToRequests } from ${JSON.stringify(helper)}\nyieldToRequests()\nparentPort?.postMessage(getPriority())\n`,
      )
      const before = getPriority()
      const w = startWorker(pathToFileURL(file).href, { workerData: {} })
      expect(await firstMessage(w)).toBe(IMPORT_THREAD_NICE)
      expect(getPriority()).toBe(before)
    },
  )
})
