/**
 * The licensing rows of one USDOT from the Motus and legacy L&I datasets (FMCSA-DATA.md §4): a
 * handful of indexed queries per dataset, USDOT → dockets, then each table by docket. The authority
 * and insurance modules read what `gather` returns; `record.ts` assembles their blocks.
 */
import type { ActiveDataset } from '../db/datasets.ts'
import * as N from '../ingest/normalize.ts'
import { policyKey } from './tables.ts'

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

const Q = {
  dockets: 'SELECT prefix, number FROM dot_dockets WHERE dot_number = ?',
  legacyCarrier: `SELECT prefix, number, dot_number, common_stat, contract_stat, broker_stat,
    common_app_pend, contract_app_pend, broker_app_pend, common_rev_pend, contract_rev_pend,
    broker_rev_pend, property_chk, passenger_chk, hhg_chk, min_cov, cargo_req, bond_req, bipd_file,
    cargo_file, bond_file, undeliverable_mail, dba_name, legal_name, bus_street, bus_city, bus_state,
    bus_country, bus_zip, bus_phone, mail_street, mail_city, mail_state, mail_country, mail_zip
    FROM carriers WHERE prefix = ? AND number = ?`,
  motusAuth: `SELECT prefix, number, dot_number, authority, auth_type, status, min_cov, cargo_req,
    bond_req, bipd_file, cargo_file, bond_file, mail_undeliverable, dba_name, legal_name, bus_street,
    bus_city, bus_state, bus_country, bus_zip, bus_phone, mail_street, mail_city, mail_state,
    mail_country, mail_zip FROM authorities WHERE prefix = ? AND number = ? ORDER BY rowid`,
  policies: `SELECT prefix, number, form, ins_type, class_code, insurer, policy_no,
    underlying, max_cov, effective_date, cancel_date FROM policies WHERE prefix = ? AND number = ?`,
  hist: `SELECT prefix, number, form, ins_type, class_code, insurer, policy_no, min_cov,
    underlying, max_cov, effective_date, cancel_date, method FROM ins_hist WHERE prefix = ? AND number = ?`,
  events: `SELECT prefix, number, authority, orig_event, orig_action, orig_date, disp_event,
    disp_action, disp_date FROM auth_events WHERE prefix = ? AND number = ?`,
  revs: `SELECT prefix, number, authority, serve_date, type_desc, effective_date FROM revocations
    WHERE prefix = ? AND number = ?`,
  boc3: 'SELECT 1 AS x FROM boc3 WHERE prefix = ? AND number = ? LIMIT 1',
  boc3Any: 'SELECT 1 AS x FROM boc3 LIMIT 1',
  knows: 'SELECT 1 AS x FROM dot_dockets WHERE prefix = ? AND number = ? LIMIT 1',
}

/** Map key of a docket (`MC123456`) and its display form (`MC-123456`). */
export const dkey = N.docketKey
export const display = N.docketDisplay
export const sameDocket = (a: DocketRow, b: DocketRow) =>
  a.prefix === b.prefix && a.number === b.number

/** Whether a dataset version loaded any BOC-3 rows (asked once per open version). */
const boc3Loaded = new WeakMap<ActiveDataset, boolean>()
function hasBoc3(ds: ActiveDataset): boolean {
  let v = boc3Loaded.get(ds)
  if (v === undefined) {
    v = ds.stmt(Q.boc3Any).get() !== undefined
    boc3Loaded.set(ds, v)
  }
  return v
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
    for (const d of ds.stmt(Q.dockets).all(dot) as DocketRow[]) {
      g.dockets.set(dkey(d), d)
      keys.add(dkey(d))
    }
    listed.set(ds, keys)
  }
  if (g.dockets.size === 0) return g
  const sets: [ActiveDataset | null, Src][] = [
    [motus, 'motus'],
    [legacy, 'legacy'],
  ]
  for (const [ds, source] of sets) {
    if (!ds) continue
    const tag = <T>(rows: unknown[]): T[] =>
      rows.map((r) => Object.assign(r as object, { source }) as T)
    const tagPolicy = <T>(rows: unknown[]): T[] =>
      rows.map((r) => {
        const row = r as { policy_no: string | null }
        return Object.assign(row, { source, policy_key: policyKey(row.policy_no) }) as T
      })
    for (const d of g.dockets.values()) {
      const k = dkey(d)
      // a docket the other dataset found: one probe before six queries that would come back empty
      if (!listed.get(ds)?.has(k) && !ds.stmt(Q.knows).get(d.prefix, d.number)) continue
      if (source === 'legacy') {
        // one row per docket; should the file repeat a docket, its last row wins
        const row = (ds.stmt(Q.legacyCarrier).all(d.prefix, d.number) as LegacyCarrierRow[]).at(-1)
        if (row) {
          g.legacy.set(k, row)
          g.used.legacy = true
        }
      } else {
        const rows = ds.stmt(Q.motusAuth).all(d.prefix, d.number) as MotusAuthRow[]
        if (rows.length) {
          g.motus.set(k, rows)
          g.used.motus = true
        }
      }
      const before = g.policies.length + g.hist.length + g.events.length + g.revs.length
      g.policies.push(...tagPolicy<PolicyRow>(ds.stmt(Q.policies).all(d.prefix, d.number)))
      g.hist.push(...tagPolicy<HistRow>(ds.stmt(Q.hist).all(d.prefix, d.number)))
      g.events.push(...tag<EventRow>(ds.stmt(Q.events).all(d.prefix, d.number)))
      g.revs.push(...tag<RevRow>(ds.stmt(Q.revs).all(d.prefix, d.number)))
      if (g.policies.length + g.hist.length + g.events.length + g.revs.length > before)
        g.used[source] = true
      if (hasBoc3(ds)) {
        if (ds.stmt(Q.boc3).get(d.prefix, d.number)) g.boc3 = true
        else g.boc3 ??= false
      }
    }
  }
  return g
}
