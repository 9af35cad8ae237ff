/**
 * Reading the name-search index of the census dataset file (built by census/search-index.ts)
 * and the FTS5 query builder.
 *
 * Ranking at scale (4.5 M names): bm25() counts every row that matches each phrase, and an FTS5
 * prefix query (`truck*`) merges the whole doclist of every term it covers before returning a
 * row, so neither is bounded for a common word. Instead:
 * - Names are indexed in three FTS5 tables by *static tier*: active companies holding a docket,
 *   other active companies, inactive ones. A query reads the tiers in that order with `LIMIT`, so
 *   it takes the best-tier matches first and stops as soon as it has enough (FTS5 returns rows
 *   in rowid = USDOT order without scoring them). Each table is contentless (postings only): names
 *   are read from `companies` by USDOT, so the index copies no text.
 * - The trailing prefix of a query is expanded to its most frequent terms (`search_prefixes` for
 *   1–3 characters, a range of `search_terms` beyond) and matched as an OR of whole terms, which
 *   FTS5 merges lazily. No FTS5 prefix index is needed, which keeps the build cheap.
 * - State, country and entity-type filters are tokens of a `tags` column computed at build time,
 *   intersected inside FTS5; the status filter picks tiers. So a filtered page is as cheap as an
 *   unfiltered one and never needs per-candidate checks.
 * - An AND of several common words (each in hundreds of thousands of names) costs FTS5 a walk over
 *   their whole posting lists when few names hold them all, LIMIT or not, because it seeks every
 *   list at each step. Such a query also ANDs the tag of pairs of its common words (pairCondition,
 *   tags built by census/search-index.ts), and is read in two stages (Staged): FTS5 reads the pair
 *   tags and the rarer words only, and the common words are checked on the names read. Both only
 *   narrow what FTS5 reads: the matches and their order are those of the plain expression.
 * The query layer then scores that bounded candidate set (query.ts).
 */
import {
  ANY_PAIR,
  asciiTokens,
  firstWordTag,
  fold,
  MAX_PREFIX_TERMS,
  pairTag,
  FORMAT_3_TAG_KINDS,
  stateCarrierTag,
  TIERS,
  TWO_LETTERS,
  type TagKind,
  type Tier,
} from '../census/search-index.ts'
import type Database from 'better-sqlite3'
import { censusEntityType } from '../census/entity.ts'
import type { ActiveDataset } from '../db/datasets.ts'

/** Most words of a query that reach FTS5. */
export const MAX_QUERY_WORDS = 8
/**
 * Most terms a trailing prefix expands to after other words, which already narrow the match (each
 * OR branch costs a seek); alone it expands to MAX_PREFIX_TERMS (census/search-index.ts).
 */
export const MAX_PREFIX_TERMS_AFTER_WORDS = 16
/** Prefixes up to this length have their top terms precomputed in search_prefixes. */
const SHORT_PREFIX = 3

const built = new WeakMap<ActiveDataset, boolean>()
/** true when the census file has this search index (a file built by an older version has not). */
export function hasSearchIndex(census: ActiveDataset): boolean {
  let ok = built.get(census)
  if (ok === undefined) {
    const names = [...TIERS.map((t) => t.table), 'search_terms', 'search_prefixes']
    const found = census
      .stmt(
        `SELECT count(*) AS n FROM sqlite_master WHERE name IN (${names.map(() => '?').join(', ')})`,
      )
      .get(...names) as { n: number }
    ok = found.n === names.length
    built.set(census, ok)
  }
  return ok
}

/** An FTS5 string literal: the text is a phrase, never syntax. */
const phrase = (s: string) => `"${s.replaceAll('"', '""')}"`

const ASCII = /^\p{ASCII}*$/u

const tableValues = new WeakMap<ActiveDataset, Map<string, ReadonlySet<string>>>()
/**
 * The values of a one-column table of the census file, read once per file; `absent` for a file
 * built before the table existed.
 */
function valuesOf(
  census: ActiveDataset,
  table: 'search_pair_words' | 'search_tag_kinds',
  column: 'term' | 'kind',
  absent: readonly string[],
): ReadonlySet<string> {
  let tables = tableValues.get(census)
  if (!tables) tableValues.set(census, (tables = new Map<string, ReadonlySet<string>>()))
  let values = tables.get(table)
  if (!values) {
    const has = census
      .stmt('SELECT count(*) AS n FROM sqlite_master WHERE name = ?')
      .get(table) as { n: number }
    values = new Set(
      has.n
        ? (census.stmt(`SELECT ${column} AS v FROM ${table}`).all() as { v: string }[]).map(
            (r) => r.v,
          )
        : absent,
    )
    tables.set(table, values)
  }
  return values
}

