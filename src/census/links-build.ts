/**
 * The link index, built with the census (docs/identity.md): which companies share an officer, a
 * phone, a fax, an e-mail or a physical address. `link_values` counts the companies behind every
 * value two or more share (a value over its cap is suppressed: never a link, only counted);
 * `company_links` holds every linked pair, both ways, with the kinds they share as bits
 * (LINK_BITS). VINs are not here: they come from the equipment dataset at query time
 * (identity/links.ts).
 */
import type { Sqlite } from '../db/open.ts'
import { throwIfStopped, type PartJob } from '../ingest/parts.ts'
import type { BuildContext } from '../ingest/types.ts'
import { COMMON_NAME_MARK } from './link-keys.ts'

/** The kinds of `company_links.shared`, one bit each. */
export const LINK_BITS = {
  /** the same officer, by the same full name, not a common one: a link on its own */
  officer: 1,
  phone: 2,
  fax: 4,
  email: 8,
  address: 16,
  /** the same officer key only: counts as `officer` when the pair shares something else too */
  officerKey: 32,
} as const

/** A value shared by more companies than this is suppressed (never a link). */
export const LINK_CAPS = {
  phone: 20,
  fax: 20,
  email: 20,
  address: 20,
  officer: 20,
  /** VINs: the equipment dataset's SHARED_WIDELY_ABOVE */
  vin: 5,
} as const

const HARD_BITS = LINK_BITS.phone | LINK_BITS.fax | LINK_BITS.email | LINK_BITS.address

/**
 * The kinds of `link_keys` (below): the `companies` column of each, its bit, its cap. Both
 * officers of a company are kind `officer`.
 */
const KEY_KINDS = [
  { kind: 'phone', column: 'phone', bit: LINK_BITS.phone },
  { kind: 'fax', column: 'fax', bit: LINK_BITS.fax },
  { kind: 'email', column: 'email', bit: LINK_BITS.email },
  { kind: 'address', column: 'address_key', bit: LINK_BITS.address },
  { kind: 'officer', column: 'officer_1_key', bit: 0 },
] as const
/** The `link_keys` code of kind `officer` (its position in KEY_KINDS, from 1). */
const OFFICER = KEY_KINDS.length

const kindCase = (code: string, of: (k: (typeof KEY_KINDS)[number]) => string) =>
  `CASE ${code} ${KEY_KINDS.map((k, i) => `WHEN ${i + 1} THEN ${of(k)}`).join(' ')} END`

/** The tables the build file keeps. */
export const LINK_TABLES_DDL = `
CREATE TABLE link_values (kind TEXT NOT NULL, value TEXT NOT NULL, companies INTEGER NOT NULL,
  PRIMARY KEY (kind, value)) STRICT, WITHOUT ROWID;
CREATE TABLE company_links (dot_number INTEGER NOT NULL, other INTEGER NOT NULL,
  shared INTEGER NOT NULL, PRIMARY KEY (dot_number, other)) STRICT, WITHOUT ROWID;`

/**
 * The statements making the link tables from `<source>.companies`, with working tables in `work`
 * (dropped at the end). One pass over `companies` gives every company's keys, a row per kind and
 * value, sorted once (`link_keys`; an officer 2 with officer 1's key is left out, so (kind, value,
 * dot) is unique and count(*) counts companies). The shared values are its groups of more than
 * one company; the pairs, the products of the groups within the caps. An officer pair is a link
 * by itself when both companies name the officer the same way and the name is not a common one;
 * otherwise it keeps only the officer-key bit (a shared VIN, known at query time, or another
 * shared kind can complete it). Every bit is a power of two: the sum of a pair's distinct bits is
 * their union.
 */
const linkTablesSql = (source: string, work: string): string[] => [
  `CREATE TABLE ${work}.link_keys (kind INTEGER NOT NULL, value TEXT NOT NULL,
  dot INTEGER NOT NULL, name TEXT, PRIMARY KEY (kind, value, dot)) WITHOUT ROWID`,
  `INSERT INTO ${work}.link_keys
  SELECT min(k.code, ${OFFICER}),
    CASE k.code ${KEY_KINDS.map((kk, i) => `WHEN ${i + 1} THEN c.${kk.column}`).join(' ')}
      ELSE c.officer_2_key END AS value,
    c.dot_number,
    CASE k.code WHEN ${OFFICER} THEN upper(c.officer_1) WHEN ${OFFICER + 1} THEN upper(c.officer_2) END
  FROM ${source}.companies c CROSS JOIN (${Array.from({ length: OFFICER + 1 }, (_, i) => `SELECT ${i + 1} AS code`).join(' UNION ALL ')}) k
  WHERE value IS NOT NULL
    AND (k.code <> ${OFFICER + 1} OR c.officer_2_key IS NOT coalesce(c.officer_1_key, ''))
  ORDER BY 1, 2, 3`,
  `CREATE TABLE ${work}.link_shared (kind INTEGER NOT NULL, value TEXT NOT NULL, n INTEGER NOT NULL)`,
  `INSERT INTO ${work}.link_shared SELECT kind, value, count(*) FROM ${work}.link_keys
  GROUP BY kind, value HAVING count(*) > 1`,
  `INSERT INTO link_values SELECT ${kindCase('kind', (k) => `'${k.kind}'`)}, value, n
  FROM ${work}.link_shared`,
  `CREATE TABLE ${work}.link_pairs (a INTEGER NOT NULL, b INTEGER NOT NULL, bit INTEGER NOT NULL)`,
  `INSERT INTO ${work}.link_pairs SELECT x.dot, y.dot,
  CASE WHEN s.kind <> ${OFFICER} THEN ${kindCase('s.kind', (k) => String(k.bit))}
    WHEN x.name = y.name AND substr(s.value, 1, 1) <> '${COMMON_NAME_MARK}' THEN ${LINK_BITS.officer}
    ELSE ${LINK_BITS.officerKey} END
  FROM ${work}.link_shared s
  CROSS JOIN ${work}.link_keys x ON x.kind = s.kind AND x.value = s.value
  CROSS JOIN ${work}.link_keys y ON y.kind = s.kind AND y.value = s.value AND y.dot <> x.dot
  WHERE s.n <= ${kindCase('s.kind', (k) => String(LINK_CAPS[k.kind]))}`,
  `INSERT INTO company_links SELECT a, b, sum(DISTINCT bit) FROM ${work}.link_pairs GROUP BY a, b`,
  `DROP TABLE ${work}.link_pairs`,
  `DROP TABLE ${work}.link_shared`,
  `DROP TABLE ${work}.link_keys`,
]

