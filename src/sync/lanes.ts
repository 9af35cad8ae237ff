/**
 * How the datasets of a whole mirror from local files are built together (`import --dir`, the
 * bundled sample): two builds at a time where there are two cores or more, the largest first.
 * Each build keeps about one and a half cores busy (its building thread, its parse workers and
 * SQLite's sorter threads), and none keeps two busy from start to end: one build beside another
 * fills the gaps. The largest build (the equipment files) starts first, so the other lane works
 * through the smaller ones beside it and both end close together.
 *
 * A build beside another sorts without SQLite's helper threads (ingest/build.ts BUILD_BESIDE):
 * the other lane keeps the second core busy, and two builds' sorts each holding several
 * in-memory lists set the whole mirror's peak memory.
 *
 * Two builds run together only when their memory fits a budget (BUILD_MEMORY_MB): the SMS build
 * holds its inspections and crash reports in its own heap until its window is known, far more
 * than any other build, and beside the equipment build or a large parse it set the whole
 * mirror's peak. A lane whose next build does not fit beside the running one takes a later
 * build that does, and waits when none does.
 */
import { statSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { BUILD_ALONE, BUILD_BESIDE, type BuildSorting } from '../ingest/build.ts'
import type { DatasetName } from '../db/names.ts'

/** Dataset builds run at once: two on two cores or more, one on a single core. */
export const BUILD_LANES = Math.min(2, availableParallelism())

/**
 * The resident memory (MB) of each dataset's build at full scale: its building thread's heap,
 * its parse workers and its SQLite caches and sorts, beside what the process holds anyway. An
 * estimate, kept above what the builds were seen to hold, and only compared to BUILD_MEMORY_BUDGET.
 */
export const BUILD_MEMORY_MB: Readonly<Record<DatasetName, number>> = {
  census: 170,
  legacy: 170,
  motus: 40,
  sms: 250,
  oos: 30,
  violations: 160,
  // the largest build, but the lightest of the large ones for most of its time: after its load
  // it folds sorted rows with no parse worker and a small heap
  equipment: 140,
}

/**
 * The memory (MB) the builds running at once may hold together: the equipment build beside any
 * of the census, licensing and violations builds, those three beside the small ones only, and
 * the SMS build beside the small ones only (or alone).
 */
export const BUILD_MEMORY_BUDGET = 320

/** One dataset's build, its weight (the bytes of its input files) and its memory. */
export interface LaneJob<T> {
  weight: number
  /** the build's memory (MB, BUILD_MEMORY_MB): it starts only beside builds it fits with */
  memory: number
  /** runs the build with the sorting fit for the lanes at work (BUILD_BESIDE beside another) */
  run: (sorting: BuildSorting) => Promise<T>
}

/** Bytes of a dataset's input files: the estimate of how long its build takes. */
export function inputBytes(inputs: ReadonlyMap<string, string>): number {
  let n = 0
  for (const path of inputs.values()) n += statSync(path).size
  return n
}

/**
 * Runs `jobs`, at most `lanes` at a time and within `budget` MB of memory: the heaviest first,
 * then the others in the order given (the build order), each taken by whichever lane is free.
 * A lane takes the first job left that fits beside the running ones (their memory and its own
 * within the budget; a job runs alone whatever its memory), and waits for a running job to end
 * when none fits. Resolves with every result in the jobs' order once all are done; a job that
 * throws stops the lanes from taking more and its error is thrown once the running ones have
 * ended.
 *
 * Only the heaviest is moved: bytes of input are a poor measure of the others' build times (the
 * census reads fewer bytes than the licensing or SMS files and builds longer), and by weight
 * alone the census ran last, alone on one core.
 */
export async function inLanes<T>(
  jobs: readonly LaneJob<T>[],
  lanes: number = BUILD_LANES,
  budget: number = BUILD_MEMORY_BUDGET,
): Promise<T[]> {
  let heaviest = 0
  jobs.forEach((j, i) => {
    if (j.weight > (jobs[heaviest]?.weight ?? 0)) heaviest = i
  })
  const order = jobs.map((_, i) => i).filter((i) => i !== heaviest)
  if (jobs.length) order.unshift(heaviest)
  const results = new Array<T>(jobs.length)
  const width = Math.max(1, Math.min(lanes, jobs.length))
  const sorting = width > 1 ? BUILD_BESIDE : BUILD_ALONE
  const memory = (i: number) => (jobs[i] as LaneJob<T>).memory
  let failed = false
  let running = 0
  let held = 0
  let waiting: (() => void)[] = []
  /** The next job this lane may start (removed from `order`); null: none fits now. */
  const next = (): number | null => {
    const k = order.findIndex((i) => running === 0 || held + memory(i) <= budget)
    return k < 0 ? null : (order.splice(k, 1)[0] as number)
  }
  const lane = async () => {
    while (!failed && order.length > 0) {
      const i = next()
      if (i === null) {
        await new Promise<void>((r) => waiting.push(r))
        continue
      }
      running++
      held += memory(i)
      try {
        results[i] = await (jobs[i] as LaneJob<T>).run(sorting)
      } catch (err) {
        failed = true
        throw err
      } finally {
        running--
        held -= memory(i)
        // a lane waiting for room tries again
        const wake = waiting
        waiting = []
        for (const w of wake) w()
      }
    }
  }
  const settled = await Promise.allSettled(Array.from({ length: width }, lane))
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected')
  if (failure) throw failure.reason
  return results
}
