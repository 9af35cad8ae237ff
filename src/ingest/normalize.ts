/**
 * Normalisation of FMCSA values (docs/data.md, normalisation): one place that knows padding, docket forms,
 * money units and date formats. Every function returns null for "not on file", never "" or a made-up 0.
 */

/** Trimmed text with inner whitespace collapsed; blank → null. */
export function text(v: string | undefined | null): string | null {
  if (v === undefined || v === null || v === '') return null
  const t = v.trim()
  if (t === '') return null
  // most values have nothing to collapse: skip the replace (and its new string) for them
  return needsCollapse(t) ? t.replace(/\s+/g, ' ') : t
}
/** whitespace other than a single space, or a space followed by more whitespace */
const NEEDS_COLLAPSE = /[^\S ]| \s/
/** NEEDS_COLLAPSE.test, scanning ASCII text without the regex (4.5 M census rows × 20 columns) */
function needsCollapse(t: string): boolean {
  let space = false
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i)
    if (c > 127) return NEEDS_COLLAPSE.test(t)
    if (c === 32) {
      if (space) return true
      space = true
    } else if (c >= 9 && c <= 13) return true
    else space = false
  }
  return false
}

/** The value of 1–15 ASCII digits; -1 for anything else (the fast path of int and usdot). */
function plainDigits(v: string): number {
  const len = v.length
  if (len === 0 || len > 15) return -1
  let n = 0
  for (let i = 0; i < len; i++) {
    const c = v.charCodeAt(i) - 48
    if (c < 0 || c > 9) return -1
    n = n * 10 + c
  }
  return n
}

/** USDOT as an unpadded integer; `00000000`, blank, 0 or more than 8 digits → null. */
export function usdot(v: string | undefined | null): number | null {
  if (!v) return null
  if (v.length <= 10) {
    const n = plainDigits(v)
    if (n >= 0) return n > 0 && n <= 99_999_999 ? n : null
  }
  const t = v.trim().replace(/^(US)?DOT\s*#?\s*/i, '')
  if (!/^\d{1,10}$/.test(t)) return null
  const n = Number(t)
  if (n <= 0 || n > 99_999_999) return null
  return n
}

/** A non-negative integer count; blank, `N/A` or junk → null. */
export function int(v: string | undefined | null): number | null {
  if (v === undefined || v === null || v === '') return null
  const n = plainDigits(v)
  if (n >= 0) return n
  const t = v.trim().replace(/,/g, '')
  if (!/^-?\d+(\.0+)?$/.test(t)) return null
  return Math.trunc(Number(t))
}

/** A decimal number (`.17`, `1.5`); blank or junk → null. */
export function decimal(v: string | undefined | null): number | null {
  if (v === undefined || v === null) return null
  const t = v.trim().replace(/,/g, '')
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(t)) return null
  return Number(t)
}

export type DocketPrefix = 'MC' | 'FF' | 'MX'
export interface Docket {
  prefix: DocketPrefix
  number: number
}

