/**
 * The dataset part of assembled records, kept per data view (record.ts `RecordData`): what the
 * immutable dataset files say of a USDOT on a given day. A view is replaced whenever any of its
 * dataset versions changes, so a cached entry can never outlive the data it was read from; the
 * parts that can change between two requests (reviews, usage, the freshness verdict, the Trust
 * Score over them) are never cached. Least recently used entries go first.
 */
import type { DataView } from '../db/datasets.ts'

const caches = new WeakMap<DataView, Map<string, unknown>>()

/** `build()`'s value for (view, key), from the cache when there; `capacity` 0 turns it off. */
export function cachedPerView<T>(
  view: DataView,
  key: string,
  capacity: number,
  build: () => T,
): { value: T; hit: boolean } {
  if (capacity <= 0) return { value: build(), hit: false }
  let cache = caches.get(view)
  if (!cache) caches.set(view, (cache = new Map<string, unknown>()))
  if (cache.has(key)) {
    const value = cache.get(key) as T
    // most recently used last: a Map iterates in insertion order
    cache.delete(key)
    cache.set(key, value)
    return { value, hit: true }
  }
  const value = build()
  cache.set(key, value)
  if (cache.size > capacity) cache.delete(cache.keys().next().value as string)
  return { value, hit: false }
}
