/**
 * The keys by which the link index (links-build.ts) matches companies beyond phone, fax and
 * e-mail: an officer's name and a physical address, normalised in the census row parser so that
 * spelling variants of the same value meet. docs/identity.md describes the rules. The census
 * stores each key as a number (`linkKeyHash`), not as its text.
 */
import { identityDigest } from './identity-digest.ts'

/** Name parts that say nothing of who the person is: titles and generational suffixes. */
const NAME_NOISE = new Set([
  'JR',
  'SR',
  'II',
  'III',
  'IV',
  'MR',
  'MRS',
  'MS',
  'DR',
  'ESQ',
  'PHD',
  'MD',
  'CPA',
  'OWNER',
  'PRESIDENT',
  'CEO',
])

/**
 * Surnames too common for a same-name match alone to mean the same person (the most frequent
 * surnames of the U.S. census, and the most frequent among carrier officers).
 */
const COMMON_SURNAMES = new Set(
  `SMITH JOHNSON WILLIAMS BROWN JONES GARCIA MILLER DAVIS RODRIGUEZ MARTINEZ HERNANDEZ LOPEZ
GONZALEZ WILSON ANDERSON THOMAS TAYLOR MOORE JACKSON MARTIN LEE PEREZ THOMPSON WHITE HARRIS SANCHEZ
CLARK RAMIREZ LEWIS ROBINSON WALKER YOUNG ALLEN KING WRIGHT SCOTT TORRES NGUYEN HILL FLORES GREEN
ADAMS NELSON BAKER HALL RIVERA CAMPBELL MITCHELL CARTER ROBERTS SINGH KAUR PATEL KHAN GILL SANDHU
SIDHU DHILLON GREWAL KIM ALI AHMED`.split(/\s+/),
)

/** Marks an officer key whose surname is common: such a name alone never links two companies. */
export const COMMON_NAME_MARK = '*'

const words = (v: string): string[] =>
  v
    .toUpperCase()
    .replace(/[^A-Z0-9, ]+/g, ' ')
    .split(/\s+/)
    .filter((w) => w !== '')

/** The words `scanWords` found: where each starts and ends, and its flags (WORD_*). */
const MAX_WORDS = 256
const wordStart = new Int32Array(MAX_WORDS)
const wordEnd = new Int32Array(MAX_WORDS)
const wordFlags = new Uint8Array(MAX_WORDS)
const WORD_LOWER = 1
const WORD_DIGIT = 2

/**
 * `words` of the part `from`–`to` of an ASCII value, scanned by hand (the parse workers run it
 * three times per census row): the maximal runs of letters and digits, into wordStart, wordEnd
 * and wordFlags from `at` on; returns the count then, or -1 when the part holds a character
 * beyond ASCII (`toUpperCase` turns some of those into letters: ß → SS) or too many words: such
 * a value takes the regular-expression path.
 */
function scanWords(v: string, from: number, to: number, at: number): number {
  let n = at
  let start = -1
  let flags = 0
  for (let i = from; i <= to; i++) {
    const c = i < to ? v.charCodeAt(i) : 32
    let f = -1
    if (c >= 65 && c <= 90) f = 0
    else if (c >= 97 && c <= 122) f = WORD_LOWER
    else if (c >= 48 && c <= 57) f = WORD_DIGIT
    else if (c > 127) return -1
    if (f >= 0) {
      if (start < 0) {
        start = i
        flags = 0
      }
      flags |= f
    } else if (start >= 0) {
      if (n === MAX_WORDS) return -1
      wordStart[n] = start
      wordEnd[n] = i
      wordFlags[n++] = flags
      start = -1
    }
  }
  return n
}

/** The `i`th word scanWords found in `v`, upper case. */
function wordAt(v: string, i: number): string {
  const w = v.slice(wordStart[i], wordEnd[i])
  return ((wordFlags[i] as number) & WORD_LOWER) !== 0 ? w.toUpperCase() : w
}

/**
 * An officer's name → its link key: upper case, punctuation dropped, "LAST, FIRST" turned round,
 * titles, suffixes and initials dropped, then first and last name ("John A. Smith Jr." and
 * "SMITH, JOHN" both give `JOHN SMITH`). A common surname is marked with COMMON_NAME_MARK. Null
 * when fewer than two full name parts remain (an initial and a surname is no name to link by).
 */
