/**
 * VINs, plates and roadside names as the equipment dataset keys them (docs/equipment.md):
 * normalisation, the 49 CFR 565 check digit (fields.ts), the model year, placeholders.
 * Pure functions: the build, the lookups and the route use the same ones.
 */
import { vinCheckDigit } from '../fields.ts'

export { vinCheckDigit }

/** A VIN as written at the roadside, reduced to its characters: upper case, no spaces, dashes or dots. */
export function normalizeVin(raw: string | null | undefined): string {
  return (raw ?? '').toUpperCase().replace(/[\s\-.]/g, '')
}

export type VinStatus = 'valid' | 'invalid'

/** Words written in the VIN field when there is no VIN. */
const PLACEHOLDER_WORDS = new Set(['UNKNOWN', 'UNK', 'NONE', 'NA', 'NOVIN', 'NOTAVAILABLE'])

/**
 * Whether a normalised VIN is a placeholder that must never link two carriers: empty, a word
 * (`UNKNOWN`, `NONE`…), one repeated character, or fewer than 11 characters.
 */
export function isPlaceholderVin(vin: string): boolean {
  if (vin.length < 11) return true
  if (PLACEHOLDER_WORDS.has(vin.replace(/[^A-Z0-9]/g, ''))) return true
  return /^(.)\1*$/.test(vin)
}

/**
 * `valid` only for 17 characters without I, O, Q whose check digit (position 9) is right; every
 * other VIN (placeholders included) is `invalid`. Pre-1981 units and some trailers carry shorter
 * or non-conforming VINs: they are kept and shown, but judged invalid.
 */
export function vinStatus(vin: string): VinStatus {
  if (isPlaceholderVin(vin)) return 'invalid'
  const check = vinCheckDigit(vin)
  return check !== null && vin[8] === check ? 'valid' : 'invalid'
}

/** Year codes of position 10: 1980 (and 2010) for `A` … 2009 (and 2039) for `9`. */
const YEAR_CODES = 'ABCDEFGHJKLMNPRSTVWXY123456789'

/**
 * The model year of a valid VIN from its 10th character, or null when it cannot be told.
 *
 * The code repeats every 30 years (`A` = 1980 or 2010). A year after `currentYear + 1` is
 * impossible (a model year runs at most one year ahead) and one before 1981 predates the
 * 17-character VIN, so most codes have one candidate. When both remain (1981–1997 against
 * 2011–2027 as of 2026), 49 CFR 565.15 decides for vehicles of 10,000 lb GVWR or less: position 7
 * is a letter for model years 2010–2039 and a digit for 1980–2009. Heavy trucks, most of this
 * data, are not bound by that rule and often carry a digit at position 7 in recent years, so only
 * a letter is trusted (the later year); a digit leaves the year null.
 */
export function modelYear(vin: string, currentYear: number): number | null {
  if (vinStatus(vin) !== 'valid') return null
  const code = YEAR_CODES.indexOf(vin[9] as string)
  if (code < 0) return null
  const candidates = [1980 + code, 2010 + code].filter((y) => y >= 1981 && y <= currentYear + 1)
  if (candidates.length === 1) return candidates[0] as number
  if (candidates.length === 0) return null
  const p7 = vin[6] as string
  return p7 >= 'A' && p7 <= 'Z' ? Math.max(...candidates) : null
}

// ---------------------------------------------------------------------------------------------
// Plates

/** Licence plate jurisdictions: US states, DC and territories, Canadian provinces, Mexican states. */
export const PLATE_STATES: ReadonlySet<string> = new Set(
  [
    // United States, DC, territories
    'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ',
    'NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR GU VI AS MP',
    // Canada
    'AB BC MB NB NL NS NT NU ON PE QC SK YT',
    // Mexico (FMCSA codes; NL and BC are shared with Canada)
    'AG BN BS CH CI CL CP CS DF DG GE GJ HD JA MC MR MX NA OA PU QE QI SI SL SO TA TB TL VC YU ZA',
  ]
    .join(' ')
    .split(' '),
)

/** The 2-letter jurisdiction code, upper case, or null when it is not one. */
export function normalizeState(raw: string | null | undefined): string | null {
  const s = (raw ?? '').trim().toUpperCase()
  return PLATE_STATES.has(s) ? s : null
}

const PLATE_PLACEHOLDERS = new Set(['UNKNOWN', 'UNK', 'NONE', 'NA', 'NOPLATE', 'TEMP', 'XXXXXX'])

/**
 * A plate as issued: upper case, without spaces, dashes or dots (states print `ABC-1234` and
 * `ABC 1234` for the same plate). Null for an empty value, a placeholder, one repeated character
 * or anything but 2–10 letters and digits.
 */
export function normalizePlate(raw: string | null | undefined): string | null {
  const p = (raw ?? '').toUpperCase().replace(/[\s\-.]/g, '')
  if (!/^[A-Z0-9]{2,10}$/.test(p)) return null
  if (PLATE_PLACEHOLDERS.has(p) || /^(.)\1*$/.test(p)) return null
  return p
}

// ---------------------------------------------------------------------------------------------
// Roadside names

const NAME_SUFFIXES = new Set([
  'LLC',
  'INC',
  'INCORPORATED',
  'CORP',
  'CORPORATION',
  'CO',
  'COMPANY',
  'LTD',
  'LIMITED',
  'LP',
  'LLP',
  'PLLC',
  'PC',
  'THE',
  'SA',
  'DE',
  'CV',
])

/**
 * A carrier name reduced for comparison: upper case, `&` read as AND, punctuation dropped, legal
 * suffixes (LLC, INC, CORP, CO, LTD…) and THE ignored, so `Smith & Sons Trucking, L.L.C.` and
 * `SMITH AND SONS TRUCKING` compare equal.
 */
export function normalizeCarrierName(raw: string | null | undefined): string {
  const words = (raw ?? '')
    .toUpperCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/&/g, ' AND ')
    .replace(/\b([A-Z])\.(?=[A-Z]\.)/g, '$1')
    .replace(/[^A-Z0-9 ]+/g, (m) => (m === '.' ? '' : ' '))
    .split(/\s+/)
    .filter((w) => w !== '' && !NAME_SUFFIXES.has(w))
  return words.join(' ')
}
