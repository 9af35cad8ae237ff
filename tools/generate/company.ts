/**
 * Random companies. A company is built in three layers, each from its own seeded stream, so a file
 * that needs only the census fields never pays for insurance chains or inspections, and the same
 * (seed, USDOT) always gives the same company in every file:
 * - core (this file, with names.ts and docket.ts): identity, contact, fleet, rating, dockets and
 *   authority events;
 * - licensing (licensing.ts): insurance filings and the process agent;
 * - safety (safety.ts): vehicles, inspections, violations, crashes and out-of-service orders.
 * context.ts holds the run's counters and the seeded stream of each layer.
 */
import * as V from './vocab.ts'
import { daysBetween, type GenContext, type Kind, layerRng, pad, type Profile } from './context.ts'
import { yearOf } from './dates.ts'
import {
  type Address,
  AS_OF,
  type CargoKind,
  type Company,
  LEGACY_FREEZE,
  type UnitCounts,
} from './model.ts'
import { randomDockets } from './company-dockets.ts'
import { companyName, personName, randomAddress, slug } from './names.ts'
import { scaleNames } from './names-scale.ts'
import { Rng, weights, type WeightTable } from './prng.ts'

const KIND_WEIGHTS: Record<Profile, WeightTable<Kind>> = {
  // data/sample fillers: mostly for-hire carriers, per the sample spec
  sample: weights({
    carrier: 0.6,
    intrastate: 0.08,
    broker: 0.13,
    dual: 0.02,
    forwarder: 0.05,
    private: 0.05,
    inactive: 0.05,
    new: 0.02,
  }),
  // full-scale census: most USDOTs are inactive, private or intrastate (as in the real census)
  scale: weights({
    carrier: 0.09,
    intrastate: 0.22,
    broker: 0.012,
    dual: 0.002,
    forwarder: 0.001,
    private: 0.3,
    inactive: 0.37,
    new: 0.005,
  }),
}

// ---------------------------------------------------------------------------------------------
// fleet

const FLEET_BUCKETS: readonly [number, string][] = [
  [1, 'A'],
  [2, 'B'],
  [3, 'C'],
  [4, 'D'],
  [5, 'E'],
  [6, 'F'],
  [7, 'G'],
  [10, 'H'],
  [15, 'I'],
  [25, 'J'],
  [50, 'K'],
  [100, 'L'],
  [250, 'M'],
  [500, 'N'],
  [1000, 'O'],
]
/** Census FLEETSIZE letter (the real code table is unpublished; 32 power units → K as for USDOT 344554). */
export function fleetSizeCode(pu: number): string {
  if (pu <= 0) return ''
  for (const [max, code] of FLEET_BUCKETS) if (pu <= max) return code
  return 'P'
}

function randomPowerUnits(rng: Rng, profile: Profile): number {
  const r = rng.next()
  if (profile === 'scale') {
    if (r < 0.52) return 1
    if (r < 0.8) return rng.int(2, 5)
    if (r < 0.93) return rng.int(6, 20)
    if (r < 0.99) return rng.int(21, 100)
    return rng.int(101, 1500)
  }
  if (r < 0.35) return 1
  if (r < 0.65) return rng.int(2, 5)
  if (r < 0.85) return rng.int(6, 20)
  if (r < 0.97) return rng.int(21, 100)
  return rng.int(101, 600)
}

export function add(bucket: UnitCounts, kind: keyof UnitCounts, n: number): void {
  if (n > 0) bucket[kind] = (bucket[kind] ?? 0) + n
}

/** Splits `pu` power units into owned / term-leased / trip-leased counts of the given kinds. */
export function splitFleet(
  rng: Rng,
  pu: number,
  kinds: readonly (keyof UnitCounts)[],
): { own: UnitCounts; trm: UnitCounts; trp: UnitCounts } {
  const own: UnitCounts = {}
  const trm: UnitCounts = {}
  const trp: UnitCounts = {}
  if (pu <= 12) {
    for (let i = 0; i < pu; i++) {
      const kind = kinds.length === 1 ? (kinds[0] as keyof UnitCounts) : rng.pick(kinds)
      const r = rng.next()
      add(r < 0.86 ? own : r < 0.96 ? trm : trp, kind, 1)
    }
  } else {
    // large fleets: split by shares instead of unit by unit
    let left = pu
    kinds.forEach((kind, i) => {
      const n =
        i === kinds.length - 1
          ? left
          : Math.min(left, Math.round((pu / kinds.length) * (0.7 + 0.6 * rng.next())))
      left -= n
      const leased = Math.round(n * (0.08 + 0.12 * rng.next()))
      const trip = Math.round(leased * 0.35)
      add(own, kind, n - leased)
      add(trm, kind, leased - trip)
      add(trp, kind, trip)
    })
  }
  const tractors = (own.TRACT ?? 0) + (trm.TRACT ?? 0)
  if (tractors > 0) own.TRAIL = Math.round(tractors * (1 + rng.next()))
  return { own, trm, trp }
}

