/**
 * The safety layer of a random company: vehicles, inspections, violations, crashes and
 * out-of-service orders.
 */
import { vinCheckDigit } from '../../src/equipment/vin.ts'
import * as V from './vocab.ts'
import {
  ACCESS_CONTROL,
  CITATION,
  LIGHT,
  ROAD_SURFACE,
  TRAFFICWAY,
  VIOLATIONS,
  WEATHER,
} from './catalog.ts'
import { daysBetween, type GenContext, layerRng, pad, type Profile } from './context.ts'
import {
  AS_OF,
  type BasicKey,
  type Company,
  type Crash,
  type Inspection,
  type OosOrder,
  powerUnits,
  SMS_WINDOW_START,
  type Vehicle,
  type Violation,
} from './model.ts'
import { poisson, Rng } from './prng.ts'

const US_STATES = [...new Set(V.US_PLACES.map((p) => p[1]))]

/** A 17-character VIN with its 49 CFR 565 check digit written at position 9. */
export function withCheckDigit(vin: string): string {
  const check = vinCheckDigit(vin)
  return check === null ? vin : `${vin.slice(0, 8)}${check}${vin.slice(9)}`
}

export function randomVehicle(rng: Rng, type: string, state: string): Vehicle {
  const makes =
    type === 'SEMI-TRAILER'
      ? V.TRAILER_MAKES
      : type === 'MOTORCOACH' || type === 'BUS'
        ? V.BUS_MAKES
        : V.TRUCK_MAKES
  return {
    type,
    make: rng.pick(makes),
    plate: rng.chars(V.PLATE_CHARS, 7),
    plateState: state,
    vin: withCheckDigit(rng.chars(V.VIN_CHARS, 17)),
    decal: rng.chance(0.3) ? rng.digits(8) : '',
  }
}

function fleetVehicles(rng: Rng, c: Company): Vehicle[] {
  const pu = powerUnits(c)
  const n = Math.max(1, Math.min(pu, 12))
  const type = c.passenger
    ? 'MOTORCOACH'
    : (c.own.TRACT ?? 0) + (c.trm.TRACT ?? 0) > 0
      ? 'TRUCK TRACTOR'
      : 'STRAIGHT TRUCK'
  const state = c.phy.country === 'US' ? c.phy.state : c.phy.state
  const out: Vehicle[] = []
  for (let i = 0; i < n; i++) out.push(randomVehicle(rng, type, state))
  return out
}

/** Share of a tractor's inspections pulling a trailer that is not the fleet's (shipper pools, interchange). */
const FOREIGN_TRAILER = 0.15

/**
 * The trailer behind a tractor. The sample draws a new one each time (its bytes are committed);
 * at scale a fleet pulls its own trailers again and again, about 1.5 per power unit seen (up to
 * 18), and now and then someone else's, so distinct VINs stay in proportion to real fleets.
 */
function trailerFor(ctx: GenContext, rng: Rng, c: Company, state: string): Vehicle {
  if (ctx.profile === 'sample' || rng.chance(FOREIGN_TRAILER))
    return randomVehicle(rng, 'SEMI-TRAILER', state)
  if (!c.trailers) {
    const n = Math.max(1, Math.min(Math.round(c.vehicles.length * 1.5), 18))
    c.trailers = []
    for (let i = 0; i < n; i++) c.trailers.push(randomVehicle(rng, 'SEMI-TRAILER', state))
  }
  return rng.pick(c.trailers)
}

function randomLevel(rng: Rng, hazmat: boolean): Inspection['level'] {
  const r = rng.next()
  if (r < 0.12) return 1
  if (r < 0.48) return 2
  if (r < 0.86) return 3
  if (r < 0.98) return 5
  if (r < 0.99) return 4
  return hazmat ? 6 : 3
}

const DRIVER_LEVELS = new Set([1, 2, 3, 6])
const VEHICLE_LEVELS = new Set([1, 2, 5, 6])
export const isDriverLevel = (l: number) => DRIVER_LEVELS.has(l)
export const isVehicleLevel = (l: number) => VEHICLE_LEVELS.has(l)

/** Time weight of an SMS event at day `d`: 3 in the last 6 months, 2 in 6–12, 1 before. */
export const timeWeight = (d: number) => (d >= AS_OF - 183 ? 3 : d >= AS_OF - 365 ? 2 : 1)

