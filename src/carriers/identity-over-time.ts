/**
 * The record's identity over time: the history's fields (`recent_changes`, `contact_changed_days`,
 * `history_since`) and the links' counts (`identity.links`), read from app.db's history and the
 * record's link facts, added to the dataset part of the identity block; and the judged links as
 * the Trust Score reads them.
 */
import type { IdentityJson } from '../census/schema.ts'
import type { Sqlite } from '../db/open.ts'
import { contactChangedDays, historySince, recentChanges } from '../identity/history.ts'
import { linkCounts, linksWithHistory, type LinkFacts, type LinkJson } from '../identity/links.ts'
import type { IdentityHistoryJson } from '../identity/schema.ts'
import type { LinkedSignal, LinkSignals } from '../trust/signals.ts'

/** The identity block of a whole record: the datasets' part and the history's. */
export type FullIdentityJson = IdentityJson & IdentityHistoryJson

interface OverTime {
  identity: FullIdentityJson
  signals: LinkSignals
  /** what both were computed from (the Trust Score's memo key) */
  key: string
}

/** The last result per dataset part: a cached record keeps one identity object while it holds. */
const memo = new WeakMap<object, OverTime>()

const signalOf = (l: LinkJson): LinkedSignal => ({
  dot: l.dot_number,
  shared: l.shared,
  event: l.event?.kind ?? null,
})

/** The judged links of a company (none when the census has no link index or no row for it). */
export function judgedLinks(
  db: Sqlite,
  source: 'mirror' | 'sample',
  dot: number,
  facts: LinkFacts | null,
): LinkJson[] {
  return facts ? linksWithHistory(db, dot, facts, source === 'sample' ? 'sample' : 'live') : []
}

/** The identity block with the history's and the links' fields, and the links' signals. */
export function identityOverTime(
  db: Sqlite,
  today: string,
  data: {
    identity: IdentityJson
    dotNumber: number
    source: 'mirror' | 'sample'
    links: LinkFacts | null
  },
): OverTime {
  const channel = data.source === 'sample' ? 'sample' : 'live'
  const dot = data.dotNumber
  const links = judgedLinks(db, data.source, dot, data.links)
  const extra: IdentityHistoryJson = {
    // the history records only the fields of its schema (identity/compare.ts HISTORY_FIELDS)
    recent_changes: recentChanges(
      db,
      dot,
      today,
      90,
      20,
      channel,
    ) as IdentityHistoryJson['recent_changes'],
    contact_changed_days: contactChangedDays(db, dot, today, channel),
    history_since: historySince(db, channel),
    links: linkCounts(links),
  }
  const key = `${JSON.stringify(extra)}|${JSON.stringify(links)}`
  const kept = memo.get(data.identity)
  if (kept?.key === key) return kept
  const signals: LinkSignals = {
    predecessors: links.filter((l) => l.relation === 'predecessor').map(signalOf),
    successors: links.filter((l) => l.relation === 'successor').map(signalOf),
    concurrent: links.filter((l) => l.relation === 'concurrent').map(signalOf),
  }
  const fresh = { identity: { ...data.identity, ...extra }, signals, key }
  memo.set(data.identity, fresh)
  return fresh
}
