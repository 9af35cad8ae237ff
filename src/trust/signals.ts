/**
 * Risk and fraud signals for the Trust Score (docs/trust-score.md), read from its TrustInput (input.ts):
 * what is true about a company and which dataset, field and value says so. The
 * policy (points, caps, weights) lives in policy.ts. Everything here is pure: the links are read
 * during record assembly (identity/links.ts) and given to the score.
 */
import { daysBefore, daysBetween } from '../dates.ts'
import type { TrustAuthority, TrustFiling, TrustInput, TrustReviews } from './input.ts'

export type TrustDataset = 'census' | 'motus' | 'legacy' | 'sms' | 'oos' | 'reviews'

/** What a gate or factor rests on: a dataset, the record path (or source column), a value, its date. */
export interface Evidence {
  dataset: TrustDataset
  field: string
  value: string | number | boolean | null
  as_of: string | null
}

/** How a company is judged: brokers and forwarders run no trucks; a bond replaces BI&PD. */
export type Mode = 'carrier' | 'broker' | 'forwarder' | 'private'

/** The newest date any review information carries (the reviews "dataset" is app.db, live). */
export function reviewsAsOf(reviews: TrustReviews): string | null {
  const dates = [
    ...reviews.verified.map((r) => r.date),
    ...reviews.external.map((e) => e.latest_review?.date ?? null),
  ].filter((d): d is string => d !== null)
  return dates.length ? dates.reduce((a, b) => (b > a ? b : a)) : null
}

/** Evidence with the as-of date of its dataset taken from the input (meta.data_as_of). */
export function evidence(
  record: TrustInput,
  dataset: TrustDataset,
  field: string,
  value: Evidence['value'],
): Evidence {
  const asOf =
    dataset === 'reviews' ? reviewsAsOf(record.reviews) : (record.dataAsOf[dataset] ?? null)
  return { dataset, field, value, as_of: asOf }
}

/** The licensing dataset the authority and insurance blocks came from, or null (none loaded). */
export function licensingDataset(record: TrustInput): 'motus' | 'legacy' | null {
  const s = record.authority.source
  return s === 'motus' || s === 'legacy' ? s : null
}

/** A history/filing `source` such as `legacy+motus` → the first dataset named. */
export function datasetOfSource(source: string | null): TrustDataset {
  return source?.startsWith('legacy') ? 'legacy' : 'motus'
}

export function modeOf(record: TrustInput): Mode {
  return record.entity_type ?? 'carrier'
}

/** Brokers and forwarders are scored without a safety component. */
export const runsTrucks = (mode: Mode) => mode === 'carrier' || mode === 'private'

export const carrierAuthorityActive = (a: TrustAuthority) =>
  a.common_authority === 'A' || a.contract_authority === 'A'

export const anyAuthorityActive = (a: TrustAuthority) =>
  carrierAuthorityActive(a) || a.broker_authority === 'A' || a.authority_types.includes('forwarder')

/**
 * Whether the company needs operating authority (the record assembly's rule):
 * it holds a docket, is a broker or forwarder, or is an interstate for-hire carrier.
 */
export function authorityRequired(record: TrustInput): boolean {
  const id = record.identity
  return (
    id.docket_numbers.length > 0 ||
    id.entity_types.some((t) => t === 'broker' || t === 'forwarder') ||
    (id.entity_type === 'carrier' &&
      id.operation_class === 'interstate' &&
      id.operation_classifications.some((c) => /FOR HIRE/i.test(c)))
  )
}

/** A revocation is voluntary when its type says VOLUNTARY (not INVOLUNTARY). */
export const isVoluntary = (type: string | null) =>
  type !== null && /\bVOLUNTARY\b/i.test(type) && !/INVOLUNTARY/i.test(type)

export interface Revocation {
  date: string
  days: number
  type: string | null
  authorityType: string | null
  docket: string | null
  reinstated: string | null
  dataset: TrustDataset
}

