import { describe, expect, test } from 'vitest'
import { RateLimiter, sleep } from './limiter.ts'

describe('RateLimiter', () => {
  test('spaces reservations minIntervalMs apart', () => {
    let now = 1000
    const l = new RateLimiter({ minIntervalMs: 200, now: () => now })
    expect(l.reserve(1000)).toBe(0)
    expect(l.reserve(1000)).toBe(200)
    expect(l.reserve(1000)).toBe(400)
    now = 2000 // long after: no wait
    expect(l.reserve(1000)).toBe(0)
  })

  test('a slot further away than the caller can wait is refused and not reserved', () => {
    const now = 0
    const l = new RateLimiter({ minIntervalMs: 500, now: () => now })
    expect(l.reserve(100)).toBe(0)
    expect(l.reserve(100)).toBeNull()
    expect(l.reserve(600)).toBe(500)
  })

  test('pause pushes the next slot back (Retry-After)', () => {
    const now = 0
    const l = new RateLimiter({ minIntervalMs: 0, now: () => now })
    l.pause(3000)
    expect(l.reserve(1000)).toBeNull()
    expect(l.reserve(5000)).toBe(3000)
  })

  test('interval 0 never waits', () => {
    const l = new RateLimiter({ minIntervalMs: 0, now: () => 0 })
    expect([l.reserve(0), l.reserve(0), l.reserve(0)]).toEqual([0, 0, 0])
  })

  test('sleep returns at once when its signal aborts', async () => {
    const ac = new AbortController()
    const p = sleep(60_000, ac.signal)
    ac.abort()
    await expect(p).resolves.toBeUndefined()
  })
})
