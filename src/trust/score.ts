/** Trust Score (DESIGN.md §5): pure, versioned, explainable. */
import { emptyTrust } from '../carriers/blocks.ts'
import type { CompanyRecord } from '../carriers/record.ts'
import type { TrustJson } from '../carriers/schema.ts'

export interface TrustContext {
  /** YYYY-MM-DD of the computation */
  today: string
  /** whether the data behind the record is fresh enough to vouch for */
  fresh: boolean
}

export function computeTrust(_record: CompanyRecord, _ctx: TrustContext): TrustJson {
  return emptyTrust()
}
