/** Field kinds shared by every block of the record: dates, FMCSA A/I/N letters, addresses, entity types. */
import { z } from 'zod'

/** `YYYY-MM-DD` or null */
export const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .nullable()
/** FMCSA authority letter: A(ctive), I(nactive), N(one) */
export const letter = z.enum(['A', 'I', 'N']).nullable()

export const EntityType = z.enum(['broker', 'carrier', 'forwarder', 'private'])
export type EntityType = z.infer<typeof EntityType>

export const AddressJson = z.object({
  street: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  zip: z.string().nullable(),
  country: z.string().nullable(),
})
export type AddressJson = z.infer<typeof AddressJson>

/** An address from its parts, or null when street, city, state and zip are all empty. */
export const addressOf = (
  street: string | null,
  city: string | null,
  state: string | null,
  zip: string | null,
  country: string | null,
): AddressJson | null =>
  street || city || state || zip ? { street, city, state, zip, country } : null
