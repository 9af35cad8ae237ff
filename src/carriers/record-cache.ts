/**
 * The dataset part of assembled records, kept per data view (record.ts `RecordData`): what the
 * immutable dataset files say of a USDOT on a given day. A view is replaced whenever any of its
 * dataset versions changes, so a cached entry can never outlive the data it was read from; the
 * parts that can change between two requests (reviews, usage, the freshness verdict) are never
 * cached, and the Trust Score over them is reused only while they are unchanged (record.ts).
 * Least recently used entries go first.
 *
 * A record enters the cache on its third recent miss: a missed key is remembered by its hash, with
 * its count of misses, in a small table (a "doorkeeper"). Random lookups (most of a full-scale
 * load, where a key now and then comes twice) then never displace the recurring ones, and never
 * turn into cached objects that outlive a few garbage collections only to die in the old
 * generation, which raised the server's resident memory and its full collections under random
 * load; a kept record is also read as data and completed on the main thread, which costs more
 * than its answer text from a record worker. A recurring key is kept from its third lookup.
 */
import type { DataView } from '../db/datasets.ts'
import { OwnedLru } from '../lru.ts'

const cache = new OwnedLru<DataView, unknown>()
/** a cached "no such company" (undefined means "not cached") */
const NONE = Symbol('none')

/** Hashes of recently missed keys (direct-mapped: a newer key overwrites an older one). */
const DOORKEEPER_BITS = 14
const doorkeeper = new Int32Array(1 << DOORKEEPER_BITS)
/** How many times each remembered key missed (saturating at ADMIT_MISSES). */
const misses = new Uint8Array(1 << DOORKEEPER_BITS)
/** A key is kept from this miss on. */
const ADMIT_MISSES = 3

/** FNV-1a of a string, 32 bits. */
function hashOf(key: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
  return h | 0
}

/** Counts a miss of `key`; true from its ADMIT_MISSES-th recent miss on (it is then admitted). */
function countMiss(key: string): boolean {
  const h = hashOf(key)
  const slot = h >>> (32 - DOORKEEPER_BITS)
  if (doorkeeper[slot] !== h) {
    doorkeeper[slot] = h
    misses[slot] = 1
  } else if ((misses[slot] as number) < ADMIT_MISSES) misses[slot] = (misses[slot] as number) + 1
  return misses[slot] === ADMIT_MISSES
}

/** The cached value for (view, key): `{ value }` when cached (value may be null), else undefined. */
export function peekPerView<T>(
  view: DataView,
  key: string,
  capacity: number,
): { value: T } | undefined {
  if (capacity <= 0) return undefined
  const hit = cache.get(view, key)
  if (hit === undefined) return undefined
  return { value: (hit === NONE ? undefined : hit) as T }
}

/**
 * Whether a miss of `key` now would be kept (its third recent miss); either way the miss is
 * counted, as a miss offered to `keepPerView` is. A caller that builds a value the cache will
 * not keep in another form (a record worker's answer text: answer.ts `loadRecordAnswer`) asks
 * this first.
 */
export function missKept(key: string, capacity: number): boolean {
  return capacity > 0 && countMiss(key)
}

/** Offers a freshly built value for (view, key): kept from the key's third miss on (see above). */
export function keepPerView(view: DataView, key: string, value: unknown, capacity: number): void {
  if (capacity > 0 && countMiss(key))
    cache.set(view, key, value === undefined ? NONE : value, capacity)
}

/**
 * `build()`'s value for (view, key), from the cache when there; kept from the key's third miss
 * on (see above). `capacity` 0 turns it off.
 */
export function cachedPerView<T>(
  view: DataView,
  key: string,
  capacity: number,
  build: () => T,
): { value: T; hit: boolean } {
  const hit = peekPerView<T>(view, key, capacity)
  if (hit) return { value: hit.value, hit: true }
  const value = build()
  keepPerView(view, key, value, capacity)
  return { value, hit: false }
}

/** Reads in flight per view and key (loadPerView), so concurrent misses share one. */
const inFlight = new WeakMap<DataView, Map<string, Promise<unknown>>>()

/**
 * `read()`'s value for (view, key), from the cache when there, else from one read shared by every
 * concurrent caller of the same (view, key): a batch sent by several clients at once, or a TMS
 * asking twice for a carrier, assembles it once. Kept as cachedPerView keeps it. A failed read
 * fails each of its callers and is forgotten at once.
 */
export async function loadPerView<T>(
  view: DataView,
  key: string,
  capacity: number,
  read: () => Promise<T>,
): Promise<T> {
  const hit = peekPerView<T>(view, key, capacity)
  if (hit) return hit.value
  let reads = inFlight.get(view)
  if (!reads) inFlight.set(view, (reads = new Map<string, Promise<unknown>>()))
  const pending = reads.get(key) as Promise<T> | undefined
  if (pending) return pending
  const flights = reads
  const started = read().then(
    (value) => {
      flights.delete(key)
      keepPerView(view, key, value, capacity)
      return value
    },
    (err: unknown) => {
      flights.delete(key)
      throw err
    },
  )
  flights.set(key, started)
  return started
}
