/**
 * Row writers of the L&I files: legacy rows are the state at the 2026-05-14 freeze, Motus rows
 * exist only for companies with a transaction since.
 */
import { q, qn } from './csv.ts'
import { day, mdy, ymd } from './dates.ts'
import {
  AS_OF,
  type Authority,
  authorityState,
  bipdOnFile,
  type Company,
  type Docket,
  hasOnFile,
  INS_TYPE_DESC,
  insTypeCode,
  isBipd,
  isBondForm,
  isCargoForm,
  isCarrierAuthority,
  LEGACY_FREEZE,
  type Policy,
  policyOnFile,
} from './model.ts'
import { type Emit, k, k5, money, num, pad8, quoteAll, quoteNeeded, yn } from './rows-format.ts'

// ---------------------------------------------------------------------------------------------
// licensing helpers

const docketString = (d: Docket) => `${d.prefix}${d.number}`
const docketHyphen = (d: Docket) => `${d.prefix}-${d.number}`

const LEGACY_TYPE_NAME: Record<Authority['kind'], Record<Authority['cargo'], string>> = {
  common: {
    property: 'MOTOR PROPERTY COMMON CARRIER',
    passenger: 'MOTOR PASSENGER COMMON CARRIER',
    hhg: 'MOTOR PROPERTY COMMON CARRIER (HOUSEHOLD GOODS)',
  },
  contract: {
    property: 'MOTOR PROPERTY CONTRACT CARRIER',
    passenger: 'MOTOR PASSENGER CONTRACT CARRIER',
    hhg: 'MOTOR PROPERTY CONTRACT CARRIER (HOUSEHOLD GOODS)',
  },
  broker: {
    property: 'PROPERTY BROKER',
    passenger: 'PROPERTY BROKER',
    hhg: 'HOUSEHOLD GOODS BROKER',
  },
}
const legacyTypeName = (d: Docket, a: Authority) =>
  d.prefix === 'FF' ? 'FREIGHT FORWARDER' : LEGACY_TYPE_NAME[a.kind][a.cargo]

/** Motus OP_AUTH_TYPE of an authority (Motus has no common/contract split). */
export function motusAuthType(d: Docket, a: Authority): string {
  if (d.prefix === 'FF') return 'Freight Forwarder of Property (Except Household Goods)'
  if (a.kind === 'broker')
    return a.cargo === 'hhg'
      ? 'Broker of Household Goods'
      : 'Broker of Property (Except Household Goods)'
  if (a.cargo === 'passenger') return 'Motor Carrier of Passengers'
  if (a.cargo === 'hhg') return 'Motor Carrier of Household Goods'
  if (d.prefix === 'MX') return 'Motor Carrier of Property (Mexico-Domiciled Long-Haul)'
  return 'Motor Carrier of Property (Except Household Goods)'
}

/** Motus collapses common and contract: one authority per group. */
function motusGroups(d: Docket): Authority[][] {
  const carrier = d.authorities.filter(isCarrierAuthority)
  const broker = d.authorities.filter((a) => !isCarrierAuthority(a))
  return [carrier, broker].filter((g) => g.length > 0)
}

const LEGACY_TYPE_DESC: Record<string, string> = {
  '1P': 'BIPD/Primary',
  '1E': 'BIPD/Excess',
  '2': 'CARGO',
  '3': 'SURETY',
  '4': 'TRUST FUND',
}
const modCol = (p: Policy) => {
  const t = insTypeCode(p.form)
  return LEGACY_TYPE_DESC[t === 1 ? `1${p.classCode === 'E' ? 'E' : 'P'}` : String(t)] ?? ''
}
const CANCEL_WORD = {
  CANCEL: 'Cancelled',
  'TERM/CANCL': 'Cancelled',
  'TERM/REPL': 'Replaced',
  NAMECHG: 'Name Change',
  TRANSFER: 'Transferred',
} as const
function cancelForm(p: Policy): string {
  const m = p.cancel?.method
  if (m === 'TERM/REPL') return p.form
  if (m === 'NAMECHG') return 'NC'
  if (m === 'TRANSFER') return 'TR'
  return p.form === '84' ? '36' : p.form === '85' ? '85C' : '35'
}

// ---------------------------------------------------------------------------------------------
// legacy L&I (state at the freeze)

const REVOCATION_FILE_FROM = day('2023-01-01')

const NO_AUTHORITY = { stat: 'N', appPending: false, revPending: false } as const

