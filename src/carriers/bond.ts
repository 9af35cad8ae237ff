/**
 * The broker bond view (GET /v1/bond/{dot}): the BMC-84 surety bond or BMC-85 trust fund on file,
 * read from the record's insurance block (filings and on-file facts), plus the insurance on file.
 */
import { z } from 'zod'
import { MetaJson, type CarrierJson } from './schema.ts'
import { CrosscheckJson } from '../crosscheck/schema.ts'
import {
  FilingJson,
  InsuranceJson,
  SuspensionReason,
  type AuthorityJson,
} from '../licensing/schema.ts'
import { EntityType } from '../fields.ts'

const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .nullable()

export const BondType = z.enum(['surety_bond', 'trust_fund'])
export type BondType = z.infer<typeof BondType>

/** One BMC-84/85 filing. */
export const BondFilingJson = z.object({
  type: BondType.nullable().meta({
    description: 'surety_bond (BMC-84) or trust_fund (BMC-85)',
  }),
  form: z.string().nullable().meta({ description: 'BMC-84 or BMC-85' }),
  amount: z.number().nullable().meta({ description: 'whole US dollars; null when not published' }),
  surety: z
    .string()
    .nullable()
    .meta({ description: 'the surety company (BMC-84) or the trustee (BMC-85)' }),
  bond_number: z.string().nullable().meta({ description: 'bond or trust agreement number' }),
  effective_date: date,
  cancellation_date: date.meta({
    description: 'cancellation effective date (future = pending cancellation)',
  }),
  status: FilingJson.shape.status,
  docket_number: z.string().nullable(),
  source: FilingJson.shape.source,
})
export type BondFilingJson = z.infer<typeof BondFilingJson>

/** 49 CFR 387.307: a broker's or forwarder's surety bond or trust fund of at least $75,000. */
export const BROKER_SECURITY_MINIMUM = 75_000

export const BondSuspensionJson = z.object({
  state: z.enum(['suspended', 'suspension_pending']),
  effective_date: date,
  reason: SuspensionReason,
  docket_number: z.string(),
  authority_type: z.enum(['broker', 'forwarder']),
})
export type BondSuspensionJson = z.infer<typeof BondSuspensionJson>

/** The bond on file: the current BMC-84/85 filing, else the latest one, else on-file facts only. */
export const BondJson = z.object({
  on_file: z.boolean().nullable().meta({
    description:
      'true when a surety bond or trust fund is on file now; false when none is; null when the licensing data does not say',
  }),
  required: z.boolean().nullable(),
  type: BondType.nullable(),
  form: z.string().nullable(),
  amount: z.number().nullable(),
  surety: z.string().nullable(),
  bond_number: z.string().nullable(),
  effective_date: date,
  cancellation_date: date,
  status: FilingJson.shape.status.nullable(),
  docket_number: z.string().nullable(),
  provider: z.string().nullable().meta({
    description: 'the surety company (BMC-84 surety bond) or the trust fund provider (BMC-85)',
  }),
  minimum: z.number().meta({
    description: 'the minimum security a broker or forwarder must file (49 CFR 387.307): $75,000',
  }),
  meets_minimum: z.boolean().nullable().meta({
    description: 'amount ≥ minimum; null when no amount is published',
  }),
  pending_cancellation: z
    .object({ cancellation_date: date, docket_number: z.string().nullable() })
    .nullable()
    .meta({ description: 'the shown bond or trust fund is cancelled from this date' }),
  suspension: BondSuspensionJson.nullable().meta({
    description:
      'broker or forwarder authority suspended, or to be suspended, e.g. for a security drawdown (reason bond_drawdown)',
  }),
  /** every BMC-84/85 filing on record, newest first */
  history: z.array(BondFilingJson),
})
export type BondJson = z.infer<typeof BondJson>

/** Response of GET /v1/bond/{dot}. */
export const BondResponseJson = z.object({
  dot_number: z.string(),
  mc_number: z.string().nullable(),
  legal_name: z.string().nullable(),
  entity_type: EntityType.nullable(),
  bond: BondJson,
  insurance: InsuranceJson,
  crosscheck: CrosscheckJson.optional(),
  meta: MetaJson,
})
export type BondResponseJson = z.infer<typeof BondResponseJson>

type Filing = z.infer<typeof FilingJson>

/** BMC-84 / BMC-85 from a form code (`BMC-84`, `84`, `bmc 85`); null for any other form. */
export function bondForm(
  f: Pick<Filing, 'form' | 'type'>,
): { form: string; type: BondType } | null {
  const code = (f.form ?? '')
    .toUpperCase()
    .replace(/^BMC[\s-]*/, '')
    .trim()
  if (code === '84') return { form: 'BMC-84', type: 'surety_bond' }
  if (code === '85') return { form: 'BMC-85', type: 'trust_fund' }
  if (code !== '') return null // 85C, 36: cancellations; other forms are insurance
  const t = (f.type ?? '').toUpperCase()
  if (/TRUST/.test(t)) return { form: 'BMC-85', type: 'trust_fund' }
  if (/SURETY|BOND/.test(t)) return { form: 'BMC-84', type: 'surety_bond' }
  return null
}

