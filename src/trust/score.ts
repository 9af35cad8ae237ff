/**
 * Trust Score (published in docs/trust-score.md): a pure, versioned, explainable
 * 0–100 score. Each component starts at a neutral base and factors move it within its weight;
 * hard gates cap the total. Missing, unrated or small-sample data is neutral. The only input
 * besides the TrustInput (input.ts) is `ctx` (today, freshness, the company's links), so the same data always
 * gives the same score.
 */
import { authorityFactors, insuranceFactors, reviewFactors, safetyFactors } from './components.ts'
import type { Ctx } from './explain.ts'
import { gates } from './gates.ts'
import type { TrustInput } from './input.ts'
import { COMPONENTS, gradeOf, weightsFor } from './policy.ts'
import type { TrustJson } from './schema.ts'
import { modeOf, type LinkSignals } from './signals.ts'

/** Bumped whenever a weight, threshold, gate or point value changes (policy.ts). */
export const TRUST_VERSION = '2026.12-1'

export interface TrustContext {
  /** YYYY-MM-DD of the computation: every age is measured against it */
  today: string
  /** whether the data behind the record is fresh enough to vouch for */
  fresh: boolean
  /**
   * Why the data behind the record cannot be vouched for (`sample_data`,
   * `dataset_missing:<dataset>`, `dataset_stale:<dataset>`), from the record composition; any
   * reason makes `trust_verified` false. `fresh: false` without a reason reads as `data_stale`.
   */
  dataReasons?: readonly string[]
  /** the company's judged links (record assembly, identity/links.ts); absent = neutral */
  links?: LinkSignals | null
}

// --- the score -------------------------------------------------------------------------------

/**
 * The Trust Score of a company's TrustInput. Pure and cheap (no I/O, no clock but `ctx.today`):
 * the same input and context always give the same result.
 */
export function computeTrust(record: TrustInput, ctx: TrustContext): TrustJson {
  const mode = modeOf(record)
  const c: Ctx = { record, today: ctx.today, mode, factors: [], gates: [] }
  authorityFactors(c, ctx.links ?? null)
  insuranceFactors(c)
  safetyFactors(c)
  reviewFactors(c)
  gates(c)

  const weights = weightsFor(mode)
  const components: Record<string, number> = {}
  let raw = 0
  for (const comp of COMPONENTS) {
    const w = weights[comp]
    if (!w) continue
    const delta = c.factors.reduce((n, f) => (f.component === comp ? n + f.points : n), 0)
    const points = Math.min(w.max, Math.max(0, w.base + delta))
    components[comp] = points
    raw += points
  }
  const cap = c.gates.reduce((m, g) => Math.min(m, g.cap), 100)
  const score = Math.max(0, Math.min(100, raw, cap))
  const gatesSorted = [...c.gates].sort((a, b) => a.cap - b.cap || a.id.localeCompare(b.id))
  const data = ctx.dataReasons ?? []
  const reasons = [
    ...data,
    ...(!ctx.fresh && data.length === 0 ? ['data_stale'] : []),
    ...gatesSorted.map((g) => `gate:${g.id}`),
  ]
  return {
    trust_score: score,
    trust_verified: reasons.length === 0,
    unverified_reasons: reasons,
    grade: gradeOf(score),
    version: TRUST_VERSION,
    components,
    gates: gatesSorted,
    factors: c.factors,
  }
}
