/** The link index's figures in a census file (bench/run.ts and bench/links.ts print them). */
import type Database from 'better-sqlite3'
import { LINK_CAPS } from '../src/census/links-build.ts'

/** The index's figures in an open census file. */
export function linkIndexFacts(db: Database.Database): {
  pairs: number
  linkedCompanies: number
  shared: Record<string, number>
  suppressed: Record<string, number>
  bytes: number | null
} {
  const one = <T>(sql: string) => db.prepare(sql).get() as T
  const shared: Record<string, number> = {}
  const suppressed: Record<string, number> = {}
  for (const [kind, cap] of Object.entries(LINK_CAPS)) {
    if (kind === 'vin') continue
    const r = db
      .prepare(
        `SELECT sum(companies <= ?) AS linked, sum(companies > ?) AS over FROM link_values WHERE kind = ?`,
      )
      .get(cap, cap, kind) as { linked: number | null; over: number | null }
    shared[kind] = r.linked ?? 0
    suppressed[kind] = r.over ?? 0
  }
  let bytes: number | null = null
  try {
    bytes = one<{ b: number }>(
      `SELECT sum(pgsize) AS b FROM dbstat WHERE name IN ('company_links', 'link_values')`,
    ).b
  } catch {
    bytes = null // a SQLite without the dbstat table
  }
  return {
    pairs: one<{ n: number }>('SELECT count(*) AS n FROM company_links').n,
    linkedCompanies: one<{ n: number }>('SELECT count(DISTINCT dot_number) AS n FROM company_links')
      .n,
    shared,
    suppressed,
    bytes,
  }
}