/** The census file's pair words (census/search-index.ts); none in a file built without them. */
export const pairWordsOf = (census: ActiveDataset): ReadonlySet<string> =>
  valuesOf(census, 'search_pair_words', 'term', [])

/**
 * An FTS5 condition implied by an AND of user words: for the pair words among their tokens, the
 * tags of disjoint pairs of them (or `pwany`), or null when fewer than two pair words. Only ASCII
 * words count (their FTS5 tokens are plain runs of letters and digits). ANDed to the words, it
 * matches the same names, but its short posting list drives FTS5's intersection.
 */
export function pairCondition(
  words: readonly string[],
  pairWords: ReadonlySet<string>,
): string | null {
  const held = [
    ...new Set(
      words.flatMap((w) => (ASCII.test(w) ? asciiTokens(w) : [])).filter((t) => pairWords.has(t)),
    ),
  ].sort()
  if (held.length < 2) return null
  const pairs: [string, string][] = []
  for (let i = 0; i + 1 < held.length; i += 2)
    pairs.push([held[i] as string, held[i + 1] as string])
  if (held.length % 2) pairs.push([held.at(-2) as string, held.at(-1) as string])
  return pairs
    .map(([a, b]) => `tags : (${phrase(pairTag(a, b))} OR ${phrase(ANY_PAIR)})`)
    .join(' AND ')
}

const PREFIX_SQL = `SELECT term, docs FROM search_prefixes WHERE prefix = ?
  ORDER BY docs DESC, term LIMIT ${MAX_PREFIX_TERMS}`
const RANGE_SQL = `SELECT term, docs FROM search_terms WHERE term >= ? AND term < ? || char(1114111)
  ORDER BY docs DESC, term LIMIT ${MAX_PREFIX_TERMS}`

/** An indexed term and the number of names holding it. */
export interface PrefixTerm {
  term: string
  docs: number
}

/** The most frequent indexed terms starting with a folded prefix (at most MAX_PREFIX_TERMS). */
export function prefixTerms(census: ActiveDataset, prefix: string): PrefixTerm[] {
  return (
    prefix.length <= SHORT_PREFIX
      ? census.stmt(PREFIX_SQL).all(prefix)
      : census.stmt(RANGE_SQL).all(prefix, prefix)
  ) as PrefixTerm[]
}

/** The most frequent indexed terms starting with a folded prefix. */
export function expandPrefix(census: ActiveDataset, prefix: string): string[] {
  return prefixTerms(census, prefix).map((r) => r.term)
}

/**
 * A last word whose completions are in at most this many names (summed over its terms) is read
 * by FTS5 with the other words; above, the other words' rows are read and checked (see rankNames).
 * FTS5 is the cheaper reader for a last word with few completions (`WILLIAM B CHERRY`), checking
 * the rows read the cheaper for one with many (`D&E PLUMBING`).
 */
export const RARE_COMPLETIONS = 10_000

/**
 * Every indexed term starting with a folded prefix (and the prefix itself), given its
 * `prefixTerms`, when they are few (at most MAX_PREFIX_TERMS_AFTER_WORDS, so the list, capped
 * at MAX_PREFIX_TERMS, holds all of them) and in at most RARE_COMPLETIONS names together; else
 * null.
 */
export function rareCompletions(prefix: string, terms: readonly PrefixTerm[]): string[] | null {
  if (terms.length > MAX_PREFIX_TERMS_AFTER_WORDS) return null
  let docs = 0
  for (const r of terms) docs += r.docs
  return docs <= RARE_COMPLETIONS ? [...new Set([prefix, ...terms.map((r) => r.term)])] : null
}

/** An AND of words and one of some terms (a last word's completions), staged form and all. */
export function withCompletions(words: WordsMatch, terms: readonly string[]): WordsMatch {
  const any = `{legal_name dba_name} : (${terms.map(phrase).join(' OR ')})`
  return {
    match: `${words.match} AND ${any}`,
    staged: words.staged && { ...words.staged, match: `${words.staged.match} AND ${any}` },
  }
}

const TERM_DOCS_SQL = 'SELECT docs FROM search_terms WHERE term = ?'

