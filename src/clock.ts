/** Injected time source: everything that reads "now" takes a Clock. */
export type Clock = () => Date

export const systemClock: Clock = () => new Date()

/** A clock that stays where it is put; tests move it with set()/advance(). */
export function fixedClock(start: string | Date) {
  let now = new Date(start)
  const clock = (() => new Date(now)) as Clock & {
    set: (d: string | Date) => void
    advance: (ms: number) => void
  }
  clock.set = (d) => {
    now = new Date(d)
  }
  clock.advance = (ms) => {
    now = new Date(now.getTime() + ms)
  }
  return clock
}

export const HOUR = 3_600_000
export const DAY = 24 * HOUR

/** `YYYY-MM` of a date in UTC: the usage period. */
export const periodOf = (d: Date) => isoDate(d).slice(0, 7)

/** 00:00 UTC on the 1st of the month after `d`: when quotas reset. */
export const nextPeriodStart = (d: Date) =>
  new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1))

/** The last day `isoDate` formatted (days since 1970 and its text): every request asks for today. */
let lastDay = NaN
let lastIso = ''

/** `YYYY-MM-DD` of a date in UTC. */
export function isoDate(d: Date): string {
  const day = Math.floor(d.getTime() / DAY)
  if (day !== lastDay) {
    lastIso = d.toISOString().slice(0, 10) // throws RangeError on an invalid date, as before
    lastDay = day
  }
  return lastIso
}
