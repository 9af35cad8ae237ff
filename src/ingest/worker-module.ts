/**
 * Modules that run in worker threads, found by URL in both ways the code runs: as TypeScript
 * sources under tsx (development, tests, `npm start`) and as compiled JavaScript in dist/ (the
 * Docker image, which has neither tsx nor the sources).
 */
import { execFileSync } from 'node:child_process'
import { readlinkSync } from 'node:fs'
import { setPriority } from 'node:os'
import { Worker, type WorkerOptions } from 'node:worker_threads'

/** Registers tsx in a worker thread, then imports `workerData.entry` (TypeScript sources only). */
const TSX_BOOT = new URL('./parse-worker-boot.mjs', import.meta.url)

/**
 * The URL of a module next to `base` (an `import.meta.url`), named without its extension: the
 * extension is the caller's own, `.ts` for the sources and `.js` once compiled.
 */
export function siblingModule(relativeStem: string, base: string): string {
  const ext = new URL(base).pathname.endsWith('.ts') ? '.ts' : '.js'
  return new URL(relativeStem + ext, base).href
}

/**
 * Starts a worker thread running the module at `entry` (a file URL from `siblingModule`).
 * Compiled JavaScript runs directly; a TypeScript entry goes through the tsx bootstrap, which
 * reads it from `workerData.entry`.
 */
export function startWorker(
  entry: string,
  options: Omit<WorkerOptions, 'workerData'> & { workerData: object },
): Worker {
  if (!entry.endsWith('.ts')) return new Worker(new URL(entry), options)
  return new Worker(TSX_BOOT, { ...options, workerData: { ...options.workerData, entry } })
}

/** The nice value of import threads: the lowest priority, so requests always win the CPU. */
export const IMPORT_THREAD_NICE = 19

/**
 * Called first thing in an import worker thread (parse, build): lowers the priority of this
 * thread only (Linux nice values are per thread), so while a dataset builds, lookups served by
 * the main thread of the same process, or by another process, get the CPU first. A platform that
 * refuses it leaves the priority as it was.
 *
 * On Linux the thread also takes the SCHED_IDLE policy (util-linux `chrt`, in every Debian
 * image), whose weight is a fifth of nice 19's and which a waking request thread preempts at
 * once, so a server answers more lookups during an import than at nice 19 alone. Without `chrt`
 * the nice value alone.
 */
export function yieldToRequests(): void {
  try {
    setPriority(IMPORT_THREAD_NICE)
  } catch {
    // lowering one's own priority is always allowed on Linux; elsewhere it is best effort
  }
  if (process.platform !== 'linux') return
  try {
    // "<pid>/task/<tid>": this thread's id, which Node does not expose otherwise
    const tid = readlinkSync('/proc/thread-self').split('/').at(-1) ?? ''
    execFileSync('chrt', ['--idle', '--pid', '0', tid], { stdio: 'ignore', timeout: 5_000 })
  } catch {
    // no chrt, or no /proc: the nice value alone
  }
}