/**
 * At most how many names hold all these words (legal and DBA names together): the fewest names
 * holding any one of their tokens (0 when a token is in no name).
 */
export function namesHoldingAtMost(census: ActiveDataset, words: readonly string[]): number {
  let fewest = Infinity
  for (const w of words)
    for (const t of fold(w).split(/[^\p{L}\p{N}]+/u)) {
      if (t === '') continue
      const docs = census.stmt(TERM_DOCS_SQL).pluck().get(t) as number | undefined
      fewest = Math.min(fewest, docs ?? 0)
    }
  return fewest
}

export interface NameCandidate {
  dot_number: number
  legal_name: string | null
  dba_name: string | null
  active: boolean
  /** the static tier it was read from (an index into TIERS) */
  tier: number
}

// LIMIT inside FTS5: it stops reading postings at `limit` rows (USDOT order, unscored)
const candidateSql = (t: Tier) => `WITH m AS MATERIALIZED (
  SELECT rowid AS r FROM ${t.table} WHERE ${t.table} MATCH ? LIMIT ?
)
SELECT c.dot_number, c.legal_name, c.dba_name FROM m JOIN companies c ON c.dot_number = m.r`
// the same from a rowid on (staged reads), and one row's check
const candidateAfterSql = (t: Tier) => `WITH m AS MATERIALIZED (
  SELECT rowid AS r FROM ${t.table} WHERE ${t.table} MATCH ? AND rowid > ? LIMIT ?
)
SELECT c.dot_number, c.legal_name, c.dba_name, c.classdef, c.power_units, c.dockets, c.phy_country
FROM m JOIN companies c ON c.dot_number = m.r`
// the same row by row, for a staged read stepped until it has enough: one FTS5 query per tier
// (restarting one from a rowid costs about a millisecond; chunks of 256 rows made it most of a
// staged read's time)
const candidateStepSql = (t: Tier) => `SELECT c.dot_number, c.legal_name, c.dba_name, c.classdef,
  c.power_units, c.dockets, c.phy_country
FROM ${t.table} JOIN companies c ON c.dot_number = ${t.table}.rowid
WHERE ${t.table} MATCH ? AND ${t.table}.rowid > ? ORDER BY ${t.table}.rowid`
// `rowid = ?` would not do: FTS5 (3.53) ignores it beside MATCH on a contentless table and
// returns every match; a range of one rowid is honoured
const rowMatchSql = (t: Tier) =>
  `SELECT 1 FROM ${t.table} WHERE ${t.table} MATCH ? AND rowid >= ? AND rowid <= ?`
const candidateStmts = new WeakMap<ActiveDataset, Database.Statement[]>()
interface StagedStatements {
  after: Database.Statement
  step: Database.Statement
  row: Database.Statement
}
const stagedStmts = new WeakMap<ActiveDataset, StagedStatements[]>()
function stagedStatements(census: ActiveDataset): StagedStatements[] {
  let s = stagedStmts.get(census)
  if (!s) {
    s = TIERS.map((t) => ({
      after: census.db.prepare(candidateAfterSql(t)).raw(true),
      step: census.db.prepare(candidateStepSql(t)).raw(true),
      row: census.db.prepare(rowMatchSql(t)).pluck(),
    }))
    stagedStmts.set(census, s)
  }
  return s
}
/** Whether the row of one USDOT in a tier matches an FTS5 expression (rowMatchSql's one-rowid range). */
const rowMatches = (s: StagedStatements, expr: string, dot: number) =>
  s.row.get(expr, dot, dot) === 1
/**
 * Rows a staged read may turn down per call before FTS5 reads the rest of the tier itself (so it
 * reads at most `limit` + this many rows).
 */
const STAGED_BUDGET = 2000
/**
 * A read checking only filters on its rows (no common words) gives them to FTS5 as tags once it
 * has turned down this many rows, more than STAGED_RATIO for each one it kept: a filter most of
 * these names fail (`SUPPLY` names are mostly not carriers) costs a companies row per name read,
 * its tag only a seek in its list (`SUPPLY L&entity_type=carrier`). Where most pass (`CITY`),
 * rows stay cheaper than the tag (a ratio of 1 made `CITY OF` slower).
 */
