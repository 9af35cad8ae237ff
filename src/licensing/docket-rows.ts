/**
 * `docket_rows`: every row the record assembly reads of one docket, as one JSON document
 * `[authority rows, policies, history, events, revocations, boc3 0|1]` (each row an array in the
 * column order of columns.ts, without the docket itself), keyed by the docket's integer id. A
 * lookup reads one document per docket and dataset instead of six correlated reads (each read, not
 * the rows, is what a lookup paid for). The tables stay: they are the source of the documents,
 * and a file built before this table existed is read through them.
 *
 * The last step of a licensing build, one thread of SQL with the other core idle: at scale (from
 * DOCKET_PARTS_MIN dockets) the build thread makes the documents of the lower half of
 * the docket ids while a part thread (docket-rows-worker.ts) makes the upper half into a file of
 * its own (ingest/parts.ts), which is then appended. The table is the same either way.
 */
import { type Sqlite } from '../db/open.ts'
import type { DocketPrefix } from '../ingest/normalize.ts'
import { startParts, throwIfStopped, type PartJob } from '../ingest/parts.ts'
import { siblingModule } from '../ingest/worker-module.ts'
import {
  DOCKET_PREFIXES,
  DOCKET_ROW_ORDER,
  docketId,
  docketIdSql,
  READ_COLUMNS,
  READ_TABLES,
} from './columns.ts'

const ENTRY = siblingModule('./docket-rows-worker', import.meta.url)

/** Below this many dockets the documents are made in the build thread alone. */
export const DOCKET_PARTS_MIN = 100_000

export type AuthorityTable = 'carriers' | 'authorities'

/** The part thread's task: the documents of the dockets whose id is `from` or above. */
export interface DocketRowsTask {
  authorityTable: AuthorityTable
  from: number
}

const DDL = 'CREATE TABLE docket_rows (id INTEGER PRIMARY KEY, doc TEXT NOT NULL) STRICT'
/** Called once per docket by a part's statement: throws once the build stops the part. */
const GO_ON_FN = 'docket_part_go_on'

/**
 * The INSERT of the documents of the dockets in an id range (`? <= id < ?`, both bound), in id
 * order. `goOn`: a part's statement, which asks GO_ON_FN before each docket.
 */
function insertSql(authorityTable: AuthorityTable, goOn = false): string {
  const rows = (table: string, cols: readonly string[], order: string) =>
    `json((SELECT json_group_array(json_array(${cols.join(', ')}) ORDER BY ${order}) FROM ${table} t
      WHERE t.prefix = k.prefix AND t.number = k.number))`
  const parts = [
    authorityTable === 'carriers'
      ? rows('carriers', READ_COLUMNS.legacyCarrier, DOCKET_ROW_ORDER)
      : rows('authorities', READ_COLUMNS.motusAuth, 'rowid'),
    rows(READ_TABLES.policies, READ_COLUMNS.policies, DOCKET_ROW_ORDER),
    rows(READ_TABLES.hist, READ_COLUMNS.hist, DOCKET_ROW_ORDER),
    rows(READ_TABLES.events, READ_COLUMNS.events, DOCKET_ROW_ORDER),
    rows(READ_TABLES.revs, READ_COLUMNS.revs, DOCKET_ROW_ORDER),
    'EXISTS (SELECT 1 FROM boc3 t WHERE t.prefix = k.prefix AND t.number = k.number)',
  ]
  return `INSERT INTO docket_rows (id, doc)
  SELECT k.id, json_array(${parts.join(',\n    ')})
  FROM (SELECT DISTINCT prefix, number, ${docketIdSql('d')} AS id FROM dot_dockets d) k
  WHERE k.id >= ? AND k.id < ?${goOn ? ` AND ${GO_ON_FN}()` : ''} ORDER BY k.id`
}

