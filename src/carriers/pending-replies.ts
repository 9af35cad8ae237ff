/**
 * The requests a record worker has not answered yet, by id: a ring of slots indexed by the id's
 * low bits, not a `Map`.
 *
 * Why not a Map: with a long-lived `Map` taking one entry per request, deleted when its reply
 * comes, the answer texts of requests already answered survived young-generation collections and
 * were promoted, making scavenges and full collections costly under random load. Here a slot is
 * cleared when its reply comes, and
 * the slots array is replaced only when more requests are in flight than it holds.
 */
export class PendingReplies<T> {
  private ids: number[]
  private items: (T | undefined)[]
  private mask: number
  private nextId = 1
  private count = 0

  constructor(capacity = 64) {
    const size = 2 ** Math.ceil(Math.log2(Math.max(2, capacity)))
    this.ids = new Array<number>(size).fill(0)
    this.items = new Array<T | undefined>(size).fill(undefined)
    this.mask = size - 1
  }

  /** Requests waiting for their reply. */
  get size(): number {
    return this.count
  }

  /** Slots in the ring now (it grows only while more requests wait than it holds). */
  get capacity(): number {
    return this.ids.length
  }

  /** Keeps `item` until its reply; returns the id to send with the request (1, 2, 3, …). */
  add(item: T): number {
    const id = this.nextId++
    while (this.ids[id & this.mask] !== 0) this.grow()
    this.ids[id & this.mask] = id
    this.items[id & this.mask] = item
    this.count++
    return id
  }

  /** The item kept for `id`, removed; undefined when none is (already taken, or never given). */
  take(id: number): T | undefined {
    const at = id & this.mask
    if (this.ids[at] !== id) return undefined
    const item = this.items[at]
    this.ids[at] = 0
    this.items[at] = undefined
    this.count--
    return item
  }

  /** Every item still waiting, removed (a worker died: each is failed). */
  drain(): T[] {
    const out: T[] = []
    for (let i = 0; i < this.ids.length; i++)
      if (this.ids[i] !== 0) {
        out.push(this.items[i] as T)
        this.ids[i] = 0
        this.items[i] = undefined
      }
    this.count = 0
    return out
  }

  /**
   * Twice the slots, every waiting item placed again by its id. Ids apart from each other modulo
   * the old size are apart modulo the new one too, so no two waiting items meet in a slot.
   */
  private grow(): void {
    const size = this.ids.length * 2
    const ids = new Array<number>(size).fill(0)
    const items = new Array<T | undefined>(size).fill(undefined)
    const mask = size - 1
    for (let i = 0; i < this.ids.length; i++) {
      const id = this.ids[i] ?? 0
      if (id === 0) continue
      ids[id & mask] = id
      items[id & mask] = this.items[i]
    }
    this.ids = ids
    this.items = items
    this.mask = mask
  }
}
