/**
 * The dataset part of assembled records, kept per data view (record.ts `RecordData`): what the
 * immutable dataset files say of a USDOT on a given day. A view is replaced whenever any of its
 * dataset versions changes, so a cached entry can never outlive the data it was read from; the
 * parts that can change between two requests (reviews, usage, the freshness verdict, the Trust
 * Score over them) are never cached. Least recently used entries go first.
 */
import type { DataView } from '../db/datasets.ts'
import { OwnedLru } from '../lru.ts'

const cache = new OwnedLru<DataView, unknown>()
/** a cached "no such company" (undefined means "not cached") */
const NONE = Symbol('none')

/** `build()`'s value for (view, key), from the cache when there; `capacity` 0 turns it off. */
export function cachedPerView<T>(
  view: DataView,
  key: string,
  capacity: number,
  build: () => T,
): { value: T; hit: boolean } {
  if (capacity > 0) {
    const hit = cache.get(view, key)
    if (hit !== undefined) return { value: (hit === NONE ? undefined : hit) as T, hit: true }
  }
  const value = build()
  cache.set(view, key, value === undefined ? NONE : value, capacity)
  return { value, hit: false }
}
