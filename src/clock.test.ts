import { describe, expect, test } from 'vitest'
import { isoDate, periodOf } from './clock.ts'

describe('isoDate (the last day it formatted is kept)', () => {
  test('each instant gets its own UTC day, in any order, across midnight and months', () => {
    const instants = [
      '2026-11-30T23:59:59.999Z',
      '2026-12-01T00:00:00.000Z',
      '2026-11-30T00:00:00.000Z',
      '2026-11-30T12:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '1970-01-01T00:00:00.000Z',
      '2026-12-01T00:00:00.000Z',
    ]
    for (const s of instants) {
      const d = new Date(s)
      expect(isoDate(d)).toBe(s.slice(0, 10))
      expect(periodOf(d)).toBe(s.slice(0, 7))
    }
  })
  test('an invalid date still throws', () => {
    expect(() => isoDate(new Date('2026-11-31x'))).toThrow(RangeError)
  })
})
