import { describe, expect, test } from 'vitest'
import { TtlCache } from './cache.ts'

describe('TtlCache', () => {
  test('a value is served until its ttl passes, with the time it was stored', () => {
    const c = new TtlCache<number, string>({ ttlMs: 1000, maxEntries: 10 })
    c.set(1, 'a', 5_000)
    expect(c.get(1, 5_999)).toEqual({ value: 'a', storedAt: 5_000 })
    expect(c.get(1, 6_000)).toBeUndefined()
    expect(c.size).toBe(0)
  })

  test('full → the least recently used entry goes first', () => {
    const c = new TtlCache<number, string>({ ttlMs: 1000, maxEntries: 2 })
    c.set(1, 'a', 0)
    c.set(2, 'b', 0)
    c.get(1, 1) // 1 is now the most recent
    c.set(3, 'c', 2)
    expect(c.get(2, 3)).toBeUndefined()
    expect(c.get(1, 3)?.value).toBe('a')
    expect(c.get(3, 3)?.value).toBe('c')
    expect(c.size).toBe(2)
  })

  test('ttl 0 stores nothing', () => {
    const c = new TtlCache<number, string>({ ttlMs: 0, maxEntries: 10 })
    c.set(1, 'a', 0)
    expect(c.get(1, 0)).toBeUndefined()
  })
})
