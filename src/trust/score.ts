/**
 * Trust Score (DESIGN.md §5, published in docs/trust-score.md): a pure, versioned, explainable
 * 0–100 score. Each component starts at a neutral base and factors move it within its weight;
 * hard gates cap the total. Missing, unrated or small-sample data is neutral. The only input
 * besides the record is `ctx` (today, freshness, shared-contact counts), so the same data always
 * gives the same score.
 */
import type { CompanyRecord } from '../carriers/record.ts'
import type { TrustJson } from './schema.ts'
import {
  anyAuthorityActive,
  authorityRequired,
  carrierAuthorityActive,
  coverageKind,
  daysBetween,
  endedFilings,
  evidence,
  licensingDataset,
  modeOf,
  pendingCancellations,
  priorRevokedUsdot,
  recentRevocations,
  runsTrucks,
  type ContactSignals,
  type Evidence,
  type Mode,
} from './signals.ts'

/** Bumped whenever a weight, threshold, gate or point value changes. */
export const TRUST_VERSION = '2026.11-1'

export interface TrustContext {
  /** YYYY-MM-DD of the computation: every age is measured against it */
  today: string
  /** whether the data behind the record is fresh enough to vouch for */
  fresh: boolean
  /** shared-contact signals from `contactSignals()` (record assembly); absent = neutral */
  contacts?: ContactSignals | null
}

export type Component = 'authority' | 'insurance' | 'safety' | 'reviews'
export const COMPONENTS: readonly Component[] = ['authority', 'insurance', 'safety', 'reviews']

/** Per component: the most points it can give (its weight) and its neutral starting points. */
export type Weights = Partial<Record<Component, { max: number; base: number }>>

/**
 * Weights by mode. Both tables add up to 100 at most and 78 when nothing is known beyond an
 * active, present company, so modes compare. Brokers and forwarders run no trucks: no safety.
 */
export const WEIGHTS: Record<'carrier' | 'broker', Weights> = {
  carrier: {
    authority: { max: 30, base: 24 },
    insurance: { max: 25, base: 20 },
    safety: { max: 30, base: 24 },
    reviews: { max: 15, base: 10 },
  },
  broker: {
    authority: { max: 45, base: 36 },
    insurance: { max: 40, base: 32 },
    reviews: { max: 15, base: 10 },
  },
}

export const weightsFor = (mode: Mode): Weights =>
  mode === 'broker' || mode === 'forwarder' ? WEIGHTS.broker : WEIGHTS.carrier

/** Hard gates and the score each caps at. */
export const GATES = {
  out_of_service_order: 10,
  not_allowed_to_operate: 10,
  no_active_authority: 20,
  bipd_below_required: 30,
  no_broker_bond: 30,
  broker_bond_below_minimum: 30,
  unsatisfactory_rating: 30,
} as const
export type GateId = keyof typeof GATES

export const GRADES: readonly [min: number, grade: string][] = [
  [85, 'A'],
  [70, 'B'],
  [55, 'C'],
  [40, 'D'],
  [0, 'F'],
]
export const gradeOf = (score: number) => GRADES.find(([min]) => score >= min)?.[1] ?? 'F'

