/**
 * How the Trust Score records what it found: one factor (points on a component) or one gate (a
 * cap on the total) at a time, each with a reason and its evidence; and the wording helpers.
 */
import type { TrustInput } from './input.ts'
import { GATES, type GateId } from './policy.ts'
import type { TrustJson } from './schema.ts'
import type { Evidence, Mode } from './signals.ts'

export type Factor = TrustJson['factors'][number]
export type Gate = TrustJson['gates'][number]

// (Intl formatting costs more than the rest of a factor: keep computeTrust in microseconds)
export const money = (n: number) =>
  `$${String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
export const years = (days: number) =>
  days >= 730 ? `${(days / 365.25).toFixed(1)} years` : `${plural(days, 'day')}`

/** One computation's state: the input, its mode and what was found so far. */
export interface Ctx {
  record: TrustInput
  today: string
  mode: Mode
  factors: Factor[]
  gates: Gate[]
}

export function factor(
  c: Ctx,
  id: string,
  component: Factor['component'],
  points: number,
  reason: string,
  ev: Evidence,
): void {
  c.factors.push({ id, component, points, reason, evidence: ev })
}

export function gate(c: Ctx, id: GateId, reason: string, ev: Evidence): void {
  c.gates.push({ id, cap: GATES[id], reason, evidence: ev })
}
