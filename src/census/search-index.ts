/**
 * The name-search index of the census dataset file (its reader and the ranking rationale:
 * search/fts.ts): three contentless FTS5 tables by static tier, the indexed terms with their
 * document counts, and the most frequent terms per short prefix. Built once, by the census build,
 * after the rows are in. Each indexed company also carries filter tags computed here, once:
 * `st<state>`, `ct<country>` and `et<entity type>` (the census-only entity type of
 * census/entity.ts), `sc<state>` for a carrier (entityTags), so every filter of a name search is
 * applied inside FTS5, and `fw<token>`
 * for the first token of its legal and DBA names, so names starting with a word are found fast.
 *
 * Word pairs: an AND of common words (SMITH EXPRESS AND TRUCKING, each in 200,000+ names) costs
 * FTS5 a walk over their whole posting lists when few names hold them all, whatever the LIMIT. So
 * the most common words (`search_pair_words`, from a sample of the names) also give each name a
 * `pw` tag per pair of them it holds (in its legal or DBA name): a query of several of these words
 * adds a pair's tag as one more condition (search/fts.ts), whose short posting list drives the
 * intersection. The tag is only ever an extra AND, so a stray one cannot add a match; a name with
 * non-ASCII letters (whose tokens only FTS5 knows exactly) gets `pwany`, which every pair accepts.
 */
import type { Sqlite } from '../db/open.ts'
import { throwIfStopped, type PartJob } from '../ingest/parts.ts'
import { censusEntityType } from './entity.ts'

/** Most terms a trailing prefix expands to (the most frequent first) when it is the only word. */
export const MAX_PREFIX_TERMS = 64

/** Static tiers, best first: which companies each FTS5 table holds. */
export const TIERS = [
  { table: 'search_fts_1', active: true, where: "status_code IS 'A' AND dockets IS NOT NULL" },
  { table: 'search_fts_2', active: true, where: "status_code IS 'A' AND dockets IS NULL" },
  { table: 'search_fts_3', active: false, where: "status_code IS NOT 'A'" },
] as const
export type Tier = (typeof TIERS)[number]

/**
 * The SQL function of the build (registered on the connections that fill tiers only): a name's
 * entity-type and pair tags, in one call (each JS call per row has a fixed cost of its own).
 */
const TAGS_FN = 'census_js_tags'

/**
 * The kinds of tags a file's names carry (its `search_tag_kinds` table; a file built before the
 * table has the first five): `sc` is the state of a carrier (below).
 */
export const TAG_KINDS = ['st', 'ct', 'et', 'fw', 'pw', 'sc'] as const
export type TagKind = (typeof TAG_KINDS)[number]
/** The kinds of a file built before `search_tag_kinds` (census format 3). */
export const FORMAT_3_TAG_KINDS: readonly TagKind[] = TAG_KINDS.filter((k) => k !== 'sc')

/** A state or country code a tag is made of (the SQL tags' `GLOB '[A-Za-z][A-Za-z]'`). */
export const TWO_LETTERS = /^[A-Za-z]{2}$/
/** The tag of a carrier's state (`sc` + state), as entityTags gives it. */
export const stateCarrierTag = (state: string) => `sc${state.toLowerCase()}`

/**
 * A name's entity-type tags: `et` + its census entity type (census/entity.ts) and, for a carrier
 * with a state, `sc` + the state: the names both `st<state>` and `etcarrier` tag, in one posting
 * list. A state + carrier search (most carrier searches) reads that list instead of checking the
 * entity type of every name in the state (`etcarrier`, in most names, is too long a list to
 * intersect). One JS call per name builds both, since the entity type is computed in JS.
 */
export function entityTags(
  classdef: string | null,
  units: number | null,
  dockets: string | null,
  state: string | null,
): string {
  const e = censusEntityType(classdef, units, dockets)
  if (e === null) return ''
  if (e === 'carrier' && state !== null && TWO_LETTERS.test(state))
    return `etcarrier ${stateCarrierTag(state)}`
  return `et${e}`
}

