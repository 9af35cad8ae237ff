import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { openSqlite, type Sqlite } from '../db/open.ts'
import type { TestPartTask } from '../testing/part-worker.ts'
import { openBuildFile } from './build.ts'
import { startParts } from './parts.ts'
import { siblingModule } from './worker-module.ts'

const ENTRY = siblingModule('../testing/part-worker', import.meta.url)
const dir = mkdtempSync(join(tmpdir(), 'parts-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface PartRow {
  task: number
  thread: number
  waited: string
}

/** A part file's row, or null while its thread still writes it (it holds the file locked). */
function partRow(path: string): PartRow | null {
  if (!existsSync(path)) return null
  let db: Sqlite | null = null
  try {
    db = openSqlite(path, 'readonly')
    return (db.prepare('SELECT task, thread, waited FROM part').get() as PartRow) ?? null
  } catch {
    return null
  } finally {
    db?.close()
  }
}

const start = (path: string, db: Sqlite, tasks: TestPartTask[]) =>
  startParts(db, {
    path,
    files: 'test',
    label: 'test',
    phases: 'test',
    entry: ENTRY,
    tasks,
    runningBeforeFinish: 1,
    signal: AbortSignal.timeout(60_000),
    phase: () => {},
  })

test('one part thread takes the tasks in order while the build thread is busy', async () => {
  const path = join(dir, 'build.db')
  const db = openBuildFile(path)
  const tasks = [0, 1, 2, 3].map((n) => ({ n }))
  const parts = await start(path, db, tasks)
  // the build thread's own work: its event loop does not turn until every part is written, so
  // the one thread started has taken each task as soon as it was free
  const paths = tasks.map((t) => `${path}-test${t.n}`)
  const until = Date.now() + 30_000
  while (!paths.every((p) => partRow(p)) && Date.now() < until)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50)
  const rows: PartRow[] = []
  await parts.finish((copied) => {
    expect(copied).toEqual(paths)
    for (const p of copied) rows.push(partRow(p) as PartRow)
  })
  db.close()
  expect(rows.map((r) => r.task)).toEqual([0, 1, 2, 3])
  expect(new Set(rows.map((r) => r.thread)).size).toBe(1)
  // the part files are removed once copied
  for (const p of paths) expect(existsSync(p)).toBe(false)
})

test('the tasks no thread has taken when the build thread is done get threads of their own', async () => {
  const path = join(dir, 'build2.db')
  const db = openBuildFile(path)
  // the first task waits until the last is done: only threads that finish starts can do the others
  const gate = new SharedArrayBuffer(4)
  const started = new SharedArrayBuffer(4)
  const tasks: TestPartTask[] = [{ n: 0, gate, started }, { n: 1 }, { n: 2, open: gate }]
  const parts = await start(path, db, tasks)
  // the build thread is done once the first thread has taken the first task
  const until = Date.now() + 30_000
  while (Atomics.load(new Int32Array(started), 0) === 0 && Date.now() < until)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20)
  const rows: PartRow[] = []
  await parts.finish((copied) => {
    for (const p of copied) rows.push(partRow(p) as PartRow)
  })
  db.close()
  expect(rows.map((r) => r.task)).toEqual([0, 1, 2])
  // the first waited and was let go by the last (not by its 10 s timeout)
  expect(rows[0]?.waited).toBe('ok')
  expect(rows[1]?.thread).not.toBe(rows[0]?.thread)
  expect(rows[2]?.thread).not.toBe(rows[0]?.thread)
})