const PROPERTY_CARGO = [
  'GENFREIGHT',
  'GENFREIGHT',
  'GENFREIGHT',
  'METALSHEET',
  'MOTOVEH',
  'DRIVETOW',
  'LOGPOLE',
  'BLDGMAT',
  'MACHLRG',
  'PRODUCE',
  'LIQGAS',
  'INTERMODAL',
  'OILFIELD',
  'LIVESTOCK',
  'GRAINFEED',
  'COALCOKE',
  'MEAT',
  'GARBAGE',
  'CHEM',
  'DRYBULK',
  'COLDFOOD',
  'BEVERAGES',
  'PAPERPROD',
  'FARMSUPP',
  'CONSTRUCT',
]

// ---------------------------------------------------------------------------------------------
// core layer

const NOUNS_BY_KIND: Record<Kind, readonly string[]> = {
  carrier: V.CARRIER_NOUNS,
  intrastate: V.CARRIER_NOUNS,
  dual: V.BROKER_NOUNS,
  broker: V.BROKER_NOUNS,
  forwarder: V.FORWARDER_NOUNS,
  private: V.PRIVATE_NOUNS,
  inactive: V.CARRIER_NOUNS,
  new: V.CARRIER_NOUNS,
}

/** An address's own fields (a generated one carries its area code besides). */
const addressOf = (a: Address): Address => ({
  street: a.street,
  city: a.city,
  state: a.state,
  zip: a.zip,
  country: a.country,
  county: a.county,
  colonia: a.colonia,
})

/** Builds the core layer of a random company (dockets and authority events included). */
export function randomCore(
  ctx: GenContext,
  dot: number,
  forcedKind?: Kind,
): Company & { kind: Kind } {
  const rng = layerRng(ctx, dot, 'core')
  const profile = ctx.profile
  const kind = forcedKind ?? rng.weighted(KIND_WEIGHTS[profile])
  const forHire = kind === 'carrier' || kind === 'dual' || kind === 'new' || kind === 'intrastate'
  const wasCarrier = forHire || (kind === 'inactive' && rng.chance(0.85))
  const country: Address['country'] =
    kind === 'intrastate' || kind === 'private'
      ? 'US'
      : rng.chance(0.05)
        ? 'CA'
        : kind === 'carrier' && rng.chance(0.01)
          ? 'MX'
          : 'US'

  // registration: skewed to recent years; new entities registered after the freeze
  const addDate =
    kind === 'new'
      ? daysBetween(rng, LEGACY_FREEZE + 5, AS_OF - 45)
      : LEGACY_FREEZE - 90 - Math.floor(rng.next() ** (kind === 'inactive' ? 0.9 : 1.7) * 365 * 38)
  const passenger = wasCarrier && kind !== 'dual' && rng.chance(profile === 'sample' ? 0.05 : 0.02)
  const hhg = wasCarrier && !passenger && rng.chance(0.04)
  const hazmat = wasCarrier && !passenger && !hhg && rng.chance(0.07)
  const cargoKind: CargoKind = passenger ? 'passenger' : hhg ? 'hhg' : 'property'

  const { legalName, dbaName, soleProp } = randomName(ctx, rng, dot, kind, passenger)
  const { phy, mail, phone, fax, cell, email } = randomContact(
    rng,
    profile,
    dot,
    country,
    legalName,
  )
  const traits = { kind, wasCarrier, passenger, hhg, hazmat }
  const { pu, fleet, drivers, operation, classdef, cargo } = randomFleet(rng, profile, traits)
  const interstate = operation === 'A'
  const { ratingCode, rating } = randomRating(rng, profile, pu, addDate)
  // MCS-150: most updated in the last two years, some stale
  const mcs150Date =
    kind === 'new'
      ? addDate
      : rng.chance(0.85)
        ? daysBetween(rng, Math.max(addDate, AS_OF - 700), AS_OF - 2)
        : daysBetween(rng, addDate, AS_OF - 731)
  const mileageYear = yearOf(mcs150Date) - 1

  const status: Company['status'] = kind === 'inactive' ? 'I' : 'A'

  const where = { country, cargoKind, fleet, addDate }
  const { dockets, motus } = randomDockets(ctx, rng, { ...traits, ...where })
  const privateOnly = kind === 'private'
  const carrierLike =
    kind === 'carrier' ||
    kind === 'intrastate' ||
    kind === 'dual' ||
    kind === 'private' ||
    kind === 'new'
  const sms = status === 'A' && carrierLike && pu > 0 && (operation === 'A' || operation === 'B')
  const officer1 = soleProp ? legalName : personName(rng)
  const businessOrg = soleProp
    ? ['1', 'SOLE PROPRIETORSHIP']
    : / & SONS /.test(legalName)
      ? ['2', 'PARTNERSHIP']
      : ['3', 'CORPORATION']

  return {
    kind,
    dot,
    legalName,
    dbaName,
    status,
    operation: kind === 'broker' || kind === 'forwarder' ? '' : operation,
    classdef,
    addDate,
    addDateWithTime: rng.chance(0.03),
    mcs150Date,
    mileage: pu === 0 ? 0 : pu * rng.int(40, 120) * 1000,
    mileageYear,
    phone,
    fax,
    cell,
    email,
    officer1,
    officer2: rng.chance(0.4) ? personName(rng) : '',
    businessOrgId: businessOrg[0] as string,
    businessOrgDesc: businessOrg[1] as string,
    phy: addressOf(phy),
    mail: addressOf(mail),
    undeliverablePhy: rng.chance(0.01),
    mailUndeliverableDate: null,
    own: fleet.own,
    trm: fleet.trm,
    trp: fleet.trp,
    drivers,
    cdl: passenger || pu > 1 ? Math.round(drivers * 0.9) : drivers,
    interDrivers: interstate ? drivers : 0,
    intraDrivers: interstate ? 0 : drivers,
    avgLeased: 0,
    hazmat,
    passenger,
    cargo,
    cargoOther: '',
    rating,
    dockets,
    legacy: kind !== 'new',
    motus,
    sms,
    privateOnly,
    vehicles: [],
    inspections: [],
    crashes: [],
    oosOrders: [],
    basics: {},
    acuteCritical:
      ratingCode === 'U' || (ratingCode === 'C' && rng.chance(0.5)) ? { VEH_MAINT: true } : {},
  }
}