export interface InspectionOptions {
  date: number
  level?: Inspection['level']
  /** Violation counts per BASIC; random when omitted */
  violations?: Partial<Record<BasicKey, number>>
  driverOos?: boolean
  vehicleOos?: boolean
  state?: string
  reportNumber?: string
}

/** One inspection of company `c` (ids from the run's counters). */
export function makeInspection(
  ctx: GenContext,
  rng: Rng,
  c: Company,
  o: InspectionOptions,
): Inspection {
  if (c.vehicles.length === 0) c.vehicles = fleetVehicles(rng, c)
  const lvl = o.level ?? randomLevel(rng, c.hazmat)
  const driver = isDriverLevel(lvl)
  const vehicle = isVehicleLevel(lvl)
  const hazmat = c.hazmat && vehicle && rng.chance(0.5)
  const violations: Violation[] = []
  const add = (basic: BasicKey, n: number, oosWanted: boolean | undefined) => {
    for (let i = 0; i < n; i++) {
      const [code, section, group, severity, oosCapable] = rng.pick(VIOLATIONS[basic])
      const oos = oosWanted ?? (oosCapable && rng.chance(basic === 'maint' ? 0.35 : 0.25))
      violations.push({
        code,
        basic,
        oos: oos && oosCapable,
        severity,
        section,
        group,
        unit: basic === 'maint' ? '1' : basic === 'hm' ? '1' : 'D',
      })
    }
  }
  if (o.violations) {
    for (const [basic, n] of Object.entries(o.violations) as [BasicKey, number][]) {
      add(basic, n, basic === 'maint' || basic === 'hm' ? o.vehicleOos : o.driverOos)
    }
  } else if (!rng.chance(0.5)) {
    const n = 1 + rng.geometric(1.1)
    for (let i = 0; i < n; i++) {
      const basic: BasicKey =
        hazmat && rng.chance(0.2)
          ? 'hm'
          : vehicle && (!driver || rng.chance(0.6))
            ? 'maint'
            : rng.pick(
                ['unsafe', 'fatigued', 'fatigued', 'fitness', 'unsafe', 'subst'].slice(
                  0,
                  rng.chance(0.02) ? 6 : 5,
                ) as BasicKey[],
              )
      add(basic, 1, undefined)
    }
  }
  let driverOos = 0
  let vehicleOos = 0
  let hazmatOos = 0
  for (const v of violations) {
    if (!v.oos) continue
    if (v.basic === 'maint') vehicleOos++
    else if (v.basic === 'hm') hazmatOos++
    else driverOos++
  }
  // forced OOS without a matching violation still counts
  if (o.driverOos && driverOos === 0 && driver) driverOos = 1
  if (o.vehicleOos && vehicleOos === 0 && vehicle) vehicleOos = 1
  const unit = rng.pick(c.vehicles)
  const unit2 =
    unit.type === 'TRUCK TRACTOR' && rng.chance(0.8)
      ? trailerFor(ctx, rng, c, unit.plateState)
      : null
  const state =
    o.state ?? (rng.chance(0.5) && c.phy.country === 'US' ? c.phy.state : rng.pick(US_STATES))
  const id = ctx.nextInspection++
  return {
    uniqueId: 70_000_000 + id,
    reportNumber: o.reportNumber ?? `${state}${pad(id, 8)}`,
    state,
    date: o.date,
    level: lvl,
    driverOos: driver ? driverOos : 0,
    vehicleOos: vehicle ? vehicleOos : 0,
    hazmatOos,
    hazmat,
    unit,
    unit2,
    violations: violations.filter((v) =>
      v.basic === 'maint' || v.basic === 'hm' ? vehicle : driver,
    ),
  }
}

export interface CrashOptions {
  date: number
  fatalities?: number
  injuries?: number
  towAway?: boolean
  vehicles?: number
  state?: string
}

