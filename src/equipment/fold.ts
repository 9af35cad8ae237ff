/**
 * The sorted passes of the equipment build (equipment.ts): the window's sightings read back in the
 * order of a unit key and folded per unit and USDOT, one output row each.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { openSqlite } from '../db/open.ts'
import { threadCpuSeconds } from '../ingest/cpu.ts'
import type { BuildContext } from '../ingest/types.ts'

/**
 * Unit types and makes as small integers in the scratch tables (each written text once, here):
 * the sightings are sorted twice and read back row by row, and a code is smaller to sort and
 * cheaper to read than the text it stands for. The passes write the text back.
 */
export class Words {
  private readonly codes = new Map<string, number>()
  private readonly words: string[] = []
  code(w: string | null): number | null {
    if (w === null) return null
    let c = this.codes.get(w)
    if (c === undefined) {
      c = this.words.push(w) - 1
      this.codes.set(w, c)
    }
    return c
  }
  word(c: number | null): string | null {
    return c === null ? null : (this.words[c] as string)
  }
}

/** Groups written per transaction (and per turn of the event loop) while the sightings stream. */
const GROUPS_PER_TRANSACTION = 20_000

/**
 * A sighting as the sorted passes read it: the unit's key (a VIN, or `state|plate`), the other
 * key (`state|plate` of a VIN, the VIN of a plate, '' when none), and the codes of type and make.
 */
export type Sighting = [
  key: string,
  dot: number,
  day: number,
  insp: number | null,
  crash: string | null,
  other: string,
  type: number | null,
  make: number | null,
]

/** What one unit (VIN or plate) did under one USDOT, folded from its sightings in day order. */
export class Group {
  first = 0
  last = 0
  /** distinct inspections (counted as their day's rows come: see `add`) */
  inspections = 0
  crash: Set<string> | null = null
  /** the other key (plates of a VIN: `state|plate`; VINs of a plate) → its latest day */
  others: Map<string, number> | null = null
  /** codes of the latest type and make written (Words) */
  type: number | null = null
  make: number | null = null
  readonly dot: number
  constructor(dot: number) {
    this.dot = dot
  }
  /**
   * Folds one sighting. `today` holds the inspections already counted on the group's latest day:
   * an inspection has one day, and rows come in day order, so its copies (the SMS and the MCMIS
   * one) are among the rows of that day, and a list of the day's few inspections counts each
   * once without a set per group.
   */
  add(r: Sighting, today: number[]) {
    if (this.inspections === 0 && this.crash === null) this.first = r[2]
    else if (r[2] !== this.last) today.length = 0
    this.last = r[2]
    const insp = r[3]
    if (insp !== null && !today.includes(insp)) {
      today.push(insp)
      this.inspections++
    }
    if (r[4] !== null) (this.crash ??= new Set()).add(r[4])
    if (r[5] !== '') (this.others ??= new Map()).set(r[5], r[2])
    // rows come in day order: the latest type and the latest make written win (the MCMIS copy
    // of a unit names its make only, the SMS copy of the same inspection its type too)
    if (r[6] !== null) this.type = r[6]
    if (r[7] !== null) this.make = r[7]
  }
}

/**
 * Streams the window's sightings in the order of a unit key (one sort, SQLite's sorter, read on
 * a second connection to the scratch file) and folds them per unit and USDOT, handing each unit's
 * groups to `write` in key order, so every table is filled in its primary-key order. Writes go
 * through the build connection in batched transactions, with a turn of the event loop between.
 */
export async function foldSorted(
  ctx: BuildContext,
  name: string,
  scratchPath: string,
  sql: string,
  params: object,
  write: (key: string, groups: readonly Group[]) => void,
): Promise<void> {
  const started = performance.now()
  const cpu0 = threadCpuSeconds()
  const read = openSqlite(scratchPath, 'readonly')
  try {
    read.pragma('temp_store = FILE')
    read.pragma('cache_size = -16384')
    read.pragma(`threads = ${ctx.db.pragma('threads', { simple: true }) as number}`)
    const rows = read.prepare(sql).raw().iterate(params) as IterableIterator<Sighting>
    let key: string | null = null
    let groups: Group[] = []
    let g: Group | null = null
    const today: number[] = []
    let pending = 0
    ctx.db.exec('BEGIN')
    try {
      for (const r of rows) {
        if (r[0] !== key) {
          if (key !== null) {
            write(key, groups)
            if (++pending >= GROUPS_PER_TRANSACTION) {
              ctx.db.exec('COMMIT')
              pending = 0
              ctx.signal.throwIfAborted()
              await yieldToLoop()
              ctx.db.exec('BEGIN')
            }
          }
          key = r[0]
          groups = []
          g = null
        }
        if (g === null || g.dot !== r[1]) {
          groups.push((g = new Group(r[1])))
          today.length = 0
        }
        g.add(r, today)
      }
      if (key !== null) write(key, groups)
      ctx.db.exec('COMMIT')
    } catch (err) {
      if (ctx.db.inTransaction) ctx.db.exec('ROLLBACK')
      throw err
    }
  } finally {
    read.close()
    ctx.phase(`equipment.${name}`, (performance.now() - started) / 1000)
    // the building thread's CPU, like every other phase (the process's would count the other
    // build of an import running beside this one: sync/lanes.ts)
    const cpu1 = threadCpuSeconds()
    if (cpu0 !== null && cpu1 !== null) ctx.phase(`equipment.${name}.cpu`, cpu1 - cpu0)
  }
}