export function officerKey(name: string | null): string | null {
  if (name === null) return null
  // the words in key order: after the first comma, then before it ("LAST, FIRST" turned round)
  const comma = name.indexOf(',')
  let n = comma > 0 ? scanWords(name, comma + 1, name.length, 0) : 0
  if (n >= 0) n = comma > 0 ? scanWords(name, 0, comma, n) : scanWords(name, 0, name.length, 0)
  if (n < 0) return officerKeyOfWords(name)
  let count = 0
  let first = ''
  let last = ''
  for (let i = 0; i < n; i++) {
    // parts: more than one letter, no digit, no title or suffix
    const short = (wordEnd[i] as number) - (wordStart[i] as number) < 2
    if (short || ((wordFlags[i] as number) & WORD_DIGIT) !== 0) continue
    const w = wordAt(name, i)
    if (NAME_NOISE.has(w)) continue
    if (count++ === 0) first = w
    last = w
  }
  if (count < 2) return null
  return `${COMMON_SURNAMES.has(last) ? COMMON_NAME_MARK : ''}${first} ${last}`
}

/** officerKey by regular expressions: the same rules for any text */
function officerKeyOfWords(name: string): string | null {
  const comma = name.indexOf(',')
  const ordered = comma > 0 ? `${name.slice(comma + 1)} ${name.slice(0, comma)}` : name
  const parts = words(ordered.replace(/,/g, ' ')).filter(
    (w) => w.length > 1 && !NAME_NOISE.has(w) && !/\d/.test(w),
  )
  if (parts.length < 2) return null
  const first = parts[0] as string
  const last = parts[parts.length - 1] as string
  return `${COMMON_SURNAMES.has(last) ? COMMON_NAME_MARK : ''}${first} ${last}`
}

const STREET_WORDS: Record<string, string> = {
  STREET: 'ST',
  AVENUE: 'AVE',
  ROAD: 'RD',
  DRIVE: 'DR',
  BOULEVARD: 'BLVD',
  LANE: 'LN',
  COURT: 'CT',
  HIGHWAY: 'HWY',
  SUITE: 'STE',
  NORTH: 'N',
  SOUTH: 'S',
  EAST: 'E',
  WEST: 'W',
  PARKWAY: 'PKWY',
  PLACE: 'PL',
}

/**
 * A physical address → its link key: street, city and state, upper case, punctuation dropped,
 * common street words abbreviated ("12 North Main Street, Ste. 4" and "12 N MAIN ST STE 4"
 * meet). Null without a street.
 */
export function addressKey(
  street: string | null,
  city: string | null,
  state: string | null,
): string | null {
  if (street === null) return null
  const s = addressPart(street)
  return s === '' ? null : `${s}|${addressPart(city)}|${(state ?? '').toUpperCase()}`
}

/** A street or city for addressKey: its words, street words abbreviated, joined by a space. */
function addressPart(v: string | null): string {
  if (v === null) return ''
  const n = scanWords(v, 0, v.length, 0)
  if (n < 0)
    return words(v.replace(/,/g, ' '))
      .map((w) => STREET_WORDS[w] ?? w)
      .join(' ')
  let out = ''
  for (let i = 0; i < n; i++) {
    const w = wordAt(v, i)
    out += i === 0 ? (STREET_WORDS[w] ?? w) : ` ${STREET_WORDS[w] ?? w}`
  }
  return out
}

/**
 * A key as the census stores it (`officer_1_key`, `officer_2_key`, `address_key`) and
 * `link_values` counts it: a 53-bit hash of its text (identity-digest.ts), negative for an officer
 * key marked COMMON_NAME_MARK, never 0. An integer binds, sorts and compares cheaper than the text
 * and takes 8 bytes a row instead of 14 to 28. Two different keys with the same hash would meet
 * by mistake: among the 4.5 million addresses and 9 million officer names of a full census that
 * is less than one chance in a hundred, and two officer keys meeting still need a second shared
 * identifier or the same full name as written to link two companies.
 */
export function linkKeyHash(key: string | null): number | null {
  if (key === null) return null
  const h = identityDigest([key]) || 1
  return key.startsWith(COMMON_NAME_MARK) ? -h : h
}

/** officerKey as the census stores it (linkKeyHash). */
export const officerLinkKey = (name: string | null): number | null => linkKeyHash(officerKey(name))

/** addressKey as the census stores it (linkKeyHash). */
export const addressLinkKey = (
  street: string | null,
  city: string | null,
  state: string | null,
): number | null => linkKeyHash(addressKey(street, city, state))
