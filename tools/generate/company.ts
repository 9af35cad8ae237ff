/**
 * Random companies. A company is built in three layers, each from its own seeded stream, so a file
 * that needs only the census fields never pays for insurance chains or inspections, and the same
 * (seed, USDOT) always gives the same company in every file:
 * - core: identity, contact, fleet, rating, dockets and authority events;
 * - licensing: insurance filings and the process agent;
 * - safety: vehicles, inspections, violations, crashes and out-of-service orders.
 */
import { VIOLATIONS } from './catalog.ts'
import { yearOf } from './dates.ts'
import {
  AS_OF,
  LEGACY_FREEZE,
  SMS_WINDOW_START,
  authorityState,
  isCarrierAuthority,
  powerUnits,
  type Address,
  type Authority,
  type AuthEvent,
  type BasicKey,
  type CancelMethod,
  type CargoKind,
  type Company,
  type Crash,
  type Docket,
  type FormCode,
  type Inspection,
  type OosOrder,
  type Policy,
  type UnitCounts,
  type Vehicle,
  type Violation,
} from './model.ts'
import { Rng, mixSeed, weights, type WeightTable } from './prng.ts'
import * as V from './vocab.ts'
import { ACCESS_CONTROL, CITATION, LIGHT, ROAD_SURFACE, TRAFFICWAY, WEATHER } from './catalog.ts'

export type Profile = 'sample' | 'scale'
export type Kind =
  'carrier' | 'intrastate' | 'broker' | 'dual' | 'forwarder' | 'private' | 'inactive' | 'new'

/** Mutable counters shared by one generation run (dockets, inspection and crash ids). */
export interface GenContext {
  seed: number
  profile: Profile
  nextDocket: number
  nextInspection: number
  nextCrash: number
}

export function createContext(seed: number, profile: Profile): GenContext {
  return {
    seed,
    profile,
    nextDocket: profile === 'sample' ? 200_000 : 100_000,
    nextInspection: 1,
    nextCrash: 1,
  }
}

const LAYER_CORE = 0x636f7265
const LAYER_LICENSING = 0x6c696373
const LAYER_SAFETY = 0x73616665

/** The seeded stream of one layer of one company. */
export const layerRng = (ctx: GenContext, dot: number, layer: 'core' | 'licensing' | 'safety') =>
  new Rng(
    mixSeed(
      mixSeed(
        ctx.seed,
        layer === 'core' ? LAYER_CORE : layer === 'licensing' ? LAYER_LICENSING : LAYER_SAFETY,
      ),
      dot,
    ),
  )

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
  // full-scale census: most USDOTs are inactive, private or intrastate (FMCSA-DATA.md §1.1 sizes)
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

const pad = (n: number, width: number) => String(n).padStart(width, '0')
const daysBetween = (rng: Rng, from: number, to: number) => (to <= from ? from : rng.int(from, to))

// ---------------------------------------------------------------------------------------------
// names and contact

function companyName(rng: Rng, nouns: readonly string[]): string {
  const r = rng.next()
  const noun = rng.pick(nouns)
  const suffix = rng.pick(V.SUFFIXES)
  if (r < 0.6) return `${rng.pick(V.NAME_WORDS)} ${noun} ${suffix}`
  if (r < 0.75) return `${rng.pick(V.SURNAMES)} & SONS ${noun} ${suffix}`
  if (r < 0.9) return `${rng.pick(V.SURNAMES)} ${noun} ${suffix}`
  return `${rng.pick(V.SURNAMES)} ${rng.pick(V.SURNAMES)} ${noun} ${suffix}`
}

const INITIALS = V.MIDDLE_INITIALS.split('')
export const personName = (rng: Rng) =>
  `${rng.pick(V.FIRST_NAMES)} ${rng.pick(INITIALS)} ${rng.pick(V.SURNAMES)}`

/** Lower-case slug of a name for e-mail domains. */
export const slug = (name: string) =>
  (/[^\x20-\x7e]/.test(name) ? name.normalize('NFD').replace(/[\u0300-\u036f]/g, '') : name)
    .toLowerCase()
    .replace(/\b(llc|inc|corp|co|ltd)\b/g, '')
    .replace(/[^a-z0-9]+/g, '')
    .slice(0, 30) || 'carrier'

