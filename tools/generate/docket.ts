/** Dockets and their authority timelines (core layer). */
import {
  AS_OF,
  type AuthEvent,
  type Authority,
  authorityState,
  type CargoKind,
  type Docket,
} from './model.ts'

export interface DocketOptions {
  prefix: Docket['prefix']
  number: number
  kinds: readonly Authority['kind'][]
  cargo: CargoKind
  granted: number
  applied?: number
  /** Revocation + reinstatement cycles before the final state */
  cycles?: readonly {
    serve: number
    effective: number
    reinstated: number | null
    voluntary?: boolean
  }[]
  /** Ends with this revocation (no reinstatement) */
  revoked?: { serve: number; effective: number; voluntary: boolean; suspension?: boolean }
  /** Still only applied for (pending) */
  pending?: boolean
  bipdRequired: number
}

/** The day an authority event happens (a revocation: when it is served). */
export const eventDay = (e: AuthEvent) =>
  e.kind === 'revoked' || e.kind === 'discontinued' ? e.serve : e.date

/** A docket whose authorities all follow the same timeline. */
export function makeDocket(o: DocketOptions): Docket {
  const authorities: Authority[] = o.kinds.map((kind) => {
    const events: AuthEvent[] = []
    if (o.applied !== undefined) events.push({ kind: 'applied', date: o.applied })
    if (!o.pending) {
      events.push({ kind: 'granted', date: o.granted })
      for (const c of o.cycles ?? []) {
        events.push({
          kind: 'revoked',
          serve: c.serve,
          effective: c.effective,
          voluntary: c.voluntary ?? false,
        })
        if (c.reinstated !== null) events.push({ kind: 'reinstated', date: c.reinstated })
      }
      if (o.revoked) events.push({ kind: 'revoked', ...o.revoked })
    }
    return { kind, cargo: o.cargo, events }
  })
  return {
    prefix: o.prefix,
    number: o.number,
    mxType: o.prefix === 'MX' ? 'X' : ' ',
    authorities,
    policies: [],
    bipdRequired: o.bipdRequired,
    agent: null,
    undeliverableMail: false,
  }
}

export function bipdRequiredFor(cargo: CargoKind, hazmat: boolean, busSeats16: boolean): number {
  if (cargo === 'passenger') return busSeats16 ? 5_000_000 : 1_500_000
  if (hazmat) return 5_000_000
  return 750_000
}

/** The docket's authority status letter for the census DOCKETn_STATUS_CODE at AS_OF. */
export function docketStatusCode(d: Docket): string {
  if (d.censusStatusOverride !== undefined) return d.censusStatusOverride
  return d.authorities.some((a) => authorityState(a, AS_OF).stat === 'A') ? 'A' : 'I'
}