/** The company's legal and DBA names (a sole proprietor is named after a person). */
function randomName(ctx: GenContext, rng: Rng, dot: number, kind: Kind, passenger: boolean) {
  const profile = ctx.profile
  const nouns = passenger ? V.PASSENGER_NOUNS : NOUNS_BY_KIND[kind]
  let legalName: string
  let dbaName = ''
  const soleProp =
    (kind === 'carrier' || kind === 'intrastate' || kind === 'inactive') && rng.chance(0.15)
  if (soleProp) {
    legalName = personName(rng)
    if (rng.chance(0.6))
      dbaName = `${legalName.split(' ').at(-1) ?? ''} ${rng.pick(V.CARRIER_NOUNS)}`
  } else {
    legalName = companyName(rng, nouns)
    if (rng.chance(0.04)) legalName = legalName.replace(/ (LLC|INC|CORP|CO|LTD)$/, ', $1')
    if (rng.chance(0.003)) legalName = `"${rng.pick(V.SURNAMES).slice(0, 1)}" ${legalName}`
    if (rng.chance(0.12)) dbaName = `${rng.pick(V.NAME_WORDS)} ${rng.pick(nouns)}`
  }
  // full scale: a realistic vocabulary (own stream: the other fields stay as they were)
  if (profile === 'scale')
    ({ legalName, dbaName } = scaleNames(ctx, dot, nouns, soleProp, dbaName !== ''))

  return { nouns, legalName, dbaName, soleProp }
}

/** Its addresses, phone, fax, cell phone and e-mail. */
function randomContact(
  rng: Rng,
  profile: GenContext['profile'],
  dot: number,
  country: Address['country'],
  legalName: string,
) {
  const phy = randomAddress(rng, country)
  const mail: Address = rng.chance(0.8)
    ? { ...phy }
    : {
        ...phy,
        street: `PO BOX ${rng.int(1, 99999)}`,
        zip: phy.zip.slice(0, phy.country === 'US' ? 5 : 7),
      }
  const exchange = rng.int(200, 999)
  const phone =
    profile === 'sample'
      ? `${phy.area}${exchange}${pad(dot % 10_000, 4)}`
      : `${phy.area}${exchange}${rng.digits(4)}`
  const fax = rng.chance(0.35) ? `${phy.area}${rng.int(200, 999)}${rng.digits(4)}` : ''
  const cell = rng.chance(0.3) ? `${phy.area}${rng.int(200, 999)}${rng.digits(4)}` : ''
  let email = ''
  if (rng.chance(0.75)) {
    const local = rng.pick(['dispatch', 'info', 'office', 'safety', 'accounting', 'ops', 'admin'])
    email =
      profile === 'scale'
        ? `${local}@${legalName
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '')
            .slice(0, 24)}${dot}.example`
        : `${local}@${slug(legalName)}.example`
    if (rng.chance(0.5)) email = email.toUpperCase()
  }

  return { phy, mail, phone, fax, cell, email }
}

