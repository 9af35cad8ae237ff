/**
 * The factors of the four Trust Score components (authority & compliance, insurance & bond,
 * safety, reviews): each adds points to its component, with a reason and its evidence.
 */
import { daysBetween } from '../dates.ts'
import { factor, money, plural, years, type Ctx } from './explain.ts'
import { bondStatus } from './gates.ts'
import { T } from './policy.ts'
import {
  carrierAuthorityActive,
  coverageKind,
  endedFilings,
  evidence,
  licensingDataset,
  pendingCancellations,
  priorRevokedUsdot,
  recentRevocations,
  runsTrucks,
  type LinkedSignal,
  type LinkSignals,
} from './signals.ts'

// --- authority & compliance ------------------------------------------------------------------

const PENDING_REASON = {
  insurance: 'insurance or security filing cancelled',
  bond_drawdown: 'financial security drawn down',
  other: 'order published by FMCSA',
} as const

/** Why an overdue MCS-150 or returned mail is information in 2026 (docs/trust-score.md). */
const PAUSED =
  'as FMCSA paused inactivations after its 2026 registration letters came back undeliverable'

export function authorityFactors(c: Ctx, links: LinkSignals | null): void {
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

  const due = a.pending_suspension ?? null
  if (due && lic)
    factor(
      c,
      'pending_suspension',
      'authority',
      T.pendingSuspension,
      `${due.authority_type === 'carrier' ? 'Carrier' : due.authority_type === 'broker' ? 'Broker' : 'Forwarder'} authority ${due.docket_number} to be suspended on ${due.effective_date} (in ${due.days_until} day${due.days_until === 1 ? '' : 's'}; ${PENDING_REASON[due.reason]})`,
      evidence(r, lic, 'authority.pending_suspension.effective_date', due.effective_date),
    )
  else if (a.revocation_pending === true && lic)
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

  // the biennial MCS-150 update is a motor-carrier duty (49 CFR 390.19), not a broker's.
  // Information, not a penalty, while FMCSA's inactivations for missed updates are paused (2026).
  const mcs = r.fleet.mcs150_date
  if (runsTrucks(c.mode) && mcs !== null) {
    const days = daysBetween(mcs, today)
    if (days > T.mcs150MaxDays)
      factor(
        c,
        'mcs150_outdated',
        'authority',
        T.mcs150Outdated,
        `MCS-150 last updated ${mcs} (${years(days)} ago; due every 2 years)${T.mcs150Outdated === 0 ? `: information only, ${PAUSED}` : ''}`,
        evidence(r, 'census', 'fleet.mcs150_date', mcs),
      )
  }

  const ct = r.contact
  if (ct.physical_address_undeliverable === true || ct.mailing_address_undeliverable === true) {
    const physical = ct.physical_address_undeliverable === true
    const since = physical ? null : (ct.mailing_address_undeliverable_date ?? null)
    factor(
      c,
      'address_undeliverable',
      'authority',
      T.undeliverable,
      `${physical ? 'Physical' : 'Mailing'} address marked undeliverable${since ? ` since ${since}` : ''}${T.undeliverable === 0 ? `: information only, ${PAUSED}` : ''}`,
      evidence(
        r,
        physical || !lic || r.census ? 'census' : lic,
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
      `FMCSA links this company to a predecessor whose USDOT registration was revoked${prior.dot ? ` (USDOT ${prior.dot})` : ''}: a revoked company may have re-registered under a new number`,
      evidence(r, 'census', 'identity.prior_revoke', prior.dot ?? true),
    )

  if (links) linkFactors(c, links)
}

const listed = (links: readonly LinkedSignal[]) =>
  `${links.length === 1 ? 'USDOT' : 'USDOTs'} ${links
    .slice(0, 5)
    .map((l) => l.dot)
    .join(', ')}${links.length > 5 ? ` and ${links.length - 5} more` : ''}`

/**
 * The link factors (replacing the shared-contact counts of earlier versions): a predecessor
 * revoked or put out of service within the time gate weighs most (a chameleon's pattern), an
 * inactive predecessor less, and concurrent links to revoked or out-of-service companies, or
 * many concurrent links, a little.
 */
function linkFactors(c: Ctx, s: LinkSignals): void {
  const r = c.record
  const bad = (l: LinkedSignal) => l.event === 'revoked' || l.event === 'out_of_service'
  const hardPred = s.predecessors.filter(bad)
  const softPred = s.predecessors.filter((l) => !bad(l))
  if (hardPred.length > 0)
    factor(
      c,
      'linked_predecessor_revoked_or_oos',
      'authority',
      T.linkPredecessorRevoked,
      `Shares ${hardPred[0]?.shared.join(' and ')} with ${listed(hardPred)}, revoked or put out of service within 365 days before this company was added`,
      evidence(r, 'census', 'identity.links.predecessors_revoked_or_oos', hardPred.length),
    )
  if (softPred.length > 0)
    factor(
      c,
      'linked_predecessor_inactive',
      'authority',
      T.linkPredecessorInactive,
      `Shares ${softPred[0]?.shared.join(' and ')} with ${listed(softPred)}, made inactive within 365 days before this company was added`,
      evidence(r, 'census', 'identity.links.predecessors', s.predecessors.length),
    )
  const badConcurrent = s.concurrent.filter(bad)
  if (badConcurrent.length > 0)
    factor(
      c,
      'linked_to_revoked_or_oos',
      'authority',
      T.linkConcurrentRevoked,
      `Shares contact details, officers or trucks with ${listed(badConcurrent)}, revoked or out of service`,
      evidence(r, 'census', 'identity.links.concurrent', s.concurrent.length),
    )
  const band = T.linkConcurrentBands.find(([min]) => s.concurrent.length >= min)
  if (band)
    factor(
      c,
      'many_links',
      'authority',
      band[1],
      `Linked to ${plural(s.concurrent.length, 'other USDOT number')} by shared contact details, officers or trucks`,
      evidence(r, 'census', 'identity.links.concurrent', s.concurrent.length),
    )
}

// --- insurance & bond ------------------------------------------------------------------------

export function insuranceFactors(c: Ctx): void {
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

export function safetyFactors(c: Ctx): void {
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

  oosRateFactors(c)
  crashFactors(c)
  basicFactors(c)
}

// --- reviews ---------------------------------------------------------------------------------

export function reviewFactors(c: Ctx): void {
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

/** The driver, vehicle and hazmat out-of-service rates against the national averages. */
function oosRateFactors(c: Ctx): void {
  const { record: r } = c
  const s = r.safety
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
}

/** Reportable crashes per power unit (a fleet too small is neutral). */
function crashFactors(c: Ctx): void {
  const { record: r } = c
  const s = r.safety
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
}

/** BASIC alerts and acute or critical violations. */
function basicFactors(c: Ctx): void {
  const { record: r } = c
  const s = r.safety
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
