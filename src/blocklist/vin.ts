/**
 * The VIN check of blocklist entries: 17 characters, no I, O or Q, not a placeholder, and the
 * North American check digit in position 9 (49 CFR 565), by the equipment domain's own rules
 * (equipment/vin.ts), so an entry is a VIN the equipment dataset could show.
 */
import { vinCheckDigit } from '../fields.ts'
import { isPlaceholderVin, vinStatus } from '../equipment/vin.ts'

/** The VIN in upper case, or why it is not one. */
export function checkVin(raw: string): { vin: string } | { error: string } {
  const vin = raw.trim().toUpperCase()
  if (vin.length !== 17) return { error: 'a VIN has 17 characters' }
  if (!/^[A-HJ-NPR-Z0-9]{17}$/.test(vin))
    return { error: 'a VIN has only digits and letters other than I, O and Q' }
  if (isPlaceholderVin(vin)) return { error: 'a placeholder, not a VIN' }
  if (vinStatus(vin) !== 'valid')
    return { error: `the check digit (9th character) should be ${vinCheckDigit(vin)}` }
  return { vin }
}
