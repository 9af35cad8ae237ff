/**
 * The licensing rows of one USDOT from the Motus and legacy L&I datasets (docs/data.md): a
 * handful of indexed queries per dataset, USDOT → dockets, then each table by docket. The authority
 * and insurance modules read what `gather` returns; `record.ts` assembles their blocks.
 */
import { rowShape, type RowShape } from '../db/row-shape.ts'
import type { ActiveDataset } from '../db/datasets.ts'
import * as N from '../ingest/normalize.ts'
import { docketId, READ_COLUMNS, READ_TABLES } from './columns.ts'
import { policyKey } from './tables.ts'
import { listsDot } from '../db/dot-set.ts'

export type Src = 'legacy' | 'motus'

/** A docket as the datasets store it (prefix MC, FF or MX; number without leading zeros). */
export type DocketRow = N.Docket

/** Columns the legacy Carrier and Motus Carrier tables share: on-file flags, names, addresses. */
interface CarrierColumns extends DocketRow {
  dot_number: number | null
  min_cov: number | null
  cargo_req: number | null
  bond_req: number | null
  bipd_file: number | null
  cargo_file: number | null
  bond_file: number | null
  dba_name: string | null
  legal_name: string | null
  bus_street: string | null
  bus_city: string | null
  bus_state: string | null
  bus_country: string | null
  bus_zip: string | null
  bus_phone: string | null
  mail_street: string | null
  mail_city: string | null
  mail_state: string | null
  mail_country: string | null
  mail_zip: string | null
}

interface LegacyCarrierRow extends CarrierColumns {
  common_stat: string | null
  contract_stat: string | null
  broker_stat: string | null
  common_app_pend: number | null
  contract_app_pend: number | null
  broker_app_pend: number | null
  common_rev_pend: number | null
  contract_rev_pend: number | null
  broker_rev_pend: number | null
  property_chk: number | null
  passenger_chk: number | null
  hhg_chk: number | null
  undeliverable_mail: number | null
}

export interface MotusAuthRow extends CarrierColumns {
  authority: string
  auth_type: string | null
  status: string | null
  mail_undeliverable: number | null
}

export interface PolicyRow extends DocketRow {
  form: string | null
  ins_type: number | null
  class_code: string | null
  insurer: string | null
  policy_no: string | null
  /** policy_no reduced to letters and digits (computed at lookup) */
  policy_key: string | null
  underlying: number | null
  max_cov: number | null
  effective_date: string | null
  cancel_date: string | null
  source: Src
}

interface HistRow extends PolicyRow {
  min_cov: number | null
  method: string | null
}

interface EventRow extends DocketRow {
  authority: string
  orig_event: string | null
  orig_action: string | null
  orig_date: string | null
  disp_event: string | null
  disp_action: string | null
  disp_date: string | null
  source: Src
}

interface RevRow extends DocketRow {
  authority: string
  serve_date: string | null
  type_desc: string | null
  effective_date: string | null
  source: Src
}

const select = (cols: readonly string[], table: string) =>
  `SELECT prefix, number, ${cols.join(', ')} FROM ${table} WHERE prefix = ? AND number = ?`

const Q = {
  dockets: 'SELECT prefix, number FROM dot_dockets WHERE dot_number = ?',
  legacyCarrier: select(READ_COLUMNS.legacyCarrier, 'carriers'),
  motusAuth: `${select(READ_COLUMNS.motusAuth, 'authorities')} ORDER BY rowid`,
  policies: select(READ_COLUMNS.policies, READ_TABLES.policies),
  hist: select(READ_COLUMNS.hist, READ_TABLES.hist),
  events: select(READ_COLUMNS.events, READ_TABLES.events),
  revs: select(READ_COLUMNS.revs, READ_TABLES.revs),
  doc: 'SELECT doc FROM docket_rows WHERE id = ?',
  hasDocs: "SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'docket_rows'",
  boc3: 'SELECT 1 AS x FROM boc3 WHERE prefix = ? AND number = ? LIMIT 1',
  boc3Any: 'SELECT 1 AS x FROM boc3 LIMIT 1',
  knows: 'SELECT 1 AS x FROM dot_dockets WHERE prefix = ? AND number = ? LIMIT 1',
}

/** Map key of a docket (`MC123456`) and its display form (`MC-123456`). */
export const dkey = N.docketKey
export const display = N.docketDisplay
export const sameDocket = (a: DocketRow, b: DocketRow) =>
  a.prefix === b.prefix && a.number === b.number

/** Per open dataset version: whether it loaded any BOC-3 rows, whether it has `docket_rows`. */
const boc3Loaded = new WeakMap<ActiveDataset, boolean>()
const docsBuilt = new WeakMap<ActiveDataset, boolean>()
function once(memo: WeakMap<ActiveDataset, boolean>, ds: ActiveDataset, sql: string): boolean {
  let v = memo.get(ds)
  if (v === undefined) {
    v = ds.stmt(sql).get() !== undefined
    memo.set(ds, v)
  }
  return v
}
const hasBoc3 = (ds: ActiveDataset) => once(boc3Loaded, ds, Q.boc3Any)
const hasDocs = (ds: ActiveDataset) => once(docsBuilt, ds, Q.hasDocs)

/** The rows of one docket in one dataset. */
interface DocketRows {
  authority: unknown[]
  policies: unknown[]
  hist: unknown[]
  events: unknown[]
  revs: unknown[]
  /** whether BOC-3 lists the docket; null when the dataset loaded no BOC-3 at all */
  boc3: boolean | null
}

