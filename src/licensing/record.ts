/**
 * Authority, insurance, bond and revocation facts for one USDOT from the Motus and legacy L&I
 * datasets (docs/data.md, precedence), assembled from the rows (`lookup.ts`), the authority
 * (`authority.ts`) and the insurance (`insurance.ts`) they prove.
 */
import type { DataView } from '../db/datasets.ts'
import type { AuthorityJson, InsuranceJson } from './schema.ts'
import { addressOf, type AddressJson } from '../fields.ts'
import {
  authorityBlock,
  authorityLetters,
  best,
  docketAuthority,
  type AuthorityLetters,
  type DocketAuthority,
  type Letter,
} from './authority.ts'
import { insuranceBlock } from './insurance.ts'
import { ageDays, authorityStates } from './states.ts'
import { dkey, display, gather, type DocketRow, type Gathered } from './lookup.ts'

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

const PREFIX_ORDER: Record<string, number> = { MC: 0, FF: 1, MX: 2 }

const role = (l: Letter | null) => (l === 'A' ? 'active' : l === 'I' ? 'inactive' : null)

/** The roles the letters prove; an FF docket without forwarder authority is a former forwarder. */
function rolesOf(letters: AuthorityLetters, perDocket: readonly DocketAuthority[]): Roles {
  return {
    carrier: role(best([letters.common, letters.contract])),
    broker: role(letters.broker),
    forwarder:
      role(letters.forwarder) ??
      (perDocket.some((a) => a.docket.prefix === 'FF') ? 'inactive' : null),
  }
}

/** The dockets, MC first (active authority, then Motus, then the lowest number). */
function orderDockets(g: Gathered, perDocket: readonly DocketAuthority[]): DocketRow[] {
  const activeOf = new Map(
    perDocket.map((a) => [
      dkey(a.docket),
      [a.common, a.contract, a.broker, a.forwarder].includes('A'),
    ]),
  )
  return [...g.dockets.values()].sort((a, b) => {
    const pa = PREFIX_ORDER[a.prefix] ?? 9
    const pb = PREFIX_ORDER[b.prefix] ?? 9
    if (pa !== pb) return pa - pb
    const act = Number(activeOf.get(dkey(b))) - Number(activeOf.get(dkey(a)))
    if (act !== 0) return act
    const mot = Number(g.motus.has(dkey(b))) - Number(g.motus.has(dkey(a)))
    if (mot !== 0) return mot
    return a.number - b.number
  })
}

type Identity = Pick<
  LicensingFacts,
  'legalName' | 'dbaName' | 'phone' | 'physicalAddress' | 'mailingAddress' | 'mailUndeliverable'
>

/** Identity fallbacks: the primary docket's Motus row, else its legacy row. */
function identityOf(g: Gathered, primary: DocketRow | undefined): Identity {
  const pk = primary ? dkey(primary) : ''
  const m = g.motus.get(pk)?.[0] ?? [...g.motus.values()][0]?.[0] ?? null
  const l = g.legacy.get(pk) ?? [...g.legacy.values()][0] ?? null
  const src = m ?? l
  return {
    legalName: src?.legal_name ?? null,
    dbaName: src?.dba_name ?? null,
    phone: src?.bus_phone ?? null,
    physicalAddress: src
      ? addressOf(src.bus_street, src.bus_city, src.bus_state, src.bus_zip, src.bus_country)
      : null,
    mailingAddress: src
      ? addressOf(src.mail_street, src.mail_city, src.mail_state, src.mail_zip, src.mail_country)
      : null,
    // Motus names the flag "undeliverable"; the L&I data-definitions PDF says Y = deliverable
    mailUndeliverable: m
      ? m.mail_undeliverable === null
        ? null
        : m.mail_undeliverable === 1
      : l
        ? l.undeliverable_mail === null
          ? null
          : l.undeliverable_mail === 0
        : null,
  }
}

/** Licensing facts for a USDOT, or null when neither dataset knows it. */
export function getLicensing(view: DataView, dot: number, today: string): LicensingFacts | null {
  const motus = view.get('motus')
  const legacy = view.get('legacy')
  if (!motus && !legacy) return null
  const g = gather(motus, legacy, dot)
  if (g.dockets.size === 0) return null

  const perDocket = [...g.dockets.values()].map((d) => docketAuthority(g, d, today))
  const asOf = { motus: motus?.asOf ?? null, legacy: legacy?.asOf ?? null }
  // states first: an order in effect since the file was published turns a letter to I
  const { states, pendingSuspension } = authorityStates(g, perDocket, asOf, today)
  const letters = authorityLetters(perDocket)
  const authority = authorityBlock(g, perDocket, letters, today)
  authority.states = states
  authority.pending_suspension = pendingSuspension
  authority.age_days = ageDays(authority.granted_date, today)
  const insurance = insuranceBlock(
    g,
    {
      // active carrier authority (or no active broker authority): the BI&PD policy; a broker: the bond
      carrierSummary: best([letters.common, letters.contract]) === 'A' || letters.broker !== 'A',
      known: perDocket.some((a) => a.source !== null),
    },
    today,
  )
  const ordered = orderDockets(g, perDocket)
  const mc = ordered.find((d) => d.prefix === 'MC') ?? null
  return {
    authority,
    insurance,
    dockets: ordered.map(display),
    mcNumber: mc ? display(mc) : null,
    roles: rolesOf(letters, perDocket),
    ...identityOf(g, ordered[0]),
    boc3Filed: g.boc3,
    asOf: {
      motus: g.used.motus ? (motus?.asOf ?? null) : null,
      legacy: g.used.legacy ? (legacy?.asOf ?? null) : null,
    },
  }
}

const DOTS_BY_DOCKET = {
  motus: `SELECT DISTINCT dot_number FROM authorities WHERE prefix = ? AND number = ?
    AND dot_number IS NOT NULL`,
  legacy: `SELECT DISTINCT dot_number FROM carriers WHERE prefix = ? AND number = ?
    AND dot_number IS NOT NULL`,
  any: `SELECT dot_number FROM dot_dockets WHERE prefix = ? AND number = ? AND dot_number > 0
    ORDER BY dot_number`,
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
  if (motus) push(motus.stmt(DOTS_BY_DOCKET.motus).all(prefix, number))
  if (legacy) push(legacy.stmt(DOTS_BY_DOCKET.legacy).all(prefix, number))
  if (motus) push(motus.stmt(DOTS_BY_DOCKET.any).all(prefix, number))
  if (legacy) push(legacy.stmt(DOTS_BY_DOCKET.any).all(prefix, number))
  return out
}