/** The number of distinct dockets of each prefix, in the order of their ids' prefix codes. */
function docketsByPrefix(db: Sqlite): { prefix: DocketPrefix; n: number }[] {
  const count = db.prepare(
    'SELECT count(*) FROM (SELECT DISTINCT number FROM dot_dockets WHERE prefix = ?)',
  )
  return DOCKET_PREFIXES.map((prefix) => ({ prefix, n: count.pluck().get(prefix) as number }))
}

/**
 * The id of the middle docket (by count: the work per docket is about even). Ids order dockets by
 * prefix code, then number, so it is found prefix by prefix, each an ordered range of the
 * `dot_dockets_docket` index (cheaper than sorting every computed id or a GROUP BY over the
 * distinct dockets, which both read and sort the whole table).
 */
function middleDocketId(
  db: Sqlite,
  counts: readonly { prefix: DocketPrefix; n: number }[],
  dockets: number,
): number {
  let skip = Math.floor(dockets / 2)
  for (const { prefix, n } of counts) {
    if (skip >= n) {
      skip -= n
      continue
    }
    const number = db
      .prepare(
        'SELECT DISTINCT number FROM dot_dockets WHERE prefix = ? ORDER BY number LIMIT 1 OFFSET ?',
      )
      .pluck()
      .get(prefix, skip) as number
    return docketId({ prefix, number })
  }
  throw new Error('the middle docket is past the last one')
}

/** Past every docket id (columns.ts: prefix code × 10⁸ + number). */
const PAST_ALL = Number.MAX_SAFE_INTEGER

/**
 * Makes `docket_rows` of a licensing build file whose tables and `dot_dockets` are complete, in
 * two threads at scale (`parts`: whether to, by default from the number of dockets).
 */
export async function buildDocketRows(
  db: Sqlite,
  opts: {
    path: string
    authorityTable: AuthorityTable
    signal: AbortSignal
    phase(name: string, seconds: number): void
    parts?: boolean
  },
): Promise<void> {
  db.exec(DDL)
  const counts = docketsByPrefix(db)
  const dockets = counts.reduce((sum, c) => sum + c.n, 0)
  if (!(opts.parts ?? dockets >= DOCKET_PARTS_MIN) || dockets < 2) {
    db.prepare(insertSql(opts.authorityTable)).run(0, PAST_ALL)
    return
  }
  const from = middleDocketId(db, counts, dockets)
  const task: DocketRowsTask = { authorityTable: opts.authorityTable, from }
  const parts = await startParts(db, {
    path: opts.path,
    files: 'dockets',
    label: 'docket documents',
    phases: 'docket_rows',
    entry: ENTRY,
    tasks: [task],
    signal: opts.signal,
    phase: (name, seconds) => opts.phase(name, seconds),
  })
  try {
    const t0 = performance.now()
    db.prepare(insertSql(opts.authorityTable)).run(0, from)
    opts.phase('docket_rows.own', (performance.now() - t0) / 1000)
  } catch (err) {
    await parts.abort()
    throw err
  }
  await parts.finish(([path]) => {
    db.prepare('ATTACH DATABASE ? AS part').run(path)
    try {
      db.exec('INSERT INTO main.docket_rows (id, doc) SELECT id, doc FROM part.docket_rows')
    } finally {
      db.exec('DETACH DATABASE part')
    }
  })
}

/** A part's work (in its thread): the documents of the dockets from `task.from` on, into `db`. */
export function buildDocketRowsPart(
  job: PartJob<DocketRowsTask>,
  db: Sqlite,
  stop: Int32Array,
): void {
  db.prepare('ATTACH DATABASE ? AS src').run(job.source)
  db.function(GO_ON_FN, () => {
    throwIfStopped(stop)
    return 1
  })
  db.exec(DDL)
  // the source tables by their names: `main` holds only docket_rows
  try {
    db.prepare(insertSql(job.task.authorityTable, true)).run(job.task.from, PAST_ALL)
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK')
    throw err
  }
  db.exec('DETACH DATABASE src')
}