export function makeCrash(ctx: GenContext, rng: Rng, c: Company, o: CrashOptions): Crash {
  if (c.vehicles.length === 0) c.vehicles = fleetVehicles(rng, c)
  const state =
    o.state ?? (c.phy.country === 'US' && rng.chance(0.6) ? c.phy.state : rng.pick(US_STATES))
  const id = ctx.nextCrash++
  const vehicles = []
  for (let i = 0; i < (o.vehicles ?? 1); i++) {
    const v = rng.pick(c.vehicles)
    vehicles.push({ vin: v.vin, plate: v.plate, plateState: v.plateState })
  }
  return {
    reportNumber: `${state}${pad(id, 7)}C`,
    state,
    date: o.date,
    fatalities: o.fatalities ?? 0,
    injuries: o.injuries ?? 0,
    towAway: o.towAway ?? true,
    hazmatReleased: c.hazmat && rng.chance(0.05),
    trafficway: rng.pick(TRAFFICWAY),
    accessControl: rng.pick(ACCESS_CONTROL),
    roadSurface: rng.pick(ROAD_SURFACE),
    weather: rng.pick(WEATHER),
    light: rng.pick(LIGHT),
    citation: rng.pick(CITATION),
    notPreventable: rng.chance(0.1),
    vehicles,
  }
}

/** [share with no inspection, mean extra inspections per PU^0.6] */
const INSPECTION_RATE: Record<Profile, [number, number]> = { sample: [0.1, 1.0], scale: [0.1, 1.1] }
const CRASHES_PER_PU: Record<Profile, number> = { sample: 0.02, scale: 0.014 }

/** Adds vehicles, inspections, crashes and out-of-service orders to a random company. */
export function addSafety(ctx: GenContext, c: Company): void {
  const rng = layerRng(ctx, c.dot, 'safety')
  const pu = powerUnits(c)
  const span = AS_OF - SMS_WINDOW_START
  if (c.status === 'A' && pu > 0) {
    const [none, rate] = INSPECTION_RATE[ctx.profile]
    // intrastate non-hazmat carriers are rarely in SMS; private fleets are inspected less
    const factor = (c.operation === 'C' ? 0.25 : 1) * (c.privateOnly ? 0.8 : 1)
    const n = rng.chance(none + (1 - none) * (1 - factor))
      ? 0
      : 1 + poisson(rng, rate * factor * pu ** 0.6)
    const dates: number[] = []
    for (let i = 0; i < n; i++) {
      // the sample keeps a few inspections just outside the 24-month window
      const old = ctx.profile === 'sample' && rng.chance(0.04)
      dates.push(old ? SMS_WINDOW_START - rng.int(1, 180) : SMS_WINDOW_START + rng.int(0, span - 1))
    }
    dates.sort((a, b) => a - b)
    for (const date of dates) c.inspections.push(makeInspection(ctx, rng, c, { date }))
    const crashes = poisson(rng, CRASHES_PER_PU[ctx.profile] * pu ** 0.85)
    const crashDates: number[] = []
    for (let i = 0; i < crashes; i++) crashDates.push(SMS_WINDOW_START + rng.int(0, span - 1))
    crashDates.sort((a, b) => a - b)
    for (const date of crashDates) {
      const r = rng.next()
      c.crashes.push(
        makeCrash(ctx, rng, c, {
          date,
          fatalities: r < 0.04 ? 1 : 0,
          injuries: r >= 0.04 && r < 0.34 ? rng.int(1, 3) : 0,
          towAway: true,
          vehicles: rng.chance(0.05) ? 2 : 1,
        }),
      )
    }
  }
  // out-of-service orders: mostly old and rescinded, active ones mostly on inactive USDOTs
  const pOrder =
    ctx.profile === 'sample' ? (c.status === 'I' ? 0.3 : 0.06) : c.status === 'I' ? 0.13 : 0.035
  if (rng.chance(pOrder)) {
    const n = rng.chance(0.12) ? 2 : 1
    for (let i = 0; i < n; i++) {
      const date = daysBetween(rng, Math.max(c.addDate + 60, AS_OF - 365 * 12), AS_OF - 5)
      const reason = rng.pick(V.OOS_REASONS)
      const active = c.status === 'I' ? rng.chance(0.7) : rng.chance(0.08)
      const order: OosOrder = active
        ? { date, reason, status: 'ACTIVE', rescind: null }
        : rng.chance(0.8)
          ? {
              date,
              reason,
              status: 'RESCINDED',
              rescind: Math.min(AS_OF - 1, date + rng.int(2, 120)),
            }
          : { date, reason, status: 'ACTIVE', rescind: Math.min(AS_OF - 1, date + rng.int(2, 120)) }
      c.oosOrders.push(order)
    }
    c.oosOrders.sort((a, b) => a.date - b.date)
  }
}

/** A complete random company (all three layers). */
