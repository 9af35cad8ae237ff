/**
 * The census build's name-search index, built beside the build's other indexes. A large census'
 * tiers and its link index are each one thread's work, and one after the other they leave a
 * core idle: the tiers are instead built by worker threads (search-build-worker.ts), each into its
 * own file, while the build thread makes the link index; the tiers are then copied into the
 * build file (copySearchParts). A small census builds them in the calling thread, after the
 * contacts: a worker's start costs more than the work.
 *
 * The threads, their files and the build file's journal meanwhile: ingest/parts.ts.
 */
import { availableParallelism } from 'node:os'
import type { Sqlite } from '../db/open.ts'
import { startParts } from '../ingest/parts.ts'
import { siblingModule } from '../ingest/worker-module.ts'
import {
  buildSearchIndex,
  copySearchParts,
  pairWords,
  TIERS,
  type SearchPartTask,
  type Tier,
} from './search-index.ts'

const ENTRY = siblingModule('./search-build-worker', import.meta.url)

/** Below this many companies the tiers are built in the calling thread. */
export const SEARCH_PARTS_MIN_COMPANIES = 100_000

/**
 * The tiers each part builds, largest first (the active names without a docket are about half of
 * all names; the inactive ones, most of the rest). While the build thread makes the link index
 * (census.ts), one part thread runs per core but the build thread's own (SEARCH_PARTS_BESIDE),
 * taking the next tier as soon as it is free; the tiers not taken when the build thread is done
 * get threads of their own (ingest/parts.ts). Three parts, not two halves: the smallest tier
 * then fills the core the link index leaves.
 */
export const SEARCH_PARTS: readonly (readonly Tier[])[] = [[TIERS[1]], [TIERS[2]], [TIERS[0]]]

/** How many parts run while the build thread works on (ingest/parts.ts `runningBeforeFinish`). */
const SEARCH_PARTS_BESIDE = Math.max(1, availableParallelism() - 1)

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
  /** the pair words, when the load sampled them (search-index.ts `PairWordSample`); else read */
  words?: string[]
  /** build in parts even for a small census (tests) */
  parts?: boolean
}

/**
 * Starts the search index of a loaded census: in other threads when the census is large
 * (`finish` then waits for them and copies their tiers in), else in `finish`, in this thread.
 * The caller builds its other indexes between the two calls, and calls `abort` if they fail.
 */
export async function startSearchBuild(db: Sqlite, opts: SearchBuildOptions): Promise<SearchBuild> {
  if (!(opts.parts ?? opts.companies >= SEARCH_PARTS_MIN_COMPANIES)) {
    return {
      finish: async () => {
        const t0 = performance.now()
        buildSearchIndex(db, opts.words)
        opts.phase('fts', (performance.now() - t0) / 1000)
      },
      abort: async () => {},
    }
  }
  const t0 = performance.now()
  let words = opts.words
  if (!words) {
    words = pairWords(db)
    opts.phase('fts.words', (performance.now() - t0) / 1000)
  }
  const tasks: SearchPartTask[] = SEARCH_PARTS.map((tiers) => ({ tiers, words }))
  const parts = await startParts(db, {
    path: opts.path,
    files: 'search',
    label: 'search index',
    phases: 'fts',
    entry: ENTRY,
    tasks,
    runningBeforeFinish: SEARCH_PARTS_BESIDE,
    signal: opts.signal,
    phase: (name, seconds) => opts.phase(name, seconds),
  })
  return {
    async finish() {
      await parts.finish((paths) =>
        copySearchParts(
          db,
          paths.map((path, i) => ({ path, tiers: SEARCH_PARTS[i] ?? [] })),
          words,
        ),
      )
      opts.phase('fts', (performance.now() - t0) / 1000)
    },
    abort: () => parts.abort(),
  }
}
