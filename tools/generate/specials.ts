/**
 * The companies of the bundled sample dataset. The special USDOTs below are a contract: other
 * tests are written against them, and data/sample/README.md describes each one. Everything else
 * in the sample is random filler.
 */
import {
  addLicensing,
  addSafety,
  layerRng,
  makeCrash,
  makeDocket,
  makeInspection,
  randomCore,
  slug,
  type DocketOptions,
  type GenContext,
  type InspectionOptions,
  type Kind,
} from './company.ts'
import { day, yearOf } from './dates.ts'
import {
  SMS_WINDOW_START,
  AS_OF,
  type Address,
  type BasicKey,
  type CancelMethod,
  type Company,
  type Docket,
  type FormCode,
  type Policy,
  type ProcessAgent,
  type UnitCounts,
} from './model.ts'
import { NAME_WORDS, PROCESS_AGENTS, US_PLACES } from './vocab.ts'

/** USDOT numbers of the special companies (see data/sample/README.md). */
export const SPECIAL_DOTS = {
  hullCooperative: 344554,
  acmeFreightLines: 1000001,
  blueRidgeLogistics: 1000002,
  summitBrokerage: 1000003,
  pacificOceanForwarding: 1000004,
  greenValleyFarms: 1000005,
  defunctHauling: 1000006,
  mapleLeafTransport: 1000007,
  redlineCarriers: 1000008,
  phoenixTrucking: 1000009,
  starlightCoachLines: 1000010,
  ironhorseExpress: 1000011,
  crashworthyFreight: 1000012,
  rescindedRoutes: 1000013,
  dualModeLogistics: 1000014,
  freshstartCarriers: 1000015,
  roughRoadTransport: 1000016,
  thinlineHaulers: 1000017,
  transportesDelNorte: 1000018,
  tinyTruckCo: 1000019,
  cautionCargo: 1000020,
  nobondBrokers: 1000021,
  staleFilings: 1000022,
  sharedContact1: 1000023,
  sharedContact2: 1000024,
  sharedContact3: 1000025,
  sharedContact4: 1000026,
  sharedContactRevoked: 1000027,
  undeliverableAddress: 1000028,
  insuranceChurn: 1000029,
  cafeExpres: 1000030,
  acmeFreightServices: 1000031,
  acmeLogistics: 1000032,
  acmexTransport: 1000033,
  northAcmeHauling: 1000034,
  acmeFreightLinesOfTexas: 1000035,
  expiredCancelLegacy: 1000036,
  valleyShuttle: 1000037,
} as const

/** First USDOT of the random fillers, and how many there are (300 companies in all). */
export const FIRST_FILLER_DOT = 1000100
export const FILLER_COUNT = 262

export const SHARED_PHONE = '5555550123'
export const SHARED_EMAIL = 'ops@sharedcontact.example'

// ---------------------------------------------------------------------------------------------
// helpers

const d = day

interface BaseOptions {
  kind: Kind
  name: string
  dba?: string
  address?: Partial<Address>
  fleet?: { own?: UnitCounts; trm?: UnitCounts; trp?: UnitCounts }
  drivers?: number
  addDate?: string
  mcs150Date?: string
  classdef?: string[]
  operation?: Company['operation']
  cargo?: string[]
  rating?: { code: 'S' | 'C' | 'U'; date: string; reviewDate: string; reviewType?: string }
  email?: string
  phone?: string
}

/** A random core with its name, fleet and contact replaced; no dockets, policies or events. */
function base(ctx: GenContext, dot: number, o: BaseOptions): Company {
  const saved = ctx.nextDocket
  const c = randomCore(ctx, dot, o.kind)
  ctx.nextDocket = saved
  c.legalName = o.name
  c.dbaName = o.dba ?? ''
  const org = /\b(LLC|INC|CORP|CO|LTD|SA DE CV)$/.test(o.name) ? ['3', 'CORPORATION'] : ['', '']
  c.businessOrgId = org[0] as string
  c.businessOrgDesc = org[1] as string
  c.email = o.email ?? `dispatch@${slug(o.name)}.example`
  if (o.address) {
    c.phy = { ...c.phy, country: 'US', county: '', colonia: '', ...o.address }
    c.mail = { ...c.phy }
    // keep the phone's area code in the company's state
    const area = US_PLACES.find((p) => p[1] === c.phy.state)?.[4]
    if (area) c.phone = `${area}${c.phone.slice(3)}`
    if (area && c.fax) c.fax = `${area}${c.fax.slice(3)}`
    if (area && c.cell) c.cell = `${area}${c.cell.slice(3)}`
  }
  if (o.phone) c.phone = o.phone
  if (o.fleet) {
    c.own = o.fleet.own ?? {}
    c.trm = o.fleet.trm ?? {}
    c.trp = o.fleet.trp ?? {}
  }
  if (o.drivers !== undefined) {
    c.drivers = o.drivers
    c.cdl = o.drivers
  }
  if (c.operation === 'A' || c.operation === '') {
    c.interDrivers = c.drivers
    c.intraDrivers = 0
  }
  if (o.addDate) c.addDate = d(o.addDate)
  c.addDateWithTime = false
  c.mcs150Date = d(o.mcs150Date ?? '2026-03-02')
  c.mileageYear = yearOf(c.mcs150Date) - 1
  if (o.classdef) c.classdef = o.classdef
  if (o.operation !== undefined) c.operation = o.operation
  if (o.cargo) c.cargo = o.cargo
  c.rating = o.rating
    ? {
        code: o.rating.code,
        date: d(o.rating.date),
        reviewDate: d(o.rating.reviewDate),
        reviewType: o.rating.reviewType ?? 'C',
        reviewId: String(500000 + (dot % 100000)),
      }
    : null
  c.dockets = []
  c.motus = false
  c.legacy = o.kind !== 'new'
  c.undeliverablePhy = false
  c.mailUndeliverableDate = null
  c.acuteCritical = {}
  c.basics = {}
  c.hazmat = false
  c.passenger = false
  c.privateOnly = o.kind === 'private'
  const pu = sumUnits(c.own) + sumUnits(c.trm) + sumUnits(c.trp)
  c.mileage = pu * 95_000
  c.sms = c.status === 'A' && pu > 0 && (c.operation === 'A' || c.operation === 'B')
  return c
}

const sumUnits = (u: UnitCounts) =>
  Object.entries(u).reduce((n, [k, v]) => (k === 'TRAIL' ? n : n + (v ?? 0)), 0)

function agent(i: number): ProcessAgent {
  const a = PROCESS_AGENTS[i % PROCESS_AGENTS.length] as (typeof PROCESS_AGENTS)[number]
  return { name: a[0], attention: '', street: a[1], city: a[2], state: a[3], zip: a[4] }
}