/** Thresholds (days, counts, ratios) of the factors; docs/trust-score.md lists them. */
export const T = {
  /** authority age bands: [below days, points]; older than the last band: ageEstablished */
  ageBands: [
    [90, -15],
    [182, -10],
    [365, -6],
    [730, -2],
    [1826, 2],
  ] as const,
  ageEstablished: 4,
  revocationPending: -10,
  revocationWindowDays: 3 * 365,
  revocationWithinYear: -8,
  revocationOlder: -4,
  revocationEachMore: -2,
  revocationFloor: -12,
  mcs150MaxDays: 2 * 365,
  mcs150Outdated: -3,
  undeliverable: -4,
  priorRevoked: -6,
  sharedPhoneEmail: [
    [10, -5],
    [3, -2],
  ] as const,
  sharedAddress: [[10, -2]] as const,
  sharedWithRevoked: -6,
  bipdMeets: 3,
  bipdBelow: -10,
  bondOnFile: 3,
  bondMissing: -10,
  bondMinimum: 75_000,
  cargoOnFile: 1,
  pendingRequired: -18,
  pendingOther: -4,
  churnWindowDays: 2 * 365,
  churnBands: [
    [5, -6],
    [3, -3],
  ] as const,
  rating: { S: 2, C: -8, U: -15 } as const,
  minInspections: 5,
  /** OOS rate ÷ national average: [max ratio, points] */
  oosBands: [
    [0.5, 2],
    [1.25, 0],
    [2, -3],
    [Infinity, -6],
  ] as const,
  nationalAverages: { driver: 5.51, vehicle: 20.72, hazmat: 4.5 },
  crashMinPowerUnits: 5,
  crashMinCrashes: 3,
  /** crashes per power unit in 24 months: [max rate, points] */
  crashBands: [
    [0.1, 0],
    [0.25, -2],
    [0.5, -4],
    [Infinity, -6],
  ] as const,
  basicAlert: -10,
  basicAlertMaxCounted: 2,
  acuteCritical: -3,
  acuteCriticalMaxCounted: 2,
  minReviews: 3,
  /** average stars: [min average, points] */
  reviewBands: [
    [4.5, 5],
    [4, 3],
    [3, 0],
    [2, -4],
    [0, -8],
  ] as const,
  minExternalReviews: 10,
  externalBands: [
    [4.5, 2],
    [4, 1],
    [3, 0],
    [2, -2],
    [0, -4],
  ] as const,
} as const

type Factor = TrustJson['factors'][number]
type Gate = TrustJson['gates'][number]

