/**
 * Assembles the company verification record (the API reference's company record) for one USDOT from the active
 * datasets of a view: census (identity, contact, fleet, rating), licensing (authority,
 * insurance), safety (SMS, OOS orders), reviews and the Trust Score.
 */
import type { ActiveDataset, DataView } from '../db/datasets.ts'
import type { DatasetName } from '../db/names.ts'
import type { Sqlite } from '../db/open.ts'
import { AppError } from '../errors.ts'
import { getLicensing, type LicensingFacts } from '../licensing/record.ts'
import { getReviewsBlock, type ReviewedDots } from '../reviews/reviews.ts'
import { getSafety, type SafetyFacts } from '../safety/record.ts'
import type { NationalAverages } from '../safety/national-averages.ts'
import * as N from '../ingest/normalize.ts'
import type { CrosscheckInput } from '../crosscheck/compare.ts'
import type { TrustCensus, TrustInput } from '../trust/input.ts'
import { computeTrust } from '../trust/score.ts'
import type { TrustJson } from '../trust/schema.ts'
import type { LinkSignals } from '../trust/signals.ts'
import { linkFacts, type LinkFacts } from '../identity/links.ts'
import { identityOverTime } from './identity-over-time.ts'
import { historyIndex, type HistoryIndex } from '../identity/history.ts'
import { cachedPerView } from './record-cache.ts'
import { emptyAuthority, emptyInsurance, emptySafety, emptyTrust, RATING_WORDS } from './blocks.ts'
import {
  findCensusRow,
  officersOf,
  priorRevokeOf,
  usdotStatusOf,
  type CensusRow,
} from '../census/read.ts'
import { censusClasses, entityTypes, privateEntity } from './entity.ts'
import { dataReasons } from './data-check.ts'
import type { CarrierJson } from './schema.ts'
import type { SafetyJson } from '../safety/schema.ts'
import type { AuthorityJson } from '../licensing/schema.ts'
import type { ContactJson, FleetJson, IdentityJson } from '../census/schema.ts'
import { addressOf } from '../fields.ts'
import { equipmentBlock } from '../equipment/record.ts'

export type CompanyRecord = Omit<CarrierJson, 'meta' | 'crosscheck'> & {
  dotNumber: number
  source: 'mirror' | 'sample'
  /** YYYY-MM-DD per dataset that contributed (meta.data_as_of) */
  dataAsOf: Record<string, string | null>
  /** when each of those datasets' versions arrived on the appliance, ISO time (meta.imported_at) */
  importedAt: Record<string, string | null>
  /**
   * What the Trust Score reads of the census row beyond the blocks (not serialised as such);
   * null when the census does not know the company. Only these fields: a record crosses threads
   * (record-workers.ts) and is kept in the record cache, and the row has 147 columns.
   */
  facts: {
    census: TrustCensus | null
    /** the census officers (COMPANY_OFFICER_1, _2) `; `-joined, for the watchlist; null when none */
    officers: string | null
  }
}

export interface RecordDeps {
  /** app.db, for reviews */
  db: Sqlite
  today: string
  /** freshness limit of a daily dataset in hours (data-check.ts): older, trust_verified is false */
  maxAgeHours: number
  /** national OOS averages shown beside the rates (config; defaults when absent) */
  nationalAverages?: NationalAverages
  now: number
  /**
   * `dataReasons` of the view, when the caller reads many records at one instant (a batch, the
   * watchlist monitor): computed once instead of once per record
   */
  dataReasons?: readonly string[]
  /**
   * The USDOTs with reviews (reviews.ts `reviewedDots`), when the caller reads many records at one
   * instant: read once instead of once per record
   */
  reviewed?: ReviewedDots
  /**
   * The identity history as the caller holds it at its instant (identity/history.ts
   * `historyIndex`): read once per request instead of once per record
   */
  history?: HistoryIndex
  /** entries of the per-view cache of the dataset part of records (record-cache.ts); 0 or unset: off */
  cacheEntries?: number
  /**
   * a batch's read: a record worker takes it after the single lookups waiting (record-workers.ts),
   * so a batch of companies never read before does not hold up other callers' lookups
   */
  batch?: boolean
}

/**
 * What the dataset files say of a USDOT on a day: the record without reviews and Trust Score.
 * Plain data only (no functions, no class instances): it crosses threads (record-workers.ts).
 */
export type RecordData = Omit<CompanyRecord, 'trust' | 'reviews' | 'identity'> & {
  /** the identity block as the datasets give it (the history's and the links' fields come later) */
  identity: IdentityJson
  /** the company's links as the datasets give them (identity/links.ts), judged with the history */
  links: LinkFacts | null
}

