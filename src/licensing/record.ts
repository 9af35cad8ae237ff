/**
 * Authority, insurance, bond and revocation facts for one USDOT from the Motus and legacy L&I
 * datasets (FMCSA-DATA.md §4). Motus wins where it has a row; no Motus row is not "no authority".
 * A lookup is a handful of indexed queries per dataset: USDOT → dockets, then each table by docket.
 */
import type { ActiveDataset, DataView } from '../db/datasets.ts'
import type { AuthorityJson, FilingJson, InsuranceJson, RevocationJson } from './schema.ts'
import type { AddressJson } from '../fields.ts'
import { INS_TYPE_WORDS, methodStatus, policyKey } from './tables.ts'

/** Roles the licensing data proves: 'active' authority, 'inactive' (held before), or null (never). */
export interface Roles {
  carrier: 'active' | 'inactive' | null
  broker: 'active' | 'inactive' | null
  forwarder: 'active' | 'inactive' | null
}

export interface LicensingFacts {
  /** all blocks filled except `status` and `allowed_to_operate`, which the assembly derives */
  authority: AuthorityJson
  insurance: InsuranceJson
  /** display forms (`MC-123456`, `FF-1234`), primary first */
  dockets: string[]
  /** `MC-…` to show as mc_number, or null */
  mcNumber: string | null
  roles: Roles
  /** identity fallbacks for entities missing from the census */
  legalName: string | null
  dbaName: string | null
  phone: string | null
  physicalAddress: AddressJson | null
  mailingAddress: AddressJson | null
  mailUndeliverable: boolean | null
  /** a BOC-3 (process agent designation) is on file; null when no BOC-3 file was loaded */
  boc3Filed: boolean | null
  /** YYYY-MM-DD of each dataset that contributed */
  asOf: { motus: string | null; legacy: string | null }
}

type Src = 'legacy' | 'motus'
type Letter = 'A' | 'I' | 'N'

interface DocketRow {
  prefix: string
  number: number
}

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

interface MotusAuthRow extends CarrierColumns {
  authority: string
  auth_type: string | null
  status: string | null
  mail_undeliverable: number | null
}

interface PolicyRow extends DocketRow {
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
  motusDots: `SELECT DISTINCT dot_number FROM authorities WHERE prefix = ? AND number = ?
    AND dot_number IS NOT NULL`,
  legacyDots: `SELECT DISTINCT dot_number FROM carriers WHERE prefix = ? AND number = ?
    AND dot_number IS NOT NULL`,
  anyDots: `SELECT dot_number FROM dot_dockets WHERE prefix = ? AND number = ? AND dot_number > 0
    ORDER BY dot_number`,
  knows: 'SELECT 1 AS x FROM dot_dockets WHERE prefix = ? AND number = ? LIMIT 1',
}

const dkey = (d: DocketRow) => `${d.prefix}${d.number}`
const display = (d: DocketRow) => `${d.prefix}-${d.number}`
const PREFIX_ORDER: Record<string, number> = { MC: 0, FF: 1, MX: 2 }

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