function usAddress(rng: Rng): Address & { area: string; region: string } {
  const [city, state, zip, county, area, region] = rng.pick(V.US_PLACES)
  const zip5 = pad((Number(zip) + rng.int(0, 40)) % 100_000, 5)
  return {
    street: `${rng.int(1, 19999)} ${rng.pick(V.STREET_NAMES)} ${rng.pick(V.STREET_TYPES)}`,
    city,
    state,
    zip: rng.chance(0.1) ? `${zip5}${rng.digits(4)}` : zip5,
    country: 'US',
    county,
    colonia: '',
    area,
    region,
  }
}

function caAddress(rng: Rng): Address & { area: string; region: string } {
  const [city, state, fsa, area] = rng.pick(V.CA_PLACES)
  const ldu = `${rng.int(1, 9)}${rng.chars('ABCEGHJKLMNPRSTVWXYZ', 1)}${rng.int(0, 9)}`
  return {
    street: `${rng.int(1, 9999)} ${rng.pick(V.STREET_NAMES)} ${rng.pick(['ST', 'AVE', 'RD', 'BLVD', 'DR'])}`,
    city,
    state,
    zip: `${fsa} ${ldu}`,
    country: 'CA',
    county: '',
    colonia: '',
    area,
    region: '5',
  }
}

function mxAddress(rng: Rng): Address & { area: string; region: string } {
  const [city, state, zip, colonia] = rng.pick(V.MX_PLACES)
  return {
    street: `${rng.pick(['AV', 'CALLE', 'BLVD', 'CARRETERA'])} ${rng.pick(['JUAREZ', 'HIDALGO', 'MORELOS', 'REFORMA', 'INDUSTRIAL', 'LIBRAMIENTO'])} ${rng.int(1, 4999)}`,
    city,
    state,
    zip,
    country: 'MX',
    county: '',
    colonia,
    area: '81',
    region: '3',
  }
}