/** A name's sample rate for choosing the pair words (every SAMPLE-th USDOT). */
const PAIR_SAMPLE = 16
/** A word is a pair word when it is in at least one name in this many (and among the most common). */
const PAIR_WORD_SHARE = 150
/** Most pair words: a name holds at most a few of them, so its pairs stay few. */
const MAX_PAIR_WORDS = 128
/** Longest pair word (the tag holds two). */
const MAX_PAIR_WORD_LENGTH = 24

/** The tag of a pair of (distinct) pair words, whatever their order. */
export const pairTag = (a: string, b: string) =>
  a < b ? `pw${a.length}${a}${b}` : `pw${b.length}${b}${a}`
/** The tag of a name whose tokens only FTS5 knows exactly (non-ASCII): it has every pair. */
export const ANY_PAIR = 'pwany'

/** The FTS5 (unicode61) tokens of ASCII text: runs of letters and digits, lower case. */
export const asciiTokens = (s: string) =>
  s
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)

/**
 * The pair tags of a name (legal and DBA together), space-separated ('' when it has none).
 * `words`: the pair words in upper case.
 */
export function namePairTags(
  words: ReadonlySet<string>,
  legal: string | null,
  dba: string | null,
): string {
  const text = dba === null ? (legal ?? '') : `${legal ?? ''} ${dba}`
  // 4.5 million names: one pass over the characters (the tokens are runs of ASCII letters and
  // digits; a name with any other non-ASCII character has every pair), upper-casing only the
  // tokens that hold a lower-case letter. A split on a regular expression took 1.4 times as long.
  let first: string | undefined
  let held: string[] | undefined
  let start = -1
  let lower = false
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32
    if ((c >= 65 && c <= 90) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i
      continue
    }
    if (c >= 97 && c <= 122) {
      if (start < 0) start = i
      lower = true
      continue
    }
    if (c > 127) return ANY_PAIR
    if (start < 0) continue
    const t = lower ? text.slice(start, i).toUpperCase() : text.slice(start, i)
    start = -1
    lower = false
    if (!words.has(t) || t === first || held?.includes(t)) continue
    if (first === undefined) first = t
    else (held ??= [first]).push(t)
  }
  if (!held) return ''
  const tags: string[] = []
  for (let i = 0; i < held.length; i++)
    for (let j = i + 1; j < held.length; j++)
      tags.push(pairTag((held[i] as string).toLowerCase(), (held[j] as string).toLowerCase()))
  return tags.join(' ')
}

/**
 * The pair words: the ASCII tokens in at least one name in PAIR_WORD_SHARE of a sample (every
 * PAIR_SAMPLE-th USDOT), at most MAX_PAIR_WORDS of them, the most common first. A census build
 * takes its sample as the rows load (`PairWordSample`); this reads it back from the table.
 */
export function pairWords(db: Sqlite): string[] {
  const rows = db
    .prepare(
      `SELECT legal_name, dba_name FROM companies
       WHERE dot_number % ${PAIR_SAMPLE} = 0 AND (legal_name IS NOT NULL OR dba_name IS NOT NULL)`,
    )
    .raw(true)
    .iterate() as IterableIterator<[string | null, string | null]>
  const counts = new PairWordCounts()
  for (const [legal, dba] of rows) counts.add(legal, dba)
  return counts.top()
}

/** Names counted per ASCII token, for the pair words. */
class PairWordCounts {
  private readonly counts = new Map<string, number>()
  private names = 0

  add(legal: string | null, dba: string | null): void {
    this.names++
    for (const t of new Set(asciiTokens(`${legal ?? ''} ${dba ?? ''}`)))
      if (t.length <= MAX_PAIR_WORD_LENGTH) this.counts.set(t, (this.counts.get(t) ?? 0) + 1)
  }

  top(): string[] {
    const min = Math.max(2, this.names / PAIR_WORD_SHARE)
    return [...this.counts]
      .filter(([, n]) => n >= min)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, MAX_PAIR_WORDS)
      .map(([t]) => t)
  }
}