function stateOf(d: Docket, kind: Authority['kind'], t: number) {
  for (const a of d.authorities) if (a.kind === kind) return authorityState(a, t)
  return NO_AUTHORITY
}

/** The docket's row of the legacy Carrier file. */
function legacyCarrierRow(c: Company, d: Docket, dk: string, dot8: string, out: Emit): void {
  const T = LEGACY_FREEZE
  if (out.legacyCarrier) {
    const common = stateOf(d, 'common', T)
    const contract = stateOf(d, 'contract', T)
    const broker = stateOf(d, 'broker', T)
    const carrierAuth = d.prefix !== 'FF' && d.authorities.some(isCarrierAuthority)
    const cargoKinds = new Set(d.authorities.filter(isCarrierAuthority).map((a) => a.cargo))
    const bondReq = d.prefix === 'FF' || d.authorities.some((a) => a.kind === 'broker')
    const mailDiffers = c.mail.street !== c.phy.street || c.mail.city !== c.phy.city
    const f = [
      dk,
      dot8,
      d.mxType,
      '',
      common.stat,
      contract.stat,
      broker.stat,
      yn(common.appPending),
      yn(contract.appPending),
      yn(broker.appPending),
      yn(common.revPending),
      yn(contract.revPending),
      yn(broker.revPending),
      yn(cargoKinds.has('property') || d.prefix === 'FF'),
      yn(cargoKinds.has('passenger')),
      yn(cargoKinds.has('hhg')),
      'N',
      'N',
      k5(carrierAuth ? d.bipdRequired : 0),
      yn(cargoKinds.has('hhg')),
      yn(bondReq),
      k5(bipdOnFile(d, T)),
      yn(hasOnFile(d, T, isCargoForm)),
      yn(hasOnFile(d, T, isBondForm)),
      // per the FMCSA definitions PDF: Y = deliverable, N = undeliverable
      yn(!d.undeliverableMail),
      c.dbaName,
      c.legalName,
      c.phy.street,
      c.phy.colonia,
      c.phy.city,
      c.phy.state,
      c.phy.country,
      c.phy.zip,
      c.phone,
      c.fax,
      mailDiffers ? c.mail.street : '',
      mailDiffers ? c.mail.colonia : '',
      mailDiffers ? c.mail.city : '',
      mailDiffers ? c.mail.state : '',
      mailDiffers ? c.mail.country : '',
      mailDiffers ? c.mail.zip : '',
      '',
      '',
    ]
    out.legacyCarrier(quoteAll(f))
  }
}

/** The docket's policies in the legacy ActPendInsur (on file) and InsHist (ended) files. */
function legacyPolicyRows(d: Docket, dk: string, dot8: string, out: Emit): void {
  const T = LEGACY_FREEZE
  for (const p of d.policies) {
    const endedBeforeFreeze = p.cancel !== null && p.cancel.effective <= T
    if (out.legacyActPendInsur && p.posted <= T && !endedBeforeFreeze) {
      const bipd = isBipd(p.form)
      const f = [
        dk,
        dot8,
        p.form,
        modCol(p),
        p.insurer,
        p.policyNo,
        mdy(p.posted),
        bipd ? k(p.underlying) : '0',
        bipd ? k(p.maxCov) : '0',
        mdy(p.effective),
        p.cancel !== null && p.cancel.filed <= T ? mdy(p.cancel.effective) : '',
      ]
      out.legacyActPendInsur(quoteAll(f))
    }
    if (out.legacyInsHist && endedBeforeFreeze && p.cancel) {
      const bipd = isBipd(p.form)
      const t = insTypeCode(p.form)
      // field 9 (minimum coverage) is unquoted in the text files
      out.legacyInsHist(
        [
          q(dk),
          q(dot8),
          q(p.form),
          q(CANCEL_WORD[p.cancel.method]),
          q(cancelForm(p)),
          q(bipd ? ' ' : '*'),
          q(INS_TYPE_DESC[t]),
          q(p.policyNo),
          bipd ? k(d.bipdRequired) : '0',
          q(p.classCode),
          q(mdy(p.effective)),
          q(bipd && p.underlying > 0 ? k(p.underlying) : ''),
          q(bipd ? k(p.maxCov) : ''),
          q(mdy(p.cancel.effective)),
          q(p.cancel.method),
          q(p.branch || '00'),
          q(p.insurer),
        ].join(','),
      )
    }
  }
}

