/**
 * A company's links with a time order (docs/identity.md): the companies that share an officer, a
 * phone, a fax, an e-mail or a physical address with it (the census link index, built with the
 * census: census/links-build.ts) or a VIN (the equipment dataset's carriers per VIN, read here),
 * each judged a predecessor, a successor or concurrent by the time gate: a linked company revoked,
 * put out of service or made inactive at most 365 days before this one was added is its
 * predecessor; the reverse, a successor.
 */
import { hasSchemaObject, type ActiveDataset, type DataView } from '../db/datasets.ts'
import { vinLinksOf, vinsOverCap } from '../equipment/read.ts'
import { cached, type Sqlite } from '../db/open.ts'
import { listsDot } from '../db/dot-set.ts'
import type { Channel } from '../db/names.ts'
import { LINK_CAPS, isLink, sharedKinds } from '../census/links-build.ts'
import { usdotStatusOf } from '../census/read.ts'
import type { UsdotStatus } from '../census/schema.ts'
import { daysBetween } from '../dates.ts'

export type LinkKind = 'officer' | 'phone' | 'fax' | 'email' | 'address' | 'vin'
export type LinkEventKind = 'revoked' | 'out_of_service' | 'inactive'

export interface LinkEvent {
  kind: LinkEventKind
  date: string
}

/** A linked company as the datasets know it. */
export interface LinkedCompany {
  dot: number
  legalName: string | null
  status: UsdotStatus | null
  addDate: string | null
  shared: LinkKind[]
  /** its revocations and out-of-service orders, dated */
  events: LinkEvent[]
}

/**
 * What the datasets say of a company's links (plain data: it crosses threads with the record).
 * The inactive events come from the history in app.db (`withHistory`). `events` are the
 * company's own, read only when it has links (they judge nothing else).
 */
export interface LinkFacts {
  addDate: string | null
  events: LinkEvent[]
  links: LinkedCompany[]
}

/** Days within which an event and a registration make a predecessor and its successor. */
export const TIME_GATE_DAYS = 365
/** At most this many links are read per company (most kinds shared first). */
export const MAX_LINKS = 200

export interface LinkJson {
  dot_number: string
  legal_name: string | null
  usdot_status: UsdotStatus | null
  shared: LinkKind[]
  relation: 'predecessor' | 'successor' | 'concurrent'
  event: LinkEvent | null
  days_between: number | null
}

export interface LinksJson {
  dot_number: string
  links: LinkJson[]
  suppressed: Partial<Record<LinkKind, number>>
}

/** The record's `identity.links`. */
export interface LinkCounts {
  predecessors: number
  predecessors_revoked_or_oos: number
  concurrent: number
}

interface OwnRow {
  add_date: string | null
  phone: string | null
  fax: string | null
  email: string | null
  /** link-keys.ts linkKeyHash */
  address_key: number | null
  officer_1_key: number | null
  officer_2_key: number | null
}

/** The company's census values over their cap, per kind (GET .../links only). */
function suppressedOf(census: ActiveDataset, own: OwnRow): Partial<Record<LinkKind, number>> {
  const out: Partial<Record<LinkKind, number>> = {}
  const probes: [LinkKind, string | number | null][] = [
    ['phone', own.phone],
    ['fax', own.fax],
    ['email', own.email],
    ['address', own.address_key],
    ['officer', own.officer_1_key],
    ['officer', own.officer_2_key === own.officer_1_key ? null : own.officer_2_key],
  ]
  const count = census.stmt('SELECT companies FROM link_values WHERE kind = ? AND value = ?')
  for (const [kind, value] of probes) {
    if (value === null) continue
    const row = count.get(kind, value) as { companies: number } | undefined
    if (row && row.companies > LINK_CAPS[kind]) out[kind] = (out[kind] ?? 0) + 1
  }
  return out
}

const REVOKED_SQL = `SELECT DISTINCT d.dot_number AS dot, coalesce(r.effective_date, r.serve_date) AS date
  FROM json_each(?) j
  CROSS JOIN dot_dockets d ON d.dot_number = j.value
  CROSS JOIN revocations r ON r.prefix = d.prefix AND r.number = d.number
  WHERE coalesce(r.effective_date, r.serve_date) IS NOT NULL
    AND coalesce(r.type_desc, '') NOT LIKE 'VOLUNTARY%'`

const OOS_SQL = `SELECT DISTINCT o.dot_number AS dot, o.oos_date AS date FROM json_each(?) j
  CROSS JOIN oos_orders o ON o.dot_number = j.value WHERE o.oos_date IS NOT NULL`

