/** The licensing layer of a random company: insurance filings and the process agent. */
import * as V from './vocab.ts'
import { daysBetween, type GenContext, layerRng } from './context.ts'
import {
  AS_OF,
  type Authority,
  type CancelMethod,
  type Company,
  type Docket,
  type FormCode,
  isCarrierAuthority,
  LEGACY_FREEZE,
  type Policy,
} from './model.ts'
import { Rng } from './prng.ts'

const INSURER_PREFIX: Record<string, string> = {}
function policyNumber(rng: Rng, insurer: string): string {
  let prefix = INSURER_PREFIX[insurer]
  if (prefix === undefined) {
    prefix = insurer.replace(/[^A-Z]/g, '').slice(0, 2)
    INSURER_PREFIX[insurer] = prefix
  }
  return rng.chance(0.5) ? `${prefix}${rng.digits(9)}` : `${rng.digits(2)}${prefix}${rng.digits(6)}`
}

export interface ChainOptions {
  form: FormCode
  start: number
  /** End of coverage: the last policy is cancelled effective this day (null: still on file) */
  end: number | null
  /** Latest day an event (filing, cancellation) may happen */
  horizon: number
  amount: number
  meanYears: number
  classCode?: Policy['classCode']
  /** Force one replacement in (from, to) */
  forceChange?: [number, number]
}

/** A chain of back-to-back filings of one form covering [start, end). */
export function policyChain(rng: Rng, o: ChainOptions): Policy[] {
  const out: Policy[] = []
  const insurers = o.form === '84' ? V.SURETIES : o.form === '85' ? V.TRUSTEES : V.INSURERS
  const stop = o.end ?? o.horizon
  let effective = o.start
  let forced = false
  for (;;) {
    const insurer = rng.pick(insurers)
    const p: Policy = {
      form: o.form,
      classCode: o.classCode ?? (o.form === '91X' || o.form === '91' ? 'P' : ''),
      insurer,
      policyNo: policyNumber(rng, insurer),
      posted: effective - rng.int(0, 20),
      effective,
      maxCov: o.amount,
      underlying: 0,
      branch: '',
      cancel: null,
    }
    out.push(p)
    let next = effective + Math.max(60, Math.round(365 * o.meanYears * (0.4 + 1.2 * rng.next())))
    if (o.forceChange && !forced && next > o.forceChange[1])
      next = daysBetween(rng, o.forceChange[0], o.forceChange[1])
    if (o.forceChange && next >= o.forceChange[0] && next <= o.forceChange[1]) forced = true
    if (next >= stop - 20) {
      if (o.end !== null) {
        p.cancel = { filed: Math.max(p.posted + 1, o.end - 30), effective: o.end, method: 'CANCEL' }
      }
      return out
    }
    const method: CancelMethod = rng.chance(0.75)
      ? 'TERM/REPL'
      : rng.chance(0.9)
        ? 'CANCEL'
        : 'NAMECHG'
    p.cancel = { filed: Math.max(p.posted + 1, next - rng.int(10, 35)), effective: next, method }
    effective = next
  }
}

/** Active periods of a docket's authorities of one group: [[start, end|null], ...]. */
function activePeriods(d: Docket, test: (a: Authority) => boolean): [number, number | null][] {
  const a = d.authorities.find(test)
  if (!a) return []
  const periods: [number, number | null][] = []
  let open: number | null = null
  for (const e of a.events) {
    if ((e.kind === 'granted' || e.kind === 'reinstated') && open === null) open = e.date
    if (e.kind === 'revoked' && open !== null) {
      periods.push([open, e.voluntary ? e.effective : e.serve - 1])
      open = null
    }
  }
  if (open !== null) periods.push([open, null])
  return periods
}

/** Adds insurance filings and the BOC-3 agent to every docket of a random company. */
export function addLicensing(ctx: GenContext, c: Company): void {
  const rng = layerRng(ctx, c.dot, 'licensing')
  const horizon = c.motus ? AS_OF - 1 : LEGACY_FREEZE - 1
  for (const d of c.dockets) {
    const agent = rng.pick(V.PROCESS_AGENTS)
    d.agent = {
      name: agent[0],
      attention: rng.chance(0.3) ? 'PROCESS AGENT DEPT' : '',
      street: agent[1],
      city: agent[2],
      state: agent[3],
      zip: agent[4],
    }
    const hasPostFreezeEvent = d.authorities.some((a) =>
      a.events.some(
        (e) =>
          (e.kind === 'revoked' ? e.serve : e.kind === 'discontinued' ? e.serve : e.date) >
          LEGACY_FREEZE,
      ),
    )
    let forceUsed = false
    const chain = (
      form: FormCode,
      test: (a: Authority) => boolean,
      amount: number,
      meanYears: number,
    ) => {
      for (const [start, end] of activePeriods(d, test)) {
        const force =
          c.motus && !hasPostFreezeEvent && !forceUsed && end === null
            ? ([LEGACY_FREEZE + 10, AS_OF - 10] as [number, number])
            : undefined
        if (force) forceUsed = true
        d.policies.push(
          ...policyChain(rng, {
            form,
            start: start - rng.int(0, 3),
            end,
            horizon,
            amount,
            meanYears,
            forceChange: force,
          }),
        )
      }
    }
    if (d.prefix === 'FF') {
      chain(rng.chance(0.8) ? '84' : '85', () => true, 75_000, 6)
      continue
    }
    if (d.bipdRequired > 0) {
      const amount = rng.chance(0.4)
        ? d.bipdRequired
        : Math.max(d.bipdRequired, rng.pick([1_000_000, 1_000_000, 2_000_000]))
      chain('91X', isCarrierAuthority, amount, 2)
      const hhg = d.authorities.some((a) => a.cargo === 'hhg')
      if (hhg || rng.chance(0.12))
        chain('34', isCarrierAuthority, rng.pick([5_000, 100_000, 100_000, 250_000]), 3.5)
    }
    if (d.authorities.some((a) => a.kind === 'broker'))
      chain(rng.chance(0.85) ? '84' : '85', (a) => a.kind === 'broker', 75_000, 6)
    // a pending cancellation filed recently (Motus InsHist with a future CANCL_EFFECTIVE_DATE)
    if (c.motus && rng.chance(0.06)) {
      const current = d.policies.find((p) => p.cancel === null && p.effective < AS_OF - 40)
      if (current) {
        const filed = daysBetween(rng, AS_OF - 30, AS_OF - 2)
        current.cancel = { filed, effective: filed + rng.int(30, 75), method: 'CANCEL' }
      }
    }
  }
}
