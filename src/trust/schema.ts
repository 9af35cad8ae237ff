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
  unverified_reasons: z.array(z.string()).meta({
    description:
      'Why `trust_verified` is false; empty exactly when it is true. `sample_data` (the bundled sample answered), `dataset_missing:<dataset>` (a dataset the verdict needs is not loaded), `dataset_stale:<dataset>` (not confirmed current within its freshness limit), `gate:<gate id>` (a hard gate failed). Datasets are named as in `meta.data_as_of`.',
  }),
  grade: z.string().nullable(),
  version: z.string().nullable(),
  components: z.record(z.string(), z.number()).nullable(),
  gates: z.array(TrustGateJson),
  factors: z.array(TrustFactorJson),
})
export type TrustJson = z.infer<typeof TrustJson>
