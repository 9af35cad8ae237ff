/**
 * The census build's name-search index, built beside the build's other indexes. A full census'
 * tiers cost about 28 s of CPU and its contact indexes 13 s, each on one thread, one after the
 * other: the tiers are instead built by two worker threads (search-build-worker.ts), each into its
 * own file, while the build thread makes the contact indexes; the tiers are then copied into the
 * build file (copySearchParts). A small census builds them in the calling thread, after the
 * contacts: a worker's start costs more than the work.
 *
 * While the parts read the build file it is in WAL mode (a reader never blocks the build's
 * writes); it goes back to the build's in-memory rollback journal before the copy.
 */
import { removeDbFile, type Sqlite } from '../db/open.ts'
import { siblingModule, startWorker } from '../ingest/worker-module.ts'
import {
  buildSearchIndex,
  copySearchParts,
  pairWords,
  TIERS,
  type SearchPartJob,
  type Tier,
} from './search-index.ts'

const ENTRY = siblingModule('./search-build-worker', import.meta.url)

/** Below this many companies the tiers are built in the calling thread. */
export const SEARCH_PARTS_MIN_COMPANIES = 100_000

/**
 * The tiers each part builds: two parts of about equal work at full scale (the active names
 * without a docket are about half of all names; the inactive ones, most of the rest).
 */
export const SEARCH_PARTS: readonly (readonly Tier[])[] = [[TIERS[1]], [TIERS[0], TIERS[2]]]

/** What a part's thread reports. */
export type SearchPartMessage =
  { kind: 'done'; seconds: number; cpu: number | null } | { kind: 'error'; message: string }

export interface SearchBuild {
  /** waits for the parts and copies them in (or builds the index here); adds its phases */
  finish(): Promise<void>
  /** stops the parts and removes their files (a failed or aborted build) */
  abort(): Promise<void>
}

export interface SearchBuildOptions {
  /** the build file `db` writes */
  path: string
  /** the companies loaded (the build has just counted them) */
  companies: number
  signal: AbortSignal
  phase(name: string, seconds: number): void
  /** build in parts even for a small census (tests) */
  parts?: boolean
}

/**
 * Starts the search index of a loaded census: in two other threads when the census is large
 * (`finish` then waits for them and copies their tiers in), else in `finish`, in this thread.
 * The caller builds its other indexes between the two calls, and calls `abort` if they fail.
 */
export async function startSearchBuild(db: Sqlite, opts: SearchBuildOptions): Promise<SearchBuild> {
  if (!(opts.parts ?? opts.companies >= SEARCH_PARTS_MIN_COMPANIES)) {
    return {
      finish: async () => {
        const t0 = performance.now()
        buildSearchIndex(db)
        opts.phase('fts', (performance.now() - t0) / 1000)
      },
      abort: async () => {},
    }
  }
  const t0 = performance.now()
  const words = pairWords(db)
  // readers in other threads: release the build's exclusive lock and journal in WAL meanwhile
  db.pragma('locking_mode = NORMAL')
  db.prepare('SELECT count(*) FROM sqlite_schema').get()
  const wal = db.pragma('journal_mode = WAL', { simple: true })
  if (wal !== 'wal') throw new Error(`cannot share the census build file (${String(wal)})`)
  const parts = SEARCH_PARTS.map((tiers, i) => ({ path: `${opts.path}-search${i}`, tiers }))
  // the parts stop themselves when asked (SearchPartJob `stop`), never by terminate()
  const stopFlag = new SharedArrayBuffer(4)
  const exits: Promise<unknown>[] = []
  const stop = async () => {
    Atomics.store(new Int32Array(stopFlag), 0, 1)
    await Promise.all(exits)
    for (const p of parts) removeDbFile(p.path)
  }
  const start = (p: (typeof parts)[number]) => {
    const job: SearchPartJob = {
      source: opts.path,
      target: p.path,
      tiers: p.tiers,
      words,
      stop: stopFlag,
    }
    const worker = startWorker(ENTRY, { workerData: job })
    exits.push(new Promise((resolve) => worker.once('exit', resolve)))
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (m: SearchPartMessage) => {
        if (m.kind === 'error') return reject(new Error(`search index part: ${m.message}`))
        opts.phase('fts.parts', m.seconds)
        if (m.cpu !== null) opts.phase('fts.parts.cpu', m.cpu)
        resolve()
      })
      worker.on('error', reject)
      worker.on('exit', (code) => reject(new Error(`search index worker exited with code ${code}`)))
    })
  }
  let done: Promise<void>[]
  try {
    done = parts.map(start)
  } catch (err) {
    // a worker that could not start: the ones that did are stopped before their files go
    await stop()
    throw err
  }
  // a failing part is reported by finish(); until then its rejection is not unhandled
  for (const d of done) d.catch(() => {})
  return {
    async finish() {
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
        opts.phase('fts.wait', (performance.now() - waited) / 1000)
        // the parts are done reading: back to the build's own journal, then copy them in
        db.pragma('journal_mode = DELETE')
        db.pragma('locking_mode = EXCLUSIVE')
        const mode = db.pragma('journal_mode = MEMORY', { simple: true })
        if (mode !== 'memory')
          throw new Error(`cannot set the build file's journal (${String(mode)})`)
        const copied = performance.now()
        copySearchParts(db, parts, words)
        opts.phase('fts.copy', (performance.now() - copied) / 1000)
        opts.phase('fts', (performance.now() - t0) / 1000)
      } finally {
        opts.signal.removeEventListener('abort', onAbort)
        await stop()
      }
    },
    abort: stop,
  }
}