/**
 * The pair words' sample taken as a census loads (search-build.ts): the names of every
 * PAIR_SAMPLE-th USDOT counted as their rows go in, so `words` is `pairWords` of the loaded table
 * without reading every row back (one thread's work, the other core idle). Only the counts
 * are kept (keeping the sampled names would hold them all in resident memory): a sampled USDOT
 * loaded again replaces the names counted for it, so then `words` reads the sample back instead.
 */
export class PairWordSample {
  private readonly counts = new PairWordCounts()
  private replaced = false

  /** a row as it loads; `first`: its USDOT was not loaded before */
  add(dot: number, legal: string | null, dba: string | null, first: boolean): void {
    if (dot % PAIR_SAMPLE !== 0) return
    if (!first) this.replaced = true
    else if (legal !== null || dba !== null) this.counts.add(legal, dba)
  }

  /** the pair words of the loaded table `db` */
  words(db: Sqlite): string[] {
    return this.replaced ? pairWords(db) : this.counts.top()
  }
}

/** Folding close to unicode61 `remove_diacritics 2`: accents off, lower case. */
export const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()

/** The tag of a name's first token (`fw` + the token as FTS5 folds it): "names starting with". */
export const firstWordTag = (token: string) => `fw${token}`

/** ASCII punctuation and spaces a name's first word is read after (as an SQL string's text). */
const LEADING_NON_WORD = ` !"#$%&''()*+,-./:;<=>?@[\\]^_\`{|}~`
/**
 * `fw` + the name up to its first space, leading ASCII punctuation skipped, in SQL (a JS function
 * per row costs more than the rest of the tags). FTS5 folds case and accents of the tag like any
 * token, and splits it at punctuation: `O'BRIEN` gives `fwo` (the first token, as queries build
 * it) and a stray `brien`, which no tag query looks for. `"B" TRUCKING` and `#1 TRUCKING` give
 * `fwb` and `fw1`, so they rank among the names starting with `B` and `1` (census format 4).
 */
const firstWordSql = (col: string) => {
  const upToSpace = (name: string) =>
    `'fw' || lower(CASE WHEN instr(${name}, ' ') > 0 THEN substr(${name}, 1, instr(${name}, ' ') - 1) ELSE ${name} END)`
  // most names start with a letter or digit: ltrim only the others (ltrim on every name is a
  // noticeable share of the index build)
  return `CASE WHEN ${col} GLOB '[A-Za-z0-9]*' THEN ${upToSpace(col)} ELSE ${upToSpace(`ltrim(${col}, '${LEADING_NON_WORD}')`)} END`
}

/**
 * FTS5's buffer of pending terms (bytes) while a tier is filled, and no merging of segments on the
 * way (the one `optimize` at the end merges them all): with FTS5's defaults (1 MiB, automerge 4)
 * the tiers cost more CPU, merging segments that the final `optimize` merges again; a larger
 * buffer made no difference beyond noise, so it is small. Both are set back to FTS5's defaults once the tier is
 * built (they are stored in its `_config` table).
 */
const FILL_HASH_BYTES = 8 << 20
const DEFAULT_HASH_BYTES = 1 << 20
const DEFAULT_AUTOMERGE = 4

// contentless: the index holds only the postings; names are read from `companies` by USDOT
const tierTableDdl = (t: Tier) => `
CREATE VIRTUAL TABLE ${t.table} USING fts5(
  legal_name, dba_name, tags, content='', tokenize='unicode61 remove_diacritics 2', columnsize=0
);`

