import { describe, expect, test } from 'vitest'
import * as N from './normalize.ts'

describe('normalisation', () => {
  test.each([
    ['344554', 344554],
    ['00344554', 344554],
    [' 344554 ', 344554],
    ['USDOT 344554', 344554],
    ['00000000', null],
    ['', null],
    ['12a', null],
    ['-5', null],
  ])('usdot(%j) = %j', (v, want) => expect(N.usdot(v)).toBe(want))

  test.each([
    ['MC421775', 'MC421775'],
    ['MC-0123456', 'MC123456'],
    ['MC0000139446', 'MC139446'],
    ['mc 0123456', 'MC123456'],
    ['123456', 'MC123456'],
    ['FF058485', 'FF58485'],
    ['MX-100018', 'MX100018'],
    ['MC1122796', 'MC1122796'],
  ])('docket(%j) = %s', (v, key) => {
    const d = N.docket(v)
    expect(d && N.docketKey(d)).toBe(key)
  })

  test.each(['', 'MC', 'XX123', 'MC-0', 'MC123456789', 'abc'])('docket(%j) is not a docket', (v) =>
    expect(N.docket(v)).toBeNull(),
  )

  test.each([
    ['20250429', '2025-04-29'],
    ['20250429 0000', '2025-04-29'],
    ['2026-09-10T00:00:00.000', '2026-09-10'],
    ['07/16/2026', '2026-07-16'],
    ['7/6/2026', '2026-07-06'],
    ['30-JAN-24', '2024-01-30'],
    ['24-JUN-04', '2004-06-24'],
    ['24-JUN-98', '1998-06-24'],
    ['00000000', null],
    ['20251340', null],
    ['02/30/2024', null],
    ['soon', null],
  ])('date(%j) = %j', (v, want) => expect(N.date(v)).toBe(want))

  test('money: legacy thousands and Motus unit detection', () => {
    expect(N.thousands('01000')).toBe(1_000_000)
    expect(N.thousands('00000')).toBe(0)
    expect(N.thousands('')).toBeNull()
    expect(N.motusMoney('750000.00', 'bipd')).toBe(750_000)
    expect(N.motusMoney('750', 'bipd')).toBe(750_000)
    expect(N.motusMoney('1000000', 'bipd')).toBe(1_000_000)
    expect(N.motusMoney('5000.00', 'other')).toBe(5000)
    expect(N.motusMoney('75', 'other')).toBe(75_000)
    expect(N.motusMoney('75000', 'other')).toBe(75_000)
    // thousands with cents (issue 12): read as thousands
    expect(N.motusMoney('750.00', 'bipd')).toBe(750_000)
    expect(N.motusMoney('1000.00', 'bipd')).toBe(1_000_000)
    expect(N.motusMoney('75.00', 'other')).toBe(75_000)
    expect(N.motusMoney('0.00', 'bipd')).toBe(0)
  })

  test('phones, zips, emails, flags', () => {
    expect(N.phoneDigits('(800) 201-8453')).toBe('8002018453')
    expect(N.phoneDigits('18002018453')).toBe('8002018453')
    expect(N.phoneDisplay('8002018453')).toBe('+18002018453')
    expect(N.zip('512390001')).toBe('51239-0001')
    expect(N.zip('08055')).toBe('08055')
    expect(N.email(' Ops@Example.COM ')).toBe('ops@example.com')
    expect(N.flag('X')).toBe(true)
    expect(N.flag('false')).toBe(false)
    expect(N.flag('')).toBeNull()
    expect(N.text('  A   B  ')).toBe('A B')
    expect(N.text('   ')).toBeNull()
  })

  // the fast paths (plain digits, one-letter flags, ASCII text) agree with the general rules
  test("fast paths give the general rules' answers", () => {
    expect(N.int('007')).toBe(7)
    expect(N.int(' 12 ')).toBe(12)
    expect(N.int('1,200')).toBe(1200)
    expect(N.int('3.0')).toBe(3)
    expect(N.int('3.5')).toBeNull()
    expect(N.int('1234567890123456')).toBe(1234567890123456)
    expect(N.int('12a')).toBeNull()
    expect(N.usdot('0')).toBeNull()
    expect(N.usdot('123456789')).toBeNull()
    expect(N.usdot('99999999')).toBe(99_999_999)
    expect(N.flag('y')).toBe(true)
    expect(N.flag('t')).toBe(true)
    expect(N.flag('1')).toBe(true)
    expect(N.flag('n')).toBe(false)
    expect(N.flag('0')).toBe(false)
    expect(N.flag(' ')).toBeNull()
    expect(N.flag(' ', false)).toBe(false)
    // control characters whose code | 32 is a digit or a letter's are not flags
    expect(N.flag('\x11')).toBeNull()
    expect(N.flag('\x10')).toBeNull()
    expect(N.flag('\x19')).toBeNull()
    expect(N.flag('Q')).toBeNull()
    expect(N.text('A B')).toBe('A B')
    expect(N.text('A\tB')).toBe('A B')
    expect(N.text('A \u00a0B')).toBe('A B')
    expect(N.text('A\u00a0B')).toBe('A B')
    expect(N.text('CAFÉ  CO')).toBe('CAFÉ CO')
    expect(N.date('20240229')).toBe('2024-02-29')
    expect(N.date('20230229')).toBeNull()
    expect(N.date('21000229')).toBeNull()
    expect(N.date('20000229')).toBe('2000-02-29')
    expect(N.date('20240431')).toBeNull()
    expect(N.date('20241231')).toBe('2024-12-31')
    // eight characters that are not eight digits leave the fast path for the general rules
    expect(N.date('2024-1-5')).toBeNull()
    expect(N.date('7/6/2026')).toBe('2026-07-06')
    expect(N.date(' 2024123')).toBeNull()
    expect(N.date('2024123 ')).toBeNull()
    // ten plain digits are a phone as they are; all zeros are none; other shapes keep the rules
    expect(N.phoneDigits('0123456789')).toBe('0123456789')
    expect(N.phoneDigits('0000000000')).toBeNull()
    expect(N.phoneDigits('800201845a')).toBe('800201845')
    expect(N.phoneDigits('(800)20184')).toBe('80020184')
    // five plain digits are a ZIP as they are; five characters that are not keep the rules
    expect(N.zip('01642')).toBe('01642')
    expect(N.zip('k1a0b')).toBe('K1A0B')
    expect(N.zip(' 1642')).toBe('1642')
  })
})
