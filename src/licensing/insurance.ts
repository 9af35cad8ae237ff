/**
 * Insurance from the licensing rows (docs/data.md, precedence): current policies and the filing history
 * deduplicated into filings, the policy the summary describes, and the on-file amounts and flags.
 */
import type { FilingJson, InsuranceJson } from './schema.ts'
import { INS_TYPE_WORDS, methodStatus } from './tables.ts'
import {
  dkey,
  display,
  sameDocket,
  type DocketRow,
  type Gathered,
  type PolicyRow,
} from './lookup.ts'

interface Filing extends FilingJson {
  insType: number | null
  classCode: string | null
  key: string | null
  prefix: DocketRow['prefix']
  number: number
}

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
  // Motus allows duplicate rows (no unique business key): one filing per docket, form, policy,
  // insurer, amount and effective date
  const once = new Set<string>()
  const motusPolicies = g.policies.filter((p) => {
    if (p.source !== 'motus') return false
    const id = [dkey(p), p.form, p.policy_key, p.insurer, p.max_cov, p.effective_date].join('|')
    if (once.has(id)) return false
    once.add(id)
    return true
  })
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

const flagOf = (vals: (boolean | null)[]) =>
  vals.includes(true) ? true : vals.includes(false) ? false : null

/** Amounts and flags one docket has on file. */
interface OnFile {
  bipd: number | null
  required: number | null
  cargoReq: boolean | null
  bondReq: boolean | null
  cargoFile: boolean | null
  bondFile: boolean | null
}

/**
 * On-file amounts and flags per docket: Motus rows of a docket replace its legacy row. A legacy
 * figure is frozen at 2026-05-14: when every legacy policy of that kind on the docket has since
 * been cancelled (a cancellation pending at the freeze), nothing of that kind is on file any more.
 */
function onFileOf(g: Gathered, current: readonly Filing[]): OnFile[] {
  const lapsed = (d: DocketRow, types: number[]) =>
    g.policies.some(
      (p) => p.source === 'legacy' && sameDocket(p, d) && types.includes(p.ins_type ?? 0),
    ) && !current.some((f) => sameDocket(f, d) && types.includes(f.insType ?? 0))
  return [...g.dockets.values()].map((d) => {
    const k = dkey(d)
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
      bipd: frozen && bipd !== null && lapsed(d, [1]) ? 0 : bipd,
      required: maxOf(rows.map((r) => r.min_cov)),
      cargoReq: anyFlag(rows.map((r) => r.cargo_req)),
      bondReq: anyFlag(rows.map((r) => r.bond_req)),
      cargoFile: frozen && cargoFile && lapsed(d, [2]) ? false : cargoFile,
      bondFile: frozen && bondFile && lapsed(d, [3, 4]) ? false : bondFile,
    }
  })
}

/** Forms whose BI&PD counts towards `bipd_on_file` (BMC-91 and BMC-91X; never 34, 84 or 85). */
const BIPD_FORMS = new Set(['BMC-91', 'BMC-91X'])

/**
 * BI&PD on file from the current Motus BMC-91/91X filings (docs/data.md, the Motus-era record): each
 * filing is one layer of `MAX_COV_AMOUNT` (an excess filing's amount is its own layer, written
 * above its `UNDERL_LIM_AMOUNT`), layers add up, one amount per (policy number, insurer, amount).
 * Only filings in force today count; a primary filing with a pending cancellation is left out
 * when another primary is active (the replaced policy winding down, not a second layer).
 */
function bipdFromFilings(current: readonly Filing[], today: string): number {
  const layers = current.filter(
    (f) =>
      f.source === 'motus' &&
      f.insType === 1 &&
      BIPD_FORMS.has(f.form ?? '') &&
      (f.effective_date === null || f.effective_date <= today),
  )
  const primary = (f: Filing) => f.classCode !== 'E'
  const activePrimary = layers.some((f) => primary(f) && f.status === 'active')
  const seen = new Set<string>()
  let total = 0
  for (const f of layers) {
    if (activePrimary && primary(f) && f.status === 'pending_cancellation') continue
    const amount = f.max_coverage ?? 0
    const id = [f.key ?? f.policy_no ?? '', (f.insurer ?? '').toUpperCase(), amount].join('|')
    if (seen.has(id)) continue
    seen.add(id)
    total += amount
  }
  return total
}

