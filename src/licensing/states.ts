/**
 * Authority states as Motus issues them (issue 12): per docket and authority family, `active |
 * pending | inactive | suspension_pending | suspended | revoked | reinstated`, the suspension
 * that is due (a RevokeSuspend order whose effective date is after today), and the reason of a
 * suspension. The state follows the clock: an order that takes effect after the file that gave the
 * letter was published is applied on its effective date, without waiting for a new file.
 */
import { daysBetween, daysBefore } from '../dates.ts'
import {
  CARRIER_KINDS,
  revocationEvents,
  type DocketAuthority,
  type Letter,
  type Revocation,
} from './authority.ts'
import { dkey, display, sameDocket, type DocketRow, type Gathered } from './lookup.ts'
import type { AuthorityStateJson, PendingSuspensionJson, SuspensionReason } from './schema.ts'
import { eventKind } from './tables.ts'

type Family = AuthorityStateJson['authority_type']

/** Days before an order's serve date in which a cancelled filing is taken as its cause. */
const CAUSE_WINDOW_DAYS = 60

const familyOf = (authority: string, d: DocketRow): Family | null => {
  if (d.prefix === 'FF' || authority === 'forwarder') return 'forwarder'
  if (authority === 'broker') return 'broker'
  if (CARRIER_KINDS.has(authority)) return 'carrier'
  return null
}

/**
 * The reason of a suspension or revocation: the words of the order and of the AuthHist entry
 * merged with it first (insurance; a broker's or forwarder's financial security drawn down), then
 * a filing of the authority's kind (BI&PD for a carrier, bond or trust fund for a broker or
 * forwarder) cancelled shortly before the order: insurance. Anything else: other.
 */
export function suspensionReason(
  g: Gathered,
  d: DocketRow,
  family: Family,
  texts: readonly (string | null)[],
  serve: string | null,
  effective: string | null,
): SuspensionReason {
  const words = texts.join(' ').toUpperCase()
  if (/DRAW\s*-?\s*DOWN|FINANCIAL SECURITY|SECURITY (FELL|SHORT|BELOW)|387\.307/.test(words))
    return 'bond_drawdown'
  if (/INSURANCE|BIPD|BI&PD|LIABILITY|CARGO|BOND|TRUST/.test(words)) return 'insurance'
  const ref = effective ?? serve
  if (ref === null) return 'other'
  const from = daysBefore(serve ?? ref, CAUSE_WINDOW_DAYS)
  const types = family === 'carrier' ? [1] : [3, 4]
  const rows: { p: (typeof g.policies)[number]; method: string | null }[] = [
    ...g.hist.map((h) => ({ p: h, method: h.method })),
    ...g.policies.map((p) => ({ p, method: null })),
  ]
  const cancelled = rows.some(
    ({ p, method }) =>
      sameDocket(p, d) &&
      types.includes(p.ins_type ?? 0) &&
      p.cancel_date !== null &&
      p.cancel_date >= from &&
      p.cancel_date <= ref &&
      !/REPL|NAME|TRANSFER/i.test(method ?? ''),
  )
  return cancelled ? 'insurance' : 'other'
}

interface FamilyLetter {
  family: Family
  letter: Letter | null
  pending: boolean
}

/** The families a docket's letters and rows speak for, with the letter and a pending application. */
function familiesOf(g: Gathered, a: DocketAuthority): FamilyLetter[] {
  const k = dkey(a.docket)
  const rows = g.motus.get(k) ?? []
  const lc = g.legacy.get(k)
  const motusPending = (f: Family) =>
    rows.some(
      (r) => familyOf(r.authority, a.docket) === f && /^PENDING/i.test((r.status ?? '').trim()),
    )
  const best = (ls: (Letter | null)[]): Letter | null =>
    ls.includes('A') ? 'A' : ls.includes('I') ? 'I' : ls.includes('N') ? 'N' : null
  if (a.docket.prefix === 'FF')
    return [
      {
        family: 'forwarder',
        letter: best([a.common, a.contract, a.broker, a.forwarder]),
        pending: a.pending === true,
      },
    ]
  return [
    {
      family: 'carrier',
      letter: best([a.common, a.contract]),
      pending:
        motusPending('carrier') ||
        (!rows.length && (lc?.common_app_pend === 1 || lc?.contract_app_pend === 1)),
    },
    {
      family: 'broker',
      letter: a.broker,
      pending: motusPending('broker') || (!rows.length && lc?.broker_app_pend === 1),
    },
    { family: 'forwarder', letter: a.forwarder, pending: motusPending('forwarder') },
  ]
}

