/**
 * GET /v1/search: reads `q` as a USDOT number, a docket or a name, finds matching companies and
 * returns one page of summaries (never full records). Exact USDOT and docket matches come first;
 * name matches are ranked over a bounded candidate set (see fts.ts for why and how) and
 * summarised from census columns alone (censusSummary), never from licensing data.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import { z } from 'zod'
import { findCensusRow, usdotStatusOf, type CensusRow } from '../census/read.ts'
import { censusEntityType } from '../census/entity.ts'
import { fold } from '../census/search-index.ts'
import { UsdotStatus } from '../census/schema.ts'
import { docketCandidates, parseIdentifier } from '../carriers/docket.ts'
import { entityTypes } from '../carriers/entity.ts'
import { EntityType } from '../fields.ts'
import type { ActiveDataset, DataView } from '../db/datasets.ts'
import { AppError } from '../errors.ts'
import { OwnedLru } from '../lru.ts'
import { getLicensing } from '../licensing/record.ts'
import {
  hasSearchIndex,
  holdsWords,
  nameCandidates,
  normalizeName,
  namesHoldingAtMost,
  pairWordsOf,
  prefixTerms,
  rareCompletions,
  withCompletions,
  queryWords,
  tag,
  tagKindsOf,
  toFtsQuery,
  splitLastWord,
  toLeadingFtsQuery,
  type NameCandidate,
  type PrefixTerm,
  type ReadPosition,
  type WordsMatch,
} from './fts.ts'

export const MAX_LIMIT = 50
export const DEFAULT_LIMIT = 20
export const MAX_OFFSET = 1000
/** Name matches ranked per query: enough for every page a cursor can reach. */
export const CANDIDATES = MAX_OFFSET + MAX_LIMIT
/** Static-order matches ranked for the first pages (the rest only when a page reaches past). */
export const FIRST_BLOCK = 200
/** Names starting with q added to the first block, wherever they sit in static order. */
export const LEADING = 50
/** Several words: FTS5 rows read per wanted match, before the last word's prefix is checked. */
const SPLIT_READ = 2

export const CompanySummaryJson = z.object({
  dot_number: z.string(),
  mc_number: z.string().nullable().meta({
    description:
      'name matches: the first MC docket of the census DOCKET columns; exact matches: as in the record',
  }),
  legal_name: z.string().nullable(),
  dba_name: z.string().nullable(),
  entity_type: EntityType.nullable().meta({
    description:
      'name matches: what the census alone proves (carrier, forwarder, private or null; licensing data, which alone shows a broker, is not consulted); exact matches: the primary entity type of the record',
  }),
  status: UsdotStatus.nullable().meta({ description: 'USDOT status (census)' }),
  city: z.string().nullable(),
  state: z.string().nullable(),
  country: z.string().nullable(),
  docket_numbers: z.array(z.string()).meta({
    description:
      "name matches: the census DOCKET columns (MC/FF/MX); exact matches: the record's dockets (licensing and census)",
  }),
  match: z.enum(['dot', 'docket', 'name']).meta({
    description:
      'dot: q is this USDOT; docket: this company holds the docket in q; name: a name match',
  }),
  score: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .meta({ description: 'name matches only: relevance from 0 to 1 (1 = exact name, active)' }),
})
export type CompanySummaryJson = z.infer<typeof CompanySummaryJson>

export interface SearchParams {
  q: string
  state?: string
  country?: string
  entity_type?: EntityType
  status?: 'active' | 'inactive'
  limit: number
  offset: number
  /** YYYY-MM-DD, for the licensing facts behind entity types and dockets */
  today: string
}

export interface SearchPage {
  results: CompanySummaryJson[]
  /** offset of the next page, or null when this is the last one reachable */
  nextOffset: number | null
}

