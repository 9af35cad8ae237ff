/**
 * A minimal VIN check for blocklist entries (ISO 3779 / 49 CFR 565): 17 characters, no I, O or
 * Q, and the North American check digit in position 9 (the check digit shared with the equipment
 * domain, fields.ts).
 */
import { vinCheckDigit } from '../fields.ts'

/** The VIN in upper case, or why it is not one. */
export function checkVin(raw: string): { vin: string } | { error: string } {
  const vin = raw.trim().toUpperCase()
  if (vin.length !== 17) return { error: 'a VIN has 17 characters' }
  if (!/^[A-HJ-NPR-Z0-9]{17}$/.test(vin))
    return { error: 'a VIN has only digits and letters other than I, O and Q' }
  const expected = vinCheckDigit(vin)
  if (vin[8] !== expected) return { error: `the check digit (9th character) should be ${expected}` }
  return { vin }
}
