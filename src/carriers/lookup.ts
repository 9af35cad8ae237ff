/**
 * The last step of a lookup whose call is charged (keys/billing.ts): cross-check when asked, then
 * shape the record's JSON with the call's usage.
 */
import { maybeCrosscheck } from '../crosscheck/crosscheck.ts'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Usage } from '../keys/usage.ts'
import { toCarrierJson } from './json.ts'
import { crosscheckInputOf, type CompanyRecord } from './record.ts'
import type { CarrierJson } from './schema.ts'

/** The JSON of a record whose call is already metered: cross-check, then shape. */
export async function shapeMetered(
  deps: Deps,
  record: CompanyRecord,
  usage: Usage,
  requestId: string,
  crosscheck: boolean | undefined,
): Promise<CarrierJson> {
  const check = await maybeCrosscheck(deps, () => crosscheckInputOf(record), crosscheck)
  if (check) deps.metrics.crosschecks.inc({ status: check.status, reason: check.reason ?? 'none' })
  const source = check?.status === 'match' || check?.status === 'mismatch' ? 'live' : record.source
  return toCarrierJson(record, { usage, requestId, source }, check)
}

export function notFoundForDot(dot: number): AppError {
  return new AppError('not_found', `No company found for USDOT number ${dot}`)
}
