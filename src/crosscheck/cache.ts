/** A bounded TTL cache for regulator answers. Time is passed in, so tests drive it with a clock. */

interface Entry<V> {
  value: V
  storedAt: number
  expiresAt: number
}

export interface CacheHit<V> {
  value: V
  /** when the value was stored (ms) */
  storedAt: number
}

/**
 * Keeps at most `maxEntries` values for `ttlMs` each; the least recently used goes first when
 * full. A ttl of 0 disables it (nothing is stored).
 */
export class TtlCache<K, V> {
  readonly #entries = new Map<K, Entry<V>>()
  readonly #ttlMs: number
  readonly #maxEntries: number

  constructor(opts: { ttlMs: number; maxEntries: number }) {
    this.#ttlMs = opts.ttlMs
    this.#maxEntries = Math.max(1, opts.maxEntries)
  }

  /** The value stored under `key` unless it expired by `now` (ms). */
  get(key: K, now: number): CacheHit<V> | undefined {
    const e = this.#entries.get(key)
    if (!e) return undefined
    if (now >= e.expiresAt) {
      this.#entries.delete(key)
      return undefined
    }
    // refresh recency: Map iteration order is insertion order
    this.#entries.delete(key)
    this.#entries.set(key, e)
    return { value: e.value, storedAt: e.storedAt }
  }

  set(key: K, value: V, now: number): void {
    if (this.#ttlMs <= 0) return
    this.#entries.delete(key)
    this.#entries.set(key, { value, storedAt: now, expiresAt: now + this.#ttlMs })
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next()
      if (oldest.done) break
      this.#entries.delete(oldest.value)
    }
  }

  delete(key: K): void {
    this.#entries.delete(key)
  }

  get size(): number {
    return this.#entries.size
  }
}
