/**
 * A census file that holds only what the history's comparison reads (the identity columns of
 * `companies` and their digest), built from a census CSV with the build's own row parser:
 * the sample's bundled previous census (history.ts) and the comparison bench.
 */
import { CENSUS_COLUMNS } from '../census/columns.ts'
import { COMPANY_COLUMNS, censusDigest, censusInsertRow } from '../census/row.ts'
import { IDENTITY_COLUMNS } from '../census/identity-digest.ts'
import { openSqlite } from '../db/open.ts'
import { readCsv } from '../ingest/csv.ts'

export { IDENTITY_COLUMNS }

/** Writes `outPath` (a new file) from the census CSV at `csvPath`; returns the rows written. */
export async function identityFileFromCsv(
  csvPath: string,
  outPath: string,
  onRows?: (rows: number) => void,
): Promise<number> {
  const at = IDENTITY_COLUMNS.map((c) => COMPANY_COLUMNS.indexOf(c))
  const db = openSqlite(outPath, 'readwrite')
  try {
    db.exec(`CREATE TABLE companies (dot_number INTEGER PRIMARY KEY,
      ${IDENTITY_COLUMNS.map((c) => `${c} TEXT`).join(', ')}, digest INTEGER NOT NULL) STRICT;`)
    const insert = db.prepare(
      `INSERT OR REPLACE INTO companies VALUES (?, ${at.map(() => '?').join(', ')}, ?)`,
    )
    let rows = 0
    db.exec('BEGIN')
    for await (const { fields } of readCsv(csvPath, {
      header: 'header',
      columns: CENSUS_COLUMNS,
    })) {
      const r = censusInsertRow(fields)
      if (typeof r === 'string') continue
      const [values] = r
      insert.run(values[0], ...at.map((i) => values[i] ?? null), censusDigest(values))
      if (++rows % 500_000 === 0) {
        db.exec('COMMIT; BEGIN')
        onRows?.(rows)
      }
    }
    db.exec('COMMIT')
    return rows
  } finally {
    db.close()
  }
}