const STAGED_SAMPLE = 100
const STAGED_RATIO = 2
type Row = [number, string | null, string | null]
/** A point in the static order of the matches: a tier, and the last USDOT read in it. */
export interface ReadPosition {
  tier: number
  after: number
}
type StagedRow = [
  number,
  string | null,
  string | null,
  string | null,
  number | null,
  string | null,
  string | null,
]
/** The row filters of a Staged read: the same test as the build's `et` and `ct` tags. */
function passesRowFilters(s: Staged, r: StagedRow): boolean {
  const [, , , classdef, units, dockets, country] = r
  if (s.entityType && censusEntityType(classdef, units, dockets) !== s.entityType) return false
  if (s.country && !(country && TWO_LETTERS.test(country) && country.toLowerCase() === s.country))
    return false
  return true
}
/** The tiers' candidate statements of one dataset version, prepared once, in raw (array) mode. */
function candidateStatements(census: ActiveDataset): Database.Statement[] {
  let s = candidateStmts.get(census)
  if (!s) {
    s = TIERS.map((t) => census.db.prepare(candidateSql(t)).raw(true))
    candidateStmts.set(census, s)
  }
  return s
}

/**
 * Up to `limit` companies matching an FTS5 expression, best static tier first (USDOT order
 * within a tier). Only the tiers `status` allows are read, and reading stops at `limit`.
 */
export function nameCandidates(
  census: ActiveDataset,
  match: string | WordsMatch,
  limit: number,
  status?: 'active' | 'inactive',
  /** rows a staged read may turn down before FTS5 reads the rest itself */
  budget = STAGED_BUDGET,
  /** where an earlier read of the same match stopped: read on from there, and move it on */
  from?: ReadPosition,
): NameCandidate[] {
  const out: NameCandidate[] = []
  const stmts = candidateStatements(census)
  const expr = typeof match === 'string' ? match : match.match
  const staged = typeof match === 'string' ? null : match.staged
  for (const [i, t] of TIERS.entries()) {
    if (out.length >= limit) break
    if (status && t.active !== (status === 'active')) continue
    if (from && i < from.tier) continue
    let after = from && i === from.tier ? from.after : 0
    const push = (rows: Row[]) => {
      for (const [dot_number, legal_name, dba_name] of rows) {
        out.push({ dot_number, legal_name, dba_name, active: t.active, tier: i })
        after = dot_number
      }
    }
    const s = stagedStatements(census)[i] as StagedStatements
    if (!staged) {
      push(
        (after
          ? s.after.all(expr, after, limit - out.length)
          : (stmts[i] as Database.Statement).all(expr, limit - out.length)) as Row[],
      )
      if (from) Object.assign(from, { tier: i, after })
      continue
    }
    // stepped row by row (a read-only connection may run other reads, like rowMatches, meanwhile)
    const rows = s.step.iterate(staged.match, after) as IterableIterator<StagedRow>
    // only filters checked on the rows (no common words): once most rows fail them, the filter's
    // tag in FTS5 is cheaper than a companies row per candidate
    const onlyFilters = staged.phrases.length === 0
    let kept = 0
    let turnedDown = 0
    let switched = false
    try {
      for (const row of rows) {
        const [dot, legal, dba] = row
        after = dot
        const ok =
          passesRowFilters(staged, row) &&
          (onlyFilters || (holdsPhrases(staged.phrases, legal, dba) ?? rowMatches(s, expr, dot)))
        if (ok) {
          push([[dot, legal, dba]])
          kept++
        } else {
          budget--
          turnedDown++
        }
        if (out.length >= limit || budget <= 0) break
        if (onlyFilters && turnedDown >= STAGED_SAMPLE && turnedDown > kept * STAGED_RATIO) {
          switched = true
          break
        }
      }
    } finally {
      rows.return?.()
    }
    // the cheap stage keeps few of its rows: FTS5 reads the rest of this tier
    if ((budget <= 0 || switched) && out.length < limit)
      push(s.after.all(expr, after, limit - out.length) as Row[])
    if (from) Object.assign(from, { tier: i, after })
  }
  return out
}

/**
 * Whether a candidate's legal or DBA name holds each of the words as FTS5 matches them (each word
 * a phrase, as columns() writes them): from the ASCII tokens of ASCII words and names, else by
 * FTS5 on that one row.
 */
export function holdsWords(
  census: ActiveDataset,
  c: NameCandidate,
  ws: readonly string[],
): boolean {
  if (ws.every((w) => ASCII.test(w))) {
    const held = holdsPhrases(ws.map(asciiTokens), c.legal_name, c.dba_name)
    if (held !== null) return held
  }
  const s = stagedStatements(census)[c.tier] as StagedStatements
  return rowMatches(s, columns(ws), c.dot_number)
}