const OPERATION = {
  A: 'interstate',
  B: 'intrastate_hazmat',
  C: 'intrastate_non_hazmat',
} as const

function contactOf(c: CensusRow | null, lic: LicensingFacts | null): ContactJson {
  const phone = c?.phone ?? lic?.phone ?? null
  return {
    phone: N.phoneDisplay(phone),
    fax: N.phoneDisplay(c?.fax ?? null),
    email: c?.email ?? null,
    physical_address: c
      ? addressOf(c.phy_street, c.phy_city, c.phy_state, c.phy_zip, c.phy_country)
      : (lic?.physicalAddress ?? null),
    mailing_address: c
      ? addressOf(c.mail_street, c.mail_city, c.mail_state, c.mail_zip, c.mail_country)
      : (lic?.mailingAddress ?? null),
    physical_address_undeliverable: c ? c.undeliv_phy === 'U' || c.undeliv_phy === 'Y' : null,
    mailing_address_undeliverable:
      c?.mail_undeliverable_date != null ? true : (lic?.mailUndeliverable ?? (c ? false : null)),
    mailing_address_undeliverable_date: c?.mail_undeliverable_date ?? null,
  }
}

function fleetOf(c: CensusRow | null): FleetJson {
  return {
    power_units: c?.power_units ?? null,
    truck_units: c?.truck_units ?? null,
    bus_units: c?.bus_units ?? null,
    total_drivers: c?.total_drivers ?? null,
    cdl_drivers: c?.total_cdl ?? null,
    fleet_owned: c?.fleet_owned ?? null,
    fleet_leased: c?.fleet_leased ?? null,
    cdl_indicator: c?.total_cdl == null ? null : c.total_cdl > 0,
    hazmat_indicator: c?.hm_ind ? c.hm_ind === 'Y' : null,
    mcs150_date: c?.mcs150_date ?? null,
    mcs150_mileage: c?.mcs150_mileage ?? null,
    mcs150_mileage_year: c?.mcs150_mileage_year ?? null,
  }
}

function safetyOf(c: CensusRow | null, s: SafetyFacts | null): SafetyJson {
  const code = (c?.safety_rating ?? null) as keyof typeof RATING_WORDS | null
  return {
    ...emptySafety(),
    ...(s?.safety ?? {}),
    safety_rating: code ? RATING_WORDS[code] : null,
    safety_rating_code: code,
    safety_rating_date: code ? (c?.safety_rating_date ?? null) : null,
    safety_review_date: c?.review_date ?? null,
    safety_review_type: c?.review_type ?? null,
  }
}

/**
 * allowed_to_operate (docs/api.md, The record): Y if the USDOT is active, there is no active OOS order,
 * and — for docket holders and for-hire entities — some authority is active.
 */
function allowedToOperate(
  c: CensusRow | null,
  auth: AuthorityJson,
  oosActive: boolean,
  needsAuthority: boolean,
): 'Y' | 'N' | null {
  if (!c) return null
  if (c.status_code !== 'A' || oosActive) return 'N'
  if (!needsAuthority) return 'Y'
  if (auth.source === null || auth.source === 'census') return null // no authority data to judge by
  // a forwarder's FF authority has no letter of its own: licensing lists it in authority_types
  const anyActive =
    [auth.common_authority, auth.contract_authority, auth.broker_authority].includes('A') ||
    auth.authority_types.includes('forwarder')
  return anyActive ? 'Y' : 'N'
}

/**
 * The record for a USDOT, or null when no dataset knows it. Throws 503 when no census is loaded.
 * The dataset part comes from the per-view cache when enabled; reviews (app.db) and the Trust
 * Score over them and over the data's freshness are read and computed on every call.
 */
export function getCompanyRecord(
  deps: RecordDeps,
  view: DataView,
  dot: number,
): CompanyRecord | null {
  const census = view.get('census')
  if (!census) throw new AppError('dataset_unavailable')
  const { value: data } = cachedPerView(view, cacheKey(deps, dot), deps.cacheEntries ?? 0, () =>
    recordData(deps, view, census, dot),
  )
  return data ? completeRecord(deps, data, deps.dataReasons ?? dataReasons(deps, view)) : null
}

/** The record cache's key of a USDOT's dataset part: the day is part of it (dates move facts). */
const cacheKey = (deps: RecordDeps, dot: number) => `${deps.today}|${dot}`

/**
 * A record from its dataset part: reviews (read now from `deps.db`) and the Trust Score over
 * everything, judged with the data's verdict `reasons` (data-check.ts). `memo`: keep the score
 * and the identity block with the data, for the next call over the same (cached) data object.
 */