/**
 * The contact indexes of `companies` the reads need (the contact check finds companies by phone
 * and e-mail: census/read.ts), built by the build thread while the link tables and the search
 * tiers are made elsewhere (search-build.ts).
 */
export function buildContactIndexes(ctx: BuildContext): void {
  ctx.timed('links.contacts', () => {
    for (const column of ['phone', 'email'])
      ctx.db.exec(
        `CREATE INDEX companies_${column} ON companies (${column}) WHERE ${column} IS NOT NULL`,
      )
  })
}

/** Builds `link_values` and `company_links` over the loaded `companies` table, in this thread. */
export function buildLinkTables(db: Sqlite): void {
  db.exec(LINK_TABLES_DDL)
  for (const sql of linkTablesSql('main', 'temp')) db.exec(sql)
}

/** A link part's task (ingest/parts.ts runs it: search-build.ts starts it). */
export interface LinkPartTask {
  links: true
}

/**
 * Builds the link tables into a part file of their own (`db`), reading the census build file
 * attached as `src`, in a worker thread beside the search tiers' (search-build.ts). A stop is
 * seen between statements (each is pure SQL, with no JS call to check the flag in).
 */
export function buildLinkPart(job: PartJob<LinkPartTask>, db: Sqlite, stop: Int32Array): void {
  db.prepare('ATTACH DATABASE ? AS src').run(job.source)
  db.exec(LINK_TABLES_DDL)
  for (const sql of linkTablesSql('src', 'main')) {
    throwIfStopped(stop)
    db.exec(sql)
  }
  db.exec('DETACH DATABASE src')
}

/** Copies the link tables of a part file (buildLinkPart) into the census build file. */
export function copyLinkPart(db: Sqlite, path: string): void {
  db.prepare('ATTACH DATABASE ? AS links').run(path)
  try {
    db.transaction(() => {
      db.exec(LINK_TABLES_DDL)
      for (const t of ['link_values', 'company_links'])
        db.exec(`INSERT INTO main.${t} SELECT * FROM links.${t}`)
    })()
  } finally {
    db.exec('DETACH DATABASE links')
  }
}

/** Notes the link index's pairs and suppressed values (the bench prints them). */
export function noteLinks(ctx: BuildContext): void {
  const { n } = ctx.db.prepare('SELECT count(*) AS n FROM company_links').get() as { n: number }
  ctx.note('links.pairs', n)
  const over = ctx.db
    .prepare(
      `SELECT kind, count(*) AS n FROM link_values WHERE companies > CASE kind ${Object.entries(
        LINK_CAPS,
      )
        .map(([k, cap]) => `WHEN '${k}' THEN ${cap}`)
        .join(' ')} END GROUP BY kind`,
    )
    .all() as { kind: string; n: number }[]
  for (const r of over) ctx.note(`links.suppressed.${r.kind}`, r.n)
}

/** Whether the pair's bits make a link (`vin`: the pair also shares a VIN). */
export function isLink(bits: number, vin: boolean): boolean {
  if ((bits & (HARD_BITS | LINK_BITS.officer)) !== 0 || vin) return true
  return false
}

/** The kinds a pair's bits name (an officer key counts when something else is shared too). */
export function sharedKinds(
  bits: number,
  vin: boolean,
): ('officer' | 'phone' | 'fax' | 'email' | 'address' | 'vin')[] {
  const hard = (bits & HARD_BITS) !== 0 || vin
  const out: ('officer' | 'phone' | 'fax' | 'email' | 'address' | 'vin')[] = []
  if ((bits & LINK_BITS.officer) !== 0 || ((bits & LINK_BITS.officerKey) !== 0 && hard))
    out.push('officer')
  for (const k of ['phone', 'fax', 'email', 'address'] as const)
    if ((bits & LINK_BITS[k]) !== 0) out.push(k)
  if (vin) out.push('vin')
  return out
}