/** Tag tokens of the `tags` column, for filters. */
export const tag = {
  state: (s: string) => `st${s.toLowerCase()}`,
  country: (c: string) => `ct${c.toLowerCase()}`,
  entityType: (e: string) => `et${e.toLowerCase()}`,
  stateCarrier: stateCarrierTag,
}

/** The kinds of tags the census file's names carry (census/search-index.ts TAG_KINDS). */
export const tagKindsOf = (census: ActiveDataset) =>
  valuesOf(census, 'search_tag_kinds', 'kind', FORMAT_3_TAG_KINDS) as ReadonlySet<TagKind>

const HAS_TOKEN_CHAR = /[\p{L}\p{N}]/u

/** Words of user text that carry at least one letter or digit (the others tokenize to nothing). */
export function queryWords(text: string): string[] {
  // control characters (NUL ends an FTS5 string early) separate words like spaces
  return text
    .replace(/\p{Cc}/gu, ' ')
    .split(/\s+/)
    .filter((w) => HAS_TOKEN_CHAR.test(w))
    .slice(0, MAX_QUERY_WORDS)
}

/**
 * An FTS5 expression over legal and DBA names for user text, or null when it has no word.
 * Every word is a quoted phrase (so `AND`, `NEAR(`, `*`, `"` and `:` are just text). The last
 * word is a prefix, for type-ahead: `expand` gives its most frequent indexed terms and the word
 * must match one of them (or itself); a letter that NFKD does not fold (ø, ł, ß) falls back to an
 * FTS5 prefix query, which is slower but only ever covers rare terms.
 */
export function toFtsQuery(text: string, expand: (prefix: string) => string[]): string | null {
  const words = queryWords(text)
  const last = words.pop()
  if (last === undefined) return null
  const parts = words.map(phrase)
  const subs = fold(last)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
  const final = subs.at(-1) ?? ''
  if (!/^[a-z0-9]+$/.test(final)) parts.push(`${phrase(last)}*`)
  else {
    const head = subs.slice(0, -1).join(' ')
    const terms = expand(final).slice(0, parts.length ? MAX_PREFIX_TERMS_AFTER_WORDS : undefined)
    const options = [...new Set([final, ...terms])].map((t) => phrase(head ? `${head} ${t}` : t))
    parts.push(options.length === 1 ? (options[0] ?? '') : `(${options.join(' OR ')})`)
  }
  return `{legal_name dba_name} : (${parts.join(' AND ')})`
}

/**
 * For text of several words whose last one folds to plain letters and digits: an FTS5 expression
 * of the other words only, one of all the words taken whole, and the last word normalized
 * (normalizeName). The query layer reads the names matching the other words and keeps those with
 * a word starting with the last one; the whole-word expression finds the names holding the last
 * word as typed, however rare it is among the others' matches. FTS5 evaluates an OR of prefix expansions by
 * seeking every branch at each step, which for two or more words costs a multiple of the
 * shortest word's postings (it grows with the census); checking the prefix on the names read
 * anyway costs nothing and matches every completion, not only the most frequent ones.
 */
export function splitLastWord(
  text: string,
  /** the census file's pair words: each expression also gets its pairCondition, and a Staged form */
  pairWords: ReadonlySet<string> = new Set(),
): { words: WordsMatch; whole: WordsMatch; last: string; lastWord: string } | null {
  const words = queryWords(text)
  const last = words.pop()
  if (last === undefined || words.length === 0) return null
  const final = fold(last)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .at(-1)
  if (final === undefined || !/^[a-z0-9]+$/.test(final)) return null
  return {
    words: wordsMatch(words, pairWords),
    // the last word as a whole word: FTS5 intersects it cheaply, whatever its frequency
    whole: wordsMatch([...words, last], pairWords),
    last: normalizeName(last),
    lastWord: last,
  }
}

/**
 * An AND of several common words in two stages: FTS5 reads the names matching `match` (the pair
 * tags and the words holding no pair word: short posting lists), the query layer keeps those
 * whose legal or DBA name holds each of `phrases` (the words holding a pair word, as their runs of
 * tokens). Together the same names as the words' FTS5 expression, without FTS5 seeking every
 * common word's long posting list at each step of the intersection.
 */
