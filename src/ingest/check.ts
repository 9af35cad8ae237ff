/**
 * The integrity check of a finished build file (`PRAGMA quick_check`), in two threads when the
 * file is large. SQLite checks one table and its indexes at a time when the pragma names it
 * (`quick_check(<table>)`), and the schema table with the freelist when it names
 * `sqlite_schema`: the build thread and a checker thread (check-worker.ts) claim the file's
 * tables from a shared counter, largest first, each with its own read-only connection, so the
 * step that ended every build on one core, the other idle, uses both.
 *
 * What SQLite does only when one call checks every table: a page that no table, index or the
 * freelist reaches ("never used": space lost, not a wrong answer) and a page that two tables
 * checked in different calls both reach. Every page of every table and index, every cell, every
 * row's NOT NULL columns and the freelist are checked as before. A small file is checked whole,
 * in the calling thread.
 */
import { availableParallelism } from 'node:os'
import { openSqlite, type Sqlite } from '../db/open.ts'
import { threadCpuSeconds } from './cpu.ts'
import { siblingModule, startWorker, yieldToRequests } from './worker-module.ts'

const ENTRY = siblingModule('./check-worker', import.meta.url)

/** Below this many pages (4 KiB each: 256 MB) the file is checked whole, in the calling thread. */
export const CHECK_SPLIT_MIN_PAGES = 65_536

/** Page cache of a checking connection (KiB): quick_check reads every page once. */
const CHECK_CACHE_KIB = 8_192

/** What the checker threads share: the next table to claim (Int32 at 0). */
export interface CheckJob {
  path: string
  tables: string[]
  next: SharedArrayBuffer
}

/** A checker thread's report: the problems it found (none: the tables it checked are sound). */
export type CheckMessage =
  { kind: 'done'; problems: string[]; cpu: number | null } | { kind: 'error'; message: string }

