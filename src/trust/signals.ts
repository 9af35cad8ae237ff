/**
 * Risk and fraud signals for the Trust Score (docs/trust-score.md), read from its TrustInput (input.ts):
 * what is true about a company and which dataset, field and value says so. The
 * policy (points, caps, weights) lives in policy.ts. Everything here is pure except
 * `contactSignals`, which runs a few bounded, indexed queries during record assembly.
 */
import type { ActiveDataset, DataView } from '../db/datasets.ts'
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
// Shared contact details (the only signal that needs dataset queries)

export type ContactKind = 'phone' | 'email' | 'address'

export interface SharedContact {
  kind: ContactKind
  /** the census value the count is keyed by (digits, lower-case email, STREET|CITY|ST) */
  value: string
  /** census companies with this value, this one included */
  companies: number
}

export interface RevokedSharer {
  dot: number
  via: 'phone' | 'email'
}

export interface ContactSignals {
  /** contact values at least one other USDOT also uses */
  shared: SharedContact[]
  /**
   * other USDOTs with the same phone or email whose authority was involuntarily revoked or
   * suspended within REVOKED_SHARER_WINDOW_DAYS, lowest first
   */
  revoked: RevokedSharer[]
  /** how many sharers were checked (at most SHARER_SCAN_LIMIT per shared phone or email) */
  checked: number
}

/** Other companies read per shared phone or email. */
export const SHARER_SCAN_LIMIT = 50
/** A sharer's revocation counts when it took effect this many days before today, or fewer. */
export const REVOKED_SHARER_WINDOW_DAYS = 3 * 365

/**
 * USDOTs among `dots` with an involuntary revocation or suspension effective in [since, today],
 * from one licensing dataset file (`dot_dockets` + `revocations`, src/licensing/tables.ts): one
 * indexed statement for the whole list. A file without those tables answers nothing.
 */
function revokedAmong(
  ds: ActiveDataset,
  dots: readonly number[],
  since: string,
  today: string,
): number[] {
  try {
    return (
      ds.stmt(REVOKED_SQL).all(JSON.stringify(dots), since, today) as { dot_number: number }[]
    ).map((r) => r.dot_number)
  } catch {
    return [] // an older dataset file without the shared licensing tables
  }
}

// CROSS JOIN fixes the join order (SQLite never reorders it): the list of sharers drives the
// lookups (dot_dockets by primary key, then revocations by revocations_docket)
const REVOKED_SQL = `SELECT DISTINCT d.dot_number FROM json_each(?) j
  CROSS JOIN dot_dockets d ON d.dot_number = j.value
  CROSS JOIN revocations r ON r.prefix = d.prefix AND r.number = d.number
  WHERE coalesce(r.effective_date, r.serve_date) BETWEEN ? AND ?
    AND coalesce(r.type_desc, '') NOT LIKE 'VOLUNTARY%'`

/** How many census companies share the phone, email and address (`shared_contacts`), in one statement. */
const SHARED_SQL = ['phone', 'email', 'address']
  .map(
    (k) =>
      `SELECT '${k}' AS kind, companies FROM shared_contacts WHERE kind = '${k}' AND value = ?`,
  )
  .join(' UNION ALL ')

/** The `shared_contacts` address key: SQLite upper() (ASCII only) of street|city|state. */
export function addressKey(street: string, city: string | null, state: string | null): string {
  const up = (s: string) => s.replace(/[a-z]/g, (ch) => ch.toUpperCase())
  return `${up(street)}|${up(city ?? '')}|${state ?? ''}`
}

/**
 * Shared-contact signals for the company's census contact details: counts from the census build's
 * `shared_contacts` table (one statement); when a phone or email is shared, up to
 * SHARER_SCAN_LIMIT other companies each (by index), checked for recent revocations with one
 * statement per licensing dataset. Null when the company has no census row (neutral).
 */
export function contactSignals(
  view: DataView,
  record: Pick<TrustInput, 'dotNumber' | 'census'>,
  today: string,
): ContactSignals | null {
  const census = view.get('census')
  const c = record.census
  if (!census || !c) return null
  // one statement for the three probes (a NULL value matches nothing)
  const values: Record<ContactKind, string | null> = {
    phone: c.phone,
    email: c.email,
    address: c.phy_street ? addressKey(c.phy_street, c.phy_city, c.phy_state) : null,
  }
  const counts = census.stmt(SHARED_SQL).all(values.phone, values.email, values.address) as {
    kind: ContactKind
    companies: number
  }[]
  const shared: SharedContact[] = []
  for (const kind of ['phone', 'email', 'address'] as const) {
    const value = values[kind]
    const companies = counts.find((r) => r.kind === kind)?.companies ?? 1
    if (value !== null && companies > 1) shared.push({ kind, value, companies })
  }
  const sharers = new Map<number, 'phone' | 'email'>()
  for (const s of shared) {
    if (s.kind === 'address') continue
    const rows = census
      .stmt(
        `SELECT dot_number FROM companies WHERE ${s.kind} = ? AND dot_number <> ?
         ORDER BY dot_number LIMIT ${SHARER_SCAN_LIMIT}`,
      )
      .all(s.value, record.dotNumber) as { dot_number: number }[]
    for (const r of rows) if (!sharers.has(r.dot_number)) sharers.set(r.dot_number, s.kind)
  }
  const dots = [...sharers.keys()]
  const found = new Set<number>()
  if (dots.length > 0) {
    const since = daysBefore(today, REVOKED_SHARER_WINDOW_DAYS)
    for (const name of ['motus', 'legacy'] as const) {
      const ds = view.get(name)
      if (ds) for (const dot of revokedAmong(ds, dots, since, today)) found.add(dot)
    }
  }
  const revoked = [...found]
    .sort((a, b) => a - b)
    .map((dot) => ({ dot, via: sharers.get(dot) ?? 'phone' }))
  return { shared, revoked, checked: dots.length }
}