interface Gathered {
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

function gather(motus: ActiveDataset | null, legacy: ActiveDataset | null, dot: number): Gathered {
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

// --- authority -------------------------------------------------------------------------------

const RANK: Record<Letter, number> = { A: 3, I: 2, N: 1 }
const best = (letters: readonly (string | null | undefined)[]): Letter | null => {
  let out: Letter | null = null
  for (const l of letters) {
    if (l !== 'A' && l !== 'I' && l !== 'N') continue
    if (out === null || RANK[l] > RANK[out]) out = l
  }
  return out
}
const CARRIER_KINDS = new Set(['carrier', 'common', 'contract'])
const sameFamily = (a: string, b: string) =>
  a === b || (CARRIER_KINDS.has(a) && CARRIER_KINDS.has(b) && (a === 'carrier' || b === 'carrier'))

/** Motus OP_AUTH_STATUS → letter (FMCSA-DATA.md §3.5). Withdrawn is I only if it was ever granted. */
function motusLetter(status: string | null, everGranted: boolean): Letter | null {
  const t = (status ?? '').trim().toUpperCase()
  if (t === '') return null
  if (t.startsWith('ACTIVE')) return 'A'
  if (t.startsWith('INACTIVE')) return 'I'
  if (t.startsWith('PENDING')) return 'N'
  if (t.startsWith('WITHDRAW')) return everGranted ? 'I' : 'N'
  return 'I'
}

interface DocketAuthority {
  docket: DocketRow
  common: Letter | null
  contract: Letter | null
  broker: Letter | null
  forwarder: Letter | null
  pending: boolean | null
  revocationPending: boolean | null
  scopes: string[]
  source: Src | null
}

function scopesOfMotus(authType: string | null): string[] {
  const t = (authType ?? '').toUpperCase()
  const out: string[] = []
  if (/PASSENGER/.test(t)) out.push('passenger')
  if (/HOUSEHOLD GOODS/.test(t) && !/EXCEPT HOUSEHOLD GOODS/.test(t)) out.push('household_goods')
  else if (/PROPERTY/.test(t)) out.push('property')
  return out
}

function docketAuthority(g: Gathered, d: DocketRow, today: string): DocketAuthority {
  const k = dkey(d)
  const lc = g.legacy.get(k) ?? null
  const mrows = g.motus.get(k) ?? []
  const granted = g.events.some(
    (e) => dkey(e) === k && (e.orig_event === 'granted' || e.orig_event === 'reinstated'),
  )
  const letterOf = (r: MotusAuthRow, legacyHeld: boolean) =>
    motusLetter(r.status, granted || legacyHeld)
  const mc = mrows.filter((r) => CARRIER_KINDS.has(r.authority))
  const mb = mrows.filter((r) => r.authority === 'broker')
  const mf = mrows.filter((r) => r.authority === 'forwarder')
  const held = (l: string | null | undefined) => l === 'A' || l === 'I'

  let common: Letter | null
  let contract: Letter | null
  if (mc.length) {
    const m = best(mc.map((r) => letterOf(r, held(lc?.common_stat) || held(lc?.contract_stat))))
    const lcCommon = lc?.common_stat != null && lc.common_stat !== 'N'
    const lcContract = lc?.contract_stat != null && lc.contract_stat !== 'N'
    if (lcCommon || lcContract) {
      common = lcCommon ? m : 'N'
      contract = lcContract ? m : 'N'
    } else {
      common = m
      contract = 'N'
    }
  } else {
    common = best([lc?.common_stat])
    contract = best([lc?.contract_stat])
  }
  const broker = mb.length
    ? best(mb.map((r) => letterOf(r, held(lc?.broker_stat))))
    : best([lc?.broker_stat])
  const forwarder = mf.length ? best(mf.map((r) => letterOf(r, false))) : null

  const motusPending = mrows.some((r) => /^PENDING/i.test((r.status ?? '').trim()))
  const legacyPending =
    lc !== null &&
    ((!mc.length && (lc.common_app_pend === 1 || lc.contract_app_pend === 1)) ||
      (!mb.length && lc.broker_app_pend === 1))
  const legacyRevPending =
    lc !== null &&
    ((!mc.length && (lc.common_rev_pend === 1 || lc.contract_rev_pend === 1)) ||
      (!mb.length && lc.broker_rev_pend === 1))
  const futureRevocation = g.revs.some(
    (r) => dkey(r) === k && r.effective_date !== null && r.effective_date > today,
  )
  const scopes: string[] = []
  for (const r of mrows) if (letterOf(r, true) === 'A') scopes.push(...scopesOfMotus(r.auth_type))
  if (!mc.length && lc && (common === 'A' || contract === 'A')) {
    if (lc.property_chk === 1) scopes.push('property')
    if (lc.passenger_chk === 1) scopes.push('passenger')
    if (lc.hhg_chk === 1) scopes.push('household_goods')
  }
  const known = lc !== null || mrows.length > 0
  return {
    docket: d,
    common,
    contract,
    broker,
    forwarder,
    pending: known ? motusPending || legacyPending : null,
    revocationPending: known || futureRevocation ? legacyRevPending || futureRevocation : null,
    scopes,
    source: mrows.length ? 'motus' : lc ? 'legacy' : null,
  }
}

interface Revocation {
  docket: DocketRow
  authority: string
  date: string | null
  serve: string | null
  type: string | null
  /** entries from a revocation file carry the precise type (INVOLUNTARY …) */
  precise: boolean
  sources: Set<Src>
}

interface Reinstatement {
  docket: DocketRow
  authority: string
  date: string
}

/** Every revocation and reinstatement, merged per (docket, authority, effective date) (§4.2). */
function revocationHistory(g: Gathered, today: string) {
  const revocations: Revocation[] = []
  const reinstatements: Reinstatement[] = []
  const add = (r: Revocation) => {
    const same = revocations.find(
      (x) =>
        dkey(x.docket) === dkey(r.docket) &&
        sameFamily(x.authority, r.authority) &&
        (x.date !== null && r.date !== null
          ? x.date === r.date
          : x.date === null && r.date === null && x.serve === r.serve),
    )
    if (!same) return void revocations.push(r)
    for (const s of r.sources) same.sources.add(s)
    same.serve ??= r.serve
    if (CARRIER_KINDS.has(r.authority) && same.authority === 'carrier') same.authority = r.authority
    if (r.precise && !same.precise) {
      same.type = r.type ?? same.type
      same.precise = true
    } else same.type ??= r.type
  }
  for (const r of g.revs) {
    if (r.effective_date !== null && r.effective_date > today) continue // pending, not yet revoked
    add({
      docket: r,
      authority: r.authority,
      date: r.effective_date,
      serve: r.serve_date,
      type: r.type_desc,
      precise: true,
      sources: new Set([r.source]),
    })
  }
  for (const e of g.events) {
    if (e.orig_event === 'granted' || e.orig_event === null) {
      // nothing to record here: grants are dated separately
    } else if (e.orig_event === 'reinstated' && e.orig_date) {
      reinstatements.push({ docket: e, authority: e.authority, date: e.orig_date })
    } else if ((e.orig_event === 'revoked' || e.orig_event === 'suspended') && !e.disp_event) {
      // Motus AuthHist: the event itself; legacy: a proceeding with no outcome yet
      if (e.source === 'motus' && e.orig_date && e.orig_date <= today)
        add({
          docket: e,
          authority: e.authority,
          date: e.orig_date,
          serve: null,
          type: e.orig_action,
          precise: false,
          sources: new Set([e.source]),
        })
    } else if (e.orig_event === 'discontinued' && e.orig_date) {
      reinstatements.push({ docket: e, authority: e.authority, date: e.orig_date })
    }
    if ((e.disp_event === 'revoked' || e.disp_event === 'suspended') && e.disp_date) {
      if (e.disp_date > today) continue
      const proceeding = e.orig_event === 'revoked' || e.orig_event === 'suspended'
      add({
        docket: e,
        authority: e.authority,
        date: e.disp_date,
        serve: proceeding ? e.orig_date : null,
        type: proceeding ? e.orig_action : e.disp_action,
        precise: false,
        sources: new Set([e.source]),
      })
    } else if ((e.disp_event === 'discontinued' || e.disp_event === 'reinstated') && e.disp_date) {
      reinstatements.push({ docket: e, authority: e.authority, date: e.disp_date })
    }
  }
  const refDate = (r: Revocation) => r.date ?? r.serve ?? ''
  revocations.sort((a, b) => refDate(a).localeCompare(refDate(b)))
  // Motus has no common/contract split: show the one the docket held in L&I, else common (§4.2)
  const shown = (r: Revocation) => {
    if (r.authority !== 'carrier') return r.authority
    const lc = g.legacy.get(dkey(r.docket))
    return lc?.contract_stat && lc.contract_stat !== 'N' && (lc.common_stat ?? 'N') === 'N'
      ? 'contract'
      : 'common'
  }
  const history: RevocationJson[] = revocations.map((r) => {
    const ref = refDate(r)
    const back = reinstatements
      .filter(
        (x) =>
          dkey(x.docket) === dkey(r.docket) && sameFamily(x.authority, r.authority) && x.date > ref,
      )
      .map((x) => x.date)
      .sort()[0]
    return {
      docket_number: display(r.docket),
      authority_type: shown(r),
      revocation_date: r.date,
      serve_date: r.serve,
      revocation_type: r.type,
      reinstatement_date: back ?? null,
      source: [...r.sources].sort().join('+'),
    }
  })
  const revoked = revocations
    .map((r) => r.date)
    .filter((d): d is string => d !== null)
    .sort()
    .at(-1)
  const reinstated = revoked
    ? reinstatements
        .map((r) => r.date)
        .filter((d) => d > revoked && d <= today)
        .sort()
        .at(-1)
    : undefined
  return { history, revokedDate: revoked ?? null, reinstatedDate: reinstated ?? null }
}

// --- insurance -------------------------------------------------------------------------------

interface Filing extends FilingJson {
  insType: number | null
  classCode: string | null
  key: string | null
  prefix: string
  number: number
}

const sameDocket = (a: DocketRow, b: DocketRow) => a.prefix === b.prefix && a.number === b.number

/** Same policy: docket + form + alphanumeric policy number (+ effective date when both have one). */
function samePolicy(a: PolicyRow, b: PolicyRow, checkEffective: boolean): boolean {
  if (!sameDocket(a, b) || a.form !== b.form || a.policy_key === null) return false
  if (a.policy_key !== b.policy_key) return false
  if (!checkEffective || a.effective_date === null || b.effective_date === null) return true
  return a.effective_date === b.effective_date
}

const toFiling = (
  r: PolicyRow,
  min: number | null,
  status: FilingJson['status'],
  cancel: string | null,
  method: string | null,
): Filing => ({
  docket_number: display(r),
  form: r.form ? `BMC-${r.form}` : null,
  type: r.ins_type ? (INS_TYPE_WORDS[r.ins_type] ?? null) : null,
  insurer: r.insurer,
  policy_no: r.policy_no,
  effective_date: r.effective_date,
  cancellation_date: cancel,
  min_coverage: min,
  max_coverage: r.max_cov,
  underlying_limit: r.underlying,
  status,
  cancellation_method: method,
  source: r.source,
  insType: r.ins_type,
  classCode: r.class_code,
  key: r.policy_key,
  prefix: r.prefix,
  number: r.number,
})

const endStatus = (cancel: string | null, method: string | null, today: string) =>
  cancel !== null && cancel > today ? 'pending_cancellation' : methodStatus(method)

const isCurrent = (f: Filing) => f.status === 'active' || f.status === 'pending_cancellation'

/**
 * Current policies (Motus Insur, plus legacy ActPendInsur rows that no Motus row supersedes and
 * whose cancellation is not yet effective) and the filing history, deduplicated (§4.1).
 */
function filingsOf(g: Gathered, today: string): Filing[] {
  const motusPolicies = g.policies.filter((p) => p.source === 'motus')
  const current = [
    ...motusPolicies,
    ...g.policies.filter(
      (p) => p.source === 'legacy' && !motusPolicies.some((m) => samePolicy(m, p, false)),
    ),
  ]
  // history: drop exact duplicates (the legacy file has some), Motus first
  const seen = new Set<string>()
  let hist = [...g.hist]
    .sort((a, b) => (a.source === b.source ? 0 : a.source === 'motus' ? -1 : 1))
    .filter((h) => {
      const id = [
        dkey(h),
        h.form,
        h.policy_key ?? h.insurer,
        h.effective_date,
        h.cancel_date,
        h.method,
      ].join('|')
      if (seen.has(id)) return false
      seen.add(id)
      return true
    })
  const out: Filing[] = []
  for (const c of current) {
    const matches = hist.filter((h) => samePolicy(c, h, true))
    hist = hist.filter((h) => !matches.includes(h))
    const latest = matches
      .filter((h) => h.cancel_date !== null)
      .sort((a, b) => (b.cancel_date ?? '').localeCompare(a.cancel_date ?? ''))[0]
    const cancel = c.cancel_date ?? latest?.cancel_date ?? null
    const method = latest?.method ?? (c.cancel_date ? 'CANCEL' : null)
    const status = cancel === null ? 'active' : endStatus(cancel, method, today)
    out.push(toFiling(c, latest?.min_cov ?? null, status, cancel, cancel ? method : null))
  }
  for (const h of hist)
    out.push(
      toFiling(h, h.min_cov, endStatus(h.cancel_date, h.method, today), h.cancel_date, h.method),
    )
  return out.sort((a, b) => {
    const byDate = (b.effective_date ?? '').localeCompare(a.effective_date ?? '')
    if (byDate !== 0) return byDate
    return Number(isCurrent(b)) - Number(isCurrent(a))
  })
}

/** The policy the insurance summary describes: latest primary BI&PD for carriers, else the bond. */
function representative(filings: Filing[], carrier: boolean): Filing | null {
  const cur = filings.filter(isCurrent)
  const latest = (fs: Filing[]) =>
    [...fs].sort((a, b) => (b.effective_date ?? '').localeCompare(a.effective_date ?? ''))[0] ??
    null
  const bipd = cur.filter((f) => f.insType === 1)
  const bond = cur.filter((f) => f.insType === 3 || f.insType === 4)
  if (carrier || bond.length === 0) {
    const primary = bipd.filter((f) => f.classCode !== 'E')
    const pick = latest(primary) ?? latest(bipd)
    if (pick) return pick
  }
  return latest(bond) ?? latest(cur)
}

const maxOf = (vals: (number | null | undefined)[]): number | null => {
  const ns = vals.filter((v): v is number => typeof v === 'number')
  return ns.length ? Math.max(...ns) : null
}
const anyFlag = (vals: (number | null | undefined)[]): boolean | null => {
  if (vals.some((v) => v === 1)) return true
  return vals.some((v) => v === 0) ? false : null
}

// --- assembly --------------------------------------------------------------------------------

/** Licensing facts for a USDOT, or null when neither dataset knows it. */
export function getLicensing(view: DataView, dot: number, today: string): LicensingFacts | null {
  const motus = view.get('motus')
  const legacy = view.get('legacy')
  if (!motus && !legacy) return null
  const g = gather(motus, legacy, dot)
  if (g.dockets.size === 0) return null

  const perDocket = [...g.dockets.values()].map((d) => docketAuthority(g, d, today))
  const nonFF = perDocket.filter((a) => a.docket.prefix !== 'FF')
  const ff = perDocket.filter((a) => a.docket.prefix === 'FF')
  const known = perDocket.some((a) => a.source !== null)
  const orN = (l: Letter | null) => l ?? (known ? 'N' : null)
  const common = orN(best(nonFF.map((a) => a.common)))
  const contract = orN(best(nonFF.map((a) => a.contract)))
  const broker = orN(best(nonFF.map((a) => a.broker)))
  const forwarder = best([
    ...ff.flatMap((a) => [a.common, a.contract, a.broker]),
    ...perDocket.map((a) => a.forwarder),
  ])

  const role = (l: Letter | null) => (l === 'A' ? 'active' : l === 'I' ? 'inactive' : null)
  const roles: Roles = {
    carrier: role(best([common, contract])),
    broker: role(broker),
    forwarder: role(forwarder) ?? (ff.length ? 'inactive' : null),
  }

  const authorityTypes: string[] = []
  if (common === 'A') authorityTypes.push('common')
  if (contract === 'A') authorityTypes.push('contract')
  if (broker === 'A') authorityTypes.push('broker')
  if (forwarder === 'A') authorityTypes.push('forwarder')
  if (authorityTypes.length)
    for (const s of perDocket.flatMap((a) => a.scopes))
      if (!authorityTypes.includes(s)) authorityTypes.push(s)

  const grants = g.events
    .filter((e) => e.orig_event === 'granted' && e.orig_date !== null)
    .map((e) => e.orig_date as string)
    .sort()
  const { history, revokedDate, reinstatedDate } = revocationHistory(g, today)
  const pendings = perDocket.map((a) => a.pending).filter((p) => p !== null)
  const revPendings = perDocket.map((a) => a.revocationPending).filter((p) => p !== null)

  const authority: AuthorityJson = {
    status: null,
    common_authority: common,
    contract_authority: contract,
    broker_authority: broker,
    allowed_to_operate: null,
    granted_date: grants[0] ?? null,
    revoked_date: revokedDate,
    reinstated_date: reinstatedDate,
    fmcsa_status_code: null,
    authority_types: authorityTypes,
    pending_application: pendings.length ? pendings.includes(true) : null,
    revocation_pending: revPendings.length ? revPendings.includes(true) : null,
    history,
    source: perDocket.some((a) => a.source === 'motus')
      ? 'motus'
      : perDocket.some((a) => a.source === 'legacy')
        ? 'legacy'
        : null,
  }

  const filings = filingsOf(g, today)
  const current = filings.filter(isCurrent)
  // on-file amounts and flags: Motus rows of a docket replace its legacy row. A legacy figure is
  // frozen at 2026-05-14: when every legacy policy of that kind on the docket has since been
  // cancelled (a cancellation pending at the freeze), nothing of that kind is on file any more.
  const lapsed = (d: DocketRow, types: number[]) =>
    g.policies.some(
      (p) => p.source === 'legacy' && sameDocket(p, d) && types.includes(p.ins_type ?? 0),
    ) && !current.some((f) => sameDocket(f, d) && types.includes(f.insType ?? 0))
  const onFile = perDocket.map((a) => {
    const k = dkey(a.docket)
    const m = g.motus.get(k)
    const l = g.legacy.get(k)
    const frozen = !m && l !== undefined
    const rows: {
      min_cov: number | null
      bipd_file: number | null
      cargo_req: number | null
      bond_req: number | null
      cargo_file: number | null
      bond_file: number | null
    }[] = m ?? (l ? [l] : [])
    const bipd = maxOf(rows.map((r) => r.bipd_file))
    const cargoFile = anyFlag(rows.map((r) => r.cargo_file))
    const bondFile = anyFlag(rows.map((r) => r.bond_file))
    return {
      bipd: frozen && bipd !== null && lapsed(a.docket, [1]) ? 0 : bipd,
      required: maxOf(rows.map((r) => r.min_cov)),
      cargoReq: anyFlag(rows.map((r) => r.cargo_req)),
      bondReq: anyFlag(rows.map((r) => r.bond_req)),
      cargoFile: frozen && cargoFile && lapsed(a.docket, [2]) ? false : cargoFile,
      bondFile: frozen && bondFile && lapsed(a.docket, [3, 4]) ? false : bondFile,
    }
  })
  const flagOf = (vals: (boolean | null)[]) =>
    vals.includes(true) ? true : vals.includes(false) ? false : null
  const cargoPolicies = current.filter((f) => f.insType === 2)
  const bondPolicies = current.filter((f) => f.insType === 3 || f.insType === 4)
  const bipdOnFile = maxOf(onFile.map((o) => o.bipd))
  const cargoFlag = flagOf(onFile.map((o) => o.cargoFile))
  const bondFlag = flagOf(onFile.map((o) => o.bondFile))
  // active carrier authority (or no active broker authority): the BI&PD policy; a broker: the bond
  const rep = representative(filings, best([common, contract]) === 'A' || broker !== 'A')
  // the summary policy's own pending cancellation: a replaced policy that is still winding down
  // does not end the coverage (its cancellation stays visible in the filings)
  const repPending = rep?.status === 'pending_cancellation'
  const expiry = repPending ? rep.cancellation_date : null
  const cargoFiled = cargoPolicies.length ? true : cargoFlag
  const bondFiled = bondPolicies.length ? true : bondFlag
  const insurer = rep?.insurer ?? null
  const insurance: InsuranceJson = {
    bond_on_file: maxOf(
      bondPolicies.map((f) => ((f.max_coverage ?? 0) > 0 ? f.max_coverage : null)),
    ),
    bipd_on_file: bipdOnFile,
    cargo_on_file: maxOf(
      cargoPolicies.map((f) => ((f.max_coverage ?? 0) > 0 ? f.max_coverage : null)),
    ),
    bipd_required: maxOf(onFile.map((o) => o.required)),
    bond_required: flagOf(onFile.map((o) => o.bondReq)),
    cargo_required: flagOf(onFile.map((o) => o.cargoReq)),
    bond_filed: bondFiled,
    cargo_filed: cargoFiled,
    insurance_company: insurer,
    insurer,
    policy_no: rep?.policy_no ?? null,
    effective_date: rep?.effective_date ?? null,
    expiry_date: expiry,
    insurance_filed:
      current.length > 0 || (bipdOnFile ?? 0) > 0 || cargoFiled === true || bondFiled === true
        ? true
        : known || filings.length
          ? false
          : null,
    insurance_type: rep?.type ?? null,
    coverage_amount: rep?.max_coverage ?? null,
    pending_cancellation: repPending ? true : known || filings.length ? false : null,
    filings: filings.map(
      ({ insType: _t, classCode: _c, key: _k, prefix: _p, number: _n, ...f }) => f,
    ),
  }

  // dockets: MC first (active authority, then Motus, then the lowest number)
  const activeOf = new Map(
    perDocket.map((a) => [
      dkey(a.docket),
      [a.common, a.contract, a.broker, a.forwarder].includes('A'),
    ]),
  )
  const ordered = [...g.dockets.values()].sort((a, b) => {
    const pa = PREFIX_ORDER[a.prefix] ?? 9
    const pb = PREFIX_ORDER[b.prefix] ?? 9
    if (pa !== pb) return pa - pb
    const act = Number(activeOf.get(dkey(b))) - Number(activeOf.get(dkey(a)))
    if (act !== 0) return act
    const mot = Number(g.motus.has(dkey(b))) - Number(g.motus.has(dkey(a)))
    if (mot !== 0) return mot
    return a.number - b.number
  })
  const mc = ordered.find((d) => d.prefix === 'MC') ?? null

  // identity fallbacks: the primary docket's Motus row, else its legacy row
  const primary = ordered[0]
  const pk = primary ? dkey(primary) : ''
  const m = g.motus.get(pk)?.[0] ?? [...g.motus.values()][0]?.[0] ?? null
  const l = g.legacy.get(pk) ?? [...g.legacy.values()][0] ?? null
  const src = m ?? l
  const addr = (
    street: string | null,
    city: string | null,
    state: string | null,
    zip: string | null,
    country: string | null,
  ): AddressJson | null =>
    street || city || state || zip ? { street, city, state, zip, country } : null

  return {
    authority,
    insurance,
    dockets: ordered.map(display),
    mcNumber: mc ? display(mc) : null,
    roles,
    legalName: src?.legal_name ?? null,
    dbaName: src?.dba_name ?? null,
    phone: src?.bus_phone ?? null,
    physicalAddress: src
      ? addr(src.bus_street, src.bus_city, src.bus_state, src.bus_zip, src.bus_country)
      : null,
    mailingAddress: src
      ? addr(src.mail_street, src.mail_city, src.mail_state, src.mail_zip, src.mail_country)
      : null,
    // Motus names the flag "undeliverable"; the legacy PDF says Y = deliverable (FMCSA-DATA §2.2)
    mailUndeliverable: m
      ? m.mail_undeliverable === null
        ? null
        : m.mail_undeliverable === 1
      : l
        ? l.undeliverable_mail === null
          ? null
          : l.undeliverable_mail === 0
        : null,
    boc3Filed: g.boc3,
    asOf: {
      motus: g.used.motus ? (motus?.asOf ?? null) : null,
      legacy: g.used.legacy ? (legacy?.asOf ?? null) : null,
    },
  }
}

/** USDOT numbers holding a docket, most relevant first (Motus, then legacy). */
export function findDotsByDocket(view: DataView, prefix: string, number: number): number[] {
  const out: number[] = []
  const push = (rows: unknown[]) => {
    for (const r of rows as { dot_number: number }[])
      if (!out.includes(r.dot_number)) out.push(r.dot_number)
  }
  const motus = view.get('motus')
  const legacy = view.get('legacy')
  if (motus) push(motus.stmt(Q.motusDots).all(prefix, number))
  if (legacy) push(legacy.stmt(Q.legacyDots).all(prefix, number))
  if (motus) push(motus.stmt(Q.anyDots).all(prefix, number))
  if (legacy) push(legacy.stmt(Q.anyDots).all(prefix, number))
  return out
}
