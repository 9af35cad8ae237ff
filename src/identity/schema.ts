/** The JSON of GET /v1/carrier/{dot}/history. */
import { z } from 'zod'
import { HISTORY_FIELDS } from './compare.ts'

export const MAX_HISTORY_PAGE = 100

export const HistoryQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_HISTORY_PAGE).default(50),
  cursor: z
    .string()
    .max(100)
    .optional()
    .meta({ description: '`next_cursor` of the previous page' }),
})
export type HistoryQuery = z.infer<typeof HistoryQuery>

export const ChangeJson = z.object({
  field: z.enum([...HISTORY_FIELDS, 'usdot_number']).meta({
    description:
      'the field that changed; `usdot_number`: the company appeared in (`from` null) or vanished from (`to` null) the census',
  }),
  from: z.string().nullable(),
  to: z.string().nullable(),
  seen_at: z
    .string()
    .meta({ description: 'YYYY-MM-DD: the data date of the census that first showed it' }),
})

export const HistoryJson = z.object({
  dot_number: z.string(),
  history_since: z.string().nullable().meta({
    description:
      'YYYY-MM-DD from which changes are known (the first census this appliance compared, or the retention limit)',
  }),
  changes: z.array(ChangeJson).meta({ description: 'newest first' }),
  next_cursor: z.string().nullable(),
})
export type HistoryJson = z.infer<typeof HistoryJson>
