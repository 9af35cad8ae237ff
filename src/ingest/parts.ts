/**
 * Parts of a build made in other threads, each into a file of its own, while the build thread
 * goes on with its own work; the build then copies the parts in. Used where a build's last steps
 * are one thread of SQL with the other core idle: the census' search tiers
 * (census/search-build.ts) and the licensing builds' docket documents (licensing/docket-rows.ts).
 *
 * The part threads take the tasks in order from a shared counter, each as soon as it is free, so
 * no task waits on the build thread, which is busy in SQL of its own meanwhile. While the parts
 * read the build file it is in WAL mode (a reader never blocks the build's writes); it goes back
 * to the build's in-memory rollback journal before the copy. A part is stopped by a shared flag
 * its work checks (throwIfStopped), never by `terminate()`: a thread terminated while SQLite ran
 * a JS function of its statement brought V8, and the whole process, down.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { removeDbFile, type Sqlite } from '../db/open.ts'
import { openBuildFile } from './build.ts'
import { threadCpuSeconds } from './cpu.ts'
import { startWorker, yieldToRequests } from './worker-module.ts'

/** What a part's work gets: the build file, its own file, the stop flag and its task. */
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

/** What a part thread gets: every task and its file, and the counter of tasks taken. */
interface PartThreadJob<T> {
  source: string
  targets: readonly string[]
  tasks: readonly T[]
  stop: SharedArrayBuffer
  /** Int32 at 0: how many tasks the threads have taken (the next one's index) */
  taken: SharedArrayBuffer
  threads: number
}

/** What a part thread reports: each task it did or failed, then that it has no more to do. */
export type PartMessage =
  | { kind: 'done'; task: number; seconds: number; cpu: number | null }
  | { kind: 'error'; task: number; message: string }
  | { kind: 'end' }

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
  /**
   * how many part threads start at once (default: one per task); each takes the next task as soon
   * as it is free, and `finish` (the build thread then only waits) starts one more per task not
   * taken yet. Fewer threads than free cores leave the build thread a core of its own while its
   * work is the longest; tasks are taken in their order, so the largest should come first.
   */
  runningBeforeFinish?: number
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

/**
 * Starts the part threads (`runningBeforeFinish` of them, or one per task), which build the tasks'
 * part files from the build file `db` writes; `finish` starts more while tasks are left.
 */
export async function startParts<T>(db: Sqlite, opts: PartsOptions<T>): Promise<Parts> {
  // readers in other threads: release the build's exclusive lock and journal in WAL meanwhile
  db.pragma('locking_mode = NORMAL')
  db.prepare('SELECT count(*) FROM sqlite_schema').get()
  const wal = db.pragma('journal_mode = WAL', { simple: true })
  if (wal !== 'wal') throw new Error(`cannot share the build file (${String(wal)})`)
  const paths = opts.tasks.map((_, i) => `${opts.path}-${opts.files}${i}`)
  const job: PartThreadJob<T> = {
    source: opts.path,
    targets: paths,
    tasks: opts.tasks,
    stop: new SharedArrayBuffer(4),
    taken: new SharedArrayBuffer(4),
    threads: db.pragma('threads', { simple: true }) as number,
  }
  const taken = new Int32Array(job.taken)
  const exits: Promise<unknown>[] = []
  const stop = async () => {
    Atomics.store(new Int32Array(job.stop), 0, 1)
    await Promise.all(exits)
    for (const p of paths) removeDbFile(p)
  }
  // each task's outcome, settled by the thread that took it (or by that thread's failure)
  const outcomes = opts.tasks.map(() => {
    const o = {} as { done: Promise<void>; resolve: () => void; reject: (err: Error) => void }
    o.done = new Promise<void>((resolve, reject) => {
      o.resolve = resolve
      o.reject = reject
    })
    // a failing part is reported by finish(); until then its rejection is not unhandled
    o.done.catch(() => {})
    return o
  })
  let started = 0
  const start = () => {
    const worker = startWorker(opts.entry, { workerData: job })
    started++
    exits.push(new Promise((resolve) => worker.once('exit', resolve)))
    let ended = false
    worker.on('message', (m: PartMessage) => {
      if (m.kind === 'end') {
        ended = true
        return
      }
      const outcome = outcomes[m.task]
      if (m.kind === 'error') return outcome?.reject(new Error(`${opts.label} part: ${m.message}`))
      opts.phase(`${opts.phases}.parts`, m.seconds)
      if (m.cpu !== null) opts.phase(`${opts.phases}.parts.cpu`, m.cpu)
      outcome?.resolve()
    })
    // a thread that fails fails the tasks not done yet (the build stops)
    const fail = (err: Error) => {
      for (const o of outcomes) o.reject(err)
    }
    worker.on('error', fail)
    worker.on('exit', (code) => {
      if (!ended) fail(new Error(`${opts.label} worker exited with code ${code}`))
    })
  }
  try {
    const first = Math.max(1, opts.runningBeforeFinish ?? opts.tasks.length)
    for (let i = Math.min(first, opts.tasks.length); i > 0; i--) start()
  } catch (err) {
    // a worker that could not start: the ones that did are stopped before their files go
    await stop()
    throw err
  }
  const done = outcomes.map((o) => o.done)
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
        // the build thread now only waits: a thread more for each task no thread has taken yet
        // (never more threads in all than tasks: those started may not have taken one yet)
        const untaken = opts.tasks.length - Atomics.load(taken, 0)
        for (let i = Math.min(untaken, opts.tasks.length - started); i > 0; i--) start()
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
 * The body of a part thread (its module calls it): lowers the thread's priority, then takes tasks
 * until none is left, for each creating its part file, running `build` on it and reporting; a
 * failed task removes its file and ends the thread.
 */
export function runPart<T>(
  build: (job: PartJob<T>, db: Sqlite, stop: Int32Array) => void,
  /** a part file's page cache (KiB) */
  cacheKib = 8_192,
): void {
  yieldToRequests()
  const all = workerData as PartThreadJob<T>
  const post = (m: PartMessage) => parentPort?.postMessage(m)
  const taken = new Int32Array(all.taken)
  const stop = new Int32Array(all.stop)
  for (let i = Atomics.add(taken, 0, 1); i < all.tasks.length; i = Atomics.add(taken, 0, 1)) {
    if (Atomics.load(stop, 0) !== 0) break
    const job: PartJob<T> = {
      source: all.source,
      target: all.targets[i] as string,
      stop: all.stop,
      threads: all.threads,
      task: all.tasks[i] as T,
    }
    const t0 = performance.now()
    const c0 = threadCpuSeconds()
    try {
      const db = openBuildFile(job.target, { cacheKib, threads: job.threads })
      try {
        build(job, db, stop)
      } finally {
        db.close()
      }
      const c1 = threadCpuSeconds()
      post({
        kind: 'done',
        task: i,
        seconds: (performance.now() - t0) / 1000,
        cpu: c0 !== null && c1 !== null ? c1 - c0 : null,
      })
    } catch (err) {
      removeDbFile(job.target)
      post({ kind: 'error', task: i, message: err instanceof Error ? err.message : String(err) })
      break
    }
  }
  post({ kind: 'end' })
}
