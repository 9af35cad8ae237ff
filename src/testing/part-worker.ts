/**
 * A build part thread for ingest/parts.test.ts: each task writes its number, the thread that did
 * it and whether it had to wait into its part file. A task with a `gate` marks `started`, then
 * waits (up to 10 s) until a task with `open` has opened the gate.
 */
import { threadId } from 'node:worker_threads'
import { runPart } from '../ingest/parts.ts'

export interface TestPartTask {
  n: number
  gate?: SharedArrayBuffer
  started?: SharedArrayBuffer
  open?: SharedArrayBuffer
}

runPart<TestPartTask>((job, db) => {
  const { n, gate, started, open } = job.task
  if (started) Atomics.store(new Int32Array(started), 0, 1)
  const waited = gate ? Atomics.wait(new Int32Array(gate), 0, 0, 10_000) : 'no'
  if (open) {
    Atomics.store(new Int32Array(open), 0, 1)
    Atomics.notify(new Int32Array(open), 0)
  }
  db.exec('CREATE TABLE part (task INTEGER NOT NULL, thread INTEGER NOT NULL, waited TEXT)')
  db.prepare('INSERT INTO part VALUES (?, ?, ?)').run(n, threadId, waited)
})