/** Parses `MC421775`, `MC-0123456`, `MC0000139446`, `FF058485`, `123456` (bare = MC). */
export function docket(
  v: string | undefined | null,
  defaultPrefix: DocketPrefix = 'MC',
): Docket | null {
  if (!v) return null
  const t = v.toUpperCase().replace(/[\s#.-]/g, '')
  const m = /^(MC|FF|MX)?0*(\d{1,8})$/.exec(t)
  if (!m || !m[2]) return null
  const number = Number(m[2])
  if (number === 0) return null
  return { prefix: (m[1] as DocketPrefix | undefined) ?? defaultPrefix, number }
}

/** Canonical key: prefix + digits without leading zeros (`MC123456`). */
export const docketKey = (d: Docket) => `${d.prefix}${d.number}`
/** Display form for the API: `MC-123456`. */
export const docketDisplay = (d: Docket) => `${d.prefix}-${d.number}`

const MONTHS: Record<string, string> = {
  JAN: '01',
  FEB: '02',
  MAR: '03',
  APR: '04',
  MAY: '05',
  JUN: '06',
  JUL: '07',
  AUG: '08',
  SEP: '09',
  OCT: '10',
  NOV: '11',
  DEC: '12',
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function validYmd(y: number, m: number, d: number): boolean {
  if (y < 1900 || y > 2200 || m < 1 || m > 12 || d < 1) return false
  const leap = m === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
  return d <= (MONTH_DAYS[m - 1] as number) + (leap ? 1 : 0)
}
const pad = (n: number) => String(n).padStart(2, '0')

/**
 * A date as `YYYY-MM-DD`. Accepts YYYYMMDD (optionally ` HHMM`), ISO (time dropped), MM/DD/YYYY,
 * DD-MON-YY (YY above `pivotYY` → 19YY). Anything else → null.
 */
export function date(v: string | undefined | null, pivotYY = 50): string | null {
  if (!v) return null
  if (v.length === 8) {
    // the census's and SMS's YYYYMMDD, read without a regex (4.5 M census rows × 4 dates)
    const ys = v.slice(0, 4)
    const ms = v.slice(4, 6)
    const ds = v.slice(6)
    const y = plainDigits(ys)
    const mo = plainDigits(ms)
    const d = plainDigits(ds)
    if (y >= 0 && mo >= 0 && d >= 0) return validYmd(y, mo, d) ? `${ys}-${ms}-${ds}` : null
  }
  const t = v.trim()
  if (t === '') return null
  let m = /^(\d{4})(\d{2})(\d{2})( \d{4})?$/.exec(t)
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
    return validYmd(y, mo, d) ? `${m[1]}-${m[2]}-${m[3]}` : null
  }
  m = /^(\d{4})-(\d{2})-(\d{2})/.exec(t)
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
    return validYmd(y, mo, d) ? `${m[1]}-${m[2]}-${m[3]}` : null
  }
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec(t)
  if (m) {
    const [y, mo, d] = [Number(m[3]), Number(m[1]), Number(m[2])]
    return validYmd(y, mo, d) ? `${y}-${pad(mo)}-${pad(d)}` : null
  }
  m = /^(\d{1,2})-([A-Za-z]{3})-(\d{2}|\d{4})$/.exec(t)
  if (m) {
    const mo = MONTHS[(m[2] ?? '').toUpperCase()]
    if (!mo) return null
    let y = Number(m[3])
    if ((m[3] ?? '').length === 2) y += y > pivotYY ? 1900 : 2000
    const d = Number(m[1])
    return validYmd(y, Number(mo), d) ? `${y}-${mo}-${pad(d)}` : null
  }
  return null
}

/** Y/N, true/false, X/blank, 1/0 → boolean; blank → null (or `blankAs`). */
export function flag(v: string | undefined | null, blankAs: boolean | null = null): boolean | null {
  if (v === undefined || v === null || v === '') return blankAs
  if (v.length === 1) {
    // the census's 30 cargo columns are one letter or blank: no trim or case change
    const c = v.charCodeAt(0)
    if (c === 49) return true // 1
    if (c === 48) return false // 0
    const l = c | 32 // ASCII letters to lower case
    if (c >= 65 && (l === 121 || l === 120 || l === 116)) return true // y x t
    if (c >= 65 && (l === 110 || l === 102)) return false // n f
  }
  const t = v.trim().toUpperCase()
  if (t === '') return blankAs
  if (t === 'Y' || t === 'YES' || t === 'TRUE' || t === 'X' || t === '1' || t === 'T') return true
  if (t === 'N' || t === 'NO' || t === 'FALSE' || t === '0' || t === 'F') return false
  return null
}

/** Phone as digits; an 11-digit number starting with 1 loses the 1. Junk → null. */
export function phoneDigits(v: string | undefined | null): string | null {
  if (!v) return null
  // ten plain digits not all zeros (most phones on file): as they are, without the regexes
  if (v.length === 10 && plainDigits(v) > 0) return v
  let d = v.replace(/\D/g, '')
  if (d.length === 11 && d.startsWith('1')) d = d.slice(1)
  if (d.length < 7 || /^0+$/.test(d)) return null
  return d
}

/** E.164 for 10-digit North American numbers, else the digits as filed. */
export function phoneDisplay(digits: string | null): string | null {
  if (!digits) return null
  return digits.length === 10 ? `+1${digits}` : digits
}

/** ZIP kept as text; 9 digits → NNNNN-NNNN; Canadian/Mexican postal codes kept as filed. */
export function zip(v: string | undefined | null): string | null {
  // five plain digits (most ZIPs on file): as they are
  if (v?.length === 5 && plainDigits(v) >= 0) return v
  const t = text(v)
  if (!t) return null
  if (/^\d{9}$/.test(t)) return `${t.slice(0, 5)}-${t.slice(5)}`
  return t.toUpperCase()
}

export function email(v: string | undefined | null): string | null {
  const t = text(v)
  return t ? t.toLowerCase() : null
}

/** Legacy amounts are thousands of dollars (`01000` = $1M, `00000` = 0, a fact). */
export function thousands(v: string | undefined | null): number | null {
  const n = decimal(v)
  return n === null ? null : Math.round(n * 1000)
}

/**
 * Motus money: the unit is uncertain (docs/data.md, money units). BIPD < 100000 or cargo/bond < 1000 means
 * thousands, with or without cents (`750.00` = $750,000: no BI&PD filing is for $750); anything
 * else dollars (`750000.00`, the form seen live).
 */
export function motusMoney(v: string | undefined | null, kind: 'bipd' | 'other'): number | null {
  if (v === undefined || v === null) return null
  const t = v.trim().replace(/[$,]/g, '')
  if (t === '') return null
  const n = decimal(t)
  if (n === null) return null
  // below the threshold the value is thousands, with or without cents (`750` and `750.00` are
  // both $750,000 of BI&PD); 0 stays 0
  if (kind === 'bipd' ? n < 100_000 : n < 1_000) return Math.round(n * 1000)
  return Math.round(n)
}
