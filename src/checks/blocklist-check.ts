/**
 * A check's look into the account's blocked list (docs/identity.md): the company itself (USDOT,
 * MC, phone, e-mail, officers, physical address), the contact the caller gave, the equipment the
 * request names, and every company linked to it (identity/links.ts). The stored check lists the
 * hits (`blocklist_hits`); the policy reads their counts (`blocklist_check`).
 */
import { z } from 'zod'
import { blocklistHits, type BlocklistHit } from '../blocklist/blocklist.ts'
import { censusOfficers } from '../census/read.ts'
import type { DataView } from '../db/datasets.ts'
import type { Sqlite } from '../db/open.ts'
import { carrierLinks } from '../identity/links.ts'
import type { CompanyRecord } from '../carriers/record.ts'

export const BlocklistHitJson = z.object({
  entry_id: z.string(),
  type: z.enum(['usdot', 'mc', 'phone', 'email', 'vin', 'officer', 'address']),
  value: z.string(),
  via: z.enum(['company', 'contact', 'equipment', 'link']),
  dot_number: z.string().nullable(),
})

/** What the policy reads of the hits. */
export const BlocklistCheckJson = z.object({
  direct_hits: z.number().int().meta({
    description: 'entries matching the company, the contact given or its equipment',
  }),
  link_hits: z.number().int().meta({ description: 'entries matching a linked company' }),
})
export type BlocklistCheckJson = z.infer<typeof BlocklistCheckJson>

export interface BlocklistInputs {
  /** the contact the caller gave */
  contact?: { phone?: string | undefined; email?: string | undefined } | undefined
  /** the VINs the request names */
  vins?: readonly string[]
}

/** The address forms an entry may be written in: the street, and street, city and state. */
function addressForms(r: CompanyRecord): string[] {
  const a = r.contact.physical_address
  if (!a?.street) return []
  return [a.street, [a.street, a.city, a.state].filter(Boolean).join(' ')]
}

/** The account's entries the check hits, and their counts for the policy. */
export function checkBlocklist(
  db: Sqlite,
  view: DataView,
  accountId: number,
  record: CompanyRecord,
  inputs: BlocklistInputs,
): { hits: BlocklistHit[]; summary: BlocklistCheckJson } {
  const dot = record.dotNumber
  const census = view.get('census')
  const company = blocklistHits(
    db,
    accountId,
    {
      dot,
      mc: record.identity.docket_numbers,
      phones: [record.contact.phone],
      emails: [record.contact.email],
      officers: census ? censusOfficers(census, dot) : [],
      addresses: addressForms(record),
    },
    'company',
  )
  const contact = inputs.contact
    ? blocklistHits(
        db,
        accountId,
        { dot, phones: [inputs.contact.phone ?? null], emails: [inputs.contact.email ?? null] },
        'contact',
      )
    : []
  const equipment = inputs.vins?.length
    ? blocklistHits(db, accountId, { dot, vins: inputs.vins }, 'equipment')
    : []
  const links = carrierLinks(db, view, dot)?.links ?? []
  const linked = links.flatMap((l) =>
    blocklistHits(db, accountId, { dot: Number(l.dot_number) }, 'link'),
  )
  const direct = [...company, ...contact, ...equipment]
  const seen = new Set(direct.map((h) => h.entry_id))
  const hits = [...direct, ...linked.filter((h) => !seen.has(h.entry_id))]
  return {
    hits,
    summary: { direct_hits: direct.length, link_hits: hits.length - direct.length },
  }
}
