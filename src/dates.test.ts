import { describe, expect, test } from 'vitest'
import { dayToIso, daysBefore, daysBetween, isoToDay } from './dates.ts'

describe('day arithmetic', () => {
  test('day numbers round-trip, across a leap day', () => {
    expect(isoToDay('1970-01-01')).toBe(0)
    expect(isoToDay('2024-03-01') - isoToDay('2024-02-28')).toBe(2)
    expect(dayToIso(isoToDay('2026-11-15'))).toBe('2026-11-15')
  })
  test('daysBetween is signed; daysBefore goes back (or forward for negative n)', () => {
    expect(daysBetween('2025-11-15', '2026-11-15')).toBe(365)
    expect(daysBetween('2026-11-15', '2025-11-15')).toBe(-365)
    expect(daysBefore('2026-03-01', 1)).toBe('2026-02-28')
    expect(daysBefore('2026-11-15', -20)).toBe('2026-12-05')
  })
})
