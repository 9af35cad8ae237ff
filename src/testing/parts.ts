/**
 * A build part (ingest/parts.ts) whose stop flag is already set, to run its work in the test's
 * thread: it must fail with an ordinary error at its first check.
 */
import { openSqlite, type Sqlite } from '../db/open.ts'
import type { PartJob } from '../ingest/parts.ts'

export function stoppedPart<T>(
  source: string,
  target: string,
  task: T,
): { job: PartJob<T>; db: Sqlite; stop: Int32Array } {
  const db = openSqlite(target, 'readwrite')
  const flag = new SharedArrayBuffer(4)
  const stop = new Int32Array(flag)
  Atomics.store(stop, 0, 1)
  return { job: { source, target, stop: flag, threads: 0, task }, db, stop }
}