/** The docket's authority history rows of the legacy AuthHist file. */
function legacyAuthHistRows(d: Docket, dk: string, dot8: string, out: Emit): void {
  const T = LEGACY_FREEZE
  if (out.legacyAuthHist && !d.noHistory) {
    for (const a of d.authorities) {
      const type = legacyTypeName(d, a)
      let open: { action: string; date: number } | null = null
      const row = (
        action: string,
        date: number,
        disp: string,
        decided: number | null,
        served: number | null,
      ) =>
        out.legacyAuthHist?.(
          [
            dk,
            dot8,
            '0',
            type,
            action,
            mdy(date),
            disp,
            decided === null ? '' : mdy(decided),
            served === null ? '' : mdy(served),
          ]
            .map(q)
            .join(','),
        )
      for (const e of a.events) {
        if (e.kind === 'granted' || e.kind === 'reinstated') {
          if (e.date > T) continue
          open = { action: e.kind === 'granted' ? 'GRANTED' : 'REINSTATED', date: e.date }
        } else if (e.kind === 'revoked') {
          if (e.effective > T || !open) continue
          row(open.action, open.date, 'REVOKED', e.serve, e.effective)
          open = null
        } else if (e.kind === 'discontinued' && e.decided <= T) {
          row('INVOLUNTARY REVOCATION', e.serve, 'DISCONTINUED REVOCATION', e.decided, e.decided)
        }
      }
      if (open) row(open.action, open.date, '', null, null)
    }
  }
}

/** The docket's revocation orders in the legacy Revocation file. */
function legacyRevocationRows(d: Docket, dk: string, dot8: string, out: Emit): void {
  const T = LEGACY_FREEZE
  if (out.legacyRevocation) {
    for (const a of d.authorities) {
      for (const e of a.events) {
        // the generated Revocation file holds orders served since 2023 (FMCSA's full file: ~300 k rows)
        if (e.kind !== 'revoked' || e.serve > T || e.serve < REVOCATION_FILE_FROM || e.suspension)
          continue
        const type = a.kind === 'broker' ? 'BROKER' : a.kind === 'contract' ? 'CONTRACT' : 'COMMON'
        out.legacyRevocation(
          [
            dk,
            dot8,
            type,
            mdy(e.serve),
            e.voluntary ? 'VOLUNTARY REVOCATION' : 'INVOLUNTARY REVOCATION',
            e.voluntary ? '' : mdy(e.effective),
          ]
            .map(q)
            .join(','),
        )
      }
    }
  }
}

