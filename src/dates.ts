/**
 * Calendar-day arithmetic on `YYYY-MM-DD` dates (UTC, no time of day; a day is clock.ts `DAY`).
 * ISO dates compare as strings, so a window of days is a string range.
 */
import { DAY } from './clock.ts'

/** `YYYY-MM-DD` → days since 1970-01-01. */
export const isoToDay = (iso: string): number =>
  Date.UTC(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)) - 1, Number(iso.slice(8, 10))) / DAY

/** Days since 1970-01-01 → `YYYY-MM-DD`. */
export const dayToIso = (day: number): string => new Date(day * DAY).toISOString().slice(0, 10)

/** Whole days from `from` to `to` (both `YYYY-MM-DD`); negative when `from` is later. */
export function daysBetween(from: string, to: string): number {
  return Math.round(isoToDay(to) - isoToDay(from))
}

/** `YYYY-MM-DD` n days before `iso` (negative n: after). */
export function daysBefore(iso: string, n: number): string {
  return dayToIso(isoToDay(iso) - n)
}