// (Intl formatting costs more than the rest of a factor: keep computeTrust in microseconds)
const money = (n: number) => `$${String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
const years = (days: number) =>
  days >= 730 ? `${(days / 365.25).toFixed(1)} years` : `${plural(days, 'day')}`

interface Ctx {
  record: CompanyRecord
  today: string
  mode: Mode
  factors: Factor[]
  gates: Gate[]
}

function factor(
  c: Ctx,
  id: string,
  component: Factor['component'],
  points: number,
  reason: string,
  ev: Evidence,
): void {
  c.factors.push({ id, component, points, reason, evidence: ev })
}

function gate(c: Ctx, id: GateId, reason: string, ev: Evidence): void {
  c.gates.push({ id, cap: GATES[id], reason, evidence: ev })
}

// --- gates -----------------------------------------------------------------------------------

function gates(c: Ctx): void {
  const { record: r } = c
  const a = r.authority
  const lic = licensingDataset(r)
  const oos = r.identity.out_of_service === true
  const usdotInactive = r.identity.usdot_status === 'inactive'
  const authorityLapsed = lic !== null && authorityRequired(r) && !anyAuthorityActive(a)
  if (oos)
    gate(
      c,
      'out_of_service_order',
      `Active out-of-service order${r.identity.out_of_service_reason ? ` (${r.identity.out_of_service_reason})` : ''}`,
      evidence(r, 'oos', 'identity.out_of_service_date', r.identity.out_of_service_date),
    )
  if (a.allowed_to_operate === 'N' && (usdotInactive || authorityLapsed || !oos))
    gate(
      c,
      'not_allowed_to_operate',
      usdotInactive
        ? 'USDOT number is inactive: not allowed to operate'
        : authorityLapsed
          ? 'Not allowed to operate: no active operating authority'
          : 'Not allowed to operate',
      usdotInactive
        ? evidence(r, 'census', 'identity.usdot_status', 'inactive')
        : evidence(r, lic ?? 'census', 'authority.allowed_to_operate', 'N'),
    )
  if (authorityLapsed && lic) {
    const field = c.mode === 'broker' ? 'authority.broker_authority' : 'authority.common_authority'
    const value = c.mode === 'broker' ? a.broker_authority : a.common_authority
    gate(
      c,
      'no_active_authority',
      a.pending_application
        ? 'Operating authority applied for but not granted yet: no active authority'
        : 'No active operating authority (required for this company)',
      evidence(r, lic, field, value),
    )
  }
  const ins = r.insurance
  if (
    lic &&
    carrierAuthorityActive(a) &&
    ins.bipd_required !== null &&
    ins.bipd_required > 0 &&
    ins.bipd_on_file !== null &&
    ins.bipd_on_file < ins.bipd_required
  )
    gate(
      c,
      'bipd_below_required',
      `BI&PD liability on file ${money(ins.bipd_on_file)} is below the ${money(ins.bipd_required)} required`,
      evidence(r, lic, 'insurance.bipd_on_file', ins.bipd_on_file),
    )
  const bond = bondStatus(r)
  if (lic && bond === 'missing')
    gate(
      c,
      'no_broker_bond',
      `${c.mode === 'forwarder' ? 'Freight forwarder' : 'Broker'} authority without a BMC-84 bond or BMC-85 trust fund on file`,
      evidence(r, lic, 'insurance.bond_filed', ins.bond_filed),
    )
  if (lic && bond === 'below')
    gate(
      c,
      'broker_bond_below_minimum',
      `Bond or trust fund on file ${money(ins.bond_on_file ?? 0)} is below the ${money(T.bondMinimum)} minimum`,
      evidence(r, lic, 'insurance.bond_on_file', ins.bond_on_file),
    )
  if (r.safety.safety_rating_code === 'U')
    gate(
      c,
      'unsatisfactory_rating',
      `Unsatisfactory safety rating${r.safety.safety_rating_date ? ` (${r.safety.safety_rating_date})` : ''}`,
      evidence(r, 'census', 'safety.safety_rating', r.safety.safety_rating),
    )
}

/** Broker/forwarder financial security: not needed, ok, missing, below the minimum or unknown. */
function bondStatus(r: CompanyRecord): 'none' | 'ok' | 'missing' | 'below' | 'unknown' {
  const a = r.authority
  // brokers: always (49 CFR 387.307); forwarders: unless FMCSA's own BOND_REQ flag says no
  const needed =
    a.broker_authority === 'A' ||
    (r.entity_type === 'forwarder' && anyAuthorityActive(a) && r.insurance.bond_required !== false)
  if (!needed) return 'none'
  const i = r.insurance
  if (i.bond_on_file !== null && i.bond_on_file > 0)
    return i.bond_on_file < T.bondMinimum ? 'below' : 'ok'
  if (i.bond_filed === true) return 'ok'
  return i.bond_filed === false ? 'missing' : 'unknown'
}

// --- authority & compliance ------------------------------------------------------------------

function authorityFactors(c: Ctx, contacts: ContactSignals | null): void {
  const { record: r, today } = c
  const a = r.authority
  const lic = licensingDataset(r)

  // age of the authority (or of the USDOT number when no grant date is on file)
  const granted = a.granted_date
  const since = granted ?? r.identity.registration_date
  const ageEv = granted
    ? evidence(r, lic ?? 'census', 'authority.granted_date', granted)
    : evidence(r, 'census', 'identity.registration_date', r.identity.registration_date)
  if (since === null) {
    factor(c, 'authority_age', 'authority', 0, 'Authority age not on file: neutral', ageEv)
  } else {
    const days = Math.max(0, daysBetween(since, today))
    const band = T.ageBands.find(([max]) => days < max)
    const points = band ? band[1] : T.ageEstablished
    factor(
      c,
      points < 0 ? 'new_authority' : 'authority_age',
      'authority',
      points,
      `${
        points < 0
          ? granted
            ? 'New authority: granted'
            : 'New USDOT number: registered'
          : granted
            ? 'Operating authority granted'
            : 'USDOT number registered'
      } ${since} (${years(days)} ago)${granted ? '' : '; no authority grant date on file'}`,
      ageEv,
    )
  }

  if (a.revocation_pending === true && lic)
    factor(
      c,
      'revocation_pending',
      'authority',
      T.revocationPending,
      'Authority revocation proceeding pending',
      evidence(r, lic, 'authority.revocation_pending', true),
    )

  const revs = recentRevocations(r, today, T.revocationWindowDays)
  const latest = revs[0]
  if (latest) {
    const first = latest.days <= 365 ? T.revocationWithinYear : T.revocationOlder
    const points = Math.max(T.revocationFloor, first + T.revocationEachMore * (revs.length - 1))
    const detail = [latest.type, latest.authorityType ? `${latest.authorityType} authority` : null]
      .filter(Boolean)
      .join(', ')
    factor(
      c,
      'recent_revocations',
      'authority',
      points,
      `${plural(revs.length, 'involuntary revocation or suspension', 'involuntary revocations or suspensions')} in the last 3 years; latest ${latest.date}${detail ? ` (${detail})` : ''}${latest.reinstated ? `, reinstated ${latest.reinstated}` : ''}`,
      evidence(r, latest.dataset, 'authority.history.revocation_date', latest.date),
    )
  }

  // the biennial MCS-150 update is a motor-carrier duty (49 CFR 390.19), not a broker's
  const mcs = r.fleet.mcs150_date
  if (runsTrucks(c.mode) && mcs !== null) {
    const days = daysBetween(mcs, today)
    if (days > T.mcs150MaxDays)
      factor(
        c,
        'mcs150_outdated',
        'authority',
        T.mcs150Outdated,
        `MCS-150 last updated ${mcs} (${years(days)} ago; due every 2 years)`,
        evidence(r, 'census', 'fleet.mcs150_date', mcs),
      )
  }

  const ct = r.contact
  if (ct.physical_address_undeliverable === true || ct.mailing_address_undeliverable === true) {
    const physical = ct.physical_address_undeliverable === true
    factor(
      c,
      'address_undeliverable',
      'authority',
      T.undeliverable,
      `${physical ? 'Physical' : 'Mailing'} address marked undeliverable`,
      evidence(
        r,
        physical || !lic || r.facts.census ? 'census' : lic,
        physical
          ? 'contact.physical_address_undeliverable'
          : 'contact.mailing_address_undeliverable',
        true,
      ),
    )
  }

  const prior = priorRevokedUsdot(r)
  if (prior)
    factor(
      c,
      'prior_revoked_usdot',
      'authority',
      T.priorRevoked,
      `Linked to a previously revoked USDOT number${prior.dot ? ` (${prior.dot})` : ''}`,
      evidence(r, 'census', 'PRIOR_REVOKE_DOT_NUMBER', prior.dot ?? prior.flag),
    )

  if (contacts) contactFactors(c, contacts)
}

function contactFactors(c: Ctx, s: ContactSignals): void {
  const r = c.record
  const shown = {
    phone: r.contact.phone,
    email: r.contact.email,
    address: r.contact.physical_address
      ? [
          r.contact.physical_address.street,
          r.contact.physical_address.city,
          r.contact.physical_address.state,
        ]
          .filter(Boolean)
          .join(', ')
      : null,
  }
  const field = {
    phone: 'contact.phone',
    email: 'contact.email',
    address: 'contact.physical_address',
  }
  const sorted = [...s.shared].sort((a, b) => a.kind.localeCompare(b.kind))
  for (const sh of sorted) {
    const others = sh.companies - 1
    const bands = sh.kind === 'address' ? T.sharedAddress : T.sharedPhoneEmail
    const band = bands.find(([min]) => others >= min)
    if (!band) continue
    factor(
      c,
      `shared_${sh.kind}`,
      'authority',
      band[1],
      `${sh.kind === 'address' ? 'Physical address' : sh.kind === 'phone' ? 'Phone' : 'Email'} shared with ${plural(others, 'other USDOT number')}`,
      evidence(r, 'census', field[sh.kind], shown[sh.kind] ?? sh.value),
    )
  }
  const first = s.revoked[0]
  if (first) {
    const dots = s.revoked.map((x) => x.dot)
    factor(
      c,
      'contact_shared_with_revoked',
      'authority',
      T.sharedWithRevoked,
      `${first.via === 'phone' ? 'Phone' : 'Email'} also used by ${dots.length === 1 ? 'USDOT' : 'USDOTs'} ${dots.join(', ')}, whose authority was revoked or suspended in the last 3 years`,
      evidence(r, 'census', `contact.${first.via}`, shown[first.via] ?? null),
    )
  }
}

// --- insurance & bond ------------------------------------------------------------------------

function insuranceFactors(c: Ctx): void {
  const { record: r, today } = c
  const lic = licensingDataset(r)
  if (!lic) return // no licensing data: neutral
  const a = r.authority
  const i = r.insurance
  const carrier = carrierAuthorityActive(a)

  if (carrier && i.bipd_required !== null && i.bipd_required > 0 && i.bipd_on_file !== null) {
    const ok = i.bipd_on_file >= i.bipd_required
    factor(
      c,
      'bipd_coverage',
      'insurance',
      ok ? T.bipdMeets : T.bipdBelow,
      `BI&PD liability on file ${money(i.bipd_on_file)} ${ok ? 'meets' : 'is below'} the ${money(i.bipd_required)} required`,
      evidence(r, lic, 'insurance.bipd_on_file', i.bipd_on_file),
    )
  }
  if (
    carrier &&
    r.identity.passenger_carrier !== true &&
    ((i.cargo_on_file ?? 0) > 0 || i.cargo_filed === true)
  )
    factor(
      c,
      'cargo_coverage',
      'insurance',
      T.cargoOnFile,
      i.cargo_on_file
        ? `Cargo insurance on file (${money(i.cargo_on_file)})`
        : 'Cargo insurance on file',
      evidence(
        r,
        lic,
        i.cargo_on_file ? 'insurance.cargo_on_file' : 'insurance.cargo_filed',
        i.cargo_on_file ?? true,
      ),
    )

  const bond = bondStatus(r)
  if (bond === 'ok' || bond === 'missing' || bond === 'below')
    factor(
      c,
      'broker_bond',
      'insurance',
      bond === 'ok' ? T.bondOnFile : T.bondMissing,
      bond === 'ok'
        ? `Bond or trust fund on file${i.bond_on_file ? ` (${money(i.bond_on_file)})` : ''}`
        : bond === 'below'
          ? `Bond or trust fund ${money(i.bond_on_file ?? 0)} is below the ${money(T.bondMinimum)} minimum`
          : 'No bond or trust fund on file',
      i.bond_on_file !== null
        ? evidence(r, lic, 'insurance.bond_on_file', i.bond_on_file)
        : evidence(r, lic, 'insurance.bond_filed', i.bond_filed),
    )

  // a pending cancellation of the coverage the company must keep is the strongest warning
  const required = (kind: string) =>
    (kind === 'bipd' && carrier) || (kind === 'bond' && bond !== 'none')
  const pending = pendingCancellations(r, today)
  const worst = pending.find((f) => required(coverageKind(f))) ?? pending[0]
  if (worst) {
    const isRequired = required(coverageKind(worst))
    factor(
      c,
      'pending_cancellation',
      'insurance',
      isRequired ? T.pendingRequired : T.pendingOther,
      `${worst.form ?? worst.type ?? 'Insurance'} filing${worst.insurer ? ` (${worst.insurer})` : ''} pending cancellation${worst.cancellation_date ? ` effective ${worst.cancellation_date}` : ''}`,
      evidence(r, worst.source, 'insurance.filings.cancellation_date', worst.cancellation_date),
    )
  } else if (i.pending_cancellation === true) {
    factor(
      c,
      'pending_cancellation',
      'insurance',
      T.pendingRequired,
      `Insurance pending cancellation${i.expiry_date ? ` effective ${i.expiry_date}` : ''}`,
      evidence(r, lic, 'insurance.expiry_date', i.expiry_date),
    )
  }

  const ended = endedFilings(r, today, T.churnWindowDays)
  const churn = T.churnBands.find(([min]) => ended.length >= min)
  if (churn)
    factor(
      c,
      'insurance_churn',
      'insurance',
      churn[1],
      `${ended.length} BI&PD or bond filings cancelled or replaced in the last 2 years`,
      evidence(r, lic, 'insurance.filings', ended.length),
    )
}

// --- safety ----------------------------------------------------------------------------------

function safetyFactors(c: Ctx): void {
  const { record: r } = c
  const s = r.safety
  if (!runsTrucks(c.mode)) {
    factor(
      c,
      'safety_not_scored',
      'safety',
      0,
      `${c.mode === 'broker' ? 'Brokers' : 'Freight forwarders'} run no trucks: crashes, inspections and ratings are not scored`,
      evidence(r, licensingDataset(r) ?? 'census', 'entity_type', r.entity_type),
    )
    return
  }

  const code = s.safety_rating_code
  factor(
    c,
    'safety_rating',
    'safety',
    code ? T.rating[code] : 0,
    code
      ? `${s.safety_rating ?? code} safety rating${s.safety_rating_date ? ` (${s.safety_rating_date})` : ''}`
      : 'Not rated: most carriers never receive a compliance review (neutral)',
    evidence(r, 'census', 'safety.safety_rating', s.safety_rating),
  )

  const kinds = [
    ['driver', s.driver_inspections, s.driver_oos_rate, s.driver_oos_rate_national_average],
    ['vehicle', s.vehicle_inspections, s.vehicle_oos_rate, s.vehicle_oos_rate_national_average],
    ['hazmat', s.hazmat_inspections, s.hazmat_oos_rate, s.hazmat_oos_rate_national_average],
  ] as const
  for (const [kind, inspections, rate, avgOnFile] of kinds) {
    const id = `${kind}_oos_rate`
    const field = `safety.${kind}_oos_rate`
    if (inspections === null) {
      if (kind !== 'hazmat' && r.dataAsOf.sms)
        factor(
          c,
          id,
          'safety',
          0,
          `No ${kind} inspection data: neutral`,
          evidence(r, 'sms', `safety.${kind}_inspections`, null),
        )
      continue
    }
    if (kind === 'hazmat' && inspections === 0) continue
    if (inspections < T.minInspections || rate === null) {
      factor(
        c,
        id,
        'safety',
        0,
        inspections === 0
          ? `No ${kind} inspections in 24 months: neutral`
          : `Only ${plural(inspections, `${kind} inspection`)} in 24 months (fewer than ${T.minInspections}): too few to judge, neutral`,
        evidence(r, 'sms', `safety.${kind}_inspections`, inspections),
      )
      continue
    }
    const avg = avgOnFile ?? T.nationalAverages[kind]
    const ratio = avg > 0 ? rate / avg : rate > 0 ? Infinity : 0
    const band = T.oosBands.find(([max]) => ratio <= max) ?? [Infinity, -6]
    const how =
      band[1] > 0
        ? 'well below'
        : band[1] === 0
          ? 'in line with'
          : ratio > 2
            ? 'more than twice'
            : 'above'
    factor(
      c,
      id,
      'safety',
      band[1],
      `${kind[0]?.toUpperCase()}${kind.slice(1)} out-of-service rate ${rate}% over ${plural(inspections, 'inspection')} is ${how} the national average ${avg}%`,
      evidence(r, 'sms', field, rate),
    )
  }

  const crashes = s.crash_total
  const units = r.fleet.power_units
  if (crashes !== null && units !== null && units > 0) {
    if (units < T.crashMinPowerUnits && crashes < T.crashMinCrashes) {
      if (crashes > 0)
        factor(
          c,
          'crash_rate',
          'safety',
          0,
          `${plural(crashes, 'crash', 'crashes')} in 24 months with ${plural(units, 'power unit')}: fleet too small to judge a rate, neutral`,
          evidence(r, 'sms', 'safety.crash_total', crashes),
        )
    } else {
      const rate = crashes / units
      const band = T.crashBands.find(([max]) => rate <= max) ?? [Infinity, -6]
      factor(
        c,
        'crash_rate',
        'safety',
        band[1],
        crashes === 0
          ? `No reportable crashes in 24 months (${plural(units, 'power unit')})`
          : `${plural(crashes, 'crash', 'crashes')} in 24 months for ${plural(units, 'power unit')} (${rate.toFixed(2)} per unit)`,
        evidence(r, 'sms', 'safety.crash_total', crashes),
      )
    }
  }

  const basics = [...s.basics].sort((a, b) => a.code.localeCompare(b.code))
  const alerts = basics.filter((b) => b.public && b.alert === true)
  alerts.forEach((b, n) =>
    factor(
      c,
      `basic_alert_${b.code}`,
      'safety',
      n < T.basicAlertMaxCounted ? T.basicAlert : 0,
      `${b.name} BASIC alert${b.percentile !== null ? ` (percentile ${b.percentile})` : ''}${n < T.basicAlertMaxCounted ? '' : ' (counted in the alerts above)'}`,
      evidence(r, 'sms', `safety.basics.${b.code}.alert`, true),
    ),
  )
  const acute = basics.filter((b) => b.acute_critical === true)
  acute.forEach((b, n) =>
    factor(
      c,
      `acute_critical_${b.code}`,
      'safety',
      n < T.acuteCriticalMaxCounted ? T.acuteCritical : 0,
      `Acute or critical ${b.name} violation found in an investigation in the last 12 months`,
      evidence(r, 'sms', `safety.basics.${b.code}.acute_critical`, true),
    ),
  )
}

// --- reviews ---------------------------------------------------------------------------------

function reviewFactors(c: Ctx): void {
  const r = c.record
  const { average, count } = r.reviews.summary
  if (count < T.minReviews || average === null) {
    factor(
      c,
      'verified_reviews',
      'reviews',
      0,
      count === 0
        ? 'No verified reviews: neutral'
        : `Only ${plural(count, 'verified review')} (fewer than ${T.minReviews}): neutral`,
      evidence(r, 'reviews', 'reviews.summary.count', count),
    )
  } else {
    const band = T.reviewBands.find(([min]) => average >= min) ?? [0, -8]
    factor(
      c,
      'verified_reviews',
      'reviews',
      band[1],
      `Average ${average} stars over ${plural(count, 'verified review')}`,
      evidence(r, 'reviews', 'reviews.summary.average', average),
    )
  }

  const ext = r.reviews.external
  if (ext.length === 0) return
  const usable = ext.filter(
    (e) => e.overall_rating !== null && e.total_reviews >= T.minExternalReviews,
  )
  const total = usable.reduce((n, e) => n + e.total_reviews, 0)
  if (total === 0) {
    factor(
      c,
      'external_reviews',
      'reviews',
      0,
      `External ratings have fewer than ${T.minExternalReviews} reviews each: neutral`,
      evidence(r, 'reviews', 'reviews.external', ext.length),
    )
    return
  }
  const avg =
    Math.round(
      (usable.reduce((n, e) => n + (e.overall_rating ?? 0) * e.total_reviews, 0) / total) * 100,
    ) / 100
  const band = T.externalBands.find(([min]) => avg >= min) ?? [0, -4]
  const names = usable
    .map((e) => e.source)
    .sort()
    .join(', ')
  factor(
    c,
    'external_reviews',
    'reviews',
    band[1],
    `External rating ${avg} over ${plural(total, 'review')} (${names})`,
    evidence(r, 'reviews', 'reviews.external.overall_rating', avg),
  )
}

// --- the score -------------------------------------------------------------------------------

/**
 * The Trust Score of an assembled record. Pure and cheap (no I/O, no clock but `ctx.today`): the
 * same record and context always give the same result.
 */
export function computeTrust(record: CompanyRecord, ctx: TrustContext): TrustJson {
  const mode = modeOf(record)
  const c: Ctx = { record, today: ctx.today, mode, factors: [], gates: [] }
  authorityFactors(c, ctx.contacts ?? null)
  insuranceFactors(c)
  safetyFactors(c)
  reviewFactors(c)
  gates(c)

  const weights = weightsFor(mode)
  const components: Record<string, number> = {}
  let raw = 0
  for (const comp of COMPONENTS) {
    const w = weights[comp]
    if (!w) continue
    const delta = c.factors.reduce((n, f) => (f.component === comp ? n + f.points : n), 0)
    const points = Math.min(w.max, Math.max(0, w.base + delta))
    components[comp] = points
    raw += points
  }
  const cap = c.gates.reduce((m, g) => Math.min(m, g.cap), 100)
  const score = Math.max(0, Math.min(100, raw, cap))
  const gatesSorted = [...c.gates].sort((a, b) => a.cap - b.cap || a.id.localeCompare(b.id))
  return {
    trust_score: score,
    trust_verified: c.gates.length === 0 && ctx.fresh,
    grade: gradeOf(score),
    version: TRUST_VERSION,
    components,
    gates: gatesSorted,
    factors: c.factors,
  }
}