export function legacyRows(c: Company, out: Emit): void {
  const dot8 = pad8(c.dot)
  for (const d of c.dockets) {
    const dk = docketString(d)
    legacyCarrierRow(c, d, dk, dot8, out)
    legacyPolicyRows(d, dk, dot8, out)
    legacyAuthHistRows(d, dk, dot8, out)
    legacyRevocationRows(d, dk, dot8, out)
    if (out.legacyBoc3 && d.agent) {
      const g = d.agent
      out.legacyBoc3(
        [dk, dot8, g.name, g.attention, g.street, g.city, g.state, 'US', g.zip].map(q).join(','),
      )
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Motus (state at AS_OF; only entities with a transaction since the freeze)

const eventDate = (e: Authority['events'][number]) =>
  e.kind === 'revoked' || e.kind === 'discontinued' ? e.serve : e.date

/** The docket's rows of the Motus Carrier file, one per authority group. */
function motusCarrierRows(
  c: Company,
  d: Docket,
  groups: Authority[][],
  dk: string,
  dot: string,
  out: Emit,
): void {
  const T = AS_OF
  if (out.motusCarrier) {
    const cargoReq = d.authorities.some((a) => a.cargo === 'hhg' && isCarrierAuthority(a))
    const bondReq = d.prefix === 'FF' || d.authorities.some((a) => a.kind === 'broker')
    const mailDiffers = c.mail.street !== c.phy.street || c.mail.city !== c.phy.city
    for (const g of groups) {
      const states = g.map((a) => authorityState(a, T))
      const status = states.some((s) => s.stat === 'A')
        ? 'Active'
        : states.some((s) => s.appPending)
          ? 'Pending'
          : 'Inactive'
      const f = [
        dk,
        dot,
        '',
        motusAuthType(d, g[0] as Authority),
        status,
        money(d.prefix !== 'FF' && d.authorities.some(isCarrierAuthority) ? d.bipdRequired : 0),
        yn(cargoReq),
        yn(bondReq),
        money(bipdOnFile(d, T)),
        yn(hasOnFile(d, T, isCargoForm)),
        yn(hasOnFile(d, T, isBondForm)),
        yn(d.undeliverableMail),
        yn(d.undeliverableMail),
        c.dbaName,
        c.legalName,
        c.phy.street,
        c.phy.colonia,
        c.phy.city,
        c.phy.state,
        c.phy.country,
        c.phy.zip,
        c.phone,
        mailDiffers ? c.mail.street : c.phy.street,
        c.mail.colonia,
        c.mail.city,
        c.mail.state,
        c.mail.country,
        c.mail.zip,
      ]
      out.motusCarrier(quoteNeeded(f))
    }
  }
}

/** The docket's policies in the Motus Insur (on file) and InsHist (cancelled since the freeze) files. */
function motusPolicyRows(d: Docket, dk: string, dot: string, out: Emit): void {
  const T = AS_OF
  for (const p of d.policies) {
    const t = insTypeCode(p.form)
    if (out.motusInsur && policyOnFile(p, T)) {
      out.motusInsur(
        [
          dk,
          dot,
          `BMC-${p.form}`,
          num(t),
          p.classCode,
          money(p.maxCov),
          money(p.underlying),
          p.policyNo,
          ymd(p.effective),
          p.insurer,
          ymd(p.posted),
        ]
          .map(qn)
          .join(','),
      )
    }
    if (out.motusInsHist && p.cancel && p.cancel.effective > LEGACY_FREEZE && p.cancel.filed < T) {
      const bipd = isBipd(p.form)
      out.motusInsHist(
        [
          dk,
          dot,
          `BMC-${p.form}`,
          p.cancel.method,
          num(t),
          bipd ? ' ' : '*',
          p.policyNo,
          INS_TYPE_DESC[t],
          money(bipd ? d.bipdRequired : 0),
          p.classCode,
          ymd(p.effective),
          money(p.underlying),
          money(p.maxCov),
          ymd(p.cancel.effective),
          p.insurer,
        ]
          .map(qn)
          .join(','),
      )
    }
  }
}

/** The docket's authority changes (Motus AuthHist) and orders served (RevokeSuspend). */
function motusAuthRows(d: Docket, groups: Authority[][], dk: string, dot: string, out: Emit): void {
  const T = AS_OF
  for (const g of groups) {
    const a = g[0] as Authority
    const type = motusAuthType(d, a)
    // Motus AuthHist: the event behind the status at the freeze, then every change since
    let from = 0
    for (const e of a.events)
      if ((e.kind === 'granted' || e.kind === 'reinstated') && e.date <= LEGACY_FREEZE)
        from = e.date
    for (const e of a.events) {
      // AuthHist records status changes (a revocation when it takes effect); RevokeSuspend the orders served
      const changed = e.kind === 'revoked' ? e.effective : eventDate(e)
      if (out.motusAuthHist && changed >= from && changed < T && e.kind !== 'discontinued') {
        const rec = (status: string, reason: string) =>
          out.motusAuthHist?.([dk, dot, type, status, reason, ymd(changed)].map(qn).join(','))
        if (e.kind === 'applied') rec('Pending', 'Published to FMCSA Register')
        else if (e.kind === 'granted') rec('Active', 'Granted')
        else if (e.kind === 'reinstated') rec('Active', 'Reinstated')
        else
          rec(
            'Inactive',
            e.suspension
              ? 'Involuntary Suspension'
              : e.voluntary
                ? 'Voluntary Revocation'
                : 'Revoked',
          )
      }
      if (
        out.motusRevokeSuspend &&
        e.kind === 'revoked' &&
        e.serve > LEGACY_FREEZE &&
        e.serve < T
      ) {
        const desc = e.suspension
          ? 'INVOLUNTARY SUSPENSION'
          : e.voluntary
            ? 'VOLUNTARY REVOCATION'
            : 'INVOLUNTARY REVOCATION'
        out.motusRevokeSuspend(
          [docketHyphen(d), dot, type, ymd(e.serve), desc, ymd(e.effective)].map(qn).join(','),
        )
      }
    }
  }
}

export function motusRows(c: Company, out: Emit): void {
  const dot = num(c.dot)
  for (const d of c.dockets) {
    const dk = docketString(d)
    const groups = motusGroups(d)
    motusCarrierRows(c, d, groups, dk, dot, out)
    motusPolicyRows(d, dk, dot, out)
    motusAuthRows(d, groups, dk, dot, out)
    if (out.motusBoc3 && d.agent) {
      const g = d.agent
      out.motusBoc3([dk, dot, g.name, g.street, g.city, g.state, g.zip, 'US'].map(qn).join(','))
    }
  }
}
