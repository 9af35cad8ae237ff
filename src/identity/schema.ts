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

const LinkKind = z.enum(['officer', 'phone', 'fax', 'email', 'address', 'vin'])

export const LinkEventJson = z
  .object({
    kind: z.enum(['revoked', 'out_of_service', 'inactive']),
    date: z.string().meta({ description: 'YYYY-MM-DD' }),
  })
  .meta({
    description:
      "for a predecessor its event before this company was added; for a successor this company's event before it was added; for a concurrent link the linked company's latest event (or null)",
  })

export const LinkJson = z.object({
  dot_number: z.string(),
  legal_name: z.string().nullable(),
  usdot_status: z.enum(['active', 'inactive', 'pending']).nullable(),
  shared: z.array(LinkKind).meta({ description: 'what the two companies share' }),
  relation: z.enum(['predecessor', 'successor', 'concurrent']),
  event: LinkEventJson.nullable(),
  days_between: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'days from the event to the later registration; null when concurrent' }),
})

export const LinksJson = z.object({
  dot_number: z.string(),
  links: z.array(LinkJson).meta({ description: 'predecessors, then successors, then concurrent' }),
  suppressed: z.partialRecord(LinkKind, z.number().int()).meta({
    description:
      "per kind, how many of this company's values are shared by too many companies to be a link (VIN > 5 carriers, others > 20)",
  }),
})
export type LinksJson = z.infer<typeof LinksJson>

/** The record's history and link fields, added to its `identity` block. */
export const IdentityHistoryJson = z.object({
  recent_changes: z
    .array(ChangeJson)
    .meta({ description: 'the changes of the last 90 days, newest first, at most 20' }),
  contact_changed_days: z.number().int().nullable().meta({
    description:
      'days since the phone, cell phone or e-mail last changed; null when unchanged since history_since',
  }),
  history_since: z.string().nullable(),
  links: z.object({
    predecessors: z.number().int(),
    predecessors_revoked_or_oos: z.number().int(),
    concurrent: z.number().int(),
  }),
})
export type IdentityHistoryJson = z.infer<typeof IdentityHistoryJson>