const isCurrent = (s: Filing['status']) => s === 'active' || s === 'pending_cancellation'

function toFiling(f: Filing, kind: { form: string; type: BondType }): BondFilingJson {
  return {
    type: kind.type,
    form: kind.form,
    // min_coverage is the required minimum, not the bond: never report it as the amount
    amount: f.max_coverage,
    surety: f.insurer,
    bond_number: f.policy_no,
    effective_date: f.effective_date,
    cancellation_date: f.cancellation_date,
    status: f.status,
    docket_number: f.docket_number,
    source: f.source,
  }
}

const byRecency = (a: BondFilingJson, b: BondFilingJson) =>
  (b.effective_date ?? '').localeCompare(a.effective_date ?? '') ||
  (b.cancellation_date ?? '').localeCompare(a.cancellation_date ?? '')

/**
 * The bond block of an insurance block. The shown filing is the current one (active before
 * pending cancellation, then the latest effective), else the latest filing of any status; with no
 * filing at all it carries only the on-file amount or flag. Never invents the $75,000 minimum.
 */
export function toBondJson(
  ins: InsuranceJson,
  auth?: Pick<AuthorityJson, 'states'> & Partial<Pick<AuthorityJson, 'pending_suspension'>>,
): BondJson {
  const history = ins.filings
    .flatMap((f) => {
      const kind = bondForm(f)
      return kind ? [toFiling(f, kind)] : []
    })
    .sort(byRecency)
  const current = history.filter((f) => isCurrent(f.status))
  const shown = current.find((f) => f.status === 'active') ?? current[0] ?? history[0] ?? null
  const onFileFact = (ins.bond_on_file !== null && ins.bond_on_file > 0) || ins.bond_filed === true
  const knownNone =
    ins.bond_on_file === 0 || ins.bond_filed === false || (history.length > 0 && !current.length)
  const onFile = current.length > 0 || onFileFact ? true : knownNone ? false : null
  // the carrier-level amount belongs to the shown filing only when it is the one current bond
  const amount = shown
    ? (shown.amount ?? (isCurrent(shown.status) && current.length === 1 ? ins.bond_on_file : null))
    : onFileFact
      ? ins.bond_on_file
      : null
  const shownAmount = amount !== null && amount > 0 ? amount : null
  const suspension = (auth?.states ?? [])
    .filter(
      (st) =>
        (st.authority_type === 'broker' || st.authority_type === 'forwarder') &&
        (st.state === 'suspended' || st.state === 'suspension_pending'),
    )
    .map((st): BondSuspensionJson => ({
      state: st.state === 'suspended' ? 'suspended' : 'suspension_pending',
      effective_date:
        st.state === 'suspended'
          ? st.since
          : auth?.pending_suspension?.docket_number === st.docket_number &&
              auth.pending_suspension.authority_type === st.authority_type
            ? auth.pending_suspension.effective_date
            : null,
      reason: st.reason ?? 'other',
      docket_number: st.docket_number,
      authority_type: st.authority_type === 'forwarder' ? 'forwarder' : 'broker',
    }))[0]
  return {
    on_file: onFile,
    required: ins.bond_required,
    type: shown?.type ?? null,
    form: shown?.form ?? null,
    amount: shownAmount,
    surety: shown?.surety ?? null,
    bond_number: shown?.bond_number ?? null,
    effective_date: shown?.effective_date ?? null,
    cancellation_date: shown?.cancellation_date ?? null,
    status: shown?.status ?? null,
    docket_number: shown?.docket_number ?? null,
    provider: shown?.surety ?? null,
    minimum: BROKER_SECURITY_MINIMUM,
    meets_minimum: shownAmount === null ? null : shownAmount >= BROKER_SECURITY_MINIMUM,
    pending_cancellation:
      shown?.status === 'pending_cancellation'
        ? { cancellation_date: shown.cancellation_date, docket_number: shown.docket_number }
        : null,
    suspension: suspension ?? null,
    history,
  }
}

/** GET /v1/bond/{dot} from the billed record JSON (same meta, same cross-check). */
export function toBondResponseJson(json: CarrierJson): BondResponseJson {
  return {
    dot_number: json.dot_number,
    mc_number: json.mc_number,
    legal_name: json.legal_name,
    entity_type: json.entity_type,
    bond: toBondJson(json.insurance, json.authority),
    insurance: json.insurance,
    ...(json.crosscheck ? { crosscheck: json.crosscheck } : {}),
    meta: json.meta,
  }
}
