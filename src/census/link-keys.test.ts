import { describe, expect, test } from 'vitest'
import { addressKey, addressLinkKey, officerKey, officerLinkKey } from './link-keys.ts'

// the rules of docs/identity.md written the plain way (regular expressions over the whole value):
// the hand-written scan of link-keys.ts must give the same key for every value
const words = (v: string): string[] =>
  v
    .toUpperCase()
    .replace(/[^A-Z0-9, ]+/g, ' ')
    .split(/\s+/)
    .filter((w) => w !== '')
const NOISE = new Set('JR SR II III IV MR MRS MS DR ESQ PHD MD CPA OWNER PRESIDENT CEO'.split(' '))
const COMMON = new Set(['SMITH', 'LEE', 'GARCIA', 'NGUYEN'])
function officerRule(name: string): string | null {
  const comma = name.indexOf(',')
  const ordered = comma > 0 ? `${name.slice(comma + 1)} ${name.slice(0, comma)}` : name
  const parts = words(ordered.replace(/,/g, ' ')).filter(
    (w) => w.length > 1 && !NOISE.has(w) && !/\d/.test(w),
  )
  if (parts.length < 2) return null
  const last = parts[parts.length - 1] as string
  return `${COMMON.has(last) ? '*' : ''}${parts[0]} ${last}`
}
const ABBR: Record<string, string> = { STREET: 'ST', NORTH: 'N', SUITE: 'STE', AVENUE: 'AVE' }
const part = (v: string) =>
  words(v.replace(/,/g, ' '))
    .map((w) => ABBR[w] ?? w)
    .join(' ')
function addressRule(street: string, city: string, state: string): string | null {
  const s = part(street)
  return s === '' ? null : `${s}|${part(city)}|${state.toUpperCase()}`
}

/** Values built from the characters the scan treats differently, beyond ASCII included. */
function* values(): Generator<string> {
  const chars = [
    'a',
    'Z',
    'q',
    '0',
    '7',
    ' ',
    ',',
    '.',
    "'",
    '-',
    '\t',
    'é',
    'ß',
    'ı',
    'Ü',
    '\u00a0',
  ]
  let seed = 12345
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  for (let i = 0; i < 5000; i++) {
    let v = ''
    const n = Math.floor(next() * 20)
    for (let j = 0; j < n; j++) {
      const c = chars[Math.floor(next() * chars.length)] as string
      // whole words now and then, so that titles, abbreviations and common names occur
      v += next() < 0.1 ? ` ${['jr', 'Smith', 'street', 'NORTH', 'lee', 'Suite'][j % 6]} ` : c
    }
    yield v
  }
}

describe('link keys', () => {
  test('officer names: order, titles, initials and common surnames', () => {
    expect(officerKey('Mr. John A. Publicovich, Jr.')).toBe('JOHN PUBLICOVICH')
    expect(officerKey('PUBLICOVICH, JOHN A.')).toBe('JOHN PUBLICOVICH')
    expect(officerKey('john publicovich iii')).toBe('JOHN PUBLICOVICH')
    expect(officerKey('J. R. PUBLICOVICH')).toBeNull()
    expect(officerKey('JOHN 2ND SMITH')).toBe('*JOHN SMITH')
    expect(officerKey(', JOHN PUBLICOVICH')).toBe('JOHN PUBLICOVICH')
    expect(officerKey(null)).toBeNull()
  })

  test('names and addresses beyond ASCII follow the same rules (ß is SS in upper case)', () => {
    expect(officerKey('Jörg Straße')).toBe('RG STRASSE')
    expect(officerKey('ıvan Petrov')).toBe('IVAN PETROV')
    expect(addressKey('12 Große Straße', 'Köln', 'nw')).toBe('12 GROSSE STRASSE|K LN|NW')
  })

  test('the stored keys: one integer per key text, below 0 for a common surname', () => {
    const a = officerLinkKey('Mr. John A. Publicovich, Jr.')
    expect(Number.isSafeInteger(a) && (a as number) > 0).toBe(true)
    expect(officerLinkKey('PUBLICOVICH, JOHN')).toBe(a)
    expect(officerLinkKey('JANE PUBLICOVICH')).not.toBe(a)
    const common = officerLinkKey('John Smith')
    expect((common as number) < 0 && Number.isSafeInteger(common)).toBe(true)
    expect(officerLinkKey('SMITH, JOHN A.')).toBe(common)
    expect(officerLinkKey('J. SMITH')).toBeNull()
    expect(addressLinkKey('12 North Main Street, Ste. 4', 'Hull', 'ia')).toBe(
      addressLinkKey('12 N MAIN ST STE 4', 'HULL', 'IA'),
    )
    expect(addressLinkKey('12 N MAIN ST', 'HULL', 'IA')).not.toBe(
      addressLinkKey('14 N MAIN ST', 'HULL', 'IA'),
    )
    expect(addressLinkKey(null, 'HULL', 'IA')).toBeNull()
    // distinct texts, distinct integers (100,000 addresses)
    const seen = new Set<number>()
    for (let i = 0; i < 100_000; i++)
      seen.add(addressLinkKey(`${i} ELM ST`, 'AMES', 'IA') as number)
    expect(seen.size).toBe(100_000)
  })

  test('every value gives the key of the plain rules', () => {
    for (const v of values()) {
      expect(officerKey(v), JSON.stringify(v)).toBe(officerRule(v))
      expect(addressKey(v, v, 'tx'), JSON.stringify(v)).toBe(addressRule(v, v, 'tx'))
    }
  })
})
