import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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
        `import { readFileSync } from 'node:fs'
import { getPriority } from 'node:os'
import { parentPort } from 'node:worker_threads'
import { yieldToRequests } from ${JSON.stringify(helper)}
// the scheduling policy of a thread: field 41 of its stat line (0 normal, 5 SCHED_IDLE)
const policy = () => {
  const s = readFileSync('/proc/thread-self/stat', 'utf8')
  return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[38])
}
const before = policy()
yieldToRequests()
parentPort?.postMessage({ nice: getPriority(), before, after: policy() })
`,
      )
      const before = getPriority()
      const w = startWorker(pathToFileURL(file).href, { workerData: {} })
      // SCHED_IDLE where util-linux's chrt is installed (Debian, the Docker image), else the nice value alone
      const chrt = ['/usr/bin/chrt', '/bin/chrt'].some((p) => existsSync(p))
      expect(await firstMessage(w)).toEqual({
        nice: IMPORT_THREAD_NICE,
        before: 0,
        after: chrt ? 5 : 0,
      })
      expect(getPriority()).toBe(before)
      // the serving thread keeps the normal policy
      const stat = readFileSync('/proc/thread-self/stat', 'utf8')
      expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[38])).toBe(0)
    },
  )
})
