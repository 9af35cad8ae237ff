/**
 * The history's daily comparison of two full censuses (docs/identity.md):
 *
 *   npx tsx bench/history.ts CENSUS_CSV [OUT_DIR] [CHANGED_FRACTION]
 *
 * Parses the census with the build's own row parser into a file holding what the comparison
 * reads (the identity columns of `companies` and their digest), copies it, changes a
 * fraction of the copy's companies (phone, e-mail, officer, address or MCS-150 date; default
 * 0.3 % of rows, about what a day of MCS-150 updates touches), adds and removes a few USDOT
 * numbers, then times `compareCensusFiles` and prints the figures as JSON on stdout.
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { identityDigest } from '../src/census/identity-digest.ts'
import { IDENTITY_COLUMNS, identityFileFromCsv } from '../src/identity/census-file.ts'
import { compareCensusFiles } from '../src/identity/compare.ts'

const [csv, outDir = 'data/bench/history', fractionArg = '0.003'] = process.argv.slice(2)
if (!csv) throw new Error('usage: tsx bench/history.ts CENSUS_CSV [OUT_DIR] [CHANGED_FRACTION]')
const fraction = Number(fractionArg)
mkdirSync(outDir, { recursive: true })
const prevPath = join(outDir, 'prev.db')
const nextPath = join(outDir, 'next.db')
for (const p of [prevPath, nextPath]) rmSync(p, { force: true })

const t0 = Date.now()
const rows = await identityFileFromCsv(csv, prevPath, (n) => process.stderr.write(`${n} rows\n`))
const loadSeconds = (Date.now() - t0) / 1000

// the next day's census: a fraction of companies changed, some added, some gone
copyFileSync(prevPath, nextPath)
const next = new Database(nextPath)
next.pragma('journal_mode = OFF')
const changed = Math.round(rows * fraction)
const dots = (
  next
    .prepare('SELECT dot_number FROM companies ORDER BY random() LIMIT ?')
    .all(changed + 2_000) as { dot_number: number }[]
).map((r) => r.dot_number)
const kinds = ['phone', 'email', 'officer_1', 'phy_street', 'mcs150_date'] as const
const reDigest = next.prepare(`UPDATE companies SET digest = ? WHERE dot_number = ?`)
const select = next
  .prepare(`SELECT ${IDENTITY_COLUMNS.join(', ')} FROM companies WHERE dot_number = ?`)
  .raw()
next.exec('BEGIN')
dots.slice(0, changed).forEach((dot, i) => {
  const kind = kinds[i % kinds.length] as (typeof kinds)[number]
  const value =
    kind === 'phone'
      ? String(2_000_000_000 + i)
      : kind === 'email'
        ? `new${i}@example.com`
        : kind === 'mcs150_date'
          ? '2026-12-04'
          : `CHANGED ${i}`
  next.prepare(`UPDATE companies SET ${kind} = ? WHERE dot_number = ?`).run(value, dot)
  reDigest.run(identityDigest(select.get(dot) as (string | null)[]), dot)
})
for (const dot of dots.slice(changed, changed + 500)) {
  next.prepare('DELETE FROM companies WHERE dot_number = ?').run(dot)
}
for (let i = 0; i < 1_500; i++) {
  const dot = 90_000_000 + i
  next
    .prepare('INSERT INTO companies (dot_number, legal_name, digest) VALUES (?, ?, ?)')
    .run(dot, `NEW ${i}`, i)
}
next.exec('COMMIT')
next.close()

const t1 = Date.now()
const result = compareCensusFiles(nextPath, prevPath)
const compareSeconds = (Date.now() - t1) / 1000
process.stdout.write(
  `${JSON.stringify({
    rows,
    changed_companies: result.changed,
    added: result.added,
    removed: result.removed,
    field_changes: result.changes.length,
    compare_seconds: compareSeconds,
    load_seconds: loadSeconds,
  })}\n`,
)
