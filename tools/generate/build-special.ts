/**
 * The one builder of the sample's special companies: turns a row of the SPECIALS table
 * (specials.ts) into a Company. The order of the steps is part of the output (every step that
 * draws from a seeded stream or a run counter does so in the same order for every special).
 */
import { randomCore } from './company.ts'
import { type GenContext, type Kind, layerRng } from './context.ts'
import { day as d, yearOf } from './dates.ts'
import { type DocketOptions, makeDocket } from './docket.ts'
import {
  type Address,
  AS_OF,
  type BasicKey,
  type Company,
  type Docket,
  type Inspection,
  type Policy,
  type ProcessAgent,
  SMS_WINDOW_START,
  type UnitCounts,
  unitSum,
} from './model.ts'
import { slug } from './names.ts'
import { type CrashOptions, type InspectionOptions, makeCrash, makeInspection } from './safety.ts'
import { PROCESS_AGENTS, US_PLACES } from './vocab.ts'

/** The census identity of a special: name, address, fleet, dates (ISO) and rating. */
export interface BaseOptions {
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
  rating?: {
    code: 'S' | 'C' | 'U'
    date: string
    reviewDate: string
    reviewType?: string
    reviewId?: string
  }
  email?: string
  phone?: string
}

/** One docket of a special, dates as ISO strings. */
export interface DocketSpec extends Omit<
  DocketOptions,
  'granted' | 'applied' | 'revoked' | 'cycles'
> {
  granted: string
  applied?: string
  revoked?: { serve: string; effective: string; voluntary?: boolean }
  cycles?: { serve: string; effective: string; reinstated: string }[]
  policies?: Policy[]
  /** No AuthHist rows and no process agent (the real USDOT 344554) */
  real?: boolean
  undeliverableMail?: boolean
  censusStatusOverride?: string
}

/** Inspections spread evenly over the SMS window, and the OOS orders. */
export interface SafetyOptions {
  /** Inspections inside the 24-month window */
  inspections: number
  /** Inspections before the window (to test windowing) */
  old?: number
  /**
   * Violations of the first inspections in the window, in order; the others are clean. One word
   * per inspection, one letter per violation (`.` for none): U unsafe driving, F fatigued (HOS),
   * D driver fitness, S substances, M vehicle maintenance, H hazmat. `'M . FF'`: one maintenance
   * violation, a clean inspection, two HOS violations.
   */
  violations?: string
  oosOrders?: Company['oosOrders']
  /** Relabels every inspection's state after it is drawn (report numbers keep the drawn one) */
  relabelState?: string
}

/** An inspection written out in full, with fixed fields set after it is drawn. */
export interface FixedInspection extends Omit<InspectionOptions, 'date'> {
  date: string
  set?: Partial<Pick<Inspection, 'uniqueId' | 'unit' | 'unit2'>>
}

/** One row of the SPECIALS table. */
export interface Special {
  dot: number
  company: BaseOptions
  /** Company fields set after the base (contact details, flags, SMS overrides, ...) */
  set?: Partial<Company>
  dockets?: DocketSpec[]
  safety?: SafetyOptions
  inspections?: FixedInspection[]
  crashes?: (Omit<CrashOptions, 'date'> & { date: string })[]
}

const sumUnits = (c: Company) => unitSum(c.own) + unitSum(c.trm) + unitSum(c.trp)

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
        reviewId: o.rating.reviewId ?? String(500000 + (dot % 100000)),
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
  c.mileage = sumUnits(c) * 95_000
  return c
}

function agent(i: number): ProcessAgent {
  const a = PROCESS_AGENTS[i % PROCESS_AGENTS.length] as (typeof PROCESS_AGENTS)[number]
  return { name: a[0], attention: '', street: a[1], city: a[2], state: a[3], zip: a[4] }
}

function docket(o: DocketSpec): Docket {
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
  k.agent = o.real ? null : agent(o.number)
  if (o.real) k.noHistory = true
  if (o.undeliverableMail) k.undeliverableMail = true
  if (o.censusStatusOverride !== undefined) k.censusStatusOverride = o.censusStatusOverride
  return k
}

const BASIC_LETTER: Record<string, BasicKey> = {
  U: 'unsafe',
  F: 'fatigued',
  D: 'fitness',
  S: 'subst',
  M: 'maint',
  H: 'hm',
}

/** `'M . FF'` → `[{ maint: 1 }, {}, { fatigued: 2 }]` (basics in order of first appearance). */
function violationCounts(words: string): Partial<Record<BasicKey, number>>[] {
  return words.split(' ').map((word) => {
    const counts: Partial<Record<BasicKey, number>> = {}
    for (const letter of word.replace('.', '')) {
      const basic = BASIC_LETTER[letter]
      if (!basic) throw new Error(`unknown violation letter ${letter} in '${words}'`)
      counts[basic] = (counts[basic] ?? 0) + 1
    }
    return counts
  })
}

/** Deterministic inspections (spread evenly over the window) and OOS orders. */
function safety(ctx: GenContext, c: Company, o: SafetyOptions): void {
  const rng = layerRng(ctx, c.dot, 'safety')
  const span = AS_OF - SMS_WINDOW_START
  const dates: number[] = []
  for (let i = 0; i < (o.old ?? 0); i++) dates.push(SMS_WINDOW_START - 40 - 61 * i)
  for (let i = 0; i < o.inspections; i++)
    dates.push(SMS_WINDOW_START + Math.floor(((i + 0.5) * span) / o.inspections) - rng.int(0, 5))
  dates.sort((a, b) => a - b)
  const counts = o.violations === undefined ? [] : violationCounts(o.violations)
  dates.forEach((date, i) => {
    const violations = counts[i - (o.old ?? 0)] ?? {}
    c.inspections.push(makeInspection(ctx, rng, c, { date, violations }))
  })
  c.oosOrders = o.oosOrders ?? []
  if (o.relabelState) for (const x of c.inspections) x.state = o.relabelState
}

/** Builds one special company from its table row. */
export function buildSpecial(ctx: GenContext, s: Special): Company {
  const c = base(ctx, s.dot, s.company)
  Object.assign(c, s.set)
  c.dockets = (s.dockets ?? []).map(docket)
  if (s.safety) safety(ctx, c, s.safety)
  if (s.inspections) {
    const rng = layerRng(ctx, c.dot, 'safety')
    for (const { date, set, ...o } of s.inspections)
      c.inspections.push({ ...makeInspection(ctx, rng, c, { ...o, date: d(date) }), ...set })
  }
  if (s.crashes) {
    const rng = layerRng(ctx, c.dot, 'safety')
    for (const { date, ...o } of s.crashes)
      c.crashes.push(makeCrash(ctx, rng, c, { ...o, date: d(date) }))
  }
  c.sms = c.status === 'A' && sumUnits(c) > 0 && (c.operation === 'A' || c.operation === 'B')
  return c
}