/** Fills a tier from `<source>.companies` (the build file, or the build file attached to a part). */
const tierFillSql = (t: Tier, source: string) => `
BEGIN;
INSERT INTO ${t.table}(${t.table}, rank) VALUES ('hashsize', ${FILL_HASH_BYTES});
INSERT INTO ${t.table}(${t.table}, rank) VALUES ('automerge', 0);
INSERT INTO ${t.table}(rowid, legal_name, dba_name, tags)
  SELECT dot_number, legal_name, dba_name,
    CASE WHEN phy_state GLOB '[A-Za-z][A-Za-z]' THEN 'st' || lower(phy_state) ELSE '' END || ' ' ||
    CASE WHEN phy_country GLOB '[A-Za-z][A-Za-z]' THEN 'ct' || lower(phy_country) ELSE '' END || ' ' ||
    ${TAGS_FN}(classdef, power_units, dockets, phy_state, legal_name, dba_name) || ' ' ||
    coalesce(${firstWordSql('legal_name')}, '') || ' ' || coalesce(${firstWordSql('dba_name')}, '')
  FROM ${source}.companies WHERE (legal_name IS NOT NULL OR dba_name IS NOT NULL) AND ${t.where}
  ORDER BY dot_number;
INSERT INTO ${t.table}(${t.table}) VALUES ('optimize');
INSERT INTO ${t.table}(${t.table}, rank) VALUES ('hashsize', ${DEFAULT_HASH_BYTES});
INSERT INTO ${t.table}(${t.table}, rank) VALUES ('automerge', ${DEFAULT_AUTOMERGE});
COMMIT;`

/** A table of terms with the number of names holding each (search_terms and the parts' counts). */
const termsTableDdl = (table: string) =>
  `CREATE TABLE ${table} (term TEXT PRIMARY KEY, docs INTEGER NOT NULL) STRICT, WITHOUT ROWID;`

/**
 * `table` := how many names of the tiers hold each term (in their legal or DBA name), from the
 * tiers' vocabularies (the tiers are in `main`).
 */
const termCountsSql = (tiers: readonly Tier[], table: string) => `
${tiers.map((t) => `CREATE VIRTUAL TABLE temp.${t.table}_vocab USING fts5vocab(main, ${t.table}, col);`).join('\n')}
${termsTableDdl(table)}
INSERT INTO ${table}
  SELECT term, sum(doc) FROM (${tiers.map((t) => `SELECT term, doc, col FROM temp.${t.table}_vocab`).join(' UNION ALL ')})
  WHERE col IN ('legal_name', 'dba_name') GROUP BY term;
${tiers.map((t) => `DROP TABLE temp.${t.table}_vocab;`).join('\n')}`

/** The tables beside the tiers, once `search_terms` is in. */
const SEARCH_TAIL_DDL = `
CREATE TABLE search_pair_words (term TEXT PRIMARY KEY) STRICT, WITHOUT ROWID;
CREATE TABLE search_tag_kinds (kind TEXT PRIMARY KEY) STRICT, WITHOUT ROWID;
INSERT INTO search_tag_kinds VALUES ${TAG_KINDS.map((k) => `('${k}')`).join(', ')};
CREATE TABLE search_prefixes (
  prefix TEXT NOT NULL, term TEXT NOT NULL, docs INTEGER NOT NULL, PRIMARY KEY (prefix, term)
) STRICT, WITHOUT ROWID;
${[1, 2, 3]
  .map(
    (n) => `INSERT INTO search_prefixes SELECT prefix, term, docs FROM (
  SELECT substr(term, 1, ${n}) AS prefix, term, docs,
    row_number() OVER (PARTITION BY substr(term, 1, ${n}) ORDER BY docs DESC, term) AS k
  FROM search_terms WHERE length(term) >= ${n}
) WHERE k <= ${MAX_PREFIX_TERMS};`,
  )
  .join('\n')}
`

/** Registers the build's SQL function on `db` (the connection that fills tiers). */
function registerTagFunction(db: Sqlite, words: readonly string[], stop?: Int32Array): void {
  // namePairTags matches upper-case tokens (census names are upper case)
  const set = new Set(words.map((w) => w.toUpperCase()))
  db.function(TAGS_FN, { deterministic: true }, (classdef, units, dockets, state, legal, dba) => {
    if (stop) throwIfStopped(stop)
    const entity = entityTags(
      classdef as string | null,
      units as number | null,
      dockets as string | null,
      state as string | null,
    )
    const pairs = namePairTags(set, legal as string | null, dba as string | null)
    return entity && pairs ? `${entity} ${pairs}` : entity || pairs
  })
}