/** Its power units and drivers, operation, classification and cargo. */
function randomFleet(
  rng: Rng,
  profile: GenContext['profile'],
  o: { kind: Kind; wasCarrier: boolean; passenger: boolean; hhg: boolean; hazmat: boolean },
) {
  const { kind, wasCarrier, passenger, hhg, hazmat } = o
  let pu = 0
  let fleet = { own: {} as UnitCounts, trm: {} as UnitCounts, trp: {} as UnitCounts }
  if (wasCarrier || kind === 'private') {
    pu = randomPowerUnits(rng, profile)
    if (kind === 'inactive' && rng.chance(0.5)) pu = 0
    const kinds: (keyof UnitCounts)[] = passenger
      ? ['COACH', 'COACH', 'BUS_16', 'VAN_9_15', 'LIMO_1_8']
      : rng.chance(0.55)
        ? ['TRACT']
        : rng.chance(0.5)
          ? ['TRUCK']
          : ['TRUCK', 'TRACT']
    fleet = splitFleet(rng, pu, kinds)
  }
  const drivers = pu === 0 ? 0 : pu + rng.int(0, Math.ceil(pu * 0.3))
  const operation: Company['operation'] =
    kind === 'intrastate'
      ? hazmat
        ? 'B'
        : rng.chance(0.45)
          ? 'A'
          : 'C'
      : kind === 'private'
        ? rng.chance(0.75)
          ? 'A'
          : 'C'
        : 'A'

  const classdef: string[] =
    kind === 'private'
      ? rng.chance(0.15)
        ? ['PRIVATE PROPERTY', 'OTHER-FARMER']
        : ['PRIVATE PROPERTY']
      : kind === 'broker' || kind === 'forwarder' || !wasCarrier
        ? []
        : kind === 'intrastate' && rng.chance(0.3)
          ? ['EXEMPT FOR HIRE']
          : passenger && rng.chance(0.2)
            ? ['AUTHORIZED FOR HIRE', 'PRIVATE PASSENGER (BUSINESS)']
            : ['AUTHORIZED FOR HIRE']

  const cargo: string[] = []
  if (passenger) cargo.push('PASSENGERS')
  else if (hhg) cargo.push('HOUSEHOLD')
  else if (pu > 0) {
    const n = rng.int(1, 4)
    for (let i = 0; i < n; i++) {
      const c =
        kind === 'private'
          ? rng.pick(['FARMSUPP', 'BLDGMAT', 'CONSTRUCT', 'PRODUCE', 'GRAINFEED'])
          : rng.pick(PROPERTY_CARGO)
      if (!cargo.includes(c)) cargo.push(c)
    }
    if (hazmat && !cargo.includes('CHEM')) cargo.push('CHEM')
  }

  return { pu, fleet, drivers, operation, classdef, cargo }
}

/** Its safety rating, if any (the sample rates more companies than the census does). */
function randomRating(rng: Rng, profile: GenContext['profile'], pu: number, addDate: number) {
  const ratingRoll = rng.next()
  const ratedShare = profile === 'sample' ? 1 : 0.6
  const ratingCode =
    pu > 0 && ratingRoll < 0.1 * ratedShare
      ? 'S'
      : pu > 0 && ratingRoll < 0.125 * ratedShare
        ? 'C'
        : pu > 0 && ratingRoll < 0.13 * ratedShare
          ? 'U'
          : null
  let rating: Company['rating'] = null
  if (ratingCode) {
    const reviewDate = daysBetween(rng, Math.max(addDate + 200, AS_OF - 365 * 15), AS_OF - 30)
    rating = {
      code: ratingCode,
      reviewDate,
      date: reviewDate + rng.int(3, 25),
      reviewType: rng.pick(['C', 'C', 'S', 'R']),
      reviewId: String(rng.int(100_000, 999_999)),
    }
  }

  return { ratingCode, rating }
}
