/**
 * Dates for the generator are day numbers (days since 1970-01-01, UTC), so arithmetic is plain
 * integer maths. The formatters cover every layout the FMCSA files use and are memoised, because
 * the scale generator formats tens of millions of dates.
 */

const MS_PER_DAY = 86_400_000
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC']

/** Day number of an ISO date `YYYY-MM-DD`. */
export function day(iso: string): number {
  const t = Date.parse(`${iso}T00:00:00Z`)
  if (Number.isNaN(t)) throw new Error(`bad date ${iso}`)
  return t / MS_PER_DAY
}

/** Day number of the first of `month` (1-12) in `year`. */
export const dayOfMonth = (year: number, month: number, dayOfMonth = 1) =>
  Date.UTC(year, month - 1, dayOfMonth) / MS_PER_DAY

/** Calendar year of a day number. */
export const yearOf = (d: number) => new Date(d * MS_PER_DAY).getUTCFullYear()

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n))

function parts(d: number): [number, number, number] {
  const dt = new Date(d * MS_PER_DAY)
  return [dt.getUTCFullYear(), dt.getUTCMonth() + 1, dt.getUTCDate()]
}

/** Days 1900-01-01 … 2099-12-31 are cached in an array; others are formatted each time. */
const CACHE_FROM = Date.UTC(1900, 0, 1) / MS_PER_DAY
const CACHE_DAYS = 73_049

function memo(format: (y: number, m: number, dd: number) => string): (d: number) => string {
  const cache: (string | undefined)[] = new Array<string | undefined>(CACHE_DAYS).fill(undefined)
  const uncached = (d: number) => {
    const [y, m, dd] = parts(d)
    return format(y, m, dd)
  }
  return (d) => {
    const i = d - CACHE_FROM
    if (i < 0 || i >= CACHE_DAYS) return uncached(d)
    let s = cache[i]
    if (s === undefined) {
      s = uncached(d)
      cache[i] = s
    }
    return s
  }
}

/** `YYYYMMDD`: census, Motus. */
export const ymd = memo((y, m, d) => `${y}${pad2(m)}${pad2(d)}`)
/** `MM/DD/YYYY`: legacy L&I. */
export const mdy = memo((y, m, d) => `${pad2(m)}/${pad2(d)}/${y}`)
/** `DD-MON-YY`: SMS Socrata exports. */
export const dmy = memo((y, m, d) => `${pad2(d)}-${MONTHS[m - 1] as string}-${pad2(y % 100)}`)
/** `YYYY-MM-DD`: OOS orders. */
export const iso = memo((y, m, d) => `${y}-${pad2(m)}-${pad2(d)}`)

/** Formats a possibly-missing date: null → ''. */
export const opt = (format: (d: number) => string, d: number | null | undefined) =>
  d === null || d === undefined ? '' : format(d)
