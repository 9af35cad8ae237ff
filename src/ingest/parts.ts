/**
 * Parts of a build made in other threads, each into a file of its own, while the build thread
 * goes on with its own work; the build then copies the parts in. Used where a build's last steps
 * are one thread of SQL with the other core idle: the census' search tiers
 * (census/search-build.ts) and the licensing builds' docket documents (licensing/docket-rows.ts).
 *
 * While the parts read the build file it is in WAL mode (a reader never blocks the build's
 * writes); it goes back to the build's in-memory rollback journal before the copy. A part is
 * stopped by a shared flag its work checks (throwIfStopped), never by `terminate()`: a thread
 * terminated while SQLite ran a JS function of its statement brought V8, and the whole process,
 * down.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { removeDbFile, type Sqlite } from '../db/open.ts'
import { openBuildFile } from './build.ts'
import { threadCpuSeconds } from './cpu.ts'
import { startWorker, yieldToRequests } from './worker-module.ts'

/** What a part's thread gets: the build file, its own file, the stop flag and its task. */
export interface PartJob<T> {
  /** the build file (read only: attach it) */
  source: string
  /** the part's own file, which the part's thread creates */
  target: string
  /** non-zero (Int32 at 0) once the build stops the part (throwIfStopped) */
  stop: SharedArrayBuffer
  /** the build file's sorter threads: a part sorts like its build (BuildSorting) */
  threads: number
  task: T
}

/** What a part's thread reports. */
export type PartMessage =
  { kind: 'done'; seconds: number; cpu: number | null } | { kind: 'error'; message: string }

/** Throws when the build asked a part to stop (PartJob `stop`). */
export function throwIfStopped(stop: Int32Array): void {
  if (Atomics.load(stop, 0) !== 0) throw new Error('build part stopped')
}

export interface PartsOptions<T> {
  /** the build file `db` writes */
  path: string
  /** the part files are `<path>-<files><i>` */
  files: string
  /** what the parts build, in errors (`<label> part: …`) */
  label: string
  /** the phases' prefix: `<phases>.parts`, `.parts.cpu`, `.wait`, `.copy` */
  phases: string
  /** the part threads' module (siblingModule), which calls runPart */
  entry: string
  /** one part per task */
  tasks: readonly T[]
  signal: AbortSignal
  phase(name: string, seconds: number): void
}

export interface Parts {
  /**
   * Waits for the parts (or the build's abort), puts the build file back in its own journal and
   * calls `copy` with the part files (task order); removes them whatever happens.
   */
  finish(copy: (paths: readonly string[]) => void): Promise<void>
  /** stops the parts and removes their files (the build's own work failed) */
  abort(): Promise<void>
}

/** Starts one thread per task, each building its part file from the build file `db` writes. */
export async function startParts<T>(db: Sqlite, opts: PartsOptions<T>): Promise<Parts> {
  // readers in other threads: release the build's exclusive lock and journal in WAL meanwhile
  db.pragma('locking_mode = NORMAL')
  db.prepare('SELECT count(*) FROM sqlite_schema').get()
  const wal = db.pragma('journal_mode = WAL', { simple: true })
  if (wal !== 'wal') throw new Error(`cannot share the build file (${String(wal)})`)
  const threads = db.pragma('threads', { simple: true }) as number
  const paths = opts.tasks.map((_, i) => `${opts.path}-${opts.files}${i}`)
  const stopFlag = new SharedArrayBuffer(4)
  const exits: Promise<unknown>[] = []
  const stop = async () => {
    Atomics.store(new Int32Array(stopFlag), 0, 1)
    await Promise.all(exits)
    for (const p of paths) removeDbFile(p)
  }
  const start = (task: T, i: number) => {
    const job: PartJob<T> = {
      source: opts.path,
      target: paths[i] as string,
      stop: stopFlag,
      threads,
      task,
    }
    const worker = startWorker(opts.entry, { workerData: job })
    exits.push(new Promise((resolve) => worker.once('exit', resolve)))
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (m: PartMessage) => {
        if (m.kind === 'error') return reject(new Error(`${opts.label} part: ${m.message}`))
        opts.phase(`${opts.phases}.parts`, m.seconds)
        if (m.cpu !== null) opts.phase(`${opts.phases}.parts.cpu`, m.cpu)
        resolve()
      })
      worker.on('error', reject)
      worker.on('exit', (code) =>
        reject(new Error(`${opts.label} worker exited with code ${code}`)),
      )
    })
  }
  let done: Promise<void>[]
  try {
    done = opts.tasks.map(start)
  } catch (err) {
    // a worker that could not start: the ones that did are stopped before their files go
    await stop()
    throw err
  }
  // a failing part is reported by finish(); until then its rejection is not unhandled
  for (const d of done) d.catch(() => {})
  return {
    async finish(copy) {
      let onAbort = () => {}
      try {
        const aborted = new Promise<never>((_, reject) => {
          onAbort = () => {
            const r: unknown = opts.signal.reason
            reject(r instanceof Error ? r : new Error(String(r)))
          }
          if (opts.signal.aborted) onAbort()
          else opts.signal.addEventListener('abort', onAbort, { once: true })
        })
        aborted.catch(() => {})
        const waited = performance.now()
        await Promise.race([Promise.all(done), aborted])
        opts.phase(`${opts.phases}.wait`, (performance.now() - waited) / 1000)
        // the parts are done reading: back to the build's own journal, then copy them in
        db.pragma('journal_mode = DELETE')
        db.pragma('locking_mode = EXCLUSIVE')
        const mode = db.pragma('journal_mode = MEMORY', { simple: true })
        if (mode !== 'memory')
          throw new Error(`cannot set the build file's journal (${String(mode)})`)
        const copied = performance.now()
        copy(paths)
        opts.phase(`${opts.phases}.copy`, (performance.now() - copied) / 1000)
      } finally {
        opts.signal.removeEventListener('abort', onAbort)
        await stop()
      }
    },
    abort: stop,
  }
}

/**
 * The body of a part's thread (its module calls it): lowers the thread's priority, creates the
 * part file, runs `build` on it and reports; a failed part removes its file.
 */
export function runPart<T>(
  build: (job: PartJob<T>, db: Sqlite, stop: Int32Array) => void,
  /** the part file's page cache (KiB) */
  cacheKib = 8_192,
): void {
  yieldToRequests()
  const job = workerData as PartJob<T>
  const post = (m: PartMessage) => parentPort?.postMessage(m)
  const t0 = performance.now()
  const c0 = threadCpuSeconds()
  try {
    const db = openBuildFile(job.target, { cacheKib, threads: job.threads })
    try {
      build(job, db, new Int32Array(job.stop))
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
}