export function completeRecord(
  deps: Pick<RecordDeps, 'db' | 'today' | 'reviewed' | 'history'>,
  data: RecordData,
  reasons: readonly string[],
  memo = true,
): CompanyRecord {
  // the history's and the links' part of the identity block (app.db), one object while it holds
  const over = identityOverTime(
    deps.db,
    deps.today,
    deps.history ?? historyIndex(deps.db),
    data,
    memo,
  )
  const links: LinkSignals = over.signals
  // one literal of a fixed shape, keys in the order of `recordData` then trust and reviews (what
  // `{ ...data minus contacts, trust, reviews }` gave, without its two copies of every key)
  const record: CompanyRecord = {
    dot_number: data.dot_number,
    mc_number: data.mc_number,
    legal_name: data.legal_name,
    dba_name: data.dba_name,
    entity_type: data.entity_type,
    identity: over.identity,
    contact: data.contact,
    authority: data.authority,
    insurance: data.insurance,
    fleet: data.fleet,
    safety: data.safety,
    equipment: data.equipment,
    dotNumber: data.dotNumber,
    source: data.source,
    dataAsOf: data.dataAsOf,
    importedAt: data.importedAt,
    facts: data.facts,
    trust: emptyTrust(),
    reviews: getReviewsBlock(deps.db, data.dotNumber, deps.reviewed),
  }
  // the record is assembled: score it from its own input
  const score = () =>
    computeTrust(trustInputOf(record), {
      today: deps.today,
      fresh: reasons.length === 0,
      dataReasons: reasons,
      links,
    })
  if (!memo) {
    record.trust = score()
    return record
  }
  // computeTrust is pure: a cached record's score is reused while the day, the freshness
  // verdict and the reviews block are the ones it was computed with
  const key = `${deps.today}|${reasons.join(',')}|${JSON.stringify(record.reviews)}|${over.key}`
  let kept = trustMemo.get(data)
  if (kept?.key !== key) {
    kept = { key, trust: score() }
    trustMemo.set(data, kept)
  }
  record.trust = kept.trust
  return record
}

/** The Trust Score last computed over a record's data, with what else it was computed from. */
const trustMemo = new WeakMap<RecordData, { key: string; trust: TrustJson }>()

/** What assembling the dataset part of a record needs besides the view. */
export type RecordDataDeps = Pick<RecordDeps, 'today' | 'nationalAverages'>

/** The dataset part of a record (every block but reviews and trust), or null when none knows it. */
export function recordData(
  deps: RecordDataDeps,
  view: DataView,
  census: ActiveDataset,
  dot: number,
): RecordData | null {
  const c = findCensusRow(census, dot)
  const lic = getLicensing(view, dot, deps.today)
  if (!c && !lic) return null
  const safetyFacts = getSafety(view, dot, deps.today, { nationalAverages: deps.nationalAverages })

  const roles = entityTypes({
    census: c,
    roles: lic?.roles ?? null,
    privateOnly: safetyFacts?.privateOnly ?? null,
  })
  const oos = safetyFacts?.oos ?? null
  const oosActive = oos?.active === true
  const censusDockets: string[] = c?.dockets
    ? (JSON.parse(c.dockets) as string[]).map((d) => `${d.slice(0, 2)}-${d.slice(2)}`)
    : []
  const dockets = [...new Set([...(lic?.dockets ?? []), ...censusDockets])]
  const mcNumber = lic?.mcNumber ?? dockets.find((d) => d.startsWith('MC-')) ?? null

  const authority: AuthorityJson = { ...(lic?.authority ?? emptyAuthority()) }
  authority.status =
    c?.status_code === 'A' ? 'ACTIVE' : c?.status_code === 'I' ? 'INACTIVE' : authority.status
  authority.fmcsa_status_code = c?.status_code ?? authority.fmcsa_status_code
  if (!lic) authority.source = c ? 'census' : null
  const needsAuthority =
    dockets.length > 0 ||
    roles.all.some((t) => t === 'broker' || t === 'forwarder') ||
    (roles.primary === 'carrier' &&
      c?.carrier_operation === 'A' &&
      /FOR HIRE/.test(c.classdef ?? ''))
  authority.allowed_to_operate = allowedToOperate(c, authority, oosActive, needsAuthority)

  const op = (c?.carrier_operation ?? null) as keyof typeof OPERATION | null
  const identity: IdentityJson = {
    dot_number: String(dot),
    mc_number: mcNumber,
    legal_name: c?.legal_name ?? lic?.legalName ?? null,
    dba_name: c?.dba_name ?? lic?.dbaName ?? null,
    entity_type: roles.primary,
    entity_types: roles.all,
    docket_numbers: dockets,
    operation_class: op && op in OPERATION ? OPERATION[op] : null,
    operation_classifications: censusClasses(c),
    cargo_carried: c?.cargo ? (JSON.parse(c.cargo) as string[]) : [],
    registration_date: c?.add_date ?? null,
    prior_revoke: priorRevokeOf(c),
    private_entity: privateEntity(c, safetyFacts?.privateOnly ?? null, roles),
    passenger_carrier: safetyFacts?.passengerCarrier ?? (c ? c.passenger === 1 : null),
    usdot_status: usdotStatusOf(c?.status_code),
    out_of_service: safetyFacts?.asOf.oos != null ? oosActive : null,
    out_of_service_date: oosActive ? (oos?.date ?? null) : null,
    out_of_service_reason: oosActive ? (oos?.reason ?? null) : null,
    country: c?.phy_country ?? lic?.physicalAddress?.country ?? null,
  }

  const dataAsOf: Record<string, string | null> = {
    census: census.asOf,
    motus: lic?.asOf.motus ?? view.get('motus')?.asOf ?? null,
    legacy: lic?.asOf.legacy ?? view.get('legacy')?.asOf ?? null,
    sms: safetyFacts?.asOf.sms ?? view.get('sms')?.asOf ?? null,
    oos: safetyFacts?.asOf.oos ?? view.get('oos')?.asOf ?? null,
    violations: safetyFacts?.asOf.violations ?? view.get('violations')?.asOf ?? null,
    equipment: view.get('equipment')?.asOf ?? null,
  }
  const importedAt = recordImportedAt(view)
  return {
    dot_number: identity.dot_number,
    mc_number: identity.mc_number,
    legal_name: identity.legal_name,
    dba_name: identity.dba_name,
    entity_type: identity.entity_type,
    identity,
    contact: contactOf(c, lic),
    authority,
    insurance: lic?.insurance ?? emptyInsurance(),
    fleet: fleetOf(c),
    safety: safetyOf(c, safetyFacts),
    equipment: equipmentBlock(view.get('equipment'), dot, {
      legalName: identity.legal_name,
      dbaName: identity.dba_name,
      powerUnits: c?.power_units ?? null,
    }),
    dotNumber: dot,
    source: view.source,
    dataAsOf,
    importedAt,
    facts: {
      census: c ? trustCensusOf(c) : null,
      officers: (c && officersOf(c).join('; ')) || null,
    },
    links: c ? linkFacts(view, dot, c.add_date) : null,
  }
}

