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
 */
import { statSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { BUILD_ALONE, BUILD_BESIDE, type BuildSorting } from '../ingest/build.ts'

/** Dataset builds run at once: two on two cores or more, one on a single core. */
export const BUILD_LANES = Math.min(2, availableParallelism())

/** One dataset's build and its weight (the bytes of its input files). */
export interface LaneJob<T> {
  weight: number
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
 * Runs `jobs`, at most `lanes` at a time: the heaviest first, then the others in the order given
 * (the build order), each taken by whichever lane is free. Resolves with every result in the
 * jobs' order once all are done; a job that throws stops the lanes from taking more and its
 * error is thrown once the running ones have ended.
 *
 * Only the heaviest is moved: bytes of input are a poor measure of the others' build times (the
 * census reads fewer bytes than the licensing or SMS files and builds longer), and by weight
 * alone the census ran last, alone on one core.
 */
export async function inLanes<T>(
  jobs: readonly LaneJob<T>[],
  lanes: number = BUILD_LANES,
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
  let failed = false
  const lane = async () => {
    for (let i = order.shift(); i !== undefined && !failed; i = order.shift()) {
      try {
        results[i] = await (jobs[i] as LaneJob<T>).run(sorting)
      } catch (err) {
        failed = true
        throw err
      }
    }
  }
  const settled = await Promise.allSettled(Array.from({ length: width }, lane))
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected')
  if (failure) throw failure.reason
  return results
}