function docket(
  o: Omit<DocketOptions, 'granted' | 'applied' | 'revoked' | 'cycles'> & {
    granted: string
    applied?: string
    revoked?: { serve: string; effective: string; voluntary?: boolean }
    cycles?: { serve: string; effective: string; reinstated: string }[]
    policies?: Policy[]
  },
): Docket {
  const k = makeDocket({
    ...o,
    granted: d(o.granted),
    applied: o.applied === undefined ? undefined : d(o.applied),
    revoked: o.revoked && {
      serve: d(o.revoked.serve),
      effective: d(o.revoked.effective),
      voluntary: o.revoked.voluntary ?? false,
    },
    cycles: o.cycles?.map((c) => ({
      serve: d(c.serve),
      effective: d(c.effective),
      reinstated: d(c.reinstated),
    })),
  })
  k.policies = o.policies ?? []
  k.agent = agent(o.number)
  return k
}

/** A filing; `cancel` is [filed, effective, method]. */
function pol(
  form: FormCode,
  insurer: string,
  policyNo: string,
  effective: string,
  maxCov: number,
  o: {
    posted?: string
    cancel?: [string, string, CancelMethod]
    classCode?: Policy['classCode']
  } = {},
): Policy {
  const eff = d(effective)
  return {
    form,
    classCode: o.classCode ?? (form === '91X' || form === '91' ? 'P' : ''),
    insurer,
    policyNo,
    posted: o.posted ? d(o.posted) : eff - 5,
    effective: eff,
    maxCov,
    underlying: 0,
    branch: '',
    cancel: o.cancel
      ? { filed: d(o.cancel[0]), effective: d(o.cancel[1]), method: o.cancel[2] }
      : null,
  }
}

interface SafetyOptions {
  /** Inspections inside the 24-month window */
  inspections: number
  /** Inspections before the window (to test windowing) */
  old?: number
  /** Violations of the first inspections in the window, in order; the others are clean */
  violations?: Partial<Record<BasicKey, number>>[]
  oosOrders?: Company['oosOrders']
}

/** Deterministic inspections (spread evenly over the window) and OOS orders for a special. */
function safety(ctx: GenContext, c: Company, o: SafetyOptions): void {
  const rng = layerRng(ctx, c.dot, 'safety')
  const span = AS_OF - SMS_WINDOW_START
  const dates: number[] = []
  for (let i = 0; i < (o.old ?? 0); i++) dates.push(SMS_WINDOW_START - 40 - 61 * i)
  for (let i = 0; i < o.inspections; i++)
    dates.push(SMS_WINDOW_START + Math.floor(((i + 0.5) * span) / o.inspections) - rng.int(0, 5))
  dates.sort((a, b) => a - b)
  dates.forEach((date, i) => {
    const violations = o.violations?.[i - (o.old ?? 0)] ?? {}
    const opts: InspectionOptions = { date, violations }
    c.inspections.push(makeInspection(ctx, rng, c, opts))
  })
  c.oosOrders = o.oosOrders ?? []
}

const carrier = (
  o: Partial<BaseOptions> & { name: string; address: Partial<Address> },
): BaseOptions => ({
  kind: 'carrier',
  classdef: ['AUTHORIZED FOR HIRE'],
  operation: 'A',
  cargo: ['GENFREIGHT'],
  ...o,
})

const DALLAS = {
  street: '4410 COMMERCE ST',
  city: 'DALLAS',
  state: 'TX',
  zip: '75226',
  country: 'US',
  county: '113',
} as const
const INS = {
  gp: 'GREAT PLAINS CASUALTY CO.',
  im: 'INTERSTATE MUTUAL INSURANCE COMPANY',
  ns: 'NORTHSTAR SPECIALTY INSURANCE CO.',
  ha: 'HIGHWAY ASSURANCE CORPORATION',
  lp: 'LONE PINE PROPERTY & CASUALTY CO.',
  bh: 'BLUE HORIZON INSURANCE COMPANY',
  fc: 'FIRST CARRIERS MUTUAL INSURANCE CO.',
  surety: 'AMERICAN FREIGHT SURETY CO.',
  surety2: 'NATIONAL TRANSPORT BOND CO.',
  trust: 'TRANSPORTATION FINANCIAL TRUST INC',
} as const