/** The datasets a record dates (`meta.data_as_of`, `meta.imported_at`), in the record's order. */
const RECORD_DATASETS = ['census', 'motus', 'legacy', 'sms', 'oos', 'violations', 'equipment']
/** A view's `imported_at` of a record: the same for every record of the view, written once. */
const importedAtByView = new WeakMap<DataView, Record<string, string | null>>()

function recordImportedAt(view: DataView): Record<string, string | null> {
  let at = importedAtByView.get(view)
  if (!at) importedAtByView.set(view, (at = importedAtOf(view, RECORD_DATASETS)))
  return at
}

/** The census fields the Trust Score reads (trust/input.ts `TrustCensus`). */
function trustCensusOf(c: CensusRow): TrustCensus {
  return {
    phone: c.phone,
    email: c.email,
    phy_street: c.phy_street,
    phy_city: c.phy_city,
    phy_state: c.phy_state,
    prior_revoke_flag: c.prior_revoke_flag,
    prior_revoke_dot: c.prior_revoke_dot,
  }
}

/** What the Trust Score reads of an assembled record (the blocks are shared, not copied). */
export function trustInputOf(r: CompanyRecord): TrustInput {
  return {
    dotNumber: r.dotNumber,
    entity_type: r.entity_type,
    identity: r.identity,
    authority: r.authority,
    insurance: r.insurance,
    safety: r.safety,
    fleet: r.fleet,
    contact: r.contact,
    reviews: r.reviews,
    dataAsOf: r.dataAsOf,
    census: r.facts.census,
  }
}

/** What the cross-check compares of an assembled record (the blocks are shared, not copied). */
export function crosscheckInputOf(r: CompanyRecord): CrosscheckInput {
  return {
    dotNumber: r.dotNumber,
    source: r.source,
    inCensus: r.facts.census !== null,
    legal_name: r.legal_name,
    dba_name: r.dba_name,
    identity: r.identity,
    authority: r.authority,
    insurance: r.insurance,
    fleet: r.fleet,
    safety: r.safety,
  }
}

/** When each named dataset's active version arrived (its activation), ISO time; null if none. */
export function importedAtOf(
  view: DataView,
  names: readonly string[],
): Record<string, string | null> {
  return Object.fromEntries(
    names.map((n) => {
      const at = view.get(n as DatasetName)?.activatedAt
      return [n, at == null ? null : new Date(at).toISOString()]
    }),
  )
}
