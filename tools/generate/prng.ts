/**
 * Seeded pseudo-random numbers for the FMCSA file generator. mulberry32 is small, fast and good
 * enough for test data; every draw is deterministic for a given seed.
 */

/** Mixes two 32-bit integers into one well-spread 32-bit seed (murmur3 finaliser). */
export function mixSeed(a: number, b: number): number {
  let h = (Math.imul(a | 0, 0x9e3779b1) ^ Math.imul(b | 0, 0x85ebca77)) >>> 0
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** A 32-bit FNV-1a hash of a string, to turn labels into seeds. */
export function hashString(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

export interface WeightTable<K extends string> {
  keys: readonly K[]
  cumulative: readonly number[]
  total: number
}

/** Precomputes a table for `Rng.weighted` from `{key: weight}`. */
export function weights<K extends string>(w: Readonly<Record<K, number>>): WeightTable<K> {
  const keys = Object.keys(w) as K[]
  const cumulative: number[] = []
  let total = 0
  for (const k of keys) {
    total += w[k]
    cumulative.push(total)
  }
  return { keys, cumulative, total }
}

/** A mulberry32 generator with the helpers the generator needs. Same seed, same sequence. */
export class Rng {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0)
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T
  }

  /** Picks a key of a `weights()` table with probability proportional to its weight. */
  weighted<K extends string>(table: WeightTable<K>): K {
    const r = this.next() * table.total
    const { keys, cumulative } = table
    for (let i = 0; i < keys.length; i++) if (r < (cumulative[i] as number)) return keys[i] as K
    return keys[keys.length - 1] as K
  }

  /** A geometric count >= 0 with the given mean (number of failures before a success). */
  geometric(mean: number): number {
    if (mean <= 0) return 0
    const p = 1 / (1 + mean)
    return Math.floor(Math.log(1 - this.next()) / Math.log(1 - p))
  }

  /** A string of `n` characters drawn from `alphabet`. */
  chars(alphabet: string, n: number): string {
    let s = ''
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(this.next() * alphabet.length)]
    return s
  }

  /** `n` random decimal digits (leading zeros kept), from one draw when n <= 9. */
  digits(n: number): string {
    if (n > 9) return this.chars('0123456789', n)
    return String(Math.floor(this.next() * 10 ** n)).padStart(n, '0')
  }
}

/** Knuth's method for small means, a rounded normal approximation for large ones. */
export function poisson(rng: Rng, mean: number): number {
  if (mean <= 0) return 0
  if (mean > 30) return Math.max(0, Math.round(mean + Math.sqrt(mean) * gauss(rng)))
  const l = Math.exp(-mean)
  let k = 0
  let p = 1
  do {
    k++
    p *= rng.next()
  } while (p > l)
  return k - 1
}
const gauss = (rng: Rng) =>
  Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next())