/** Involuntary revocations and suspensions that took effect within `windowDays`, newest first. */
export function recentRevocations(
  record: TrustInput,
  today: string,
  windowDays: number,
): Revocation[] {
  const since = daysBefore(today, windowDays)
  const seen = new Set<string>()
  const out: Revocation[] = []
  for (const h of record.authority.history) {
    const date = h.revocation_date ?? h.serve_date
    if (date === null || date < since || date > today || isVoluntary(h.revocation_type)) continue
    const key = `${h.docket_number ?? ''}|${h.authority_type ?? ''}|${date}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({
      date,
      days: daysBetween(date, today),
      type: h.revocation_type,
      authorityType: h.authority_type,
      docket: h.docket_number,
      reinstated: h.reinstatement_date,
      dataset: datasetOfSource(h.source),
    })
  }
  return out.sort((a, b) =>
    a.date === b.date ? (a.docket ?? '').localeCompare(b.docket ?? '') : a.date < b.date ? 1 : -1,
  )
}

export type CoverageKind = 'bipd' | 'cargo' | 'bond' | 'other'

/** BI&PD (forms 91, 91X, 82), cargo (34, 83), bond or trust fund (84, 85). */
const FORM_KINDS: Record<string, CoverageKind> = {
  '91': 'bipd',
  '91X': 'bipd',
  '82': 'bipd',
  '84': 'bond',
  '85': 'bond',
  '34': 'cargo',
  '83': 'cargo',
}

export function coverageKind(f: Pick<TrustFiling, 'form' | 'type'>): CoverageKind {
  const form = f.form === null ? '' : f.form.startsWith('BMC-') ? f.form.slice(4) : f.form
  const byForm = FORM_KINDS[form.toUpperCase()]
  if (byForm) return byForm
  const type = (f.type ?? '').toUpperCase()
  if (/BI&PD|BIPD/.test(type)) return 'bipd'
  if (/BOND|SURETY|TRUST/.test(type)) return 'bond'
  if (/CARGO/.test(type)) return 'cargo'
  return 'other'
}

/** Filings whose cancellation is pending (effective today or later), earliest first. */
export function pendingCancellations(record: TrustInput, today: string): TrustFiling[] {
  return record.insurance.filings
    .filter(
      (f) =>
        f.status === 'pending_cancellation' &&
        (f.cancellation_date === null || f.cancellation_date >= today),
    )
    .sort((a, b) =>
      (a.cancellation_date ?? '9999') === (b.cancellation_date ?? '9999')
        ? (a.form ?? '').localeCompare(b.form ?? '')
        : (a.cancellation_date ?? '9999') < (b.cancellation_date ?? '9999')
          ? -1
          : 1,
    )
}

const NOT_CHURN = /NAME|TRANSFER|^NC$|^TR$/i

/**
 * BI&PD and bond/trust filings that ended (cancelled, or replaced by another insurer's filing)
 * within `windowDays`; name changes and transfers are not churn. Duplicates count once.
 */
export function endedFilings(record: TrustInput, today: string, windowDays: number): TrustFiling[] {
  const since = daysBefore(today, windowDays)
  const seen = new Set<string>()
  return record.insurance.filings.filter((f) => {
    if (f.status !== 'cancelled' && f.status !== 'replaced') return false
    const date = f.cancellation_date
    if (date === null || date < since || date > today) return false
    const kind = coverageKind(f)
    if (kind !== 'bipd' && kind !== 'bond') return false
    if (f.cancellation_method !== null && NOT_CHURN.test(f.cancellation_method)) return false
    const key = `${f.docket_number ?? ''}|${f.form ?? ''}|${f.policy_no ?? ''}|${date}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * census PRIOR_REVOKE_FLAG / PRIOR_REVOKE_DOT_NUMBER (`identity.prior_revoke`): FMCSA links the
 * company to a predecessor whose USDOT registration was revoked.
 */
export function priorRevokedUsdot(record: TrustInput): { dot: string | null } | null {
  const p = record.identity.prior_revoke
  return p?.flag ? { dot: p.dot_number } : null
}

// ---------------------------------------------------------------------------------------------
// Links (the link index: identity/links.ts, judged by its time gate)

/** A linked company as the Trust Score sees it. */
export interface LinkedSignal {
  dot: string
  /** what the two share: officer, phone, fax, email, address, vin */
  shared: readonly string[]
  /** the linked company's event: revoked, out_of_service, inactive; null when none */
  event: string | null
}

/** The company's links, by their relation (record assembly maps them from `identity.links`). */
export interface LinkSignals {
  predecessors: LinkedSignal[]
  successors: LinkedSignal[]
  concurrent: LinkedSignal[]
}