export type BipdSource = 'filings' | 'carrier_file' | 'legacy_baseline'

/**
 * `bipd_on_file` and where it came from: the Motus BI&PD filings when the company has any (current
 * or in Motus InsHist), else the Motus Carrier `BIPD_FILE` (which can read 0 on every row of a
 * carrier with $1M on file), else — only for a company with no Motus activity at all — the frozen
 * legacy baseline (thousands at import).
 */
function bipdOnFile(
  g: Gathered,
  current: readonly Filing[],
  onFile: readonly OnFile[],
  today: string,
): { amount: number | null; source: BipdSource | null } {
  const bipdRow = (p: { source: string; ins_type: number | null; form: string | null }) =>
    p.source === 'motus' && p.ins_type === 1 && BIPD_FORMS.has(`BMC-${p.form ?? ''}`)
  const motusBipd = g.policies.some(bipdRow) || g.hist.some(bipdRow)
  if (motusBipd) return { amount: bipdFromFilings(current, today), source: 'filings' }
  const amount = maxOf(onFile.map((o) => o.bipd))
  if (g.motus.size > 0) return { amount, source: amount === null ? null : 'carrier_file' }
  if (g.used.motus) return { amount: null, source: null }
  return { amount, source: amount === null ? null : 'legacy_baseline' }
}

/** The largest published amount (a 0 is "not published") of some policies. */
const publishedMax = (fs: readonly Filing[]) =>
  maxOf(fs.map((f) => ((f.max_coverage ?? 0) > 0 ? f.max_coverage : null)))

/**
 * The `insurance` block. `carrierSummary`: the summary describes the BI&PD policy (active carrier
 * authority, or no active broker authority), else the broker's bond. `known`: a dataset holds an
 * authority row for a docket of the company, so "nothing filed" is a fact rather than unknown.
 */
export function insuranceBlock(
  g: Gathered,
  opts: { carrierSummary: boolean; known: boolean },
  today: string,
): InsuranceJson {
  const filings = filingsOf(g, today)
  const current = filings.filter(isCurrent)
  const onFile = onFileOf(g, current)
  const cargoPolicies = current.filter((f) => f.insType === 2)
  const bondPolicies = current.filter((f) => f.insType === 3 || f.insType === 4)
  const bipd = bipdOnFile(g, current, onFile, today)
  const bipdOnFileAmount = bipd.amount
  const cargoFlag = flagOf(onFile.map((o) => o.cargoFile))
  const bondFlag = flagOf(onFile.map((o) => o.bondFile))
  const rep = representative(filings, opts.carrierSummary)
  // the summary policy's own pending cancellation: a replaced policy that is still winding down
  // does not end the coverage (its cancellation stays visible in the filings)
  const repPending = rep?.status === 'pending_cancellation'
  const expiry = repPending ? rep.cancellation_date : null
  const cargoFiled = cargoPolicies.length ? true : cargoFlag
  const bondFiled = bondPolicies.length ? true : bondFlag
  const insurer = rep?.insurer ?? null
  const knownOrFiled = opts.known || filings.length > 0
  return {
    bond_on_file: publishedMax(bondPolicies),
    bipd_on_file: bipdOnFileAmount,
    bipd_on_file_source: bipd.source,
    cargo_on_file: publishedMax(cargoPolicies),
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
      current.length > 0 || (bipdOnFileAmount ?? 0) > 0 || cargoFiled === true || bondFiled === true
        ? true
        : knownOrFiled
          ? false
          : null,
    insurance_type: rep?.type ?? null,
    coverage_amount: rep?.max_coverage ?? null,
    pending_cancellation: repPending ? true : knownOrFiled ? false : null,
    filings: filings.map(
      ({ insType: _t, classCode: _c, key: _k, prefix: _p, number: _n, ...f }) => f,
    ),
  }
}