export function randomAddress(rng: Rng, country: Address['country']) {
  return country === 'CA' ? caAddress(rng) : country === 'MX' ? mxAddress(rng) : usAddress(rng)
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

function add(bucket: UnitCounts, kind: keyof UnitCounts, n: number): void {
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
// authority timelines

export interface DocketOptions {
  prefix: Docket['prefix']
  number: number
  kinds: readonly Authority['kind'][]
  cargo: CargoKind
  granted: number
  applied?: number
  /** Revocation + reinstatement cycles before the final state */
  cycles?: readonly {
    serve: number
    effective: number
    reinstated: number | null
    voluntary?: boolean
  }[]
  /** Ends with this revocation (no reinstatement) */
  revoked?: { serve: number; effective: number; voluntary: boolean; suspension?: boolean }
  /** Still only applied for (pending) */
  pending?: boolean
  bipdRequired: number
}

/** The day an authority event happens (a revocation: when it is served). */
export const eventDay = (e: AuthEvent) =>
  e.kind === 'revoked' || e.kind === 'discontinued' ? e.serve : e.date

/** A docket whose authorities all follow the same timeline. */
export function makeDocket(o: DocketOptions): Docket {
  const authorities: Authority[] = o.kinds.map((kind) => {
    const events: AuthEvent[] = []
    if (o.applied !== undefined) events.push({ kind: 'applied', date: o.applied })
    if (!o.pending) {
      events.push({ kind: 'granted', date: o.granted })
      for (const c of o.cycles ?? []) {
        events.push({
          kind: 'revoked',
          serve: c.serve,
          effective: c.effective,
          voluntary: c.voluntary ?? false,
        })
        if (c.reinstated !== null) events.push({ kind: 'reinstated', date: c.reinstated })
      }
      if (o.revoked) events.push({ kind: 'revoked', ...o.revoked })
    }
    return { kind, cargo: o.cargo, events }
  })
  return {
    prefix: o.prefix,
    number: o.number,
    mxType: o.prefix === 'MX' ? 'X' : ' ',
    authorities,
    policies: [],
    bipdRequired: o.bipdRequired,
    agent: null,
    undeliverableMail: false,
  }
}

function bipdRequiredFor(cargo: CargoKind, hazmat: boolean, busSeats16: boolean): number {
  if (cargo === 'passenger') return busSeats16 ? 5_000_000 : 1_500_000
  if (hazmat) return 5_000_000
  return 750_000
}

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

  // name
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

  // addresses and contact
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

  // fleet
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
  const interstate = operation === 'A'

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

  // rating
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

  // MCS-150: most updated in the last two years, some stale
  const mcs150Date =
    kind === 'new'
      ? addDate
      : rng.chance(0.85)
        ? daysBetween(rng, Math.max(addDate, AS_OF - 700), AS_OF - 2)
        : daysBetween(rng, addDate, AS_OF - 731)
  const mileageYear = yearOf(mcs150Date) - 1

  const status: Company['status'] = kind === 'inactive' ? 'I' : 'A'

  // dockets and authority timelines
  const dockets: Docket[] = []
  let motus = false
  const hasDocket =
    kind === 'carrier' ||
    kind === 'broker' ||
    kind === 'dual' ||
    kind === 'forwarder' ||
    kind === 'new' ||
    (kind === 'inactive' && rng.chance(0.8))
  if (hasDocket) {
    ctx.nextDocket += rng.int(1, 3)
    const number = ctx.nextDocket
    const prefix: Docket['prefix'] = kind === 'forwarder' ? 'FF' : country === 'MX' ? 'MX' : 'MC'
    const kinds: Authority['kind'][] =
      kind === 'broker' || (kind === 'inactive' && !wasCarrier)
        ? ['broker']
        : kind === 'dual'
          ? ['common', 'broker']
          : kind === 'forwarder'
            ? ['common']
            : rng.chance(0.25)
              ? ['common', 'contract']
              : ['common']
    const bipdRequired =
      kinds.some((k) => k !== 'broker') && kind !== 'forwarder'
        ? bipdRequiredFor(cargoKind, hazmat, (fleet.own.COACH ?? 0) + (fleet.own.BUS_16 ?? 0) > 0)
        : 0
    if (kind === 'new') {
      const applied = addDate + rng.int(1, 10)
      const pending = rng.chance(0.3) || applied + 40 >= AS_OF
      dockets.push(
        makeDocket({
          prefix,
          number,
          kinds,
          cargo: cargoKind,
          applied,
          granted: applied + rng.int(28, 40),
          pending,
          bipdRequired,
        }),
      )
      motus = true
    } else {
      const applied = addDate + rng.int(5, 60)
      const granted = applied + rng.int(25, 90)
      const cycles: NonNullable<DocketOptions['cycles']>[number][] = []
      if (rng.chance(0.1) && granted < LEGACY_FREEZE - 400) {
        const serve = daysBetween(rng, granted + 200, LEGACY_FREEZE - 120)
        cycles.push({ serve, effective: serve + 30, reinstated: serve + 30 + rng.int(5, 90) })
      }
      // revocation proceedings dismissed because insurance was restored in time (legacy AuthHist rows)
      const discontinued: { serve: number; decided: number }[] = []
      const lastLegacyDay = LEGACY_FREEZE - 60
      for (let n = poisson(rng, (Math.max(0, lastLegacyDay - granted) / 365) * 0.2); n > 0; n--) {
        const serve = daysBetween(rng, granted + 60, lastLegacyDay)
        discontinued.push({ serve, decided: serve + rng.int(10, 30) })
      }
      let revoked: DocketOptions['revoked']
      if (kind === 'inactive') {
        // most inactive authorities lasted a few years
        const start = (cycles.at(-1)?.reinstated ?? granted) + 60
        const serve = Math.max(
          start,
          Math.min(LEGACY_FREEZE - 40, start + Math.round(-Math.log(1 - rng.next()) * 365 * 3)),
        )
        const voluntary = rng.chance(0.3)
        revoked = { serve, effective: voluntary ? serve : serve + 30, voluntary }
      } else {
        // an active docket holder: a quarter has a transaction since the freeze (Motus rows)
        motus = rng.chance(0.2)
        if (motus && rng.chance(0.12)) {
          const serve = daysBetween(rng, LEGACY_FREEZE + 5, AS_OF - 10)
          const suspension = rng.chance(0.2)
          revoked = { serve, effective: serve + 30, voluntary: false, suspension }
        }
      }
      const docket = makeDocket({
        prefix,
        number,
        kinds,
        cargo: cargoKind,
        applied,
        granted,
        cycles,
        revoked,
        bipdRequired,
      })
      if (discontinued.length > 0) {
        const first = docket.authorities[0] as Authority
        const end = revoked ? revoked.serve : Infinity
        for (const x of discontinued)
          if (x.decided < end)
            first.events.push({ kind: 'discontinued', serve: x.serve, decided: x.decided })
        first.events.sort((a, b) => eventDay(a) - eventDay(b))
      }
      dockets.push(docket)
      // a few carriers also hold an older docket, voluntarily revoked long ago
      if (
        (kind === 'carrier' || kind === 'inactive') &&
        rng.chance(0.05) &&
        granted > addDate + 400
      ) {
        ctx.nextDocket += rng.int(1, 3)
        const oldGrant = addDate + rng.int(20, 100)
        const serve = daysBetween(rng, oldGrant + 100, Math.min(granted, LEGACY_FREEZE - 10))
        dockets.push(
          makeDocket({
            prefix: 'MC',
            number: ctx.nextDocket,
            kinds: ['common'],
            cargo: cargoKind,
            granted: oldGrant,
            revoked: { serve, effective: serve, voluntary: true },
            bipdRequired,
          }),
        )
      }
    }
  }

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
    phy: {
      street: phy.street,
      city: phy.city,
      state: phy.state,
      zip: phy.zip,
      country: phy.country,
      county: phy.county,
      colonia: phy.colonia,
    },
    mail: {
      street: mail.street,
      city: mail.city,
      state: mail.state,
      zip: mail.zip,
      country: mail.country,
      county: mail.county,
      colonia: mail.colonia,
    },
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

// ---------------------------------------------------------------------------------------------
// licensing layer: insurance filings

const INSURER_PREFIX: Record<string, string> = {}
function policyNumber(rng: Rng, insurer: string): string {
  let prefix = INSURER_PREFIX[insurer]
  if (prefix === undefined) {
    prefix = insurer.replace(/[^A-Z]/g, '').slice(0, 2)
    INSURER_PREFIX[insurer] = prefix
  }
  return rng.chance(0.5) ? `${prefix}${rng.digits(9)}` : `${rng.digits(2)}${prefix}${rng.digits(6)}`
}

export interface ChainOptions {
  form: FormCode
  start: number
  /** End of coverage: the last policy is cancelled effective this day (null: still on file) */
  end: number | null
  /** Latest day an event (filing, cancellation) may happen */
  horizon: number
  amount: number
  meanYears: number
  classCode?: Policy['classCode']
  /** Force one replacement in (from, to) */
  forceChange?: [number, number]
}

/** A chain of back-to-back filings of one form covering [start, end). */
export function policyChain(rng: Rng, o: ChainOptions): Policy[] {
  const out: Policy[] = []
  const insurers = o.form === '84' ? V.SURETIES : o.form === '85' ? V.TRUSTEES : V.INSURERS
  const stop = o.end ?? o.horizon
  let effective = o.start
  let forced = false
  for (;;) {
    const insurer = rng.pick(insurers)
    const p: Policy = {
      form: o.form,
      classCode: o.classCode ?? (o.form === '91X' || o.form === '91' ? 'P' : ''),
      insurer,
      policyNo: policyNumber(rng, insurer),
      posted: effective - rng.int(0, 20),
      effective,
      maxCov: o.amount,
      underlying: 0,
      branch: '',
      cancel: null,
    }
    out.push(p)
    let next = effective + Math.max(60, Math.round(365 * o.meanYears * (0.4 + 1.2 * rng.next())))
    if (o.forceChange && !forced && next > o.forceChange[1])
      next = daysBetween(rng, o.forceChange[0], o.forceChange[1])
    if (o.forceChange && next >= o.forceChange[0] && next <= o.forceChange[1]) forced = true
    if (next >= stop - 20) {
      if (o.end !== null) {
        p.cancel = { filed: Math.max(p.posted + 1, o.end - 30), effective: o.end, method: 'CANCEL' }
      }
      return out
    }
    const method: CancelMethod = rng.chance(0.75)
      ? 'TERM/REPL'
      : rng.chance(0.9)
        ? 'CANCEL'
        : 'NAMECHG'
    p.cancel = { filed: Math.max(p.posted + 1, next - rng.int(10, 35)), effective: next, method }
    effective = next
  }
}

/** Active periods of a docket's authorities of one group: [[start, end|null], ...]. */
function activePeriods(d: Docket, test: (a: Authority) => boolean): [number, number | null][] {
  const a = d.authorities.find(test)
  if (!a) return []
  const periods: [number, number | null][] = []
  let open: number | null = null
  for (const e of a.events) {
    if ((e.kind === 'granted' || e.kind === 'reinstated') && open === null) open = e.date
    if (e.kind === 'revoked' && open !== null) {
      periods.push([open, e.voluntary ? e.effective : e.serve - 1])
      open = null
    }
  }
  if (open !== null) periods.push([open, null])
  return periods
}

/** Adds insurance filings and the BOC-3 agent to every docket of a random company. */
export function addLicensing(ctx: GenContext, c: Company): void {
  const rng = layerRng(ctx, c.dot, 'licensing')
  const horizon = c.motus ? AS_OF - 1 : LEGACY_FREEZE - 1
  for (const d of c.dockets) {
    const agent = rng.pick(V.PROCESS_AGENTS)
    d.agent = {
      name: agent[0],
      attention: rng.chance(0.3) ? 'PROCESS AGENT DEPT' : '',
      street: agent[1],
      city: agent[2],
      state: agent[3],
      zip: agent[4],
    }
    const hasPostFreezeEvent = d.authorities.some((a) =>
      a.events.some(
        (e) =>
          (e.kind === 'revoked' ? e.serve : e.kind === 'discontinued' ? e.serve : e.date) >
          LEGACY_FREEZE,
      ),
    )
    let forceUsed = false
    const chain = (
      form: FormCode,
      test: (a: Authority) => boolean,
      amount: number,
      meanYears: number,
    ) => {
      for (const [start, end] of activePeriods(d, test)) {
        const force =
          c.motus && !hasPostFreezeEvent && !forceUsed && end === null
            ? ([LEGACY_FREEZE + 10, AS_OF - 10] as [number, number])
            : undefined
        if (force) forceUsed = true
        d.policies.push(
          ...policyChain(rng, {
            form,
            start: start - rng.int(0, 3),
            end,
            horizon,
            amount,
            meanYears,
            forceChange: force,
          }),
        )
      }
    }
    if (d.prefix === 'FF') {
      chain(rng.chance(0.8) ? '84' : '85', () => true, 75_000, 6)
      continue
    }
    if (d.bipdRequired > 0) {
      const amount = rng.chance(0.4)
        ? d.bipdRequired
        : Math.max(d.bipdRequired, rng.pick([1_000_000, 1_000_000, 2_000_000]))
      chain('91X', isCarrierAuthority, amount, 2)
      const hhg = d.authorities.some((a) => a.cargo === 'hhg')
      if (hhg || rng.chance(0.12))
        chain('34', isCarrierAuthority, rng.pick([5_000, 100_000, 100_000, 250_000]), 3.5)
    }
    if (d.authorities.some((a) => a.kind === 'broker'))
      chain(rng.chance(0.85) ? '84' : '85', (a) => a.kind === 'broker', 75_000, 6)
    // a pending cancellation filed recently (Motus InsHist with a future CANCL_EFFECTIVE_DATE)
    if (c.motus && rng.chance(0.06)) {
      const current = d.policies.find((p) => p.cancel === null && p.effective < AS_OF - 40)
      if (current) {
        const filed = daysBetween(rng, AS_OF - 30, AS_OF - 2)
        current.cancel = { filed, effective: filed + rng.int(30, 75), method: 'CANCEL' }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// safety layer

const US_STATES = [...new Set(V.US_PLACES.map((p) => p[1]))]

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
    vin: rng.chars(V.VIN_CHARS, 17),
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
      ? randomVehicle(rng, 'SEMI-TRAILER', unit.plateState)
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

/** Knuth's method for small means, a rounded normal approximation for large ones. */
export function poisson(rng: Rng, mean: number): number {
  if (mean <= 0) return 0
  if (mean > 30) return Math.max(0, Math.round(mean + Math.sqrt(mean) * gauss(rng)))
  const l = Math.exp(-mean)
  let k = 0
  let p = 1
  do {
    k++
    p *= rng.next()
  } while (p > l)
  return k - 1
}
const gauss = (rng: Rng) =>
  Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next())

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
export function randomCompany(
  ctx: GenContext,
  dot: number,
  layers = { licensing: true, safety: true },
  kind?: Kind,
) {
  const c = randomCore(ctx, dot, kind)
  if (layers.licensing) addLicensing(ctx, c)
  if (layers.safety) addSafety(ctx, c)
  return c
}

/** The docket's authority status letter for the census DOCKETn_STATUS_CODE at AS_OF. */
export function docketStatusCode(d: Docket): string {
  if (d.censusStatusOverride !== undefined) return d.censusStatusOverride
  return d.authorities.some((a) => authorityState(a, AS_OF).stat === 'A') ? 'A' : 'I'
}
