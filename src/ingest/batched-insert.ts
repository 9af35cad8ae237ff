/**
 * Rows inserted several to a statement: a build's loader inserts millions of small rows, and one
 * `INSERT ... VALUES (...), (...), ...` of ROWS rows costs one statement step where single-row
 * inserts cost ROWS. Rows go in in the order they were added (a later row of an `INSERT OR
 * REPLACE` still replaces an earlier one). `flush()` inserts what is held; call it, inside a
 * transaction, before the table is read.
 */
import type { Sqlite } from '../db/open.ts'

/** Rows per multi-row statement. */
const ROWS = 64

export interface BatchedInsert {
  /** adds one row's values, in the statement's column order */
  add(values: readonly unknown[]): void
  /** inserts the rows held */
  flush(): void
}

/** `head`: the statement up to VALUES (`INSERT OR REPLACE INTO t (a, b)`); `columns`: per row. */
export function batchedInsert(db: Sqlite, head: string, columns: number): BatchedInsert {
  const tuple = `(${Array.from({ length: columns }, () => '?').join(', ')})`
  const many = db.prepare(`${head} VALUES ${Array.from({ length: ROWS }, () => tuple).join(', ')}`)
  const one = db.prepare(`${head} VALUES ${tuple}`)
  const held: unknown[] = []
  return {
    add(values) {
      for (const v of values) held.push(v)
      if (held.length === ROWS * columns) {
        many.run(held)
        held.length = 0
      }
    },
    flush() {
      for (let i = 0; i < held.length; i += columns) one.run(held.slice(i, i + columns))
      held.length = 0
    },
  }
}