/** Dated revocations (licensing) and out-of-service orders (safety) of the given USDOTs. */
function eventsOf(view: DataView, dots: readonly number[]): Map<number, LinkEvent[]> {
  const out = new Map<number, LinkEvent[]>()
  const add = (dot: number, e: LinkEvent) => {
    const list = out.get(dot) ?? []
    if (!list.some((x) => x.kind === e.kind && x.date === e.date)) list.push(e)
    out.set(dot, list)
  }
  const json = JSON.stringify(dots)
  for (const name of ['motus', 'legacy'] as const) {
    const ds = view.get(name)
    if (!ds || !hasSchemaObject(ds, 'dot_dockets')) continue
    for (const r of ds.stmt(REVOKED_SQL).all(json) as { dot: number; date: string }[])
      add(r.dot, { kind: 'revoked', date: r.date })
  }
  const oos = view.get('oos')
  if (oos)
    for (const r of oos.stmt(OOS_SQL).all(json) as { dot: number; date: string }[])
      add(r.dot, { kind: 'out_of_service', date: r.date })
  return out
}

/**
 * The links of a company the census knows (`addDate`: its census registration date) from the
 * view's datasets, or null when the census was built before the link index. A company with no
 * pairs in the index (a binary search) and no VIN under another carrier (one indexed read), most
 * of them, costs nothing more.
 */
export function linkFacts(view: DataView, dot: number, addDate: string | null): LinkFacts | null {
  const census = view.get('census')
  if (!census || !hasSchemaObject(census, 'company_links')) return null
  // the USDOTs with pairs (a small part of the census) are held in memory: most cost no read
  const pairs = listsDot(census.db, 'company_links', dot)
    ? (census
        .stmt('SELECT other, shared FROM company_links WHERE dot_number = ?')
        .raw()
        .all(dot) as [number, number][])
    : []
  const ds = view.get('equipment')
  const vins = ds ? vinLinksOf(ds, dot, LINK_CAPS.vin) : NO_VINS
  if (pairs.length === 0 && vins.size === 0) return { addDate, events: [], links: [] }
  const bits = new Map(pairs)
  const candidates: { dot: number; shared: LinkKind[] }[] = []
  for (const other of new Set([...bits.keys(), ...vins])) {
    const b = bits.get(other) ?? 0
    const vin = vins.has(other)
    if (isLink(b, vin)) candidates.push({ dot: other, shared: sharedKinds(b, vin) })
  }
  if (candidates.length === 0) return { addDate, events: [], links: [] }
  candidates.sort((a, b) => b.shared.length - a.shared.length || a.dot - b.dot)
  const kept = candidates.slice(0, MAX_LINKS)
  const dots = kept.map((c) => c.dot)
  const rows = new Map(
    (
      census
        .stmt(
          `SELECT c.dot_number, c.legal_name, c.status_code, c.add_date FROM json_each(?) j
           CROSS JOIN companies c ON c.dot_number = j.value`,
        )
        .all(JSON.stringify(dots)) as {
        dot_number: number
        legal_name: string | null
        status_code: string | null
        add_date: string | null
      }[]
    ).map((r) => [r.dot_number, r]),
  )
  const events = eventsOf(view, [dot, ...dots])
  return {
    addDate,
    events: events.get(dot) ?? [],
    links: kept.map((c) => {
      const r = rows.get(c.dot)
      return {
        dot: c.dot,
        legalName: r?.legal_name ?? null,
        status: usdotStatusOf(r?.status_code),
        addDate: r?.add_date ?? null,
        shared: c.shared,
        events: events.get(c.dot) ?? [],
      }
    }),
  }
}

const NO_VINS: ReadonlySet<number> = new Set()

/**
 * The dates the history saw each of `dots` become inactive (app.db `identity_changes`): the
 * census has no date of its own for an inactive USDOT.
 */
export function inactiveDates(
  db: Sqlite,
  dots: readonly number[],
  channel: Channel,
): Map<number, string[]> {
  const out = new Map<number, string[]>()
  if (dots.length === 0) return out
  const rows = cached(
    db,
    `SELECT c.dot_number AS dot, c.seen_at AS date FROM json_each(?) j
     CROSS JOIN identity_changes c ON c.channel = ? AND c.dot_number = j.value
     WHERE c.field = 'usdot_status' AND c.to_value = 'inactive'`,
  ).all(JSON.stringify(dots), channel) as { dot: number; date: string }[]
  for (const r of rows) out.set(r.dot, [...(out.get(r.dot) ?? []), r.date])
  return out
}

/** The event of `events` nearest before `added` within the time gate, with the days between. */
function gated(
  events: readonly LinkEvent[],
  added: string | null,
): { event: LinkEvent; days: number } | null {
  if (added === null) return null
  let best: { event: LinkEvent; days: number } | null = null
  for (const e of events) {
    const days = daysBetween(e.date, added)
    if (days >= 0 && days <= TIME_GATE_DAYS && (best === null || days < best.days))
      best = { event: e, days }
  }
  return best
}

