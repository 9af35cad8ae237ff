/** The trust block of the record: score, grade, gates and factors with their evidence. */
import { z } from 'zod'
import { date } from '../fields.ts'

export const TrustEvidenceJson = z.object({
  dataset: z.string(),
  field: z.string(),
  value: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  as_of: date,
})
export const TrustFactorJson = z.object({
  id: z.string(),
  component: z.enum(['authority', 'insurance', 'safety', 'reviews']),
  points: z.number(),
  reason: z.string(),
  evidence: TrustEvidenceJson,
})
export const TrustGateJson = z.object({
  id: z.string(),
  cap: z.number().int(),
  reason: z.string(),
  evidence: TrustEvidenceJson,
})
export const TrustJson = z.object({
  trust_score: z.number().int().min(0).max(100).nullable(),
  trust_verified: z.boolean(),
  grade: z.string().nullable(),
  version: z.string().nullable(),
  components: z.record(z.string(), z.number()).nullable(),
  gates: z.array(TrustGateJson),
  factors: z.array(TrustFactorJson),
})
export type TrustJson = z.infer<typeof TrustJson>
