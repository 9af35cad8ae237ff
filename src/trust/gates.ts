/** The hard gates of the Trust Score: conditions that cap the total whatever the components say. */
import {
  anyAuthorityActive,
  authorityRequired,
  carrierAuthorityActive,
  evidence,
  licensingDataset,
} from './signals.ts'
import { gate, money, type Ctx } from './explain.ts'
import type { TrustInput } from './input.ts'
import { T } from './policy.ts'

// --- gates -----------------------------------------------------------------------------------

export function gates(c: Ctx): void {
  const { record: r } = c
  const a = r.authority
  const lic = licensingDataset(r)
  const oos = r.identity.out_of_service === true
  const usdotInactive = r.identity.usdot_status === 'inactive'
  const usdotPending = r.identity.usdot_status === 'pending'
  const authorityLapsed = lic !== null && authorityRequired(r) && !anyAuthorityActive(a)
  if (oos)
    gate(
      c,
      'out_of_service_order',
      `Active out-of-service order${r.identity.out_of_service_reason ? ` (${r.identity.out_of_service_reason})` : ''}`,
      evidence(r, 'oos', 'identity.out_of_service_date', r.identity.out_of_service_date),
    )
  if (a.allowed_to_operate === 'N' && (usdotInactive || usdotPending || authorityLapsed || !oos))
    gate(
      c,
      'not_allowed_to_operate',
      usdotInactive
        ? 'USDOT number is inactive: not allowed to operate'
        : usdotPending
          ? 'USDOT registration is pending (not active yet): not allowed to operate'
          : authorityLapsed
            ? 'Not allowed to operate: no active operating authority'
            : 'Not allowed to operate',
      usdotInactive || usdotPending
        ? evidence(r, 'census', 'identity.usdot_status', r.identity.usdot_status)
        : evidence(r, lic ?? 'census', 'authority.allowed_to_operate', 'N'),
    )
  if (authorityLapsed && lic) {
    const field = c.mode === 'broker' ? 'authority.broker_authority' : 'authority.common_authority'
    const value = c.mode === 'broker' ? a.broker_authority : a.common_authority
    gate(
      c,
      'no_active_authority',
      a.pending_application
        ? 'Operating authority applied for but not granted yet: no active authority'
        : 'No active operating authority (required for this company)',
      evidence(r, lic, field, value),
    )
  }
  const ins = r.insurance
  if (
    lic &&
    carrierAuthorityActive(a) &&
    ins.bipd_required !== null &&
    ins.bipd_required > 0 &&
    ins.bipd_on_file !== null &&
    ins.bipd_on_file < ins.bipd_required
  )
    gate(
      c,
      'bipd_below_required',
      `BI&PD liability on file ${money(ins.bipd_on_file)} is below the ${money(ins.bipd_required)} required`,
      evidence(r, lic, 'insurance.bipd_on_file', ins.bipd_on_file),
    )
  const bond = bondStatus(r)
  if (lic && bond === 'missing')
    gate(
      c,
      'no_broker_bond',
      `${c.mode === 'forwarder' ? 'Freight forwarder' : 'Broker'} authority without a BMC-84 bond or BMC-85 trust fund on file`,
      evidence(r, lic, 'insurance.bond_filed', ins.bond_filed),
    )
  if (lic && bond === 'below')
    gate(
      c,
      'broker_bond_below_minimum',
      `Bond or trust fund on file ${money(ins.bond_on_file ?? 0)} is below the ${money(T.bondMinimum)} minimum`,
      evidence(r, lic, 'insurance.bond_on_file', ins.bond_on_file),
    )
  if (r.safety.safety_rating_code === 'U')
    gate(
      c,
      'unsatisfactory_rating',
      `Unsatisfactory safety rating${r.safety.safety_rating_date ? ` (${r.safety.safety_rating_date})` : ''}`,
      evidence(r, 'census', 'safety.safety_rating', r.safety.safety_rating),
    )
}

/** Broker/forwarder financial security: not needed, ok, missing, below the minimum or unknown. */
export function bondStatus(r: TrustInput): 'none' | 'ok' | 'missing' | 'below' | 'unknown' {
  const a = r.authority
  // brokers: always (49 CFR 387.307); forwarders: unless FMCSA's own BOND_REQ flag says no
  const needed =
    a.broker_authority === 'A' ||
    (r.entity_type === 'forwarder' && anyAuthorityActive(a) && r.insurance.bond_required !== false)
  if (!needed) return 'none'
  const i = r.insurance
  if (i.bond_on_file !== null && i.bond_on_file > 0)
    return i.bond_on_file < T.bondMinimum ? 'below' : 'ok'
  if (i.bond_filed === true) return 'ok'
  return i.bond_filed === false ? 'missing' : 'unknown'
}