const latest = (events: readonly LinkEvent[]): LinkEvent | null =>
  events.reduce<LinkEvent | null>((a, e) => (a === null || e.date > a.date ? e : a), null)

const RELATION_ORDER = { predecessor: 0, successor: 1, concurrent: 2 } as const

/**
 * The links judged by the time gate, predecessors first, then successors, then concurrent.
 * `inactive`: the history's inactive dates per USDOT (this company's and the linked ones').
 */
export function judgeLinks(
  dot: number,
  facts: LinkFacts,
  inactive: ReadonlyMap<number, readonly string[]>,
): LinkJson[] {
  const withInactive = (d: number, events: readonly LinkEvent[]): LinkEvent[] => [
    ...events,
    ...(inactive.get(d) ?? []).map((date) => ({ kind: 'inactive' as const, date })),
  ]
  const ownEvents = withInactive(dot, facts.events)
  const out = facts.links.map((l): LinkJson => {
    const theirs = withInactive(l.dot, l.events)
    const base = {
      dot_number: String(l.dot),
      legal_name: l.legalName,
      usdot_status: l.status,
      shared: l.shared,
    }
    const before = gated(theirs, facts.addDate)
    if (before)
      return { ...base, relation: 'predecessor', event: before.event, days_between: before.days }
    const after = gated(ownEvents, l.addDate)
    if (after)
      return { ...base, relation: 'successor', event: after.event, days_between: after.days }
    return { ...base, relation: 'concurrent', event: latest(theirs), days_between: null }
  })
  return out.sort(
    (a, b) =>
      RELATION_ORDER[a.relation] - RELATION_ORDER[b.relation] ||
      Number(a.dot_number) - Number(b.dot_number),
  )
}

/** The links of a company with the history's inactive dates. */
export function linksWithHistory(
  db: Sqlite,
  dot: number,
  facts: LinkFacts,
  channel: Channel,
): LinkJson[] {
  return judgeLinks(dot, facts, inactiveDates(db, [dot, ...facts.links.map((l) => l.dot)], channel))
}

/** The record's `identity.links` from judged links. */
export function linkCounts(links: readonly LinkJson[]): LinkCounts {
  let predecessors = 0
  let revokedOrOos = 0
  let concurrent = 0
  for (const l of links) {
    if (l.relation === 'concurrent') concurrent++
    if (l.relation !== 'predecessor') continue
    predecessors++
    if (l.event?.kind === 'revoked' || l.event?.kind === 'out_of_service') revokedOrOos++
  }
  return { predecessors, predecessors_revoked_or_oos: revokedOrOos, concurrent }
}

/**
 * GET /v1/carrier/{dot}/links: the company's judged links and suppressed values, or null when the
 * census of the view does not know the USDOT number.
 */
export function carrierLinks(db: Sqlite, view: DataView, dot: number): LinksJson | null {
  const census = view.get('census')
  if (!census) return null
  if (!hasSchemaObject(census, 'company_links')) {
    const known = census.stmt('SELECT 1 FROM companies WHERE dot_number = ?').get(dot) !== undefined
    return known ? { dot_number: String(dot), links: [], suppressed: {} } : null
  }
  const own = census
    .stmt(
      `SELECT add_date, phone, fax, email, address_key, officer_1_key, officer_2_key
       FROM companies WHERE dot_number = ?`,
    )
    .get(dot) as OwnRow | undefined
  if (!own) return null
  const facts = linkFacts(view, dot, own.add_date)
  const suppressed = suppressedOf(census, own)
  const ds = view.get('equipment')
  const vins = ds ? vinsOverCap(ds, dot, LINK_CAPS.vin) : 0
  if (vins > 0) suppressed.vin = vins
  const channel: Channel = view.source === 'sample' ? 'sample' : 'live'
  return {
    dot_number: String(dot),
    links: facts ? linksWithHistory(db, dot, facts, channel) : [],
    suppressed,
  }
}

/**
 * GET /v1/carrier/{dot}/links as its JSON text (what the route writes, read in whichever thread
 * answers it: carriers/records.ts `RecordPort.links`), or null when the census of the view does
 * not know the USDOT number.
 */
export function carrierLinksText(db: Sqlite, view: DataView, dot: number): string | null {
  const found = carrierLinks(db, view, dot)
  return found && JSON.stringify(found)
}

/**
 * How many companies share a contact value when that is more than its cap (it is then no link,
 * docs/identity.md), else null. `kind`: phone (census digits), email (lower case) or fax.
 */
export function overCap(
  census: ActiveDataset,
  kind: 'phone' | 'email' | 'fax',
  value: string,
): number | null {
  if (!hasSchemaObject(census, 'link_values')) return null
  const row = census
    .stmt('SELECT companies FROM link_values WHERE kind = ? AND value = ?')
    .get(kind, value) as { companies: number } | undefined
  return row && row.companies > LINK_CAPS[kind] ? row.companies : null
}
