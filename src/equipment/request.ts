/**
 * A VIN or a plate as a caller types it (GET /v1/equipment, the pickup check's `equipment`
 * units): validated and normalised, so a malformed one is a 400 wherever it is given.
 */
import { z } from 'zod'
import { normalizePlate, normalizeState, normalizeVin } from './vin.ts'

/** A VIN as typed: letters and digits, spaces, dashes or dots between them, 1–17 once normalised. */
export const VinParam = z
  .string()
  .max(40, 'vin must be at most 17 characters')
  .regex(/^[A-Za-z0-9 .-]+$/, 'vin may hold only letters, digits, spaces and dashes')
  .transform(normalizeVin)
  .pipe(z.string().min(1, 'vin is required').max(17, 'vin must be at most 17 characters'))

export const PlateParam = z
  .string({ error: 'plate is required' })
  .max(20, 'plate must be at most 10 letters and digits')
  .transform((p, ctx) => {
    const n = normalizePlate(p)
    if (n === null) {
      ctx.addIssue({ code: 'custom', message: 'plate must be 2 to 10 letters and digits' })
      return z.NEVER
    }
    return n
  })
  .meta({ description: 'licence plate; case, spaces and dashes are ignored', example: 'ABC1234' })

export const StateParam = z
  .string({ error: 'state is required' })
  .transform((s, ctx) => {
    const n = normalizeState(s)
    if (n === null) {
      ctx.addIssue({
        code: 'custom',
        message: 'state must be a 2-letter US state, Canadian province or Mexican state code',
      })
      return z.NEVER
    }
    return n
  })
  .meta({ description: 'plate jurisdiction, 2 letters (TX, ON, NL)', example: 'TX' })

export const PlateQuery = z.strictObject({ plate: PlateParam, state: StateParam })
