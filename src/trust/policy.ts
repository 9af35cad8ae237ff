/**
 * The Trust Score's policy (published in docs/trust-score.md): component weights, hard gates and
 * their caps, grades and every factor threshold. Bump TRUST_VERSION (score.ts) when one changes.
 */
import type { Mode } from './signals.ts'

export type Component = 'authority' | 'insurance' | 'safety' | 'reviews'
export const COMPONENTS: readonly Component[] = ['authority', 'insurance', 'safety', 'reviews']

/** Per component: the most points it can give (its weight) and its neutral starting points. */
export type Weights = Partial<Record<Component, { max: number; base: number }>>

/**
 * Weights by mode. Both tables add up to 100 at most and 78 when nothing is known beyond an
 * active, present company, so modes compare. Brokers and forwarders run no trucks: no safety.
 */
export const WEIGHTS: Record<'carrier' | 'broker', Weights> = {
  carrier: {
    authority: { max: 30, base: 24 },
    insurance: { max: 25, base: 20 },
    safety: { max: 30, base: 24 },
    reviews: { max: 15, base: 10 },
  },
  broker: {
    authority: { max: 45, base: 36 },
    insurance: { max: 40, base: 32 },
    reviews: { max: 15, base: 10 },
  },
}

export const weightsFor = (mode: Mode): Weights =>
  mode === 'broker' || mode === 'forwarder' ? WEIGHTS.broker : WEIGHTS.carrier

/** Hard gates and the score each caps at. */
export const GATES = {
  out_of_service_order: 10,
  not_allowed_to_operate: 10,
  no_active_authority: 20,
  bipd_below_required: 30,
  no_broker_bond: 30,
  broker_bond_below_minimum: 30,
  unsatisfactory_rating: 30,
} as const
export type GateId = keyof typeof GATES

export const GRADES: readonly [min: number, grade: string][] = [
  [85, 'A'],
  [70, 'B'],
  [55, 'C'],
  [40, 'D'],
  [0, 'F'],
]
export const gradeOf = (score: number) => GRADES.find(([min]) => score >= min)?.[1] ?? 'F'

/** Thresholds (days, counts, ratios) of the factors; docs/trust-score.md lists them. */
export const T = {
  /** authority age bands: [below days, points]; older than the last band: ageEstablished */
  ageBands: [
    [90, -15],
    [182, -10],
    [365, -6],
    [730, -2],
    [1826, 2],
  ] as const,
  ageEstablished: 4,
  revocationPending: -10,
  /** a suspension or revocation order due on a future date (replaces revocationPending) */
  pendingSuspension: -12,
  revocationWindowDays: 3 * 365,
  revocationWithinYear: -8,
  revocationOlder: -4,
  revocationEachMore: -2,
  revocationFloor: -12,
  mcs150MaxDays: 2 * 365,
  /** 0: information only while FMCSA's inactivations for missed updates are paused (2026) */
  mcs150Outdated: 0,
  /** 0: information only (about 400,000 of 2.2 M Motus launch letters came back, 2026) */
  undeliverable: 0,
  priorRevoked: -6,
  /** a linked predecessor revoked or out of service within the time gate (identity/links.ts) */
  linkPredecessorRevoked: -10,
  linkPredecessorInactive: -4,
  /** concurrent links to revoked or out-of-service companies */
  linkConcurrentRevoked: -4,
  /** many concurrent links (other companies sharing contact details, officers or trucks) */
  linkConcurrentBands: [
    [10, -4],
    [3, -1],
  ] as const,
  bipdMeets: 3,
  bipdBelow: -10,
  bondOnFile: 3,
  bondMissing: -10,
  bondMinimum: 75_000,
  cargoOnFile: 1,
  pendingRequired: -18,
  pendingOther: -4,
  churnWindowDays: 2 * 365,
  churnBands: [
    [5, -6],
    [3, -3],
  ] as const,
  rating: { S: 2, C: -8, U: -15 } as const,
  minInspections: 5,
  /** OOS rate ÷ national average: [max ratio, points] */
  oosBands: [
    [0.5, 2],
    [1.25, 0],
    [2, -3],
    [Infinity, -6],
  ] as const,
  nationalAverages: { driver: 5.51, vehicle: 20.72, hazmat: 4.5 },
  crashMinPowerUnits: 5,
  crashMinCrashes: 3,
  /** crashes per power unit in 24 months: [max rate, points] */
  crashBands: [
    [0.1, 0],
    [0.25, -2],
    [0.5, -4],
    [Infinity, -6],
  ] as const,
  basicAlert: -10,
  basicAlertMaxCounted: 2,
  acuteCritical: -3,
  acuteCriticalMaxCounted: 2,
  minReviews: 3,
  /** average stars: [min average, points] */
  reviewBands: [
    [4.5, 5],
    [4, 3],
    [3, 0],
    [2, -4],
    [0, -8],
  ] as const,
  minExternalReviews: 10,
  externalBands: [
    [4.5, 2],
    [4, 1],
    [3, 0],
    [2, -2],
    [0, -4],
  ] as const,
} as const
