/**
 * Least-recently-used caches keyed by an owner object and a string: a data view or a dataset
 * version owns its entries, so they go with it when it is replaced (a WeakMap holds the owners).
 * Used by the record cache (carriers/record-cache.ts) and the ranked-search cache (search).
 */
export class OwnedLru<O extends object, V> {
  private readonly owners = new WeakMap<O, Map<string, V>>()

  /** The value stored for (owner, key), now the most recently used; undefined when absent. */
  get(owner: O, key: string): V | undefined {
    const m = this.owners.get(owner)
    if (!m?.has(key)) return undefined
    const value = m.get(key) as V
    // most recently used last: a Map iterates in insertion order
    m.delete(key)
    m.set(key, value)
    return value
  }

  /** Stores a value, dropping the owner's least recently used entries beyond `capacity`. */
  set(owner: O, key: string, value: V, capacity: number): void {
    if (capacity <= 0) return
    let m = this.owners.get(owner)
    if (!m) this.owners.set(owner, (m = new Map<string, V>()))
    m.delete(key)
    m.set(key, value)
    for (const old of m.keys()) {
      if (m.size <= capacity) break
      m.delete(old)
    }
  }
}
