/**
 * The name-search index of the census dataset file (its reader and the ranking rationale:
 * search/fts.ts): three contentless FTS5 tables by static tier, the indexed terms with their
 * document counts, and the most frequent terms per short prefix. Built once, by the census build,
 * after the rows are in. Each indexed company also carries filter tags computed here, once:
 * `st<state>`, `ct<country>` and `et<entity type>` (the census-only entity type of
 * census/entity.ts), so every filter of a name search is applied inside FTS5, and `fw<token>`
 * for the first token of its legal and DBA names, so names starting with a word are found fast.
 */
import type { Sqlite } from '../db/open.ts'
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

/** The SQL function of the build (registered on the build connection only). */
const ENTITY_FN = 'census_entity_type'

/** Folding close to unicode61 `remove_diacritics 2`: accents off, lower case. */
export const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()

/** The tag of a name's first token (`fw` + the token as FTS5 folds it): "names starting with". */
export const firstWordTag = (token: string) => `fw${token}`

/**
 * `fw` + the name up to its first space, in SQL (a JS function per row costs more than the rest
 * of the tags). FTS5 folds case and accents of the tag like any token, and splits it at
 * punctuation: `O'BRIEN` gives `fwo` (the first token, as queries build it) and a stray `brien`,
 * which no tag query looks for. A name starting with punctuation (`"B" TRUCKING`) gets no usable
 * tag: it is still found by its words, only not ranked among the names starting with `B`.
 */
const firstWordSql = (col: string) =>
  `'fw' || lower(CASE WHEN instr(${col}, ' ') > 0 THEN substr(${col}, 1, instr(${col}, ' ') - 1) ELSE ${col} END)`

// contentless: the index holds only the postings; names are read from `companies` by USDOT
const tierDdl = (t: Tier) => `
CREATE VIRTUAL TABLE ${t.table} USING fts5(
  legal_name, dba_name, tags, content='', tokenize='unicode61 remove_diacritics 2', columnsize=0
);
INSERT INTO ${t.table}(rowid, legal_name, dba_name, tags)
  SELECT dot_number, legal_name, dba_name,
    CASE WHEN phy_state GLOB '[A-Za-z][A-Za-z]' THEN 'st' || lower(phy_state) ELSE '' END || ' ' ||
    CASE WHEN phy_country GLOB '[A-Za-z][A-Za-z]' THEN 'ct' || lower(phy_country) ELSE '' END || ' ' ||
    coalesce('et' || ${ENTITY_FN}(classdef, power_units, dockets), '') || ' ' ||
    coalesce(${firstWordSql('legal_name')}, '') || ' ' || coalesce(${firstWordSql('dba_name')}, '')
  FROM companies WHERE (legal_name IS NOT NULL OR dba_name IS NOT NULL) AND ${t.where}
  ORDER BY dot_number;
INSERT INTO ${t.table}(${t.table}) VALUES ('optimize');
CREATE VIRTUAL TABLE temp.${t.table}_vocab USING fts5vocab(main, ${t.table}, col);`

const SEARCH_DDL = `${TIERS.map(tierDdl).join('\n')}
CREATE TABLE search_terms (term TEXT PRIMARY KEY, docs INTEGER NOT NULL) STRICT, WITHOUT ROWID;
INSERT INTO search_terms
  SELECT term, sum(doc) FROM (${TIERS.map((t) => `SELECT term, doc, col FROM temp.${t.table}_vocab`).join(' UNION ALL ')})
  WHERE col IN ('legal_name', 'dba_name') GROUP BY term;
${TIERS.map((t) => `DROP TABLE temp.${t.table}_vocab;`).join('\n')}
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

/**
 * Builds the tier tables, search_terms and search_prefixes from a loaded `companies` table
 * (census build, after the rows are in). The dataset file is never updated in place.
 */
export function buildSearchIndex(db: Sqlite): void {
  db.function(ENTITY_FN, { deterministic: true }, (classdef, units, dockets) =>
    censusEntityType(classdef as string | null, units as number | null, dockets as string | null),
  )
  db.exec(SEARCH_DDL)
}