/** The pair words, then the rest once search_terms is in. */
function finishSearchTables(db: Sqlite, words: readonly string[]): void {
  db.exec(SEARCH_TAIL_DDL)
  const insert = db.prepare('INSERT INTO search_pair_words (term) VALUES (?)')
  for (const w of words) insert.run(w)
}

/**
 * Builds the tier tables (with the pair tags), search_terms, search_prefixes and
 * search_pair_words from a loaded `companies` table, in the calling thread (census build, after the
 * rows are in; a large census builds them in other threads: search-build.ts). The dataset file is
 * never updated in place.
 */
export function buildSearchIndex(db: Sqlite, words: string[] = pairWords(db)): void {
  registerTagFunction(db, words)
  for (const t of TIERS) db.exec(tierTableDdl(t) + tierFillSql(t, 'main'))
  db.exec(termCountsSql(TIERS, 'search_terms'))
  finishSearchTables(db, words)
}

/** A search part's task (ingest/parts.ts runs it): the tiers it builds and the pair words. */
export interface SearchPartTask {
  tiers: readonly Tier[]
  words: string[]
}

/** The table of a part file with its tiers' term counts (termCountsSql). */
export const PART_TERMS = 'search_part_terms'

/**
 * Builds some tiers into their own file (`job.target`), reading the census build file attached
 * as `src`; then the part's term counts. Runs in a worker thread (search-build.ts), while the
 * census build goes on with its other indexes; the build copies the parts in (copySearchParts).
 */
export function buildSearchPart(job: PartJob<SearchPartTask>, db: Sqlite, stop: Int32Array): void {
  const { tiers, words } = job.task
  db.prepare('ATTACH DATABASE ? AS src').run(job.source)
  registerTagFunction(db, words, stop)
  for (const t of tiers) {
    throwIfStopped(stop)
    try {
      db.exec(tierTableDdl(t) + tierFillSql(t, 'src'))
    } catch (err) {
      // the fill's transaction is still open when the tags function stopped it
      if (db.inTransaction) db.exec('ROLLBACK')
      throw err
    }
  }
  db.exec('DETACH DATABASE src')
  throwIfStopped(stop)
  db.exec(termCountsSql(tiers, PART_TERMS))
}

/** An FTS5 table's shadow tables (contentless, no column sizes: no `_content`, no `_docsize`). */
const SHADOW_TABLES = ['data', 'idx', 'config'] as const

/**
 * Copies the tiers of part files (buildSearchPart) into the census build file and sums their term
 * counts into search_terms, then builds the remaining search tables. Each tier is created empty
 * here, then its shadow tables are replaced by the part's, row for row: an FTS5 index is only
 * these rows (no page numbers, nothing outside its tables), so the copy is the same index.
 * Writing shadow tables needs SQLite's defensive mode off (better-sqlite3's `unsafeMode`), for
 * these statements only.
 */
export function copySearchParts(
  db: Sqlite,
  parts: readonly { path: string; tiers: readonly Tier[] }[],
  words: readonly string[],
): void {
  parts.forEach((p, i) => db.prepare('ATTACH DATABASE ? AS ?').run(p.path, `part${i}`))
  try {
    db.transaction(() => {
      parts.forEach((p, i) => {
        for (const t of p.tiers) {
          const table = t.table
          db.exec(tierTableDdl(t))
          db.unsafeMode(true)
          try {
            for (const s of SHADOW_TABLES)
              db.exec(
                `DELETE FROM main.${table}_${s}; INSERT INTO main.${table}_${s} SELECT * FROM part${i}.${table}_${s};`,
              )
          } finally {
            db.unsafeMode(false)
          }
        }
      })
      db.exec(`${termsTableDdl('search_terms')}
INSERT INTO search_terms SELECT term, sum(docs) FROM (${parts.map((_, i) => `SELECT term, docs FROM part${i}.${PART_TERMS}`).join(' UNION ALL ')}) GROUP BY term;`)
      finishSearchTables(db, words)
    })()
  } finally {
    parts.forEach((_, i) => db.exec(`DETACH DATABASE part${i}`))
  }
}
