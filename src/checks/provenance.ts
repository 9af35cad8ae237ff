/**
 * What a check records about the data it judged: per dataset used, the dataset version, the
 * regulator's date, each source file's sha256 and row count, when the version was imported, and
 * the company's rows as imported from the regulator's files; and the two rules the appliance adds
 * to every policy: a live check is never a PASS on the bundled sample, nor on data older than the
 * policy's limit.
 */
import { isoDate } from '../clock.ts'
import { daysBetween } from '../dates.ts'
import type { Deps } from '../deps.ts'
import { DATASET_NAMES, type DatasetName } from '../db/names.ts'
import type { ActiveDataset } from '../db/datasets.ts'
import type { KeyMode } from '../keys/keys.ts'
import type { RuleResult } from './evaluate.ts'
import type { PolicyDocument } from './policy-schema.ts'

export interface SourceFileJson {
  id: string | null
  url: string | null
  sha256: string | null
  bytes: number | null
  rows: number | null
  /** the regulator's Last-Modified for the file, when the portal gave one */
  last_modified: string | null
}

export interface DataSourceJson {
  dataset: DatasetName
  version_id: number
  channel: string
  /** the date the regulator's data describes (YYYY-MM-DD) */
  regulator_date: string | null
  rows: number | null
  files: SourceFileJson[]
  /** when the version arrived on the appliance */
  imported_at: string | null
  activated_at: string | null
  /** the company's rows as imported from this dataset's files, by table */
  company_rows: Record<string, Record<string, unknown>[]>
}

/** How often the regulator publishes each dataset (as its spec's schedule); legacy is frozen. */
const SCHEDULE: Record<DatasetName, 'daily' | 'monthly' | 'frozen'> = {
  census: 'daily',
  motus: 'daily',
  oos: 'daily',
  sms: 'monthly',
  violations: 'monthly',
  equipment: 'monthly',
  legacy: 'frozen',
}

/** Default freshness limits (days), by the dataset's schedule. */
export const MAX_AGE_DAYS = { daily: 3, monthly: 45 } as const

const MAX_ROWS_PER_TABLE = 25

const iso = (ms: unknown) => (typeof ms === 'number' ? new Date(ms).toISOString() : null)
const str = (v: unknown) => (typeof v === 'string' ? v : null)
const num = (v: unknown) => (typeof v === 'number' ? v : null)

/** How one table of a dataset file is read for a company: by its USDOT, or through its dockets. */
interface DotTable {
  name: string
  sql: string
}

/**
 * The tables of a dataset file with a `dot_number` column, each with the statement that reads a
 * company's rows by an index (cached per file): by `dot_number` where an index or key leads with
 * it; else, for the licensing tables keyed by docket (`prefix`, `number`, `dot_number`), through
 * the company's dockets in `dot_dockets`. A table neither reaches by an index is left out: a
 * check never scans a table.
 */
const dotTables = new WeakMap<object, DotTable[]>()
function tablesWithDot(ds: ActiveDataset): DotTable[] {
  let t = dotTables.get(ds.db)
  if (!t) {
    const names = (
      ds.db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .all() as { name: string }[]
    ).map((r) => r.name)
    const columnsOf = (n: string) =>
      new Set(
        (ds.db.prepare(`PRAGMA table_info("${n}")`).all() as { name: string }[]).map((c) => c.name),
      )
    const scans = (sql: string) =>
      (ds.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(0) as { detail: string }[]).some((r) =>
        /^SCAN /.test(r.detail),
      )
    const viaDockets = names.includes('dot_dockets')
    t = []
    for (const n of names) {
      const cols = columnsOf(n)
      if (!cols.has('dot_number')) continue
      const byDot = `SELECT * FROM "${n}" WHERE dot_number = ? LIMIT ${MAX_ROWS_PER_TABLE}`
      const byDocket = `SELECT t.* FROM dot_dockets d CROSS JOIN "${n}" t ON t.prefix = d.prefix AND t.number = d.number AND t.dot_number = d.dot_number WHERE d.dot_number = ? LIMIT ${MAX_ROWS_PER_TABLE}`
      if (!scans(byDot)) t.push({ name: n, sql: byDot })
      else if (viaDockets && cols.has('prefix') && cols.has('number') && !scans(byDocket))
        t.push({ name: n, sql: byDocket })
    }
    dotTables.set(ds.db, t)
  }
  return t
}

function companyRows(ds: ActiveDataset, dot: number): Record<string, Record<string, unknown>[]> {
  const out: Record<string, Record<string, unknown>[]> = {}
  for (const table of tablesWithDot(ds)) {
    const rows = ds.stmt(table.sql).all(dot) as Record<string, unknown>[]
    if (rows.length)
      out[table.name] = rows.map((r) =>
        Object.fromEntries(
          Object.entries(r).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('base64') : v]),
        ),
      )
  }
  return out
}

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {})

