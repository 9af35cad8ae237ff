/** The cross-check block: the record compared with the regulator's live answer. */
import { z } from 'zod'

export const CrosscheckJson = z.object({
  status: z.enum(['match', 'mismatch', 'unavailable']),
  checked_at: z.string().nullable(),
  reason: z.string().nullable(),
  cached: z.boolean(),
  differences: z.array(
    z.object({ field: z.string(), mirror: z.unknown(), regulator: z.unknown() }),
  ),
})
export type CrosscheckJson = z.infer<typeof CrosscheckJson>