export interface Staged {
  match: string
  phrases: string[][]
  /**
   * Filters checked on the rows read instead of by their tags in `match` (a tag in most names,
   * like `etcarrier`, makes FTS5 seek its long list at every step): the census-only entity type
   * (census/entity.ts, as the build computed the tag), and the country in lower case.
   */
  entityType?: string
  country?: string
}
/** An AND of user words: the FTS5 expression, and its Staged form when it has one. */
export interface WordsMatch {
  match: string
  staged: Staged | null
}

const columns = (ws: readonly string[]) =>
  `{legal_name dba_name} : (${ws.map(phrase).join(' AND ')})`

/** The expression of an AND of words, with its pair condition, and its Staged form (ASCII words). */
export function wordsMatch(ws: readonly string[], pairWords: ReadonlySet<string>): WordsMatch {
  const pairs = pairCondition(ws, pairWords)
  const expr = columns(ws)
  if (!pairs) return { match: expr, staged: null }
  const match = `${pairs} AND ${expr}`
  if (!ws.every((w) => ASCII.test(w))) return { match, staged: null }
  // a word is common when all its tokens are pair words (A-1: its `1` drives FTS5 better)
  const isCommon = (w: string) => asciiTokens(w).every((t) => pairWords.has(t))
  const common = ws.filter(isCommon)
  const rare = ws.filter((w) => !isCommon(w))
  // one common word (D&E): FTS5 checks its phrase on the pair's postings as cheaply
  if (common.length < 2) return { match, staged: null }
  return {
    match,
    staged: {
      match: rare.length ? `${pairs} AND ${columns(rare)}` : pairs,
      phrases: common.map(asciiTokens),
    },
  }
}

const holdsRun = (tokens: readonly string[], run: readonly string[]) => {
  for (let i = 0; i + run.length <= tokens.length; i++) {
    let k = 0
    while (k < run.length && tokens[i + k] === run[k]) k++
    if (k === run.length) return true
  }
  return false
}

/**
 * Whether a legal or DBA name holds each run of tokens (the FTS5 phrase match of
 * `{legal_name dba_name} : ("a b" AND "c")`); null for a name with non-ASCII letters, whose
 * tokens only FTS5 knows exactly.
 */
export function holdsPhrases(
  phrases: readonly string[][],
  legal: string | null,
  dba: string | null,
): boolean | null {
  if (!ASCII.test(legal ?? '') || !ASCII.test(dba ?? '')) return null
  const l = asciiTokens(legal ?? '')
  const d = asciiTokens(dba ?? '')
  return phrases.every((run) => holdsRun(l, run) || holdsRun(d, run))
}

/**
 * An FTS5 expression for the names that *start with* the text (the best-scoring ones), or null
 * when the text has no token or ends in a letter NFKD cannot fold. The first token is matched
 * through the `fw<token>` tag of each name's first word (census/search-index.ts), whose posting
 * list is short for almost every word, so this stays cheap even for the most common words (a
 * plain `^"trucking"` would walk every name holding TRUCKING to check its position). With more
 * than one token the whole text must also be the names' leading phrase (FTS5 `^`).
 */
export function toLeadingFtsQuery(
  text: string,
  expand: (prefix: string) => string[],
  /** several words: the other words' expression (splitLastWord), instead of a leading phrase */
  words: string | null = null,
): string | null {
  const tokens = fold(queryWords(text).join(' '))
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
  const final = tokens.pop()
  if (final === undefined || !/^[a-z0-9]+$/.test(final)) return null
  const options = [
    ...new Set([
      final,
      ...expand(final).slice(0, tokens.length ? MAX_PREFIX_TERMS_AFTER_WORDS : undefined),
    ]),
  ]
  if (tokens.length === 0)
    return `tags : (${options.map((t) => phrase(firstWordTag(t))).join(' OR ')})`
  // several words: names whose first word is the first token and that hold the other words
  if (words) return `tags : ${phrase(firstWordTag(tokens[0] ?? ''))} AND ${words}`
  const head = tokens.join(' ')
  const phrases = options.map((t) => `^${phrase(`${head} ${t}`)}`)
  return `tags : ${phrase(firstWordTag(tokens[0] ?? ''))} AND {legal_name dba_name} : (${phrases.join(' OR ')})`
}

const NORMAL = /^[A-Z0-9]+(?: [A-Z0-9]+)*$/

/** A name folded for comparison: no accents, upper case, punctuation as single spaces. */
export function normalizeName(s: string): string {
  if (NORMAL.test(s)) return s // most census names: nothing to fold
  return s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
}