export interface StatesResult {
  states: AuthorityStateJson[]
  pendingSuspension: PendingSuspensionJson | null
}

/**
 * The state of every authority the company's dockets hold, and the earliest suspension due.
 * `asOf`: the date of the dataset versions the letters came from. An order in effect today but
 * after that date turns the authority's letter to I in `perDocket` (the file could not know yet);
 * an order in effect by that date while the file still says Active was lifted (the file wins).
 */
export function authorityStates(
  g: Gathered,
  perDocket: DocketAuthority[],
  asOf: { motus: string | null; legacy: string | null },
  today: string,
): StatesResult {
  const { revocations, reinstatements } = revocationEvents(g, today)
  const states: AuthorityStateJson[] = []
  const pendings: PendingSuspensionJson[] = []
  for (const a of perDocket) {
    const d = a.docket
    const k = dkey(d)
    const fileAsOf = (g.motus.has(k) ? asOf.motus : g.legacy.has(k) ? asOf.legacy : null) ?? today
    const mine = (r: { docket: DocketRow; authority: string }, f: Family) =>
      dkey(r.docket) === k && familyOf(r.authority, d) === f
    for (const { family, letter, pending } of familiesOf(g, a)) {
      const stops = revocations.filter((r) => mine(r, family) && r.date !== null)
      const lastStop = stops.sort((x, y) => (x.date ?? '').localeCompare(y.date ?? '')).at(-1)
      const lastBack = reinstatements
        .filter((x) => mine(x, family) && x.date <= today)
        .map((x) => x.date)
        .sort()
        .at(-1)
      const due = g.revs
        .filter(
          (r) =>
            dkey(r) === k &&
            familyOf(r.authority, d) === family &&
            r.effective_date !== null &&
            r.effective_date > today,
        )
        .sort((x, y) => (x.effective_date ?? '').localeCompare(y.effective_date ?? ''))[0]
      const reasonOf = (r: Revocation) =>
        suspensionReason(g, d, family, r.texts ?? [r.type], r.serve, r.date)
      let state: AuthorityStateJson['state'] | null = null
      let since: string | null = null
      let reason: SuspensionReason | null = null
      const stopInForce = lastStop && (!lastBack || lastBack <= (lastStop.date ?? ''))
      if (stopInForce && !(letter === 'A' && (lastStop.date ?? '') <= fileAsOf)) {
        state = eventKind(lastStop.type) === 'suspended' ? 'suspended' : 'revoked'
        since = lastStop.date
        reason = reasonOf(lastStop)
        if (letter === 'A') overrideLetter(a, family)
      } else if (letter === 'A') {
        const back = lastBack && lastStop && lastBack > (lastStop.date ?? '')
        state = back ? 'reinstated' : 'active'
        since = back ? lastBack : null
      } else if (letter === 'I') state = 'inactive'
      else if (pending) state = 'pending'
      if (state === null) continue
      if (due && (state === 'active' || state === 'reinstated')) {
        const dueReason = suspensionReason(
          g,
          d,
          family,
          [due.type_desc],
          due.serve_date,
          due.effective_date,
        )
        state = 'suspension_pending'
        since = due.serve_date
        reason = dueReason
        pendings.push({
          effective_date: due.effective_date,
          reason: dueReason,
          authority_type: family,
          docket_number: display(d),
          order_type: due.type_desc,
          days_until: daysBetween(today, due.effective_date ?? today),
        })
      }
      states.push({
        docket_number: display(d),
        authority_type: family,
        state,
        since,
        reason,
      })
    }
  }
  pendings.sort((x, y) => (x.effective_date ?? '').localeCompare(y.effective_date ?? ''))
  return { states, pendingSuspension: pendings[0] ?? null }
}

/** An order took effect after the file was published: the family's letters read I from today. */
function overrideLetter(a: DocketAuthority, family: Family): void {
  if (family === 'forwarder') {
    if (a.docket.prefix === 'FF')
      for (const key of ['common', 'contract', 'broker'] as const) if (a[key] === 'A') a[key] = 'I'
    if (a.forwarder === 'A') a.forwarder = 'I'
  } else if (family === 'broker') a.broker = 'I'
  else {
    if (a.common === 'A') a.common = 'I'
    if (a.contract === 'A') a.contract = 'I'
  }
  // the docket no longer grants the scopes it listed for that family
  if (family === 'carrier') a.scopes = []
}

/** Whole days since the first grant, or null. */
export function ageDays(granted: string | null, today: string): number | null {
  if (granted === null || granted > today) return granted === null ? null : 0
  return daysBetween(granted, today)
}
