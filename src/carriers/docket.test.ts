import { describe, expect, test } from 'vitest'
import { identifierKey, identifierProblem, parseIdentifier } from './docket.ts'

describe('parseIdentifier', () => {
  test.each([
    ['MC-123456', 'MC', 123456],
    ['MC123456', 'MC', 123456],
    ['mc 0123456', 'MC', 123456],
    ['  mc-0123456  ', 'MC', 123456],
    ['123456', 'MC', 123456],
    ['MC0000139446', 'MC', 139446],
    ['MC#421775', 'MC', 421775],
    ['MC1122796', 'MC', 1122796],
    ['FF058485', 'FF', 58485],
    ['ff-58485', 'FF', 58485],
    ['MX 12345', 'MX', 12345],
    ['MC.123.456', 'MC', 123456],
  ])('%s → docket %s-%d', (raw, prefix, number) => {
    expect(parseIdentifier(raw)).toEqual({
      kind: 'docket',
      prefix,
      number,
      display: `${prefix}-${number}`,
    })
  })

  test.each([
    ['1234567B', 1234567, 'B'],
    ['1234567-B', 1234567, 'B'],
    ['1234567 b', 1234567, 'B'],
    ['USDOT 1234567-B', 1234567, 'B'],
    ['usdot1234567c', 1234567, 'C'],
    ['DOT# 1234567 F', 1234567, 'F'],
    ['USDOT No. 0001234567-X', 1234567, 'X'],
  ])('%s → USDOT %d with suffix %s', (raw, dot, suffix) => {
    expect(parseIdentifier(raw)).toEqual({
      kind: 'usdot_suffix',
      dot,
      suffix,
      display: `${dot}-${suffix}`,
    })
  })

  test.each([
    [''],
    ['   '],
    ['ABC'],
    ['MC'],
    ['MC-'],
    ['MC-0'],
    ['000000'],
    ['MC-123456789'],
    ['XX-123456'],
    ['1234567Q'],
    ['1234567BB'],
    ['USDOT 1234567'],
    ['DOT 99'],
    ['0B'],
    ['123456789012B'],
    ['MC 123 OR 1=1'],
    ['"MC-1"'],
    ['M'.repeat(41)],
  ])('%j is not an identifier', (raw) => {
    expect(parseIdentifier(raw)).toBeNull()
    expect(identifierProblem(raw)).toEqual(expect.any(String))
  })

  test('problems say what is expected', () => {
    expect(identifierProblem('USDOT 1234567')).toMatch(/USDOT number, not a docket.*\/v1\/carrier/)
    expect(identifierProblem('1234567Q')).toMatch(/Unknown authority letter Q/)
    expect(identifierProblem('')).toMatch(/required/)
    expect(identifierProblem('MC-1')).toBeNull()
  })

  test('one key per docket or suffix identifier, whatever the written form', () => {
    const key = (s: string) => {
      const id = parseIdentifier(s)
      if (!id) throw new Error(s)
      return identifierKey(id)
    }
    expect(new Set(['MC-123456', 'mc0123456', '123456', 'MC#123456'].map(key))).toEqual(
      new Set(['MC123456']),
    )
    expect(key('FF-123456')).not.toBe(key('MC-123456'))
    expect(new Set(['1234567B', 'USDOT 1234567-B'].map(key))).toEqual(new Set(['1234567-B']))
  })
})