/** A standard active for-hire carrier docket with one current BI&PD filing. */
function activeMc(
  number: number,
  granted: string,
  bipd = 1_000_000,
  insurer: string = INS.gp,
): Docket {
  return docket({
    prefix: 'MC',
    number,
    kinds: ['common'],
    cargo: 'property',
    granted,
    bipdRequired: 750_000,
    policies: [
      pol('91X', insurer, `${insurer.slice(0, 2)}${number}01`, isoMinus(granted, 5), bipd),
    ],
  })
}
const isoMinus = (iso: string, days: number) =>
  new Date(Date.parse(`${iso}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10)

// ---------------------------------------------------------------------------------------------
// the specials

function specials(ctx: GenContext): Company[] {
  const S = SPECIAL_DOTS
  const out: Company[] = []
  const add = (c: Company) => {
    out.push(c)
    return c
  }

  // USDOT 344554: built from the real rows in test/fixtures/fmcsa-samples/socrata_rows_usdot344554_*.json
  {
    const c = add(
      base(
        ctx,
        S.hullCooperative,
        carrier({
          name: 'HULL COOPERATIVE ASSOCIATION',
          address: { street: '805 ELM ST', city: 'HULL', state: 'IA', zip: '51239', county: '167' },
          fleet: { own: { TRUCK: 12, TRACT: 17, TRAIL: 17 }, trm: { TRACT: 3 } },
          drivers: 30,
          addDate: '1989-02-21',
          mcs150Date: '2025-04-29',
          rating: { code: 'S', date: '2006-01-03', reviewDate: '2005-12-19', reviewType: '' },
          email: 'accounting@hullcoop.com',
          phone: '7124392831',
          cargo: [],
        }),
      ),
    )
    c.fax = '7124392831'
    c.cell = ''
    c.officer1 = ''
    c.officer2 = ''
    c.businessOrgId = ''
    c.businessOrgDesc = ''
    c.dbaName = ''
    c.mileage = 531_000
    c.mileageYear = 2024
    c.intraDrivers = 0
    c.rating = c.rating && { ...c.rating, reviewId: '' }
    // the real row: 29 truck units, 32 power units (owned 12 trucks + 17 tractors; 3 leased assumed)
    c.censusOverrides = { TRUCK_UNITS: '29' }
    const k = docket({
      prefix: 'MC',
      number: 421775,
      kinds: ['contract'],
      cargo: 'property',
      granted: '1989-06-01',
      bipdRequired: 750_000,
      policies: [
        pol('91X', 'NATIONWIDE AGRIBUSINESS INSURANCE CO.', 'CPP101046A', '2015-01-01', 1_000_000, {
          posted: '2015-01-05',
        }),
      ],
    })
    k.noHistory = true
    k.agent = null
    c.dockets = [k]
    const rng = layerRng(ctx, c.dot, 'safety')
    c.inspections.push(
      makeInspection(ctx, rng, c, {
        date: d('2026-04-22'),
        level: 3,
        violations: {},
        state: 'SD',
        reportNumber: '0470000504',
      }),
    )
    const x = c.inspections[0]
    if (x) {
      x.uniqueId = 87647815
      x.unit = { type: 'TRUCK TRACTOR', make: '', plate: '', plateState: '', vin: '', decal: '' }
      x.unit2 = null
    }
  }

  // 1000001 ACME FREIGHT LINES LLC: the clean, established carrier
  {
    const c = add(
      base(
        ctx,
        S.acmeFreightLines,
        carrier({
          name: 'ACME FREIGHT LINES LLC',
          address: DALLAS,
          fleet: { own: { TRACT: 16, TRUCK: 2, TRAIL: 30 }, trm: { TRACT: 2 } },
          drivers: 22,
          addDate: '2009-03-16',
          mcs150Date: '2026-02-10',
          cargo: ['GENFREIGHT', 'BLDGMAT', 'COLDFOOD'],
          rating: { code: 'S', date: '2023-06-12', reviewDate: '2023-06-01' },
        }),
      ),
    )
    c.dockets = [
      docket({
        prefix: 'MC',
        number: 100001,
        kinds: ['common'],
        cargo: 'property',
        applied: '2009-04-01',
        granted: '2009-05-20',
        bipdRequired: 750_000,
        policies: [
          pol('91X', INS.gp, 'GP100001A', '2009-05-15', 750_000, {
            cancel: ['2014-04-20', '2014-05-15', 'TERM/REPL'],
          }),
          pol('91X', INS.im, 'IM55310042', '2014-05-15', 1_000_000, {
            cancel: ['2019-04-22', '2019-05-15', 'TERM/REPL'],
          }),
          pol('91X', INS.ns, 'NS2019-88120', '2019-05-15', 1_000_000, { posted: '2019-05-02' }),
          pol('34', INS.ns, 'NS2019-88121', '2019-05-15', 100_000, { posted: '2019-05-02' }),
        ],
      }),
    ]
    safety(ctx, c, {
      inspections: 38,
      old: 2,
      violations: [
        { maint: 1 },
        {},
        { fatigued: 1 },
        {},
        { maint: 2 },
        {},
        {},
        { unsafe: 1 },
        {},
        {},
        { maint: 1 },
      ],
      oosOrders: [],
    })
    const rng = layerRng(ctx, c.dot, 'safety')
    c.crashes.push(makeCrash(ctx, rng, c, { date: d('2025-09-18'), towAway: true, state: 'OK' }))
  }

  // 1000002 BLUE RIDGE LOGISTICS INC: broker only; bond replaced after the cutover (Motus)
  {
    const c = add(
      base(ctx, S.blueRidgeLogistics, {
        kind: 'broker',
        name: 'BLUE RIDGE LOGISTICS INC',
        classdef: [],
        operation: '',
        fleet: {},
        drivers: 0,
        cargo: [],
        address: {
          street: '200 S TRYON ST STE 1400',
          city: 'CHARLOTTE',
          state: 'NC',
          zip: '28202',
          county: '119',
        },
        addDate: '2015-06-15',
        mcs150Date: '2025-12-01',
      }),
    )
    c.motus = true
    c.dockets = [
      docket({
        prefix: 'MC',
        number: 100002,
        kinds: ['broker'],
        cargo: 'property',
        applied: '2015-06-20',
        granted: '2015-08-03',
        bipdRequired: 0,
        policies: [
          pol('84', INS.surety, 'AFS-84-220193', '2015-07-25', 75_000, {
            posted: '2015-07-20',
            cancel: ['2026-06-10', '2026-07-01', 'TERM/REPL'],
          }),
          pol('84', INS.surety2, 'NTB0784511', '2026-07-01', 75_000, { posted: '2026-06-12' }),
        ],
      }),
    ]
  }

  // 1000003 SUMMIT BROKERAGE GROUP LLC: broker with a BMC-85 trust fund (legacy only: no amount)
  {
    const c = add(
      base(ctx, S.summitBrokerage, {
        kind: 'broker',
        name: 'SUMMIT BROKERAGE GROUP LLC',
        classdef: [],
        operation: '',
        fleet: {},
        drivers: 0,
        cargo: [],
        address: {
          street: '1801 CALIFORNIA ST STE 2400',
          city: 'DENVER',
          state: 'CO',
          zip: '80202',
          county: '031',
        },
        addDate: '2017-11-20',
        mcs150Date: '2025-11-14',
      }),
    )
    c.dockets = [
      docket({
        prefix: 'MC',
        number: 100003,
        kinds: ['broker'],
        cargo: 'property',
        granted: '2018-02-12',
        bipdRequired: 0,
        policies: [
          pol('85', INS.trust, 'TFT-2018-00457', '2018-02-01', 75_000, { posted: '2018-01-29' }),
        ],
      }),
    ]
  }

  // 1000004 PACIFIC OCEAN FORWARDING INC: freight forwarder (FF docket)
  {
    const c = add(
      base(ctx, S.pacificOceanForwarding, {
        kind: 'forwarder',
        name: 'PACIFIC OCEAN FORWARDING INC',
        classdef: [],
        operation: '',
        fleet: {},
        drivers: 0,
        cargo: [],
        address: {
          street: '2500 HARBOR AVE',
          city: 'LONG BEACH',
          state: 'CA',
          zip: '90813',
          county: '037',
        },
        addDate: '2012-07-09',
        mcs150Date: '2025-09-30',
      }),
    )
    c.dockets = [
      docket({
        prefix: 'FF',
        number: 100004,
        kinds: ['common'],
        cargo: 'property',
        granted: '2012-10-01',
        bipdRequired: 0,
        policies: [pol('84', INS.surety, 'AFS-84-120877', '2012-09-20', 75_000)],
      }),
    ]
  }

  // 1000005 GREEN VALLEY FARMS INC: private carrier, no docket
  {
    const c = add(
      base(ctx, S.greenValleyFarms, {
        kind: 'private',
        name: 'GREEN VALLEY FARMS INC',
        classdef: ['PRIVATE PROPERTY'],
        operation: 'A',
        fleet: { own: { TRUCK: 4, TRACT: 2, TRAIL: 3 } },
        drivers: 6,
        cargo: ['PRODUCE', 'GRAINFEED', 'FARMSUPP'],
        address: {
          street: '18250 E AMERICAN AVE',
          city: 'FRESNO',
          state: 'CA',
          zip: '93725',
          county: '019',
        },
        addDate: '2004-04-05',
        mcs150Date: '2025-10-20',
      }),
    )
    safety(ctx, c, { inspections: 5, violations: [{ maint: 1 }] })
  }

  // 1000006 DEFUNCT HAULING CO: inactive; insurance cancelled, authority revoked in 2024
  {
    const c = add(
      base(
        ctx,
        S.defunctHauling,
        carrier({
          name: 'DEFUNCT HAULING CO',
          address: {
            street: '77 RAILROAD AVE',
            city: 'TOLEDO',
            state: 'OH',
            zip: '43604',
            county: '095',
          },
          fleet: { own: { TRACT: 3, TRAIL: 4 } },
          drivers: 3,
          addDate: '2011-02-14',
          mcs150Date: '2023-08-01',
        }),
      ),
    )
    c.status = 'I'
    c.sms = false
    c.dockets = [
      docket({
        prefix: 'MC',
        number: 100006,
        kinds: ['common'],
        cargo: 'property',
        granted: '2011-04-11',
        bipdRequired: 750_000,
        revoked: { serve: '2024-05-20', effective: '2024-06-19' },
        policies: [
          pol('91X', INS.gp, 'GP7712004', '2011-04-01', 750_000, {
            cancel: ['2017-03-10', '2017-04-01', 'TERM/REPL'],
          }),
          pol('91X', INS.bh, 'BH17-004410', '2017-04-01', 750_000, {
            cancel: ['2024-04-19', '2024-05-19', 'CANCEL'],
          }),
        ],
      }),
    ]
  }

  // 1000007 MAPLE LEAF TRANSPORT LTD: Canadian carrier
  {
    const c = add(
      base(
        ctx,
        S.mapleLeafTransport,
        carrier({
          name: 'MAPLE LEAF TRANSPORT LTD',
          address: {
            street: '2150 AVIATION WAY',
            city: 'MISSISSAUGA',
            state: 'ON',
            zip: 'L5T 2N7',
            country: 'CA',
            county: '',
          },
          fleet: { own: { TRACT: 15, TRAIL: 24 } },
          drivers: 17,
          addDate: '2014-06-02',
          mcs150Date: '2025-06-30',
          phone: '9055550107',
        }),
      ),
    )
    c.dockets = [
      docket({
        prefix: 'MC',
        number: 100007,
        kinds: ['common'],
        cargo: 'property',
        granted: '2014-09-08',
        bipdRequired: 750_000,
        policies: [
          pol('91X', INS.ns, 'NS-CA-140907', '2014-09-01', 1_000_000, {
            cancel: ['2020-08-10', '2020-09-01', 'TERM/REPL'],
          }),
          pol('91X', INS.ns, 'NS-CA-200901', '2020-09-01', 1_000_000),
          pol('34', INS.ns, 'NS-CA-200902', '2020-09-01', 100_000),
        ],
      }),
    ]
    safety(ctx, c, { inspections: 12, violations: [{ maint: 1 }, {}, { fatigued: 1 }] })
  }

  // 1000008 REDLINE CARRIERS INC: BI&PD cancellation pending (Motus InsHist, effective 2027-01-15)
  {
    const c = add(
      base(
        ctx,
        S.redlineCarriers,
        carrier({
          name: 'REDLINE CARRIERS INC',
          address: {
            street: '3900 INDUSTRIAL BLVD',
            city: 'JOLIET',
            state: 'IL',
            zip: '60432',
            county: '197',
          },
          fleet: { own: { TRACT: 8, TRAIL: 12 } },
          drivers: 9,
          addDate: '2015-12-07',
          mcs150Date: '2025-12-15',
        }),
      ),
    )
    c.motus = true
    c.dockets = [
      docket({
        prefix: 'MC',
        number: 100008,
        kinds: ['common'],
        cargo: 'property',
        granted: '2016-03-01',
        bipdRequired: 750_000,
        policies: [
          pol('91X', INS.im, 'IM60300812', '2016-02-25', 750_000, {
            cancel: ['2025-02-05', '2025-03-01', 'TERM/REPL'],
          }),
          pol('91X', INS.ha, 'HA250301008', '2025-03-01', 1_000_000, {
            posted: '2025-02-20',
            cancel: ['2026-10-16', '2027-01-15', 'CANCEL'],
          }),
        ],
      }),
    ]
    safety(ctx, c, { inspections: 9 })
  }

  // 1000009 PHOENIX TRUCKING LLC: revoked 2023-03-15 (insurance), reinstated 2023-05-01
  {
    const c = add(
      base(
        ctx,
        S.phoenixTrucking,
        carrier({
          name: 'PHOENIX TRUCKING LLC',
          address: {
            street: '2727 W BUCKEYE RD',
            city: 'PHOENIX',
            state: 'AZ',
            zip: '85009',
            county: '013',
          },
          fleet: { own: { TRACT: 5, TRAIL: 6 } },
          drivers: 5,
          addDate: '2016-05-02',
          mcs150Date: '2025-05-19',
        }),
      ),
    )
    c.dockets = [
      docket({
        prefix: 'MC',
        number: 100009,
        kinds: ['common'],
        cargo: 'property',
        granted: '2016-07-11',
        bipdRequired: 750_000,
        cycles: [{ serve: '2023-02-13', effective: '2023-03-15', reinstated: '2023-05-01' }],
        policies: [
          pol('91X', INS.lp, 'LP160701-09', '2016-07-01', 750_000, {
            cancel: ['2023-01-12', '2023-02-12', 'CANCEL'],
          }),
          pol('91X', INS.fc, 'FC23042809', '2023-04-28', 750_000, { posted: '2023-04-28' }),
        ],
      }),
    ]
    safety(ctx, c, { inspections: 7, violations: [{}, { unsafe: 1 }] })
  }

  // 1000010 STARLIGHT COACH LINES INC: passenger carrier with public percentiles; HOS alert
  {
    const c = add(
      base(
        ctx,
        S.starlightCoachLines,
        carrier({
          name: 'STARLIGHT COACH LINES INC',
          address: {
            street: '5400 LB MCLEOD RD',
            city: 'ORLANDO',
            state: 'FL',
            zip: '32811',
            county: '095',
          },
          fleet: { own: { COACH: 10, BUS_16: 2 } },
          drivers: 16,
          addDate: '2009-10-19',
          mcs150Date: '2026-01-12',
          cargo: ['PASSENGERS'],
        }),
      ),
    )
    c.passenger = true
    c.dockets = [
      docket({
        prefix: 'MC',
        number: 100010,
        kinds: ['common'],
        cargo: 'passenger',
        granted: '2010-01-15',
        bipdRequired: 5_000_000,
        policies: [
          pol('91X', INS.fc, 'FC-PAX-100010', '2022-01-01', 5_000_000, { posted: '2021-12-20' }),
        ],
      }),
    ]
    safety(ctx, c, {
      inspections: 30,
      violations: [
        { fatigued: 1 },
        { unsafe: 1 },
        {},
        { fatigued: 2 },
        { maint: 1 },
        {},
        { fatigued: 1 },
        { fitness: 1 },
        {},
        { maint: 1 },
        { fatigued: 1 },
        { unsafe: 1 },
        { maint: 1 },
      ],
    })
    c.basics = {
      UNSAFE_DRIV: { pct: '38%', rdAlert: 'N', basicAlert: 'N' },
      HOS_DRIV: { pct: '82%', rdAlert: 'Y', basicAlert: 'Y' },
      DRIV_FIT: { pct: '21%', rdAlert: 'N', basicAlert: 'N' },
      CONTR_SUBST: { pct: '0%', rdAlert: 'N', basicAlert: 'N' },
      VEH_MAINT: { pct: '47%', rdAlert: 'N', basicAlert: 'N' },
    }
  }

  // 1000011 IRONHORSE EXPRESS INC: active out-of-service order
  {
    const c = add(
      base(
        ctx,
        S.ironhorseExpress,
        carrier({
          name: 'IRONHORSE EXPRESS INC',
          address: {
            street: '1600 GENESSEE ST',
            city: 'KANSAS CITY',
            state: 'MO',
            zip: '64102',
            county: '095',
          },
          fleet: { own: { TRACT: 4, TRAIL: 5 } },
          drivers: 4,
          addDate: '2018-08-13',
          mcs150Date: '2025-08-22',
        }),
      ),
    )
    c.dockets = [activeMc(100011, '2018-10-01')]
    safety(ctx, c, {
      inspections: 6,
      oosOrders: [{ date: d('2026-09-10'), reason: 'NOP', status: 'ACTIVE', rescind: null }],
    })
  }

  // 1000012 CRASHWORTHY FREIGHT LLC: 6 crash reports in the window (1 fatal, 2 injury, 3 tow-away)
  {
    const c = add(
      base(
        ctx,
        S.crashworthyFreight,
        carrier({
          name: 'CRASHWORTHY FREIGHT LLC',
          address: {
            street: '3150 DEMOCRAT RD',
            city: 'MEMPHIS',
            state: 'TN',
            zip: '38118',
            county: '157',
          },
          fleet: { own: { TRACT: 32, TRAIL: 50 }, trm: { TRACT: 3 } },
          drivers: 38,
          addDate: '2012-01-09',
          mcs150Date: '2026-01-20',
        }),
      ),
    )
    c.dockets = [activeMc(100012, '2012-03-05', 1_000_000, INS.im)]
    safety(ctx, c, {
      inspections: 25,
      violations: [{ maint: 1 }, {}, { unsafe: 1 }, {}, { maint: 1 }],
    })
    const rng = layerRng(ctx, c.dot, 'safety')
    const crash = (
      date: string,
      o: { fatalities?: number; injuries?: number; vehicles?: number },
    ) => c.crashes.push(makeCrash(ctx, rng, c, { date: d(date), towAway: true, ...o }))
    crash('2024-06-11', {}) // older than 24 months: outside the window
    crash('2025-01-20', {})
    crash('2025-07-02', { injuries: 2 })
    crash('2025-10-05', { vehicles: 2 }) // two of its trucks in one crash: two rows, one report
    crash('2026-03-14', { fatalities: 1, injuries: 1 })
    crash('2026-05-30', {})
    crash('2026-08-19', { injuries: 1 })
  }

  // 1000013 RESCINDED ROUTES INC: OOS orders, none active
  {
    const c = add(
      base(
        ctx,
        S.rescindedRoutes,
        carrier({
          name: 'RESCINDED ROUTES INC',
          address: {
            street: '901 MAIN ST',
            city: 'LITTLE ROCK',
            state: 'AR',
            zip: '72201',
            county: '119',
          },
          fleet: { own: { TRACT: 3, TRAIL: 3 } },
          drivers: 3,
          addDate: '2019-02-04',
          mcs150Date: '2025-07-07',
        }),
      ),
    )
    c.dockets = [activeMc(100013, '2019-04-15')]
    safety(ctx, c, {
      inspections: 4,
      oosOrders: [
        { date: d('2023-06-01'), reason: 'NOP', status: 'ACTIVE', rescind: d('2023-07-15') },
        { date: d('2025-02-03'), reason: 'UNFIT', status: 'RESCINDED', rescind: d('2025-03-10') },
      ],
    })
  }

  // 1000014 DUAL MODE LOGISTICS LLC: carrier and broker authority on one MC; Motus rows
  {
    const c = add(
      base(
        ctx,
        S.dualModeLogistics,
        carrier({
          name: 'DUAL MODE LOGISTICS LLC',
          address: {
            street: '7101 E 21ST ST',
            city: 'INDIANAPOLIS',
            state: 'IN',
            zip: '46219',
            county: '097',
          },
          fleet: { own: { TRACT: 10, TRAIL: 14 } },
          drivers: 11,
          addDate: '2013-01-14',
          mcs150Date: '2026-04-06',
        }),
      ),
    )
    c.motus = true
    c.dockets = [
      docket({
        prefix: 'MC',
        number: 100014,
        kinds: ['common', 'broker'],
        cargo: 'property',
        granted: '2013-04-01',
        bipdRequired: 750_000,
        policies: [
          pol('91X', INS.gp, 'GP130325-14', '2013-03-25', 1_000_000, {
            cancel: ['2026-07-10', '2026-08-01', 'TERM/REPL'],
          }),
          pol('84', INS.surety, 'AFS-84-130325', '2013-03-25', 75_000),
          pol('91X', INS.ha, 'HA260801014', '2026-08-01', 1_000_000, { posted: '2026-07-20' }),
        ],
      }),
    ]
    safety(ctx, c, { inspections: 10 })
  }

  // 1000015 FRESHSTART CARRIERS LLC: registered after the cutover: Motus rows only
  {
    const c = add(
      base(
        ctx,
        S.freshstartCarriers,
        carrier({
          kind: 'new',
          name: 'FRESHSTART CARRIERS LLC',
          address: {
            street: '48 DEPOT ST',
            city: 'NASHVILLE',
            state: 'TN',
            zip: '37203',
            county: '037',
          },
          fleet: { own: { TRACT: 2, TRAIL: 2 } },
          drivers: 2,
          addDate: '2026-09-01',
          mcs150Date: '2026-09-01',
        }),
      ),
    )
    c.motus = true
    c.legacy = false
    c.mileage = 0
    c.dockets = [
      docket({
        prefix: 'MC',
        number: 1700015,
        kinds: ['common'],
        cargo: 'property',
        applied: '2026-09-17',
        granted: '2026-10-20',
        bipdRequired: 750_000,
        policies: [
          pol('91X', INS.bh, 'BH26101500015', '2026-10-15', 750_000, { posted: '2026-10-14' }),
        ],
      }),
    ]
    safety(ctx, c, { inspections: 0 })
  }

  // 1000016 ROUGH ROAD TRANSPORT INC: Unsatisfactory rating
  {
    const c = add(
      base(
        ctx,
        S.roughRoadTransport,
        carrier({
          name: 'ROUGH ROAD TRANSPORT INC',
          address: {
            street: '3300 5TH AVE N',
            city: 'BIRMINGHAM',
            state: 'AL',
            zip: '35203',
            county: '073',
          },
          fleet: { own: { TRACT: 7, TRAIL: 9 } },
          drivers: 8,
          addDate: '2017-03-20',
          mcs150Date: '2025-09-02',
          rating: { code: 'U', date: '2025-08-01', reviewDate: '2025-07-22' },
        }),
      ),
    )
    c.acuteCritical = { HOS_DRIV: true, VEH_MAINT: true }
    c.dockets = [activeMc(100016, '2017-05-22', 750_000, INS.lp)]
    safety(ctx, c, {
      inspections: 14,
      violations: [
        { maint: 2 },
        { fatigued: 1 },
        { maint: 1 },
        { unsafe: 1 },
        { maint: 3 },
        { fatigued: 2 },
        {},
        { maint: 1 },
        { fitness: 1 },
        { maint: 2 },
      ],
    })
  }

  // 1000017 THINLINE HAULERS INC: BI&PD on file ($300k) below the required $750k
  {
    const c = add(
      base(
        ctx,
        S.thinlineHaulers,
        carrier({
          name: 'THINLINE HAULERS INC',
          address: {
            street: '640 W 2100 S',
            city: 'SALT LAKE CITY',
            state: 'UT',
            zip: '84119',
            county: '035',
          },
          fleet: { own: { TRUCK: 3 } },
          drivers: 3,
          addDate: '2020-06-15',
          mcs150Date: '2025-06-20',
        }),
      ),
    )
    c.dockets = [activeMc(100017, '2020-08-24', 300_000, INS.lp)]
    safety(ctx, c, { inspections: 3 })
  }

  // 1000018 TRANSPORTES DEL NORTE SA DE CV: Mexican carrier (MX docket)
  {
    const c = add(
      base(
        ctx,
        S.transportesDelNorte,
        carrier({
          name: 'TRANSPORTES DEL NORTE SA DE CV',
          address: {
            street: 'AV CONSTITUCION 1450',
            city: 'MONTERREY',
            state: 'NL',
            zip: '64000',
            country: 'MX',
            colonia: 'CENTRO',
          },
          fleet: { own: { TRACT: 10, TRAIL: 14 } },
          drivers: 12,
          addDate: '2016-09-12',
          mcs150Date: '2025-03-31',
          phone: '8183445018',
        }),
      ),
    )
    c.dockets = [
      docket({
        prefix: 'MX',
        number: 100018,
        kinds: ['common'],
        cargo: 'property',
        granted: '2017-01-09',
        bipdRequired: 750_000,
        policies: [
          pol('91X', INS.ha, 'HA-MX-100018', '2024-01-01', 750_000, { posted: '2023-12-18' }),
        ],
      }),
    ]
    safety(ctx, c, { inspections: 8 })
    for (const x of c.inspections) x.state = 'TX'
  }

  // 1000019 TINY TRUCK CO: one truck, two inspections, unrated
  {
    const c = add(
      base(
        ctx,
        S.tinyTruckCo,
        carrier({
          name: 'TINY TRUCK CO',
          address: {
            street: '12 MAIN ST',
            city: 'JACKSON',
            state: 'MS',
            zip: '39201',
            county: '049',
          },
          fleet: { own: { TRUCK: 1 } },
          drivers: 1,
          addDate: '2021-03-01',
          mcs150Date: '2025-03-03',
        }),
      ),
    )
    c.dockets = [activeMc(100019, '2021-05-10', 750_000, INS.fc)]
    safety(ctx, c, { inspections: 2 })
  }

  // 1000020 CAUTION CARGO INC: Conditional rating
  {
    const c = add(
      base(
        ctx,
        S.cautionCargo,
        carrier({
          name: 'CAUTION CARGO INC',
          address: {
            street: '2200 E PARK AVE',
            city: 'SAVANNAH',
            state: 'GA',
            zip: '31404',
            county: '051',
          },
          fleet: { own: { TRACT: 12, TRAIL: 18 } },
          drivers: 13,
          addDate: '2014-02-10',
          mcs150Date: '2025-11-03',
          rating: { code: 'C', date: '2024-11-18', reviewDate: '2024-11-05' },
        }),
      ),
    )
    c.dockets = [activeMc(100020, '2014-04-21', 1_000_000, INS.bh)]
    safety(ctx, c, {
      inspections: 16,
      violations: [{ maint: 1 }, { fatigued: 1 }, {}, { maint: 2 }, { unsafe: 1 }],
    })
  }

  // 1000021 NOBOND BROKERS LLC: broker authority active but no bond or trust on file
  {
    const c = add(
      base(ctx, S.nobondBrokers, {
        kind: 'broker',
        name: 'NOBOND BROKERS LLC',
        classdef: [],
        operation: '',
        fleet: {},
        drivers: 0,
        cargo: [],
        address: {
          street: '100 N BISCAYNE BLVD STE 900',
          city: 'MIAMI',
          state: 'FL',
          zip: '33132',
          county: '086',
        },
        addDate: '2019-10-07',
        mcs150Date: '2025-10-10',
      }),
    )
    c.dockets = [
      docket({
        prefix: 'MC',
        number: 100021,
        kinds: ['broker'],
        cargo: 'property',
        granted: '2020-01-06',
        bipdRequired: 0,
      }),
    ]
  }

  // 1000022 STALE FILINGS INC: MCS-150 not updated since 2022
  {
    const c = add(
      base(
        ctx,
        S.staleFilings,
        carrier({
          name: 'STALE FILINGS INC',
          address: {
            street: '455 TERMINAL RD',
            city: 'OMAHA',
            state: 'NE',
            zip: '68107',
            county: '055',
          },
          fleet: { own: { TRACT: 6, TRAIL: 8 } },
          drivers: 6,
          addDate: '2010-05-17',
          mcs150Date: '2022-01-05',
        }),
      ),
    )
    c.mileageYear = 2021
    c.dockets = [activeMc(100022, '2010-07-26', 750_000, INS.im)]
    safety(ctx, c, { inspections: 5 })
  }

  // 1000023..1000027: five companies sharing one phone and e-mail; 1000027 revoked
  const ring = [
    [
      'QUICKHAUL CARRIERS LLC',
      { street: '1400 W IRVING BLVD', city: 'DALLAS', state: 'TX', zip: '75247', county: '113' },
    ],
    [
      'QUICK HAUL TRANSPORT INC',
      { street: '8800 FREEPORT PKWY', city: 'DALLAS', state: 'TX', zip: '75063', county: '113' },
    ],
    [
      'QH FREIGHT SOLUTIONS LLC',
      { street: '2310 N STEMMONS FWY', city: 'DALLAS', state: 'TX', zip: '75207', county: '113' },
    ],
    [
      'QUIKHAUL TRUCKING LLC',
      { street: '501 ELM ST', city: 'DALLAS', state: 'TX', zip: '75202', county: '113' },
    ],
    [
      'QUICKHAUL EXPRESS INC',
      { street: '3030 LBJ FWY', city: 'DALLAS', state: 'TX', zip: '75234', county: '113' },
    ],
  ] as const
  ring.forEach(([name, address], i) => {
    const dot = S.sharedContact1 + i
    const c = add(
      base(
        ctx,
        dot,
        carrier({
          name,
          address,
          fleet: { own: { TRACT: 1 + (i % 2) } },
          drivers: 1 + (i % 2),
          addDate: `2025-0${2 + i}-03`,
          mcs150Date: `2025-0${2 + i}-03`,
          phone: SHARED_PHONE,
          email: SHARED_EMAIL,
        }),
      ),
    )
    const granted = `2025-0${4 + i}-14`
    if (dot === S.sharedContactRevoked) {
      c.dockets = [
        docket({
          prefix: 'MC',
          number: 100000 + (dot % 1000),
          kinds: ['common'],
          cargo: 'property',
          granted,
          bipdRequired: 750_000,
          revoked: { serve: '2025-09-15', effective: '2025-10-15' },
          policies: [
            pol('91X', INS.lp, `LP25${dot}`, isoMinus(granted, 3), 750_000, {
              cancel: ['2025-08-14', '2025-09-14', 'CANCEL'],
            }),
          ],
        }),
      ]
      // the census still says A for this docket (FMCSA-DATA.md §2.1: not the authority status)
      ;(c.dockets[0] as Docket).censusStatusOverride = 'A'
    } else {
      c.dockets = [activeMc(100000 + (dot % 1000), granted, 750_000, INS.lp)]
    }
    safety(ctx, c, { inspections: i % 3 })
  })

  // 1000028 UNDELIVERABLE ADDRESS LLC: undeliverable physical and mail addresses
  {
    const c = add(
      base(
        ctx,
        S.undeliverableAddress,
        carrier({
          name: 'UNDELIVERABLE ADDRESS LLC',
          address: {
            street: '9 NOWHERE LN',
            city: 'RENO',
            state: 'NV',
            zip: '89502',
            county: '031',
          },
          fleet: { own: { TRUCK: 2 } },
          drivers: 2,
          addDate: '2020-09-08',
          mcs150Date: '2025-09-15',
        }),
      ),
    )
    c.undeliverablePhy = true
    c.mailUndeliverableDate = d('2026-03-02')
    c.motus = true
    const k = docket({
      prefix: 'MC',
      number: 100028,
      kinds: ['common'],
      cargo: 'property',
      granted: '2020-11-02',
      bipdRequired: 750_000,
      policies: [
        pol('91X', INS.gp, 'GP201028-28', '2020-10-28', 750_000, {
          cancel: ['2026-07-20', '2026-08-15', 'TERM/REPL'],
        }),
        pol('91X', INS.gp, 'GP260815-28', '2026-08-15', 750_000, { posted: '2026-08-03' }),
      ],
    })
    k.undeliverableMail = true
    c.dockets = [k]
    safety(ctx, c, { inspections: 2 })
  }

  // 1000029 INSURANCE CHURN TRUCKING: five BI&PD policies ended in the last 12 months
  {
    const c = add(
      base(
        ctx,
        S.insuranceChurn,
        carrier({
          name: 'INSURANCE CHURN TRUCKING',
          address: {
            street: '615 RIVER RD',
            city: 'LOUISVILLE',
            state: 'KY',
            zip: '40206',
            county: '111',
          },
          fleet: { own: { TRACT: 4, TRAIL: 4 } },
          drivers: 4,
          addDate: '2018-12-03',
          mcs150Date: '2025-12-08',
        }),
      ),
    )
    c.motus = true
    c.dockets = [
      docket({
        prefix: 'MC',
        number: 100029,
        kinds: ['common'],
        cargo: 'property',
        granted: '2019-03-01',
        bipdRequired: 750_000,
        policies: [
          pol('91X', INS.gp, 'GP190225-29', '2019-02-25', 750_000, {
            cancel: ['2025-02-10', '2025-03-01', 'TERM/REPL'],
          }),
          pol('91X', INS.bh, 'BH250301-29', '2025-03-01', 750_000, {
            cancel: ['2025-11-01', '2025-12-01', 'CANCEL'],
          }),
          pol('91X', INS.lp, 'LP251201-29', '2025-12-01', 750_000, {
            cancel: ['2026-01-20', '2026-02-01', 'TERM/REPL'],
          }),
          pol('91X', INS.fc, 'FC260201-29', '2026-02-01', 750_000, {
            cancel: ['2026-03-01', '2026-04-01', 'CANCEL'],
          }),
          pol('91X', INS.ha, 'HA260401-29', '2026-04-01', 750_000, {
            cancel: ['2026-06-01', '2026-06-15', 'TERM/REPL'],
          }),
          pol('91X', INS.im, 'IM260615-29', '2026-06-15', 750_000, {
            cancel: ['2026-08-01', '2026-09-01', 'CANCEL'],
          }),
          pol('91X', INS.ns, 'NS260901-29', '2026-09-01', 750_000, { posted: '2026-08-25' }),
        ],
      }),
    ]
    safety(ctx, c, { inspections: 6 })
  }

  // 1000030 CAFÉ EXPRÉS TRANSPORTE LLC: accented name (accent-insensitive search)
  {
    const c = add(
      base(
        ctx,
        S.cafeExpres,
        carrier({
          name: 'CAFÉ EXPRÉS TRANSPORTE LLC',
          address: {
            street: '7500 NW 25TH ST',
            city: 'MIAMI',
            state: 'FL',
            zip: '33122',
            county: '086',
          },
          fleet: { own: { TRUCK: 3 } },
          drivers: 3,
          addDate: '2019-07-15',
          mcs150Date: '2025-07-21',
          cargo: ['GENFREIGHT', 'COLDFOOD'],
          email: 'dispatch@cafeexpres.example',
        }),
      ),
    )
    c.dockets = [activeMc(100030, '2019-09-03')]
    safety(ctx, c, { inspections: 3 })
  }

  // 1000031..1000035: names close to ACME FREIGHT LINES LLC (search ranking)
  const acmes: [number, string, Partial<Address>, Kind, string?][] = [
    [
      S.acmeFreightServices,
      'ACME FREIGHT SERVICES INC',
      { street: '100 COMMERCE DR', city: 'COLUMBUS', state: 'OH', zip: '43215', county: '049' },
      'carrier',
    ],
    [
      S.acmeLogistics,
      'ACME LOGISTICS LLC',
      { street: '55 WAREHOUSE WAY', city: 'CHICAGO', state: 'IL', zip: '60607', county: '031' },
      'broker',
    ],
    [
      S.acmexTransport,
      'ACMEX TRANSPORT INC',
      { street: '2020 AIRPORT BLVD', city: 'EL PASO', state: 'TX', zip: '79925', county: '141' },
      'carrier',
    ],
    [
      S.northAcmeHauling,
      'NORTH ACME HAULING LLC',
      { street: '14 MILL RD', city: 'FARGO', state: 'ND', zip: '58102', county: '017' },
      'carrier',
    ],
    [
      S.acmeFreightLinesOfTexas,
      'ACME FREIGHT LINES OF TEXAS LLC',
      { street: '9000 JENSEN DR', city: 'HOUSTON', state: 'TX', zip: '77093', county: '201' },
      'carrier',
      'ACME TEXAS',
    ],
  ]
  for (const [dot, name, address, kind, dba] of acmes) {
    const broker = kind === 'broker'
    const c = add(
      base(
        ctx,
        dot,
        broker
          ? {
              kind,
              name,
              address,
              classdef: [],
              operation: '',
              fleet: {},
              drivers: 0,
              cargo: [],
              addDate: '2016-04-04',
              mcs150Date: '2025-04-07',
            }
          : carrier({
              name,
              dba,
              address,
              fleet: { own: { TRACT: 2 + (dot % 5), TRAIL: 3 } },
              drivers: 2 + (dot % 5),
              addDate: '2015-08-17',
              mcs150Date: '2025-08-18',
            }),
      ),
    )
    c.dockets = [
      broker
        ? docket({
            prefix: 'MC',
            number: 100000 + (dot % 1000),
            kinds: ['broker'],
            cargo: 'property',
            granted: '2016-06-06',
            bipdRequired: 0,
            policies: [pol('84', INS.surety2, `NTB${dot}`, '2016-06-01', 75_000)],
          })
        : activeMc(100000 + (dot % 1000), '2015-10-05'),
    ]
    if (!broker) safety(ctx, c, { inspections: 1 + (dot % 4) })
  }

  // 1000036 EXPIRED CANCEL LEGACY INC: legacy cancellation (07/16/2026) now in the past
  {
    const c = add(
      base(
        ctx,
        S.expiredCancelLegacy,
        carrier({
          name: 'EXPIRED CANCEL LEGACY INC',
          address: {
            street: '300 N LAKE ST',
            city: 'SPOKANE',
            state: 'WA',
            zip: '99201',
            county: '063',
          },
          fleet: { own: { TRUCK: 2 } },
          drivers: 2,
          addDate: '2018-04-02',
          mcs150Date: '2025-04-14',
        }),
      ),
    )
    c.dockets = [
      docket({
        prefix: 'MC',
        number: 100036,
        kinds: ['common'],
        cargo: 'property',
        granted: '2018-06-04',
        bipdRequired: 750_000,
        policies: [
          pol('91X', INS.lp, 'LP180601-36', '2018-06-01', 1_000_000, {
            cancel: ['2026-05-01', '2026-07-16', 'CANCEL'],
          }),
        ],
      }),
    ]
    safety(ctx, c, { inspections: 2 })
  }

  // 1000037 VALLEY SHUTTLE SERVICE LLC: intrastate passenger carrier (SMS "C" result files)
  {
    const c = add(
      base(
        ctx,
        S.valleyShuttle,
        carrier({
          kind: 'intrastate',
          name: 'VALLEY SHUTTLE SERVICE LLC',
          operation: 'C',
          cargo: ['PASSENGERS'],
          address: {
            street: '410 N BLACKSTONE AVE',
            city: 'FRESNO',
            state: 'CA',
            zip: '93701',
            county: '019',
          },
          fleet: { own: { VAN_9_15: 4, BUS_16: 1 } },
          drivers: 6,
          addDate: '2015-03-09',
          mcs150Date: '2025-09-08',
        }),
      ),
    )
    c.passenger = true
    c.interDrivers = 0
    c.intraDrivers = 6
    safety(ctx, c, { inspections: 4, violations: [{ fatigued: 1 }] })
  }

  for (const c of out) {
    const pu = sumUnits(c.own) + sumUnits(c.trm) + sumUnits(c.trp)
    c.sms = c.status === 'A' && pu > 0 && (c.operation === 'A' || c.operation === 'B')
  }
  return out
}

/** Random fillers with unique names and e-mails (the sample is small enough to check). */
function* fillers(ctx: GenContext, taken: Set<string>): Generator<Company> {
  const emails = new Set<string>()
  for (let i = 0; i < FILLER_COUNT; i++) {
    const dot = FIRST_FILLER_DOT + i
    const c = randomCore(ctx, dot)
    if (i === 0) {
      // exercises CSV quoting: a comma and double quotes in a name
      c.legalName = 'J "BIG JIM" WALKER TRUCKING, INC'
      c.dbaName = 'BIG JIM TRUCKING'
    }
    for (let j = 0; taken.has(c.legalName); j++) {
      const words = c.legalName.split(' ')
      c.legalName = [NAME_WORDS[(dot + j) % NAME_WORDS.length], ...words.slice(1)].join(' ')
    }
    taken.add(c.legalName)
    if (c.email) {
      const domain = `${slug(c.legalName)}.example`
      const local = c.email.split('@')[0] ?? 'info'
      const email = `${local}@${emails.has(`${local}@${domain}`.toLowerCase()) ? `${dot}.` : ''}${domain}`
      emails.add(email.toLowerCase())
      c.email = /[A-Z]/.test(c.email) ? email.toUpperCase() : email
    }
    addLicensing(ctx, c)
    addSafety(ctx, c)
    yield c
  }
}

/** Every company of the sample dataset, in USDOT order. */
export function* sampleCompanies(ctx: GenContext): Generator<Company> {
  const special = specials(ctx)
  const taken = new Set(special.map((c) => c.legalName))
  yield* special
  yield* fillers(ctx, taken)
}