/** Array rows of a document (columns.ts order) as the objects the per-table queries return. */
function objects(d: DocketRow, cols: readonly string[], rows: unknown[][]): object[] {
  let shape = shapes.get(cols)
  if (!shape) shapes.set(cols, (shape = rowShape(cols, ['prefix', 'number'])))
  const make = shape
  return rows.map((r) => make(r, d))
}
const shapes = new Map<readonly string[], RowShape>()

/** One docket's rows from its `docket_rows` document: one read. Null: not in the dataset. */
function rowsFromDoc(ds: ActiveDataset, source: Src, d: DocketRow): DocketRows | null {
  const hit = ds.stmt(Q.doc).raw().get(docketId(d)) as [string] | undefined
  if (!hit) return null
  const [a, p, h, e, r, b] = JSON.parse(hit[0]) as [
    unknown[][],
    unknown[][],
    unknown[][],
    unknown[][],
    unknown[][],
    0 | 1,
  ]
  return {
    authority: objects(
      d,
      source === 'legacy' ? READ_COLUMNS.legacyCarrier : READ_COLUMNS.motusAuth,
      a,
    ),
    policies: objects(d, READ_COLUMNS.policies, p),
    hist: objects(d, READ_COLUMNS.hist, h),
    events: objects(d, READ_COLUMNS.events, e),
    revs: objects(d, READ_COLUMNS.revs, r),
    boc3: hasBoc3(ds) ? b === 1 : null,
  }
}

/** One docket's rows table by table (dataset files built before `docket_rows`). */
function rowsFromTables(
  ds: ActiveDataset,
  source: Src,
  d: DocketRow,
  listed: boolean,
): DocketRows | null {
  // a docket the other dataset found: one probe before six queries that would come back empty
  if (!listed && !ds.stmt(Q.knows).get(d.prefix, d.number)) return null
  const q = [d.prefix, d.number] as const
  return {
    authority: ds.stmt(source === 'legacy' ? Q.legacyCarrier : Q.motusAuth).all(...q),
    policies: ds.stmt(Q.policies).all(...q),
    hist: ds.stmt(Q.hist).all(...q),
    events: ds.stmt(Q.events).all(...q),
    revs: ds.stmt(Q.revs).all(...q),
    boc3: hasBoc3(ds) ? ds.stmt(Q.boc3).get(...q) !== undefined : null,
  }
}

/** A policy or filing row tagged with its dataset and its normalised policy number. */
function tagPolicy<T extends PolicyRow>(row: T, source: Src): T {
  return Object.assign(row, { source, policy_key: policyKey(row.policy_no) })
}

export interface Gathered {
  dockets: Map<string, DocketRow>
  legacy: Map<string, LegacyCarrierRow>
  motus: Map<string, MotusAuthRow[]>
  policies: PolicyRow[]
  hist: HistRow[]
  events: EventRow[]
  revs: RevRow[]
  boc3: boolean | null
  used: { motus: boolean; legacy: boolean }
}

/** Every licensing row of the dockets a USDOT holds, from both datasets. */
export function gather(
  motus: ActiveDataset | null,
  legacy: ActiveDataset | null,
  dot: number,
): Gathered {
  const g: Gathered = {
    dockets: new Map(),
    legacy: new Map(),
    motus: new Map(),
    policies: [],
    hist: [],
    events: [],
    revs: [],
    boc3: null,
    used: { motus: false, legacy: false },
  }
  // the dockets each dataset lists under this USDOT
  const listed = new Map<ActiveDataset, Set<string>>()
  for (const ds of [motus, legacy]) {
    if (!ds) continue
    const keys = new Set<string>()
    listed.set(ds, keys)
    // Motus lists the USDOTs with activity since its cutover (a few per cent of the census, more
    // each month): the others are answered without a query. The legacy baseline lists a large
    // share of the census: a set of it would cost more memory and start-up time per thread than
    // the queries it would spare.
    if (ds === motus && !listsDot(ds.db, 'dot_dockets', dot)) continue
    for (const d of ds.stmt(Q.dockets).all(dot) as DocketRow[]) {
      g.dockets.set(dkey(d), d)
      keys.add(dkey(d))
    }
  }
  if (g.dockets.size === 0) return g
  const sets: [ActiveDataset | null, Src][] = [
    [motus, 'motus'],
    [legacy, 'legacy'],
  ]
  for (const [ds, source] of sets) {
    if (!ds) continue
    const docs = hasDocs(ds)
    for (const d of g.dockets.values()) {
      const k = dkey(d)
      const rows = docs
        ? rowsFromDoc(ds, source, d)
        : rowsFromTables(ds, source, d, listed.get(ds)?.has(k) === true)
      if (!rows) continue
      if (source === 'legacy') {
        // one row per docket; should the file repeat a docket, its last row wins
        const row = rows.authority.at(-1) as LegacyCarrierRow | undefined
        if (row) {
          g.legacy.set(k, row)
          g.used.legacy = true
        }
      } else if (rows.authority.length) {
        g.motus.set(k, rows.authority as MotusAuthRow[])
        g.used.motus = true
      }
      const before = g.policies.length + g.hist.length + g.events.length + g.revs.length
      for (const p of rows.policies as PolicyRow[]) g.policies.push(tagPolicy(p, source))
      for (const h of rows.hist as HistRow[]) g.hist.push(tagPolicy(h, source))
      for (const e of rows.events as EventRow[]) g.events.push(Object.assign(e, { source }))
      for (const r of rows.revs as RevRow[]) g.revs.push(Object.assign(r, { source }))
      if (g.policies.length + g.hist.length + g.events.length + g.revs.length > before)
        g.used[source] = true
      if (rows.boc3 === true) g.boc3 = true
      else if (rows.boc3 === false) g.boc3 ??= false
    }
  }
  return g
}
