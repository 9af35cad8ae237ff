/** On-demand cross-check of a record against the regulator's QCMobile API (DESIGN.md §4). */
import type { CompanyRecord } from '../carriers/record.ts'
import type { CrosscheckJson } from '../carriers/schema.ts'
import type { Deps } from '../deps.ts'

/**
 * The crosscheck block for a record when asked for (or CROSSCHECK_MODE=always), else undefined.
 * Never throws and never takes longer than the configured timeout.
 */
export async function maybeCrosscheck(
  _deps: Deps,
  _record: CompanyRecord,
  _requested: boolean | undefined,
): Promise<CrosscheckJson | undefined> {
  return undefined
}
