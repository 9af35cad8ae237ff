import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  isPlaceholderVin,
  modelYear,
  normalizeCarrierName,
  normalizePlate,
  normalizeState,
  normalizeVin,
  vinCheckDigit,
  vinStatus,
} from './vin.ts'

const VIN_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789'.split('')
const vinBody = fc.array(fc.constantFrom(...VIN_CHARS), { minLength: 17, maxLength: 17 })
/** a random 17-character VIN with its check digit set */
const validVin = vinBody
  .map((cs) => {
    const v = cs.join('')
    return `${v.slice(0, 8)}${vinCheckDigit(v) ?? '0'}${v.slice(9)}`
  })
  .filter((v) => !isPlaceholderVin(v))

describe('VINs', () => {
  it('accepts real VINs and rejects a changed check digit', () => {
    // the 49 CFR 565 worked example (check digit X) and two published vehicle VINs
    for (const v of ['1M8GDM9AXKP042788', '1HGCM82633A004352', 'JH4KA7561PC008269'])
      expect(vinStatus(v)).toBe('valid')
    expect(vinStatus('1M8GDM9A1KP042788')).toBe('invalid')
    expect(vinStatus('1HGCM82613A004352')).toBe('invalid')
  })

  it('normalises case, spaces and dashes', () => {
    expect(normalizeVin(' 1hgcm8-2633 a004352 ')).toBe('1HGCM82633A004352')
    expect(vinStatus(normalizeVin('1hgcm82633a004352'))).toBe('valid')
  })

  it('judges placeholders invalid even when the check digit works', () => {
    // 17 ones carry a correct check digit
    expect(vinCheckDigit('11111111111111111')).toBe('1')
    for (const v of [
      '11111111111111111',
      'UNKNOWN',
      'NONE',
      'XXXXXXXXXXXXXXXXX',
      'GGGGGGGGGGGGGGGGG',
      '1234567890',
      '',
    ])
      expect(vinStatus(normalizeVin(v))).toBe('invalid')
  })

  it('refuses I, O and Q and any length but 17', () => {
    expect(vinStatus('1HGCM82633A00435I')).toBe('invalid')
    expect(vinStatus('1HGCM82633A00435')).toBe('invalid')
    expect(vinStatus('1HGCM82633A0043522')).toBe('invalid')
  })

  it('property: a VIN with its computed check digit is valid; any other digit is not', () => {
    fc.assert(
      fc.property(validVin, fc.constantFrom(...'0123456789X'.split('')), (vin, digit) => {
        expect(vinStatus(vin)).toBe('valid')
        const changed = `${vin.slice(0, 8)}${digit}${vin.slice(9)}`
        expect(vinStatus(changed)).toBe(digit === vin[8] ? 'valid' : 'invalid')
      }),
    )
  })

  it('property: normalising is idempotent and never leaves spaces, dashes or lower case', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (s) => {
        const n = normalizeVin(s)
        expect(normalizeVin(n)).toBe(n)
        expect(n).not.toMatch(/[\s\-a-z]/)
      }),
    )
  })

  it('property: a VIN with I, O or Q is never valid', () => {
    fc.assert(
      fc.property(
        validVin,
        fc.integer({ min: 0, max: 16 }),
        fc.constantFrom('I', 'O', 'Q'),
        (v, i, c) => {
          expect(vinStatus(`${v.slice(0, i)}${c}${v.slice(i + 1)}`)).toBe('invalid')
        },
      ),
    )
  })

  it('tells the model year when only one cycle is possible, or position 7 is a letter', () => {
    // K = 1989 or 2019, position 7 a digit: heavy vehicles do not follow the rule, so null
    expect(modelYear('1M8GDM9AXKP042788', 2026)).toBeNull()
    // 3 = 2003 (2033 is in the future)
    expect(modelYear('1HGCM82633A004352', 2026)).toBe(2003)
    // a letter at position 7 → the later cycle
    const v = '1FUJGLDRXCLBP8834'.split('')
    v[8] = vinCheckDigit(v.join('')) ?? '0'
    expect(modelYear(v.join(''), 2026)).toBe(2012)
    // Y = 2000 (2030 is too far ahead)
    const y = '1XKAD49X0YJ356780'.split('')
    y[8] = vinCheckDigit(y.join('')) ?? '0'
    expect(modelYear(y.join(''), 2026)).toBe(2000)
    expect(modelYear('UNKNOWN', 2026)).toBeNull()
  })

  it('property: a model year is within 1981 … next year and has the code of position 10', () => {
    fc.assert(
      fc.property(validVin, fc.integer({ min: 2000, max: 2040 }), (vin, year) => {
        const y = modelYear(vin, year)
        if (y === null) return
        expect(y).toBeGreaterThanOrEqual(1981)
        expect(y).toBeLessThanOrEqual(year + 1)
        expect('ABCDEFGHJKLMNPRSTVWXY123456789'[(y - 1980) % 30]).toBe(vin[9])
      }),
    )
  })
})

describe('plates and states', () => {
  it('normalises plates and refuses placeholders', () => {
    expect(normalizePlate(' abc-1234 ')).toBe('ABC1234')
    expect(normalizePlate('ABC 1234')).toBe('ABC1234')
    expect(normalizePlate('UNKNOWN')).toBeNull()
    expect(normalizePlate('0000000')).toBeNull()
    expect(normalizePlate('')).toBeNull()
    expect(normalizePlate('A')).toBeNull()
  })

  it('knows US, Canadian and Mexican codes only', () => {
    expect(normalizeState(' tx')).toBe('TX')
    expect(normalizeState('ON')).toBe('ON')
    expect(normalizeState('NL')).toBe('NL')
    expect(normalizeState('ZZ')).toBeNull()
    expect(normalizeState('TEX')).toBeNull()
  })

  it('property: a normalised plate is stable and 2–10 letters and digits', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 14 }), (s) => {
        const p = normalizePlate(s)
        if (p === null) return
        expect(p).toMatch(/^[A-Z0-9]{2,10}$/)
        expect(normalizePlate(p)).toBe(p)
      }),
    )
  })
})

describe('roadside names', () => {
  it('ignores legal suffixes, punctuation and & / AND', () => {
    const a = normalizeCarrierName('Smith & Sons Trucking, L.L.C.')
    expect(a).toBe('SMITH AND SONS TRUCKING')
    expect(normalizeCarrierName('SMITH AND SONS TRUCKING INC')).toBe(a)
    expect(normalizeCarrierName('ACME FREIGHT LINES')).not.toBe(a)
  })
})
