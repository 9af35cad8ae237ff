/**
 * The link index, built with the census (docs/identity.md): which companies share an officer, a
 * phone, a fax, an e-mail or a physical address. `link_values` counts the companies behind every
 * value two or more share (officer and address keys as the census stores them: integers), a value
 * over its cap suppressed (never a link, only counted);
 * `company_links` holds every linked pair, both ways, with the kinds they share as bits
 * (LINK_BITS). VINs are not here: they come from the equipment dataset at query time
 * (identity/links.ts).
 */
import type { BuildContext } from '../ingest/types.ts'

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

const COLUMN_KINDS = [
  ['phone', 'phone'],
  ['fax', 'fax'],
  ['email', 'email'],
  ['address', 'address_key'],
] as const

const DDL = `
CREATE TABLE link_values (kind TEXT NOT NULL, value ANY NOT NULL, companies INTEGER NOT NULL,
  PRIMARY KEY (kind, value)) STRICT, WITHOUT ROWID;
CREATE TABLE company_links (dot_number INTEGER NOT NULL, other INTEGER NOT NULL,
  shared INTEGER NOT NULL, PRIMARY KEY (dot_number, other)) STRICT, WITHOUT ROWID;
CREATE TEMP TABLE link_pairs (a INTEGER NOT NULL, b INTEGER NOT NULL, bit INTEGER NOT NULL);
CREATE TEMP TABLE officer_keys (key INTEGER NOT NULL, name TEXT NOT NULL, dot INTEGER NOT NULL);
`

function columnSql(kind: string, column: string, bit: number): string {
  // the index comes first: the GROUP BY and the pair join then walk it instead of sorting
  return `
CREATE INDEX companies_${kind} ON companies (${column}) WHERE ${column} IS NOT NULL;
INSERT INTO link_values SELECT '${kind}', ${column}, count(*) FROM companies
  WHERE ${column} IS NOT NULL GROUP BY ${column} HAVING count(*) > 1;
INSERT INTO link_pairs SELECT x.dot_number, y.dot_number, ${bit} FROM link_values v
  CROSS JOIN companies x ON x.${column} = v.value
  CROSS JOIN companies y ON y.${column} = v.value AND y.dot_number <> x.dot_number
  WHERE v.kind = '${kind}' AND v.companies <= ${LINK_CAPS[kind as keyof typeof LINK_CAPS]};`
}

// a company's officer 2 is left out when it has officer 1's key: (key, dot) is unique, and
// count(*) counts companies (count(DISTINCT dot) built a temporary b-tree for every key). Both
// officers come from one scan of companies (the outer loop of the CROSS JOIN), not one each. A
// key below 0 has a common surname (link-keys.ts linkKeyHash): its same name is no link alone
const OFFICER_SQL = `
INSERT INTO officer_keys
  SELECT CASE o.n WHEN 1 THEN c.officer_1_key ELSE c.officer_2_key END,
    upper(CASE o.n WHEN 1 THEN c.officer_1 ELSE c.officer_2 END), c.dot_number
  FROM companies c CROSS JOIN (SELECT 1 AS n UNION ALL SELECT 2) o
  WHERE CASE o.n WHEN 1 THEN c.officer_1_key IS NOT NULL
    ELSE c.officer_2_key IS NOT NULL AND c.officer_2_key IS NOT c.officer_1_key END;
CREATE INDEX temp.officer_keys_key ON officer_keys (key, dot);
INSERT INTO link_values SELECT 'officer', key, count(*) FROM officer_keys
  GROUP BY key HAVING count(*) > 1;
INSERT INTO link_pairs SELECT x.dot, y.dot,
  CASE WHEN x.name = y.name AND v.value > 0 THEN ${LINK_BITS.officer}
  ELSE ${LINK_BITS.officerKey} END
  FROM link_values v
  CROSS JOIN officer_keys x ON x.key = v.value
  CROSS JOIN officer_keys y ON y.key = v.value AND y.dot <> x.dot
  WHERE v.kind = 'officer' AND v.companies <= ${LINK_CAPS.officer};`

// every bit is a power of two: the sum of the distinct bits of a pair is their union. A pair
// that shares only an officer key is kept: a shared VIN (known at query time) can complete it
const PAIRS_SQL = `
INSERT INTO company_links SELECT a, b, sum(DISTINCT bit) FROM link_pairs GROUP BY a, b;
DROP TABLE link_pairs;
DROP TABLE officer_keys;`

/**
 * The contact indexes only the build reads (the pair joins above): dropped, their pages go back
 * to the file's free list, where the search tiers copied in next land (search-build.ts). The
 * phone and e-mail indexes stay: the contact check finds companies by them (census/read.ts).
 */
const BUILD_ONLY_INDEXES = ['companies_fax', 'companies_address'] as const

/** Builds `link_values` and `company_links` over the loaded `companies` table. */
export function buildLinkIndex(ctx: BuildContext): void {
  ctx.db.exec(DDL)
  ctx.timed('links.contacts', () => {
    for (const [kind, column] of COLUMN_KINDS) ctx.db.exec(columnSql(kind, column, LINK_BITS[kind]))
  })
  ctx.timed('links.officers', () => ctx.db.exec(OFFICER_SQL))
  ctx.timed('links.pairs', () => {
    ctx.db.exec(PAIRS_SQL)
    for (const index of BUILD_ONLY_INDEXES) ctx.db.exec(`DROP INDEX ${index}`)
  })
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
