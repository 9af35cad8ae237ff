/**
 * The keys by which the link index (links-build.ts) matches companies beyond phone, fax and
 * e-mail: an officer's name and a physical address, normalised in the census row parser so that
 * spelling variants of the same value meet. docs/identity.md describes the rules.
 */

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

/**
 * An officer's name → its link key: upper case, punctuation dropped, "LAST, FIRST" turned round,
 * titles, suffixes and initials dropped, then first and last name ("John A. Smith Jr." and
 * "SMITH, JOHN" both give `JOHN SMITH`). A common surname is marked with COMMON_NAME_MARK. Null
 * when fewer than two full name parts remain (an initial and a surname is no name to link by).
 */
export function officerKey(name: string | null): string | null {
  if (name === null) return null
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
  const norm = (v: string | null) =>
    v === null
      ? ''
      : words(v.replace(/,/g, ' '))
          .map((w) => STREET_WORDS[w] ?? w)
          .join(' ')
  const s = norm(street)
  return s === '' ? null : `${s}|${norm(city)}|${(state ?? '').toUpperCase()}`
}
