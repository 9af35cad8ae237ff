/**
 * Which USDOT numbers a table of a dataset file lists, held in memory as one sorted typed array
 * per open connection, so a lookup of a company the table does not list (most of them: the
 * out-of-service orders name about 7 % of the census, the ELP violations 1 %) costs a binary
 * search instead of a SQLite query. Exact, because a dataset file never changes once built: a
 * new version is a new file and a new connection, hence a new set.
 *
 * Built on the first lookup in a connection (one `SELECT DISTINCT` over the table's index: cheap
 * for a table listing a small part of the census), so only for tables whose USDOTs are a small part of the
 * census; a table that lists most companies spares few queries for its memory.
 */
import type { Sqlite } from './open.ts'

/** USDOT numbers in ascending order, one typed array (off the JS heap). */
export type SortedDots = Int32Array | Float64Array

const sets = new WeakMap<Sqlite, Map<string, SortedDots>>()

/** `dots` (ascending) as a typed array: 32-bit when every one fits. */
export function sortedDots(dots: readonly number[]): SortedDots {
  const int32 = dots.every((d) => Number.isInteger(d) && d >= -0x80000000 && d <= 0x7fffffff)
  return int32 ? Int32Array.from(dots) : Float64Array.from(dots)
}

/** Whether the ascending `dots` include `dot` (a binary search). */
export function includesDot(dots: SortedDots, dot: number): boolean {
  let lo = 0
  let hi = dots.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const v = dots[mid] as number
    if (v === dot) return true
    if (v < dot) lo = mid + 1
    else hi = mid - 1
  }
  return false
}

/** Whether `table` of this (immutable) dataset connection has a row for `dot`. */
export function listsDot(db: Sqlite, table: string, dot: number): boolean {
  let byTable = sets.get(db)
  if (!byTable) sets.set(db, (byTable = new Map<string, SortedDots>()))
  let dots = byTable.get(table)
  if (!dots) {
    const all = db
      .prepare(`SELECT DISTINCT dot_number FROM ${table} ORDER BY dot_number`)
      .pluck()
      .all() as number[]
    byTable.set(table, (dots = sortedDots(all)))
  }
  return includesDot(dots, dot)
}
