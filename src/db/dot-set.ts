/**
 * Which USDOT numbers a table of a dataset file lists, held in memory per open connection, so a
 * lookup of a company the table does not list (most of them: the out-of-service orders name
 * about 7 % of the census, the ELP violations 1 %, the equipment's carriers about a third) costs
 * a binary search or a bit test instead of a SQLite query. Exact, because a dataset file never
 * changes once built: a new version is a new file and a new connection, hence a new set. A set
 * is one sorted typed array, or a bitmap over the USDOTs up to the largest where that is smaller
 * (a table listing many companies: a bit per USDOT instead of four bytes per listed one).
 *
 * Built on the first lookup in a connection (one `SELECT DISTINCT` over the table's index), so
 * only for tables whose USDOTs are not most of the census: a table that lists most companies
 * spares few queries for its memory.
 */
import type { Sqlite } from './open.ts'

/** USDOT numbers in ascending order, one typed array (off the JS heap). */
export type SortedDots = Int32Array | Float64Array

/** A USDOT set held by listsDot: a bitmap (bit `dot`) or a sorted array. */
type HeldDots = { bits: Uint8Array } | { sorted: SortedDots }

const sets = new WeakMap<Sqlite, Map<string, HeldDots>>()

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

/** `dots` (ascending) held the smaller way: a bitmap when it takes less than the sorted array. */
export function heldDots(dots: readonly number[]): HeldDots {
  const max = dots.length > 0 ? (dots[dots.length - 1] as number) : 0
  const bitmap =
    dots.length > 0 &&
    (dots[0] as number) >= 0 &&
    max <= 0x7fffffff &&
    (max >>> 3) + 1 < dots.length * 4 &&
    dots.every(Number.isInteger)
  if (!bitmap) return { sorted: sortedDots(dots) }
  const bits = new Uint8Array((max >>> 3) + 1)
  for (const d of dots) bits[d >>> 3] = (bits[d >>> 3] as number) | (1 << (d & 7))
  return { bits }
}

/** Whether a held set includes `dot`. */
function holdsDot(held: HeldDots, dot: number): boolean {
  if ('sorted' in held) return includesDot(held.sorted, dot)
  if (!Number.isInteger(dot) || dot < 0 || dot > 0x7fffffff) return false
  return ((held.bits[dot >>> 3] ?? 0) & (1 << (dot & 7))) !== 0
}

/**
 * Whether `table` of this (immutable) dataset connection has a row for `dot` (in its column
 * `column`, dot_number unless named).
 */
export function listsDot(db: Sqlite, table: string, dot: number, column = 'dot_number'): boolean {
  let byTable = sets.get(db)
  if (!byTable) sets.set(db, (byTable = new Map<string, HeldDots>()))
  let held = byTable.get(table)
  if (!held) {
    const all = db
      .prepare(`SELECT DISTINCT ${column} FROM ${table} ORDER BY ${column}`)
      .pluck()
      .all() as number[]
    byTable.set(table, (held = heldDots(all)))
  }
  return holdsDot(held, dot)
}
