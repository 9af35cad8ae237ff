/**
 * The record's identity over time: the history's fields (`recent_changes`, `contact_changed_days`,
 * `history_since`) and the links' counts (`identity.links`), read from app.db's history and the
 * record's link facts, added to the dataset part of the identity block; and the judged links as
 * the Trust Score reads them. A company without changes in the history (most of them) and without
 * links costs no query; a cached record keeps its result while the history's holding and the day
 * are the ones it was computed with (identity/history.ts `HistoryIndex`).
 */
import type { IdentityJson } from '../census/schema.ts'
import type { Channel } from '../db/names.ts'
import type { Sqlite } from '../db/open.ts'
import {
  channelHistory,
  contactChangedDays,
  hasChanges,
  recentChanges,
  type ChannelHistory,
  type HistoryIndex,
} from '../identity/history.ts'
import {
  inactiveDates,
  judgeLinks,
  linkCounts,
  type LinkFacts,
  type LinkJson,
} from '../identity/links.ts'
import type { IdentityHistoryJson } from '../identity/schema.ts'
import type { LinkedSignal, LinkSignals } from '../trust/signals.ts'

/** The identity block of a whole record: the datasets' part and the history's. */
export type FullIdentityJson = IdentityJson & IdentityHistoryJson

interface OverTime {
  identity: FullIdentityJson
  signals: LinkSignals
  /** what both were computed from (the Trust Score's memo key): the holding and the day */
  key: string
}

/** The last result per dataset part: a cached record keeps one identity object while it holds. */
const memo = new WeakMap<object, OverTime>()

const signalOf = (l: LinkJson): LinkedSignal => ({
  dot: l.dot_number,
  shared: l.shared,
  event: l.event?.kind ?? null,
})

const NO_SIGNALS: LinkSignals = { predecessors: [], successors: [], concurrent: [] }

/**
 * The judged links of a company: the history's inactive dates are read only for the companies
 * (this one and the linked ones) the history has any change of.
 */
function judged(
  db: Sqlite,
  held: ChannelHistory,
  channel: Channel,
  dot: number,
  facts: LinkFacts | null,
): LinkJson[] {
  if (!facts || facts.links.length === 0) return []
  const inHistory = [dot, ...facts.links.map((l) => l.dot)].filter((d) => hasChanges(held, d))
  return judgeLinks(dot, facts, inactiveDates(db, inHistory, channel))
}

/**
 * The identity block with the history's and the links' fields, and the links' signals. `keep`:
 * remember the result with the dataset part, for the next call over the same (cached) data.
 */
export function identityOverTime(
  db: Sqlite,
  today: string,
  history: HistoryIndex,
  data: {
    identity: IdentityJson
    dotNumber: number
    source: 'mirror' | 'sample'
    links: LinkFacts | null
  },
  keep = true,
): OverTime {
  const key = `${history.serial}|${today}`
  const kept = keep ? memo.get(data.identity) : undefined
  if (kept?.key === key) return kept
  const channel: Channel = data.source === 'sample' ? 'sample' : 'live'
  const held = channelHistory(db, history, channel)
  const dot = data.dotNumber
  const links = judged(db, held, channel, dot, data.links)
  const changed = hasChanges(held, dot)
  const extra: IdentityHistoryJson = {
    // the history records only the fields of its schema (identity/compare.ts HISTORY_FIELDS)
    recent_changes: (changed
      ? recentChanges(db, dot, today, 90, 20, channel)
      : []) as IdentityHistoryJson['recent_changes'],
    contact_changed_days: changed ? contactChangedDays(db, dot, today, channel) : null,
    history_since: held.since,
    links: linkCounts(links),
  }
  const signals: LinkSignals =
    links.length === 0
      ? NO_SIGNALS
      : {
          predecessors: links.filter((l) => l.relation === 'predecessor').map(signalOf),
          successors: links.filter((l) => l.relation === 'successor').map(signalOf),
          concurrent: links.filter((l) => l.relation === 'concurrent').map(signalOf),
        }
  const fresh = { identity: withHistory(data.identity, extra), signals, key }
  if (keep) memo.set(data.identity, fresh)
  return fresh
}

/**
 * The identity block and the history's fields as one object literal, keys in the order the
 * answer writes them. Not `{ ...identity, ...extra }`: objects made by that spread outlived young
 * collections in a record worker (each record's block was promoted to the old generation, with
 * what it names), which made the worker's collections several times costlier.
 */
const withHistory = (i: IdentityJson, extra: IdentityHistoryJson): FullIdentityJson => ({
  dot_number: i.dot_number,
  mc_number: i.mc_number,
  legal_name: i.legal_name,
  dba_name: i.dba_name,
  entity_type: i.entity_type,
  entity_types: i.entity_types,
  docket_numbers: i.docket_numbers,
  operation_class: i.operation_class,
  operation_classifications: i.operation_classifications,
  cargo_carried: i.cargo_carried,
  registration_date: i.registration_date,
  prior_revoke: i.prior_revoke,
  private_entity: i.private_entity,
  passenger_carrier: i.passenger_carrier,
  usdot_status: i.usdot_status,
  out_of_service: i.out_of_service,
  out_of_service_date: i.out_of_service_date,
  out_of_service_reason: i.out_of_service_reason,
  country: i.country,
  recent_changes: extra.recent_changes,
  contact_changed_days: extra.contact_changed_days,
  history_since: extra.history_since,
  links: extra.links,
})