/**
 * The source files a version records (dataset_versions.files): a download or `import --dir`
 * stores `{inputs: {id: {url, sha256, bytes, vintage, portal_count}}}`; a build from local files
 * (the sample, tests) `{inputs: {id: path}, hashes: {id: {file, sha256, bytes}}, counts}`.
 */
function filesOf(text: string | null): SourceFileJson[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(text ?? 'null')
  } catch {
    return []
  }
  const o = obj(parsed)
  const list: Obj[] = Array.isArray(parsed)
    ? (parsed as unknown[]).map(obj)
    : Object.entries(obj(o['inputs'])).map(([id, f]) => {
        const h = obj(obj(o['hashes'])[id])
        return typeof f === 'string'
          ? {
              id,
              ...h,
              url: str(h['file']) === null ? null : `file:${str(h['file'])}`,
              rows: obj(o['counts'])[id],
            }
          : { id, ...obj(f), rows: obj(f)['portal_count'] }
      })
  return list.map((f) => ({
    id: str(f['id']),
    url: str(f['url']),
    sha256: str(f['sha256']),
    bytes: num(f['bytes']),
    rows: num(f['rows']),
    last_modified: str(f['vintage']) ?? str(f['lastModified']) ?? str(f['last_modified']),
  }))
}

/** The datasets of the caller's view, as stored in dataset_versions, with the company's rows. */
export function dataSources(deps: Deps, mode: KeyMode, dot: number): DataSourceJson[] {
  const view = deps.datasets.view(mode)
  const version = deps.db.prepare('SELECT * FROM dataset_versions WHERE id = ?')
  const out: DataSourceJson[] = []
  for (const name of DATASET_NAMES) {
    const ds = view.get(name)
    if (!ds) continue
    const v = (version.get(ds.versionId) ?? {}) as Record<string, unknown>
    const files = filesOf(str(v['files']))
    out.push({
      dataset: name,
      version_id: ds.versionId,
      channel: str(v['channel']) ?? ds.channel,
      regulator_date: str(v['as_of']) ?? ds.asOf,
      rows: num(v['rows']),
      files,
      // the import time where the version records one, else its activation
      imported_at: iso(v['imported_at']) ?? iso(v['activated_at']) ?? iso(v['created_at']),
      activated_at: iso(v['activated_at']),
      company_rows: companyRows(ds, dot),
    })
  }
  return out
}

/**
 * The appliance's own rules, added after the policy's: a live check on the bundled sample, or on
 * a dataset older than the policy's limit, is `review` with the reason named. Sandbox checks are
 * made on the sample by design: both rules are then `n/a`.
 */
export function dataRules(
  mode: KeyMode,
  source: string,
  sources: readonly DataSourceJson[],
  policy: PolicyDocument,
  now: Date,
): RuleResult[] {
  const sandbox = mode === 'test'
  const real: RuleResult = {
    rule_id: 'data_is_regulators',
    description: "The company's data is the regulator's, not the bundled sample",
    applicable: !sandbox,
    observed: { source },
    ...(sandbox
      ? { result: 'n/a', reason: 'not applicable: a sandbox check is made on the sample' }
      : source === 'sample'
        ? {
            result: 'review',
            reason:
              "the company's data is the bundled sample (fictitious or frozen), not the regulator's files: the mirror has not been synchronised",
          }
        : { result: 'pass', reason: `the data is the regulator's (${source})` }),
  }
  const today = isoDate(now)
  const limits = { ...MAX_AGE_DAYS, ...policy.data_max_age_days }
  const stale: string[] = []
  const observed: Record<string, unknown> = {}
  for (const s of sources) {
    const schedule = SCHEDULE[s.dataset]
    if (!s.regulator_date || schedule === 'frozen') continue
    const age = daysBetween(s.regulator_date, today)
    observed[`${s.dataset}#days_old`] = age
    if (age > limits[schedule])
      stale.push(`${s.dataset} is ${age} days old (${s.regulator_date}; limit ${limits[schedule]})`)
  }
  const fresh: RuleResult = {
    rule_id: 'data_fresh',
    description: `The regulator's data is at most ${limits.daily} days old for daily datasets and ${limits.monthly} for monthly ones`,
    applicable: !sandbox,
    observed,
    ...(sandbox
      ? { result: 'n/a', reason: 'not applicable: a sandbox check is made on the sample' }
      : stale.length
        ? { result: 'review', reason: `stale data: ${stale.join('; ')}` }
        : { result: 'pass', reason: 'every dataset used is within its age limit' }),
  }
  return [real, fresh]
}