export interface CheckResult {
  /** 'ok', or the problems found, one per line */
  result: string
  /** CPU seconds of the checker threads beside the calling thread (null: not measured) */
  helperCpu: number | null
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`

/**
 * The problems `quick_check` reports (none for 'ok'); a page too damaged for the check to go on
 * (SQLITE_CORRUPT while it reads the rows) is one more.
 */
function problemsOf(db: Sqlite, table: string | null): string[] {
  try {
    const rows = db.pragma(table === null ? 'quick_check' : `quick_check(${quoted(table)})`, {
      simple: false,
    }) as { quick_check: string }[]
    return rows.map((r) => r.quick_check).filter((r) => r !== 'ok')
  } catch (err) {
    return [`${table ?? 'the file'}: ${err instanceof Error ? err.message : String(err)}`]
  }
}

/** Checks the tables claimed from `job.next` until none is left; their problems. */
export function checkClaimed(db: Sqlite, job: Pick<CheckJob, 'tables' | 'next'>): string[] {
  const next = new Int32Array(job.next)
  const problems: string[] = []
  for (;;) {
    const i = Atomics.add(next, 0, 1)
    const table = job.tables[i]
    if (table === undefined) return problems
    problems.push(...problemsOf(db, table))
  }
}

/**
 * A virtual table's check (its module's, FTS5's a read and decode of its whole index) costs about
 * eight times a plain B-tree's check per page of its shadow tables, so its pages count that many
 * times when the tables are dealt out to the threads.
 */
const VIRTUAL_PAGE_COST = 8

/**
 * The tables of the file (the schema table first: it carries the freelist check), largest first.
 * A B-tree's pages are estimated without reading them: from its root page to the next one (a
 * build fills each table or index before it creates the next; B-trees with adjacent roots share
 * the pages up to the next root), a table's with its indexes'; a virtual table's are its shadow
 * tables' (`<name>_…`) at VIRTUAL_PAGE_COST.
 */
export function tablesBySize(db: Sqlite): string[] {
  const schema = db
    .prepare(
      `SELECT type, name, tbl_name AS tbl, rootpage AS root, sql FROM sqlite_schema
       WHERE type IN ('table', 'index') ORDER BY rootpage`,
    )
    .all() as { type: string; name: string; tbl: string; root: number; sql: string | null }[]
  const pageCount = db.pragma('page_count', { simple: true }) as number
  const btrees = schema.filter((e) => e.root > 0)
  const pagesOf = new Map<string, number>()
  for (let i = 0; i < btrees.length;) {
    // B-trees with adjacent roots (created together while empty, then filled together; or a
    // one-page B-tree before the next) share the pages up to the next root equally
    let j = i + 1
    while (j < btrees.length && btrees[j]?.root === (btrees[j - 1]?.root ?? 0) + 1) j++
    const first = btrees[i]?.root ?? 0
    const pages = Math.max(1, (btrees[j]?.root ?? pageCount + 1) - first) / (j - i)
    for (const e of btrees.slice(i, j)) pagesOf.set(e.tbl, (pagesOf.get(e.tbl) ?? 0) + pages)
    i = j
  }
  const cost = (name: string, sql: string | null) => {
    if (!/^CREATE VIRTUAL TABLE/i.test(sql ?? '')) return pagesOf.get(name) ?? 0
    let pages = 0
    for (const [table, n] of pagesOf) if (table.startsWith(`${name}_`)) pages += n
    return pages * VIRTUAL_PAGE_COST
  }
  return [
    'sqlite_schema',
    ...schema
      .filter((e) => e.type === 'table')
      .map((e) => ({ name: e.name, cost: cost(e.name, e.sql) }))
      .sort((a, b) => b.cost - a.cost || (a.name < b.name ? -1 : 1))
      .map((t) => t.name),
  ]
}

/**
 * `PRAGMA quick_check` of the SQLite file at `path` (closed by its builder). A file of at least
 * `minPages` (CHECK_SPLIT_MIN_PAGES) pages is checked table by table in this thread and
 * `threads - 1` checker threads (default: two threads on a machine with two cores or more).
 */
export async function quickCheckFile(
  path: string,
  opts: { threads?: number; minPages?: number } = {},
): Promise<CheckResult> {
  const threads = opts.threads ?? Math.min(2, availableParallelism())
  const db = openSqlite(path, 'readonly', CHECK_CACHE_KIB)
  try {
    const pages = db.pragma('page_count', { simple: true }) as number
    if (threads < 2 || pages < (opts.minPages ?? CHECK_SPLIT_MIN_PAGES)) {
      const problems = problemsOf(db, null)
      return { result: problems.length ? problems.join('\n') : 'ok', helperCpu: 0 }
    }
    const job: CheckJob = {
      path,
      tables: tablesBySize(db),
      next: new SharedArrayBuffer(4),
    }
    const helpers = Array.from({ length: threads - 1 }, () => runChecker(job))
    // this thread claims too; a helper that fails leaves its claimed table unchecked: the whole
    // check then fails, it does not pass
    const own = checkClaimed(db, job)
    const reports = await Promise.allSettled(helpers)
    const problems = [...own]
    let helperCpu: number | null = 0
    for (const r of reports) {
      if (r.status === 'rejected')
        problems.push(`checker thread failed: ${(r.reason as Error).message}`)
      else {
        problems.push(...r.value.problems)
        helperCpu = helperCpu === null || r.value.cpu === null ? null : helperCpu + r.value.cpu
      }
    }
    return { result: problems.length ? problems.join('\n') : 'ok', helperCpu }
  } finally {
    db.close()
  }
}

function runChecker(job: CheckJob): Promise<{ problems: string[]; cpu: number | null }> {
  return new Promise((resolve, reject) => {
    // the first of these settles the promise; the later ones are no-ops
    const worker = startWorker(ENTRY, { workerData: job })
    worker.once('message', (m: CheckMessage) => {
      if (m.kind === 'done') resolve({ problems: m.problems, cpu: m.cpu })
      else reject(new Error(m.message))
      void worker.terminate()
    })
    worker.once('error', reject)
    worker.once('exit', (code) => reject(new Error(`checker thread exited with code ${code}`)))
  })
}

/** The body of a checker thread (check-worker.ts). */
export function runCheckJob(job: CheckJob): CheckMessage {
  yieldToRequests()
  const cpu0 = threadCpuSeconds()
  const db = openSqlite(job.path, 'readonly', CHECK_CACHE_KIB)
  try {
    const problems = checkClaimed(db, job)
    const cpu1 = threadCpuSeconds()
    return { kind: 'done', problems, cpu: cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null }
  } catch (err) {
    return { kind: 'error', message: err instanceof Error ? err.message : String(err) }
  } finally {
    db.close()
  }
}
