/**
 * SMS Input Violation `8mt8-2mdr` (FMCSA's SMS Input Violation readme): one row per violation cited in the
 * inspections of the monthly SMS snapshot (24 months). The mirror keeps only what the record shows:
 * English-language-proficiency out-of-service violations (49 CFR 391.11(b)(2), Viol_Code
 * `39111B2` / `391.11B2`, Border Zone `-Z`), enforced as an out-of-service criterion since
 * 2025-06-25 and in SMS since the 2025-07-25 snapshot. Every row is read and counted, so the
 * shrink guard and the row-count check see the whole file. See docs/data.md.
 */
import { dayToIso } from '../dates.ts'
import type { ActiveDataset } from '../db/datasets.ts'
import type { BuildContext, DatasetSpec } from '../ingest/types.ts'
import { parsedRows } from './read.ts'
import { DQ_FAMILIES, VIOL_ELP_NOT_OOS, VIOL_ELP_OOS } from './rows.ts'
import type { DriverQualificationCounts, ElpOosJson } from './schema.ts'
import { windowStart } from './sms.ts'
import { listsDot } from '../db/dot-set.ts'

export const VIOLATION_FILE_ID = '8mt8-2mdr'

const DDL = `
CREATE TABLE elp_oos_violations (
  dot_number INTEGER NOT NULL,
  insp_date TEXT NOT NULL,
  violation_key TEXT NOT NULL,
  PRIMARY KEY (dot_number, insp_date, violation_key)
) STRICT, WITHOUT ROWID;
CREATE TABLE dq_violations (
  dot_number INTEGER NOT NULL,
  family INTEGER NOT NULL,
  insp_date TEXT NOT NULL,
  violation_key TEXT NOT NULL,
  PRIMARY KEY (dot_number, family, insp_date, violation_key)
) STRICT, WITHOUT ROWID;
`

async function buildViolations(ctx: BuildContext): Promise<void> {
  ctx.db.exec(DDL)
  const path = ctx.inputs.get(VIOLATION_FILE_ID)
  if (!path) throw new Error(`SMS violation file ${VIOLATION_FILE_ID} is missing`)
  const insert = ctx.db.prepare(
    'INSERT OR IGNORE INTO elp_oos_violations (dot_number, insp_date, violation_key) VALUES (?, ?, ?)',
  )
  const insertDq = ctx.db.prepare(
    'INSERT OR IGNORE INTO dq_violations (dot_number, family, insp_date, violation_key) VALUES (?, ?, ?, ?)',
  )
  let dq = 0
  let elpOos = 0
  let elpNotOos = 0
  let duplicates = 0
  const rows = parsedRows(ctx, VIOLATION_FILE_ID, path, 'violationRow')
  await ctx.insertBatches(VIOLATION_FILE_ID, rows, ({ row, line }) => {
    const [dot, kind, day, key, family] = row
    if (family >= 0) {
      dq++
      // a violation without an inspection id is kept apart by its line number
      insertDq.run(dot, family, dayToIso(day), key === '|' ? `line ${line}` : key)
    }
    if (kind === VIOL_ELP_OOS) {
      elpOos++
      // a violation without an inspection id is kept apart by its line number
      const k = key === '|' ? `line ${line}` : key
      if (insert.run(dot, dayToIso(day), k).changes === 0) duplicates++
    } else if (kind === VIOL_ELP_NOT_OOS) elpNotOos++
    ctx.accept(VIOLATION_FILE_ID)
  })
  const notes = {
    'violations.driver_qualification': dq,
    'violations.elp_oos': elpOos,
    'violations.elp_not_oos': elpNotOos,
    'violations.elp_oos_duplicate': duplicates,
  }
  for (const [k, n] of Object.entries(notes)) if (n) ctx.note(k, n)
}

export const violationsDataset: DatasetSpec = {
  name: 'violations',
  title: 'SMS Input Violation',
  files: [
    {
      id: VIOLATION_FILE_ID,
      title: 'SMS Input - Violation',
      format: 'rows',
      kind: 'full',
      required: true,
    },
  ],
  schedule: 'monthly',
  // 2: the driver-qualification violations (dq_violations)
  format: 2,
  minRowsRatio: 0.8,
  maxRejectRatio: 0.01,
  build: buildViolations,
}

/**
 * English-language-proficiency out-of-service violations of a USDOT in the 24 months up to
 * `today` (inclusive), and the inspection date of the latest one in the file (not after today).
 */
export function elpOosViolations(ds: ActiveDataset, dot: number, today: string): ElpOosJson {
  // about 1 % of USDOTs have one: the others are answered without a query
  if (!listsDot(ds.db, 'elp_oos_violations', dot)) return { count_24m: 0, last_date: null }
  const r = ds
    .stmt(
      `SELECT count(*) FILTER (WHERE insp_date >= ?) AS n, max(insp_date) AS last
       FROM elp_oos_violations WHERE dot_number = ? AND insp_date <= ?`,
    )
    .get(windowStart(today), dot, today) as { n: number; last: string | null }
  return { count_24m: r.n, last_date: r.last }
}

/**
 * Driver-qualification violations of a USDOT cited in the 24 months up to `today` (inclusive), per
 * family (rows.ts DQ_FAMILIES; docs/safety.md lists the codes). A violation cited twice in the
 * file (same inspection and unit) counts once.
 */
export function driverQualification(
  ds: ActiveDataset,
  dot: number,
  today: string,
): DriverQualificationCounts {
  const out: DriverQualificationCounts = {
    no_valid_cdl: 0,
    disqualified_or_suspended: 0,
    wrong_class: 0,
    medical: 0,
    english_proficiency: 0,
    window_months: 24,
  }
  if (!listsDot(ds.db, 'dq_violations', dot)) return out
  const rows = ds
    .stmt(
      `SELECT family, count(*) AS n FROM dq_violations
       WHERE dot_number = ? AND insp_date >= ? AND insp_date <= ? GROUP BY family`,
    )
    .all(dot, windowStart(today), today) as { family: number; n: number }[]
  for (const r of rows) {
    const name = DQ_FAMILIES[r.family]
    if (name) out[name] = r.n
  }
  return out
}
