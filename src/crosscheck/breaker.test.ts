import { describe, expect, test } from 'vitest'
import { CircuitBreaker } from './breaker.ts'

describe('CircuitBreaker', () => {
  const opts = { failureThreshold: 3, cooldownMs: 1000 }

  test('opens after N consecutive failures, not before', () => {
    const b = new CircuitBreaker(opts)
    for (let i = 0; i < 2; i++) {
      expect(b.tryAcquire(0)).toBe(true)
      b.failure(0)
    }
    expect(b.state(0)).toBe('closed')
    expect(b.tryAcquire(0)).toBe(true)
    b.failure(10)
    expect(b.state(10)).toBe('open')
    expect(b.tryAcquire(500)).toBe(false)
  })

  test('a success in between resets the count', () => {
    const b = new CircuitBreaker(opts)
    b.failure(0)
    b.failure(0)
    b.success()
    b.failure(0)
    b.failure(0)
    expect(b.state(0)).toBe('closed')
  })

  test('half-open after the cool-down: one trial at a time; success closes', () => {
    const b = new CircuitBreaker(opts)
    for (let i = 0; i < 3; i++) b.failure(0)
    expect(b.state(999)).toBe('open')
    expect(b.state(1000)).toBe('half_open')
    expect(b.tryAcquire(1000)).toBe(true)
    expect(b.tryAcquire(1000)).toBe(false) // the trial is out
    b.success()
    expect(b.state(1000)).toBe('closed')
    expect(b.failures).toBe(0)
  })

  test('a failed trial opens it for another cool-down', () => {
    const b = new CircuitBreaker(opts)
    for (let i = 0; i < 3; i++) b.failure(0)
    expect(b.tryAcquire(1000)).toBe(true)
    b.failure(1000)
    expect(b.state(1500)).toBe('open')
    expect(b.state(2000)).toBe('half_open')
  })

  test('a released trial lets the next caller try', () => {
    const b = new CircuitBreaker(opts)
    for (let i = 0; i < 3; i++) b.failure(0)
    expect(b.tryAcquire(1000)).toBe(true)
    b.release()
    expect(b.tryAcquire(1000)).toBe(true)
  })
})
