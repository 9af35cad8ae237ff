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

/** 49 CFR 565.15 transliteration of letters (I, O and Q are never used). */
const LETTER_VALUE: Readonly<Record<string, number>> = {
  A: 1,
  B: 2,
  C: 3,
  D: 4,
  E: 5,
  F: 6,
  G: 7,
  H: 8,
  J: 1,
  K: 2,
  L: 3,
  M: 4,
  N: 5,
  P: 7,
  R: 9,
  S: 2,
  T: 3,
  U: 4,
  V: 5,
  W: 6,
  X: 7,
  Y: 8,
  Z: 9,
}
/** position weights 1–17; position 9 (the check digit itself) weighs 0 */
const WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2]

const VIN_SHAPE = /^[A-HJ-NPR-Z0-9]{17}$/

/** The check digit (`0`–`9` or `X`) a 17-character VIN must carry at position 9, or null. */
export function vinCheckDigit(vin: string): string | null {
  if (!VIN_SHAPE.test(vin)) return null
  let sum = 0
  for (let i = 0; i < 17; i++) {
    const ch = vin[i] as string
    const v = ch >= '0' && ch <= '9' ? ch.charCodeAt(0) - 48 : (LETTER_VALUE[ch] ?? 0)
    sum += v * (WEIGHTS[i] as number)
  }
  const r = sum % 11
  return r === 10 ? 'X' : String(r)
}