const USDOT_FORM = /^(?:US\s*DOT|DOT)?\s*(?:NO\.?|#)?\s*0*(\d{1,8})$/i

/** What `q` names besides a name: a USDOT, a docket, both (bare digits), or neither. */
export function readSearchText(q: string): {
  dot: number | null
  docket: { prefix: string; number: number } | null
  names: boolean
} {
  const t = q.trim()
  const id = parseIdentifier(t)
  const dotMatch = USDOT_FORM.exec(t)
  const dot = dotMatch?.[1] && Number(dotMatch[1]) > 0 ? Number(dotMatch[1]) : null
  const bareDigits = /^\d+$/.test(t)
  if (id?.kind === 'usdot_suffix') return { dot: id.dot, docket: null, names: false }
  if (id?.kind === 'docket')
    return {
      dot: bareDigits ? dot : null,
      docket: { prefix: id.prefix, number: id.number },
      names: bareDigits,
    }
  return { dot, docket: null, names: dot === null || bareDigits }
}

interface Entry {
  dot: number
  match: CompanySummaryJson['match']
  score?: number
  /** every filter already applied (name matches: inside FTS5) */
  filtered: boolean
}

/** Scores a name against the query (both normalized): exact > starts with > word start > other. */
function nameScore(q: string, name: string | null): number {
  if (!name) return 0
  const n = normalizeName(name)
  if (n === '') return 0
  const cover = Math.min(1, q.length / n.length)
  if (n === q) return 3 + cover
  if (n.startsWith(q)) return 2 + cover
  if (` ${n}`.includes(` ${q}`)) return 1 + cover
  return cover
}

const MAX_SCORE = 4.5

/** Relevance of a candidate: the better of its legal and DBA names, plus a bonus when active. */
export function scoreCandidate(
  qNorm: string,
  legal: string | null,
  dba: string | null,
  active: boolean,
): number {
  const best = Math.max(nameScore(qNorm, legal), nameScore(qNorm, dba) * 0.95)
  return Math.round(((best + (active ? 0.5 : 0)) / MAX_SCORE) * 1000) / 1000
}

/** Name matches ranked once: USDOTs and scores, best first. */
interface Ranked {
  dots: Int32Array
  scores: Float64Array
  /** false: only the first block was ranked; positions past it need the full ranking */
  complete: boolean
}

/**
 * Ranked name matches of recent searches, per dataset version (a new census is a new
 * ActiveDataset, so nothing stale is ever served). Type-ahead, common words and paging repeat
 * the same search; a hit skips FTS5 and the ranking. At most `rankedCacheSize` searches of at
 * most LEADING + CANDIDATES matches each (12 bytes a match: about 3 MB in all).
 */
let rankedCacheSize = 256
const rankedCache = new OwnedLru<ActiveDataset, Ranked>()
/** Sets the number of cached searches (0 disables the cache; benchmarks measure both). */
export function setRankedCacheSize(n: number): void {
  rankedCacheSize = n
}

/** Name matches, best first, at least `depth` of them when there are; filters inside FTS5. */
function nameMatches(census: ActiveDataset, p: SearchParams, depth: number): Ranked {
  const key = JSON.stringify([p.q.trim(), p.state, p.country, p.entity_type, p.status])
  const hit = rankedCacheSize > 0 ? rankedCache.get(census, key) : undefined
  if (hit && (hit.complete || hit.dots.length >= depth)) return hit
  const ranked = rankNames(census, p, depth)
  rankedCache.set(census, key, ranked, rankedCacheSize)
  return ranked
}

/**
 * The ranked list of name matches, in two blocks so the first pages stay cheap however common the
 * words: block 1 = up to LEADING names that *start with* q (wherever they sit in static order) and
 * the first FIRST_BLOCK matches in static order, sorted by score; block 2 = the next matches up to
 * CANDIDATES, sorted by score. The list is the same whichever page asks, so cursors stay
 * consistent; block 2 is only read when a page reaches past block 1.
 */
/** Names starting with q (toLeadingFtsQuery); several words: with their Staged form too. */
function leadingMatch(
  q: string,
  expand: (prefix: string) => string[],
  words: WordsMatch | null,
): string | WordsMatch | null {
  const match = toLeadingFtsQuery(q, expand, words?.match ?? null)
  if (match === null || !words) return match
  const staged = words.staged && toLeadingFtsQuery(q, expand, words.staged.match)
  return {
    match,
    staged: staged ? { match: staged, phrases: words.staged?.phrases ?? [] } : null,
  }
}

function rankNames(census: ActiveDataset, p: SearchParams, depth: number): Ranked {
  const empty = { dots: new Int32Array(0), scores: new Float64Array(0), complete: true }
  // each prefix's terms read once per search (the FTS5 query, the leading match and the
  // completions all ask for the last word's)
  const expansions = new Map<string, PrefixTerm[]>()
  const termsOf = (prefix: string) => {
    let terms = expansions.get(prefix)
    if (!terms) expansions.set(prefix, (terms = prefixTerms(census, prefix)))
    return terms
  }
  const expand = (prefix: string) => termsOf(prefix).map((r) => r.term)
  const match = toFtsQuery(p.q, expand)
  if (match === null) return empty
  // filters that most names pass (carrier, US) are checked on the rows read (a Staged read): their
  // tags' long posting lists would make FTS5 seek them at every step of an intersection; a state
  // and carrier filter together is one tag, as short as the state's (when the file has it)
  const stateCarrier =
    p.state !== undefined && p.entity_type === 'carrier' && tagKindsOf(census).has('sc')
  const rowEntity =
    p.entity_type === 'carrier' && !stateCarrier ? { entityType: p.entity_type } : {}
  const rowCountry = p.country === 'US' ? { country: 'us' } : {}
  const rowChecked = 'entityType' in rowEntity || 'country' in rowCountry
  const tagsOf = (all: boolean) =>
    [
      p.state ? (stateCarrier ? tag.stateCarrier(p.state) : tag.state(p.state)) : null,
      p.country && (all || !('country' in rowCountry)) ? tag.country(p.country) : null,
      p.entity_type && !stateCarrier && (all || !('entityType' in rowEntity))
        ? tag.entityType(p.entity_type)
        : null,
    ]
      .filter((t): t is string => t !== null)
      .map((t) => `"${t}"`)
  const withTags = (tags: string[]) => (expr: string) =>
    tags.length ? `${expr} AND tags : (${tags.join(' AND ')})` : expr
  const filter = withTags(tagsOf(true))
  const cheapFilter = withTags(tagsOf(false))
  const filterWords = (w: string | WordsMatch): WordsMatch => {
    const words = typeof w === 'string' ? { match: w, staged: null } : w
    const staged = words.staged ?? (rowChecked ? { match: words.match, phrases: [] } : null)
    return {
      match: filter(words.match),
      staged: staged && {
        match: cheapFilter(staged.match),
        phrases: staged.phrases,
        ...rowEntity,
        ...rowCountry,
      },
    }
  }
  // several words: FTS5 matches the whole words, the last word's prefix is checked here
  const split = splitLastWord(p.q, pairWordsOf(census))
  // a last word few names hold a word starting with: FTS5 reads all its completions with the
  // other words (a few short posting lists), so every row read is a match
  const last = split ? fold(split.lastWord) : ''
  const completions = /^[a-z0-9]+$/.test(last) ? rareCompletions(last, termsOf(last)) : null
  const lastOk = split
    ? (r: NameCandidate) =>
        ` ${normalizeName(r.legal_name ?? '')}`.includes(` ${split.last}`) ||
        ` ${normalizeName(r.dba_name ?? '')}`.includes(` ${split.last}`)
    : () => true
  const words = split && completions ? withCompletions(split.words, completions) : split?.words
  const expr = filterWords(words ?? match)
  // other words held by few names (at most CANDIDATES): block 1 reads them all, then every list
  // is complete and the names holding the last word whole are among them (no FTS5 read of it)
  const rareWords =
    split !== null && namesHoldingAtMost(census, queryWords(p.q).slice(0, -1)) <= CANDIDATES
  // reads from FTS5 for `want` matches (several words: a bounded multiple, then the check)
  let exhausted = false
  // the main expression's rows read for block 1, and where they stop: block 2 reads on from there
  let mainRows: NameCandidate[] = []
  const mainEnd: ReadPosition = { tier: 0, after: 0 }
  const read = (e: string | WordsMatch, want: number, main = false) => {
    // several words: block 1 reads a multiple of what it keeps; block 2 at most CANDIDATES rows
    const limit =
      split && main && rareWords
        ? CANDIDATES + 1
        : split && !completions
          ? Math.min(want * SPLIT_READ, CANDIDATES)
          : want
    const rows = main
      ? [
          ...mainRows,
          ...nameCandidates(census, e, limit - mainRows.length, p.status, undefined, mainEnd),
        ]
      : nameCandidates(census, e, limit, p.status)
    // fewer rows than asked for: FTS5 has no other match
    if (main) {
      exhausted = rows.length < limit
      mainRows = rows
    }
    if (!split) return rows
    // every match read: keep them all (the list is then complete); else `want` of them
    const kept = rows.filter(lastOk)
    return rows.length < limit ? kept : kept.slice(0, want)
  }
  const qNorm = normalizeName(p.q)
  const seen = new Set<number>()
  const rank = (list: NameCandidate[]) =>
    list
      .filter((r) => !seen.has(r.dot_number) && (seen.add(r.dot_number), true))
      .map((r, i) => ({ r, i, score: scoreCandidate(qNorm, r.legal_name, r.dba_name, r.active) }))
      .sort((a, b) => b.score - a.score || a.i - b.i)
  const leading = leadingMatch(p.q, expand, words ?? null)
  const head = read(expr, FIRST_BLOCK, true)
  // the rows block 1 read stand for every match when they are all of them (`exhausted`), or when
  // the last word is one letter or digit: the first keystroke of a word, not a word to page
  // through, whose matches the next keystroke narrows
  const readIsAll = exhausted || split?.last.length === 1
  // the names holding the last word whole: when the rows read stand for every match, they are
  // those of its rows holding it (in the same order), and FTS5 need not intersect the last word's
  // postings (a common word: most of a whole-name search's time; for one letter, FTS5
  // intersecting a long posting list with the other words', the costliest part of a `JAMES C`,
  // for names that score no better than the prefix matches the read found)
  const whole = !split
    ? []
    : readIsAll
      ? mainRows.filter((r) => holdsWords(census, r, [split.lastWord])).slice(0, FIRST_BLOCK)
      : nameCandidates(census, filterWords(split.whole), FIRST_BLOCK, p.status)
  const first = rank([...(leading ? read(filterWords(leading), LEADING) : []), ...whole, ...head])
  let list = first
  // block 2 would read CANDIDATES rows of the other words (for one letter: to check that letter
  // on each: most of a `TEXAS M` or `EAGLE J` with a filter, for matches the next keystroke narrows)
  let complete = readIsAll
  if (depth > first.length && !complete) {
    list = [...first, ...rank(read(expr, CANDIDATES, true))]
    complete = true
  }
  return {
    dots: Int32Array.from(list, (x) => x.r.dot_number),
    scores: Float64Array.from(list, (x) => x.score),
    complete,
  }
}

const statusOf = (c: CensusRow | null) => usdotStatusOf(c?.status_code)
const displayDockets = (json: string | null): string[] =>
  json ? (JSON.parse(json) as string[]).map((d) => `${d.slice(0, 2)}-${d.slice(2)}`) : []

/**
 * The summary of one company: identity from the census (licensing as fallback), entity type and
 * dockets as the full record derives them. Null when no dataset knows the USDOT. Used for exact
 * USDOT and docket matches (a few per query): name matches use censusSummary.
 */
export function summarize(
  view: DataView,
  today: string,
  e: Pick<Entry, 'dot' | 'match' | 'score'>,
): CompanySummaryJson | null {
  const census = view.get('census')
  const c = census ? findCensusRow(census, e.dot) : null
  const lic = getLicensing(view, e.dot, today)
  if (!c && !lic) return null
  const roles = entityTypes({ census: c, roles: lic?.roles ?? null, privateOnly: null })
  const dockets = [...new Set([...(lic?.dockets ?? []), ...displayDockets(c?.dockets ?? null)])]
  const address = lic?.physicalAddress ?? null
  return {
    dot_number: String(e.dot),
    mc_number: lic?.mcNumber ?? dockets.find((d) => d.startsWith('MC-')) ?? null,
    legal_name: c?.legal_name ?? lic?.legalName ?? null,
    dba_name: c?.dba_name ?? lic?.dbaName ?? null,
    entity_type: roles.primary,
    status: statusOf(c),
    city: c ? c.phy_city : (address?.city ?? null),
    state: c ? c.phy_state : (address?.state ?? null),
    country: c ? c.phy_country : (address?.country ?? null),
    docket_numbers: dockets,
    match: e.match,
    ...(e.score === undefined ? {} : { score: e.score }),
  }
}

const SUMMARY_SQL = `SELECT legal_name, dba_name, status_code, phy_city, phy_state, phy_country,
  dockets, classdef, power_units FROM companies WHERE dot_number = ?`
type SummaryRow = [
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  number | null,
]
const summaryStmts = new WeakMap<ActiveDataset, Database.Statement>()

/**
 * The summary of a name match, from the census columns alone (one indexed read, no licensing):
 * dockets and mc_number from the census DOCKETn columns, the entity type the census proves
 * (census/entity.ts, the same value the entity_type filter matched at build time). Null when the
 * census has no such row.
 */
export function censusSummary(
  census: ActiveDataset,
  e: Pick<Entry, 'dot' | 'match' | 'score'>,
): CompanySummaryJson | null {
  let stmt = summaryStmts.get(census)
  if (!stmt) {
    stmt = census.db.prepare(SUMMARY_SQL).raw(true)
    summaryStmts.set(census, stmt)
  }
  const r = stmt.get(e.dot) as SummaryRow | undefined
  if (!r) return null
  const [legal, dba, status, city, state, country, dockets, classdef, units] = r
  const docketNumbers = displayDockets(dockets)
  return {
    dot_number: String(e.dot),
    mc_number: docketNumbers.find((d) => d.startsWith('MC-')) ?? null,
    legal_name: legal,
    dba_name: dba,
    entity_type: censusEntityType(classdef, units, dockets),
    status: usdotStatusOf(status),
    city,
    state,
    country,
    docket_numbers: docketNumbers,
    match: e.match,
    ...(e.score === undefined ? {} : { score: e.score }),
  }
}

function passes(s: CompanySummaryJson, p: SearchParams): boolean {
  if (p.entity_type && s.entity_type !== p.entity_type) return false
  if (p.state && s.state?.toUpperCase() !== p.state) return false
  if (p.country && s.country?.toUpperCase() !== p.country) return false
  if (p.status && s.status !== p.status) return false
  return true
}

/**
 * One page of search results. Exact USDOT and docket matches first (active holders first), then
 * name matches by relevance. `offset` is a position in that ranked list (what the cursor carries),
 * so a page costs the same however deep it is. Work is bounded: at most CANDIDATES name rows are
 * read and ranked (every filter applied inside FTS5), a summary is one indexed census read, and
 * the few exact matches (at most 11) are checked against the filters one by one.
 * Throws 503 when no census is loaded.
 */
export function searchCompanies(view: DataView, p: SearchParams): SearchPage {
  const census = view.get('census')
  if (!census) throw new AppError('dataset_unavailable')
  const intent = readSearchText(p.q)
  const exact: Entry[] = []
  const seen = new Set<number>()
  const add = (e: Entry) => {
    if (seen.has(e.dot)) return
    seen.add(e.dot)
    exact.push(e)
  }
  if (intent.dot !== null) add({ dot: intent.dot, match: 'dot', filtered: false })
  if (intent.docket) {
    const holders = docketCandidates(view, intent.docket.prefix, intent.docket.number)
    const rank = (dot: number) => (findCensusRow(census, dot)?.status_code === 'A' ? 0 : 1)
    const ordered = holders
      .map((h, i) => ({ dot: h.dot, i, r: rank(h.dot) }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
    for (const h of ordered) add({ dot: h.dot, match: 'docket', filtered: false })
  }
  if (intent.names && !hasSearchIndex(census))
    throw new AppError(
      'dataset_unavailable',
      'Name search is not ready: the census in use was built without the search index; the next census sync builds it',
    )
  // exact matches that pass the filters, with their summaries (the record's view)
  const exactOk = exact.flatMap((e) => {
    const s = summarize(view, p.today, e)
    return s && passes(s, p) ? [s] : []
  })
  // positions this page needs: through the entry after it (is there a next page?)
  const ranked = intent.names ? nameMatches(census, p, p.offset + p.limit + 1) : null
  // name matches that are not already an exact match, in rank order
  const names: Entry[] = []
  if (ranked)
    for (let k = 0; k < ranked.dots.length; k++) {
      const dot = ranked.dots[k] as number
      if (!seen.has(dot))
        names.push({ dot, match: 'name', score: ranked.scores[k], filtered: true })
    }
  const total = exactOk.length + names.length
  const results: CompanySummaryJson[] = []
  let i = p.offset
  for (; i < total && results.length < p.limit; i++) {
    if (i < exactOk.length) {
      results.push(exactOk[i] as CompanySummaryJson)
      continue
    }
    const s = censusSummary(census, names[i - exactOk.length] as Entry)
    if (s) results.push(s)
  }
  const next = i < total ? i : null
  return { results, nextOffset: next !== null && next <= MAX_OFFSET ? next : null }
}

const Cursor = z.object({
  v: z.number().int(),
  o: z.number().int().min(0).max(MAX_OFFSET),
  h: z.string(),
})

/** A fingerprint of what the cursor pages through (query and filters, not the page size). */
export function searchFingerprint(p: Omit<SearchParams, 'limit' | 'offset' | 'today'>): string {
  const key = JSON.stringify([normalizeName(p.q), p.state, p.country, p.entity_type, p.status])
  return createHash('sha256').update(key).digest('base64url').slice(0, 12)
}

/** Opaque cursor: base64url of {v: census version, o: offset, h: fingerprint}. */
export const encodeCursor = (v: number, o: number, h: string) =>
  Buffer.from(JSON.stringify({ v, o, h })).toString('base64url')

/** The offset a cursor points at; 400 when it is malformed, stale or from another search. */
export function decodeCursor(cursor: string, version: number, fingerprint: string): number {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    parsed = null
  }
  const c = Cursor.safeParse(parsed)
  if (!c.success) throw new AppError('invalid_request', 'cursor: not a cursor from this API')
  if (c.data.v !== version)
    throw new AppError(
      'invalid_request',
      'cursor: the data changed since this cursor was issued; start the search again',
    )
  if (c.data.h !== fingerprint)
    throw new AppError(
      'invalid_request',
      'cursor: it belongs to another search; send the same q and filters, or start again',
    )
  return c.data.o
}
