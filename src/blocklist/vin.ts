/**
 * A minimal VIN check for blocklist entries (ISO 3779 / 49 CFR 565): 17 characters, no I, O or
 * Q, and the North American check digit in position 9. To be unified with the equipment domain's
 * VIN rules when they land.
 */
const VALUES: Record<string, number> = {
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
const WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2]

/** The VIN in upper case, or why it is not one. */
export function checkVin(raw: string): { vin: string } | { error: string } {
  const vin = raw.trim().toUpperCase()
  if (vin.length !== 17) return { error: 'a VIN has 17 characters' }
  if (!/^[A-HJ-NPR-Z0-9]{17}$/.test(vin))
    return { error: 'a VIN has only digits and letters other than I, O and Q' }
  let sum = 0
  for (let i = 0; i < 17; i++) {
    const ch = vin[i] as string
    const v = ch >= '0' && ch <= '9' ? Number(ch) : (VALUES[ch] ?? 0)
    sum += v * (WEIGHTS[i] as number)
  }
  const r = sum % 11
  const expected = r === 10 ? 'X' : String(r)
  if (vin[8] !== expected) return { error: `the check digit (9th character) should be ${expected}` }
  return { vin }
}
