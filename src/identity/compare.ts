/**
 * The comparison of two census dataset files (census format ≥ 5): digests are compared in SQL
 * (the previous file ATTACHed to a read-only connection of the new one, joined on USDOT number);
 * only the rows whose digest differs are read field by field. New and vanished USDOT numbers come
 * from the same join. Pure reads: identity/history.ts records the result in app.db.
 */
import { openSqlite, type Sqlite } from '../db/open.ts'
import { phoneDisplay } from '../ingest/normalize.ts'
import { usdotStatusOf } from '../census/read.ts'

/** The fields the history follows, in the order a company's changes are listed. */
export const HISTORY_FIELDS = [
  'legal_name',
  'dba_name',
  'phone',
  'cell_phone',
  'fax',
  'email',
  'physical_address',
  'mailing_address',
  'officer_1',
  'officer_2',
  'usdot_status',
  'mcs150_date',
] as const
export type HistoryField = (typeof HISTORY_FIELDS)[number] | 'usdot_number'

/** The fields whose change is a change of contact (`contactChangedDays`). */
export const CONTACT_FIELDS: readonly HistoryField[] = ['phone', 'cell_phone', 'email']

export interface FieldChange {
  dot: number
  field: HistoryField
  from: string | null
  to: string | null
}

export interface Comparison {
  /** companies in both files whose digest differs */
  changed: number
  added: number
  removed: number
  changes: FieldChange[]
}

const ROW_COLUMNS = `legal_name, dba_name, phone, cell_phone, fax, email,
  phy_street, phy_city, phy_state, phy_zip, phy_country,
  mail_street, mail_city, mail_state, mail_zip, mail_country,
  officer_1, officer_2, status_code, mcs150_date`
const WIDTH = 20

type Cell = string | number | null

const address = (
  street: Cell,
  city: Cell,
  state: Cell,
  zip: Cell,
  country: Cell,
): string | null => {
  const place = [city, [state, zip].filter((v) => v !== null).join(' ')]
    .filter((v) => v !== null && v !== '')
    .join(', ')
  const parts = [street, place, country].filter((v) => v !== null && v !== '')
  return parts.length ? parts.join(', ') : null
}

const str = (v: Cell): string | null => (v === null ? null : String(v))

/** The history's values of one company from its 20 identity columns (ROW_COLUMNS order). */
export function fieldValues(
  v: readonly Cell[],
): Record<(typeof HISTORY_FIELDS)[number], string | null> {
  const status = str(v[18] ?? null)
  return {
    legal_name: str(v[0] ?? null),
    dba_name: str(v[1] ?? null),
    phone: phoneDisplay(str(v[2] ?? null)),
    cell_phone: phoneDisplay(str(v[3] ?? null)),
    fax: phoneDisplay(str(v[4] ?? null)),
    email: str(v[5] ?? null),
    physical_address: address(
      v[6] ?? null,
      v[7] ?? null,
      v[8] ?? null,
      v[9] ?? null,
      v[10] ?? null,
    ),
    mailing_address: address(
      v[11] ?? null,
      v[12] ?? null,
      v[13] ?? null,
      v[14] ?? null,
      v[15] ?? null,
    ),
    officer_1: str(v[16] ?? null),
    officer_2: str(v[17] ?? null),
    usdot_status: usdotStatusOf(status) ?? status,
    mcs150_date: str(v[19] ?? null),
  }
}

/**
 * Where a census file keeps its digests, as a table with `dot_number` and `digest`: the column
 * `companies.digest` (census format 7 on) or the table `identity_digests` (formats 5 and 6, still
 * compared with after an upgrade); null before format 5.
 */
function digestTable(db: Sqlite, schema: 'main' | 'prev'): string | null {
  const has = (sql: string) => db.prepare(sql).get() !== undefined
  if (has(`SELECT 1 FROM pragma_table_info('companies', '${schema}') WHERE name = 'digest'`))
    return `${schema}.companies`
  if (has(`SELECT 1 FROM ${schema}.sqlite_master WHERE name = 'identity_digests'`))
    return `${schema}.identity_digests`
  return null
}

/** true when the census file has the digests the comparison needs (census format ≥ 5). */
export function hasDigests(path: string): boolean {
  const db = openSqlite(path, 'readonly', 1_024)
  try {
    return digestTable(db, 'main') !== null
  } finally {
    db.close()
  }
}

/** Compares the census file `nextPath` with `prevPath` (both with digests). */
export function compareCensusFiles(nextPath: string, prevPath: string): Comparison {
  const db = openSqlite(nextPath, 'readonly', 16_384)
  try {
    db.prepare('ATTACH DATABASE ? AS prev').run(prevPath)
    const nextDigests = digestTable(db, 'main')
    const prevDigests = digestTable(db, 'prev')
    if (!nextDigests || !prevDigests) throw new Error('a census file without identity digests')
    const changes: FieldChange[] = []
    const prefixed = (alias: string) =>
      ROW_COLUMNS.split(',')
        .map((c) => `${alias}.${c.trim()}`)
        .join(', ')
    // the digests are walked once; the identity columns are read only where they differ
    const rows = db
      .prepare(
        `SELECT nd.dot_number, ${prefixed('n')}, ${prefixed('p')}
         FROM ${nextDigests} nd
         CROSS JOIN ${prevDigests} pd ON pd.dot_number = nd.dot_number AND pd.digest <> nd.digest
         CROSS JOIN companies n ON n.dot_number = nd.dot_number
         CROSS JOIN prev.companies p ON p.dot_number = nd.dot_number`,
      )
      .raw()
      .iterate() as Iterable<Cell[]>
    let changed = 0
    for (const r of rows) {
      changed++
      const dot = r[0] as number
      const next = fieldValues(r.slice(1, 1 + WIDTH))
      const prev = fieldValues(r.slice(1 + WIDTH))
      for (const field of HISTORY_FIELDS)
        if (next[field] !== prev[field])
          changes.push({ dot, field, from: prev[field], to: next[field] })
    }
    let added = 0
    for (const r of db
      .prepare(
        `SELECT nd.dot_number FROM ${nextDigests} nd
         WHERE NOT EXISTS (SELECT 1 FROM ${prevDigests} pd WHERE pd.dot_number = nd.dot_number)`,
      )
      .raw()
      .iterate() as Iterable<[number]>) {
      added++
      changes.push({ dot: r[0], field: 'usdot_number', from: null, to: String(r[0]) })
    }
    let removed = 0
    for (const r of db
      .prepare(
        `SELECT pd.dot_number FROM ${prevDigests} pd
         WHERE NOT EXISTS (SELECT 1 FROM ${nextDigests} nd WHERE nd.dot_number = pd.dot_number)`,
      )
      .raw()
      .iterate() as Iterable<[number]>) {
      removed++
      changes.push({ dot: r[0], field: 'usdot_number', from: String(r[0]), to: null })
    }
    return { changed, added, removed, changes }
  } finally {
    db.close()
  }
}
