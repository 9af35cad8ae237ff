/**
 * Authority from the licensing rows (L&I and Motus status codes): the A/I/N letter of each kind per
 * docket (Motus wins where it has a row; no Motus row is not "no authority"), the letters over all
 * dockets, and the revocation and reinstatement history.
 */
import type { AuthorityJson, RevocationJson } from './schema.ts'
import {
  dkey,
  display,
  type DocketRow,
  type Gathered,
  type MotusAuthRow,
  type Src,
} from './lookup.ts'
import { eventKind } from './tables.ts'
import { daysBetween } from '../dates.ts'

export type Letter = 'A' | 'I' | 'N'

const RANK: Record<Letter, number> = { A: 3, I: 2, N: 1 }
/** The strongest of some letters (A over I over N), or null when none is a letter. */
export const best = (letters: readonly (string | null | undefined)[]): Letter | null => {
  let out: Letter | null = null
  for (const l of letters) {
    if (l !== 'A' && l !== 'I' && l !== 'N') continue
    if (out === null || RANK[l] > RANK[out]) out = l
  }
  return out
}
export const CARRIER_KINDS = new Set(['carrier', 'common', 'contract'])
export const sameFamily = (a: string, b: string) =>
  a === b || (CARRIER_KINDS.has(a) && CARRIER_KINDS.has(b) && (a === 'carrier' || b === 'carrier'))

/** Motus OP_AUTH_STATUS → letter. Withdrawn is I only if it was ever granted. */
function motusLetter(status: string | null, everGranted: boolean): Letter | null {
  const t = (status ?? '').trim().toUpperCase()
  if (t === '') return null
  if (t.startsWith('ACTIVE')) return 'A'
  if (t.startsWith('INACTIVE')) return 'I'
  if (t.startsWith('PENDING')) return 'N'
  if (t.startsWith('WITHDRAW')) return everGranted ? 'I' : 'N'
  return 'I'
}

/** The authority one docket proves. */
export interface DocketAuthority {
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

export function docketAuthority(g: Gathered, d: DocketRow, today: string): DocketAuthority {
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

export interface Revocation {
  docket: DocketRow
  authority: string
  date: string | null
  serve: string | null
  type: string | null
  /** entries from a revocation file carry the precise type (INVOLUNTARY …) */
  precise: boolean
  sources: Set<Src>
  /** every action text merged into this entry (an AuthHist REASON can name the cause) */
  texts?: string[]
}

export interface Reinstatement {
  docket: DocketRow
  authority: string
  date: string
}

const refDate = (r: Revocation) => r.date ?? r.serve ?? ''

/** Days within which an order file entry and an AuthHist entry are the same action (a peer's ±45). */
export const SAME_ACTION_DAYS = 45

/**
 * The same action published twice: once in an order file (RevokeSuspend, legacy Revocation:
 * `precise`) and once in AuthHist, of the same kind (revocation or suspension), dated within
 * SAME_ACTION_DAYS of each other (the order's effective date vs the status change date).
 */
function sameAction(a: Revocation, b: Revocation): boolean {
  if (a.precise === b.precise || a.date === null || b.date === null) return false
  const kind = (r: Revocation) => (eventKind(r.type) === 'suspended' ? 'suspended' : 'revoked')
  return kind(a) === kind(b) && Math.abs(daysBetween(a.date, b.date)) <= SAME_ACTION_DAYS
}

/**
 * Every revocation in effect by `today` (merged per docket, authority family and effective date,
 * oldest first) and every reinstatement, from the revocation files and the authority events.
 */
export function revocationEvents(g: Gathered, today: string) {
  const revocations: Revocation[] = []
  const reinstatements: Reinstatement[] = []
  const add = (r: Revocation) => {
    r.texts = r.type ? [r.type] : []
    const same = revocations.find(
      (x) =>
        dkey(x.docket) === dkey(r.docket) &&
        sameFamily(x.authority, r.authority) &&
        (x.date !== null && r.date !== null
          ? x.date === r.date || sameAction(x, r)
          : x.date === null && r.date === null && x.serve === r.serve),
    )
    if (!same) return void revocations.push(r)
    same.texts = [...(same.texts ?? []), ...r.texts]
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
  revocations.sort((a, b) => refDate(a).localeCompare(refDate(b)))
  return { revocations, reinstatements }
}

/** The revocation history, the latest revocation and a reinstatement after it (§4.2). */
function revocationHistory(g: Gathered, today: string) {
  const { revocations, reinstatements } = revocationEvents(g, today)
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

/** The letters over every docket: MC and MX dockets give common, contract and broker authority;
 * an FF docket (any kind) and a Motus forwarder row give the freight forwarder letter. */
export interface AuthorityLetters {
  common: Letter | null
  contract: Letter | null
  broker: Letter | null
  forwarder: Letter | null
}

export function authorityLetters(perDocket: readonly DocketAuthority[]): AuthorityLetters {
  const nonFF = perDocket.filter((a) => a.docket.prefix !== 'FF')
  const ff = perDocket.filter((a) => a.docket.prefix === 'FF')
  const known = perDocket.some((a) => a.source !== null)
  const orN = (l: Letter | null) => l ?? (known ? 'N' : null)
  return {
    common: orN(best(nonFF.map((a) => a.common))),
    contract: orN(best(nonFF.map((a) => a.contract))),
    broker: orN(best(nonFF.map((a) => a.broker))),
    forwarder: best([
      ...ff.flatMap((a) => [a.common, a.contract, a.broker]),
      ...perDocket.map((a) => a.forwarder),
    ]),
  }
}

/** Active kinds, then (when any is active) the scopes the active dockets hold. */
function authorityTypes(perDocket: readonly DocketAuthority[], l: AuthorityLetters): string[] {
  const types: string[] = []
  if (l.common === 'A') types.push('common')
  if (l.contract === 'A') types.push('contract')
  if (l.broker === 'A') types.push('broker')
  if (l.forwarder === 'A') types.push('forwarder')
  if (types.length)
    for (const s of perDocket.flatMap((a) => a.scopes)) if (!types.includes(s)) types.push(s)
  return types
}

/** The `authority` block, except `status` and `allowed_to_operate`, which the record derives. */
export function authorityBlock(
  g: Gathered,
  perDocket: readonly DocketAuthority[],
  letters: AuthorityLetters,
  today: string,
): AuthorityJson {
  const grants = g.events
    .filter((e) => e.orig_event === 'granted' && e.orig_date !== null)
    .map((e) => e.orig_date as string)
    .sort()
  const { history, revokedDate, reinstatedDate } = revocationHistory(g, today)
  const pendings = perDocket.map((a) => a.pending).filter((p) => p !== null)
  const revPendings = perDocket.map((a) => a.revocationPending).filter((p) => p !== null)
  return {
    status: null,
    common_authority: letters.common,
    contract_authority: letters.contract,
    broker_authority: letters.broker,
    allowed_to_operate: null,
    granted_date: grants[0] ?? null,
    revoked_date: revokedDate,
    reinstated_date: reinstatedDate,
    fmcsa_status_code: null,
    authority_types: authorityTypes(perDocket, letters),
    pending_application: pendings.length ? pendings.includes(true) : null,
    revocation_pending: revPendings.length ? revPendings.includes(true) : null,
    history,
    states: [],
    pending_suspension: null,
    age_days: null,
    source: perDocket.some((a) => a.source === 'motus')
      ? 'motus'
      : perDocket.some((a) => a.source === 'legacy')
        ? 'legacy'
        : null,
  }
}
