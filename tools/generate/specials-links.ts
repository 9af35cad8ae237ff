/**
 * The link cases of the bundled sample (data/sample/README.md "Links"): a successor of the
 * revoked QUICKHAUL EXPRESS INC (USDOT 1000027, revoked 2025-10-15) registered within a year
 * with the same officer and one of its trucks, and a phone shared by 40 companies, too common to
 * be a link. Applied to the generated companies by USDOT, after their inspections exist.
 */
import { day } from './dates.ts'
import type { Company, Inspection } from './model.ts'
import { withCheckDigit } from './safety.ts'
import { SPECIAL_DOTS as S } from './special-kit.ts'

/** The officer the revoked company and its successor share (not a common name). */
export const CHAMELEON_OFFICER = 'DMITRI V KOVALENKO'
/** The tractor the revoked company ran and its successor runs now. */
export const CHAMELEON_VIN = withCheckDigit('1FUJGLDR0LLKV4242')
/** The successor: a filler registered in 2026, 97 days after the revocation took effect. */
export const SUCCESSOR_DOT = 1000252
/** Its registration date. */
const SUCCESSOR_ADDED = day('2026-01-20')
/** The phone 40 fillers share (a call centre's number): suppressed, never a link. */
export const CALL_CENTRE_PHONE = '8885550140'
export const CALL_CENTRE_DOTS = Array.from({ length: 40 }, (_, i) => 1000300 + i)

const latest = (c: Company): Inspection | undefined =>
  c.inspections.reduce<Inspection | undefined>((a, x) => (!a || x.date > a.date ? x : a), undefined)

/** Changes company `c` when it is one of the link cases (deterministic, no random draws). */
export function applyLinkCase(c: Company): void {
  if (CALL_CENTRE_DOTS.includes(c.dot)) c.phone = CALL_CENTRE_PHONE
  if (c.dot !== S.sharedContactRevoked && c.dot !== SUCCESSOR_DOT) return
  c.officer1 = CHAMELEON_OFFICER
  if (c.dot === SUCCESSOR_DOT) {
    c.addDate = SUCCESSOR_ADDED
    c.mcs150Date = Math.max(c.mcs150Date, SUCCESSOR_ADDED)
  }
  const x = latest(c)
  if (x) x.unit = { ...x.unit, type: 'TRUCK TRACTOR', make: 'FRHT', vin: CHAMELEON_VIN }
}
