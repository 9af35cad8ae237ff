/** The safety block from the SMS and OOS-order datasets (FMCSA-DATA.md §2.4–2.6, §4.2). */
import type { DataView } from '../db/datasets.ts'
import type { SafetyJson } from '../carriers/schema.ts'

export interface OosOrder {
  active: boolean
  date: string | null
  reason: string | null
}

export interface SafetyFacts {
  /** every SafetyJson key except the census rating fields, which the assembly fills */
  safety: Omit<SafetyJson, 'safety_rating' | 'safety_rating_code' | 'safety_rating_date' | 'safety_review_date' | 'safety_review_type'>
  /** the most relevant OOS order (the active one if any) */
  oos: OosOrder | null
  /** SMS census flags */
  privateOnly: boolean | null
  passengerCarrier: boolean | null
  asOf: { sms: string | null; oos: string | null }
}

export function getSafety(_view: DataView, _dot: number, _today: string): SafetyFacts | null {
  return null
}
