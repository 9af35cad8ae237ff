/**
 * The equipment cases of the bundled sample (data/sample/README.md "Equipment"): one tractor under
 * two carriers with a roadside name mismatch, a lessor's tractor under seven carriers, and a
 * placeholder VIN. Applied to the generated companies by USDOT, after their inspections exist.
 */
import type { Company, Inspection } from './model.ts'
import { withCheckDigit } from './safety.ts'

/** ACME FREIGHT LINES' tractor, also inspected under QUICK HAUL TRANSPORT INC (2022 model year). */
export const SHARED_TRACTOR_VIN = withCheckDigit('1XKYDPGX0NJ412345')
/** A lessor's tractor (and plate) rented by seven carriers: shared_widely. */
export const LESSOR_VIN = withCheckDigit('3AKJHHDR0PSNA7777')
export const LESSOR_PLATE = { plate: 'RT40021', state: 'IN' }
/** The seven fillers that rented it (the first seven fillers, all inspected in the window). */
export const LESSOR_DOTS = [1000100, 1000101, 1000102, 1000103, 1000104, 1000105, 1000106]
const ACME = 1000001
const QUICK_HAUL = 1000024
const TINY_TRUCK = 1000019

const latest = (c: Company): Inspection | undefined =>
  c.inspections.reduce<Inspection | undefined>((a, x) => (!a || x.date > a.date ? x : a), undefined)

/** Changes company `c` when it is one of the equipment cases (deterministic, no random draws). */
export function applyEquipmentCase(c: Company): void {
  const x = latest(c)
  if (!x) return
  if (c.dot === ACME) {
    // every inspection of this vehicle shows the VIN: the object is shared by its inspections
    x.unit.type = 'TRUCK TRACTOR'
    x.unit.make = 'KW'
    x.unit.vin = SHARED_TRACTOR_VIN
  } else if (c.dot === QUICK_HAUL) {
    // ACME's tractor under another USDOT, with ACME's name written at the roadside
    x.unit = {
      type: 'TRUCK TRACTOR',
      make: 'KW',
      plate: 'QH7001',
      plateState: 'TX',
      vin: SHARED_TRACTOR_VIN,
      decal: '',
    }
    x.roadsideName = 'ACME FREIGHT LINES'
  } else if (LESSOR_DOTS.includes(c.dot)) {
    x.unit = {
      type: 'TRUCK TRACTOR',
      make: 'FRHT',
      plate: LESSOR_PLATE.plate,
      plateState: LESSOR_PLATE.state,
      vin: LESSOR_VIN,
      decal: '',
    }
  } else if (c.dot === TINY_TRUCK) {
    x.unit = { ...x.unit, vin: 'UNKNOWN' }
  }
}
