/** Row writers of the SMS files (census, inspections, violations, crashes, results), OOS orders. */
import { BASIC_DESC } from './catalog.ts'
import { BASIC_PREFIXES, MCMIS_INSPECTION_COLUMNS, type BasicPrefix } from './columns.ts'
import { qn } from './csv.ts'
import { dmy, iso, ymd } from './dates.ts'
import {
  AS_OF,
  type BasicKey,
  type Company,
  type Inspection,
  powerUnits,
  SMS_WINDOW_START,
  type Vehicle,
} from './model.ts'
import { type Emit, num, phoneDisplay, tf, yn } from './rows-format.ts'
import { isDriverLevel, isVehicleLevel, timeWeight } from './safety.ts'

// ---------------------------------------------------------------------------------------------
// SMS inputs

const CLASS_FLAGS = [
  'PRIVATE_ONLY',
  'AUTHORIZED FOR HIRE',
  'EXEMPT FOR HIRE',
  'PRIVATE PROPERTY',
  'PRIVATE PASSENGER (BUSINESS)',
  'PRIVATE PASSENGER (NON-BUSINESS)',
  'MIGRANT',
  'U.S. MAIL',
  'FEDERAL GOVERNMENT',
  'STATE GOVERNMENT',
  'LOCAL GOVERNMENT',
  'INDIAN TRIBE',
] as const

export function smsCensusRecord(c: Company): string {
  const other = c.classdef.find((x) => x.startsWith('OTHER'))
  const flags = CLASS_FLAGS.map((name) =>
    name === 'PRIVATE_ONLY' ? tf(c.privateOnly) : tf(c.classdef.includes(name)),
  )
  const f = [
    num(c.dot),
    qn(c.legalName),
    qn(c.dbaName),
    c.operation,
    tf(c.hazmat),
    tf(c.passenger),
    qn(c.phy.street),
    qn(c.phy.city),
    c.phy.state,
    c.phy.zip,
    c.phy.country,
    qn(c.mail.street),
    qn(c.mail.city),
    c.mail.state,
    c.mail.zip,
    c.mail.country,
    phoneDisplay(c.phone),
    phoneDisplay(c.fax),
    qn(c.email),
    dmy(c.mcs150Date),
    num(c.mileage),
    c.mileage > 0 ? num(c.mileageYear) : '',
    dmy(c.addDate),
    c.phy.state,
    num(powerUnits(c)),
    num(c.drivers),
    num(c.mileage),
    c.mileage > 0 ? num(c.mileageYear) : '',
    '1',
    ...flags,
    other ? qn(other.replace(/^OTHER-?/, '') || 'Y') : 'N',
  ]
  return f.join(',')
}

const BASIC_INDEX: Record<BasicKey, number> = {
  unsafe: 0,
  fatigued: 1,
  fitness: 2,
  subst: 3,
  maint: 4,
  hm: 5,
}

const inWindow = (d: number) => d >= SMS_WINDOW_START && d < AS_OF

export function inspectionRows(c: Company, out: Emit): void {
  const dot = num(c.dot)
  for (const x of c.inspections) {
    const tw = num(timeWeight(x.date))
    if (out.smsInspection) {
      const n = [0, 0, 0, 0, 0, 0]
      for (const v of x.violations) (n[BASIC_INDEX[v.basic]] as number)++
      const driver = isDriverLevel(x.level)
      const vehicle = isVehicleLevel(x.level)
      const u2 = x.unit2
      const f = [
        num(x.uniqueId),
        x.reportNumber,
        x.state,
        dot,
        dmy(x.date),
        num(x.level),
        x.state,
        tw,
        num(x.driverOos),
        num(x.vehicleOos),
        x.hazmat ? '1' : '0',
        num(x.driverOos + x.vehicleOos + x.hazmatOos),
        num(x.hazmatOos),
        tf(x.hazmat),
        x.unit.type,
        x.unit.make,
        x.unit.plate,
        x.unit.plateState,
        x.unit.vin,
        x.unit.decal,
        u2 ? u2.type : '',
        u2 ? u2.make : '',
        u2 ? u2.plate : '',
        u2 ? u2.plateState : '',
        u2 ? u2.vin : '',
        u2 ? u2.decal : '',
        tf(driver),
        tf(driver),
        tf(driver),
        tf(driver),
        tf(vehicle),
        tf(x.hazmat),
        num(x.violations.length),
        num(n[0] as number),
        num(n[1] as number),
        num(n[2] as number),
        num(n[3] as number),
        num(n[4] as number),
        num(n[5] as number),
      ]
      out.smsInspection(f.join(','))
    }
    if (out.smsViolation) {
      for (const v of x.violations) {
        const oosW = v.oos ? 2 : 0
        out.smsViolation(
          [
            num(x.uniqueId),
            dmy(x.date),
            dot,
            v.code,
            BASIC_DESC[v.basic],
            tf(v.oos),
            num(oosW),
            num(v.severity),
            tw,
            num((v.severity + oosW) * Number(tw)),
            qn(v.section),
            qn(v.group),
            v.unit,
          ].join(','),
        )
      }
    }
  }
}

export function crashRows(c: Company, out: Emit): void {
  const emit = out.smsCrash
  if (!emit) return
  const dot = num(c.dot)
  for (const x of c.crashes) {
    const severity = (x.fatalities > 0 || x.injuries > 0 ? 2 : 1) + (x.hazmatReleased ? 1 : 0)
    x.vehicles.forEach((v, i) => {
      emit(
        [
          x.reportNumber,
          num(i + 1),
          dot,
          dmy(x.date),
          x.state,
          num(x.fatalities),
          num(x.injuries),
          tf(x.towAway),
          tf(x.hazmatReleased),
          qn(x.trafficway),
          x.accessControl,
          x.roadSurface,
          x.weather,
          qn(x.light),
          v.vin,
          v.plate,
          v.plateState,
          num(severity),
          num(timeWeight(x.date)),
          x.citation,
          num(i + 1),
          tf(x.notPreventable),
        ].join(','),
      )
    })
  }
}

// ---------------------------------------------------------------------------------------------
// SMS results

const BASIC_KEY: Record<BasicPrefix, BasicKey> = {
  UNSAFE_DRIV: 'unsafe',
  HOS_DRIV: 'fatigued',
  DRIV_FIT: 'fitness',
  CONTR_SUBST: 'subst',
  VEH_MAINT: 'maint',
}
/** Passenger-carrier intervention thresholds (percent). */
const PASSENGER_THRESHOLD: Record<BasicPrefix, number> = {
  UNSAFE_DRIV: 50,
  HOS_DRIV: 50,
  DRIV_FIT: 65,
  CONTR_SUBST: 65,
  VEH_MAINT: 65,
}
const PCT_SCALE: Record<BasicPrefix, number> = {
  UNSAFE_DRIV: 2.5,
  HOS_DRIV: 1.5,
  DRIV_FIT: 0.8,
  CONTR_SUBST: 0.5,
  VEH_MAINT: 4,
}

/** `.17`, `1.02`, `0`: SMS measure strings. */
export const measureString = (m: number) => (m <= 0 ? '0' : m.toFixed(2).replace(/^0\./, '.'))

interface BasicResult {
  inspWithViol: number
  measure: number
  relevant: number
}

export interface SmsResults {
  insp: number
  driverInsp: number
  driverOos: number
  vehicleInsp: number
  vehicleOos: number
  basics: Record<BasicPrefix, BasicResult>
}

/** The SMS results of a company from its inspections in the 24-month window, or null if none. */
export function smsResults(c: Company): SmsResults | null {
  const recent = c.inspections.filter((x) => inWindow(x.date))
  if (recent.length === 0 && !c.crashes.some((x) => inWindow(x.date))) return null
  const r: SmsResults = {
    insp: recent.length,
    driverInsp: 0,
    driverOos: 0,
    vehicleInsp: 0,
    vehicleOos: 0,
    basics: {} as SmsResults['basics'],
  }
  for (const x of recent) {
    if (isDriverLevel(x.level)) {
      r.driverInsp++
      if (x.driverOos > 0) r.driverOos++
    }
    if (isVehicleLevel(x.level)) {
      r.vehicleInsp++
      if (x.vehicleOos > 0) r.vehicleOos++
    }
  }
  for (const b of BASIC_PREFIXES) {
    const key = BASIC_KEY[b]
    const vehicleBasic = key === 'maint'
    let weightedInsp = 0
    let weightedViol = 0
    let inspWithViol = 0
    let relevant = 0
    for (const x of recent) {
      if (!(vehicleBasic ? isVehicleLevel(x.level) : isDriverLevel(x.level))) continue
      relevant++
      const tw = timeWeight(x.date)
      weightedInsp += tw
      let any = false
      for (const v of x.violations) {
        if (v.basic !== key) continue
        any = true
        weightedViol += Math.min(30, (v.severity + (v.oos ? 2 : 0)) * tw)
      }
      if (any) inspWithViol++
    }
    r.basics[b] = {
      inspWithViol,
      relevant,
      measure: weightedInsp > 0 ? weightedViol / weightedInsp : 0,
    }
  }
  return r
}

export function resultRows(c: Company, out: Emit): void {
  const group = c.operation === 'C' ? 'C' : c.sms ? 'AB' : null
  if (group === null || c.status !== 'A') return
  const emitPP = group === 'AB' ? out.smsAbPassProperty : out.smsCPassProperty
  const emitPass = c.passenger ? (group === 'AB' ? out.smsAbPass : out.smsCPass) : undefined
  if (!emitPP && !emitPass) return
  const r = smsResults(c)
  if (!r) return
  const head = [
    num(c.dot),
    num(r.insp),
    num(r.driverInsp),
    num(r.driverOos),
    num(r.vehicleInsp),
    num(r.vehicleOos),
  ]
  if (emitPP) {
    const f = [...head]
    for (const b of BASIC_PREFIXES) {
      const x = r.basics[b]
      f.push(
        num(x.inspWithViol),
        c.basics[b]?.measure ?? measureString(x.measure),
        yn(c.acuteCritical[b] === true),
      )
    }
    emitPP(f.join(','))
  }
  if (emitPass) {
    const f = [...head]
    for (const b of BASIC_PREFIXES) {
      const x = r.basics[b]
      const o = c.basics[b] ?? {}
      const min = b === 'VEH_MAINT' || b === 'DRIV_FIT' ? 5 : 3
      const pctValue =
        x.relevant < min
          ? null
          : x.inspWithViol === 0
            ? 0
            : Math.min(99, Math.round(100 * (1 - Math.exp(-x.measure / PCT_SCALE[b]))))
      const pct =
        o.pct ??
        (pctValue === null
          ? `Less than ${min} ${b === 'VEH_MAINT' ? 'vehicle' : 'driver'} inspections`
          : `${pctValue}%`)
      const rd = o.rdAlert ?? yn(pctValue !== null && pctValue >= PASSENGER_THRESHOLD[b])
      const ac = c.acuteCritical[b] === true
      const alert = o.basicAlert ?? yn(rd === 'Y' || ac)
      f.push(num(x.inspWithViol), o.measure ?? measureString(x.measure), qn(pct), rd, yn(ac), alert)
    }
    emitPass(f.join(','))
  }
}

// ---------------------------------------------------------------------------------------------

export function oosRows(c: Company, out: Emit): void {
  const emit = out.oosOrders
  if (!emit) return
  for (const o of c.oosOrders) {
    emit(
      [
        num(c.dot),
        qn(c.legalName),
        qn(c.dbaName),
        iso(o.date),
        qn(o.reason),
        o.status,
        o.rescind === null ? '' : iso(o.rescind),
      ].join(','),
    )
  }
}

// ---------------------------------------------------------------------------------------------
// MCMIS Vehicle Inspection File and Inspections Per Unit (FMCSA on data.transportation.gov)

const MCMIS_AT = new Map(MCMIS_INSPECTION_COLUMNS.map((c, i) => [c, i]))
/** Synthetic unit type codes (the importer reads the type from the SMS file, never this code). */
const UNIT_TYPE_CODE: Record<string, string> = {
  'TRUCK TRACTOR': '11',
  'SEMI-TRAILER': '9',
  'STRAIGHT TRUCK': '2',
  MOTORCOACH: '20',
  BUS: '21',
}
/** Inspections older than the SMS window, in the MCMIS files only: one for every other inspection. */
const MCMIS_ONLY_ID_OFFSET = 400_000_000

/** The name an officer writes: the legal name, now and then without its LLC or INC. */
function roadsideName(c: Company, x: Inspection): string {
  if (x.roadsideName !== undefined) return x.roadsideName
  return x.uniqueId % 3 === 0 ? c.legalName.replace(/,? (LLC|INC)$/, '') : c.legalName
}

function mcmisInspection(c: Company, x: Inspection, id: number, date: number): string {
  const f: string[] = new Array<string>(MCMIS_INSPECTION_COLUMNS.length).fill('')
  const set = (col: string, v: string) => {
    f[MCMIS_AT.get(col) as number] = v
  }
  const viol = x.violations.length
  set('CHANGE_DATE', `${ymd(Math.min(AS_OF - 1, date + 3))} 0930`)
  set('INSPECTION_ID', num(id))
  set('DOT_NUMBER', num(c.dot))
  set('REPORT_STATE', x.state)
  set('REPORT_NUMBER', id === x.uniqueId ? x.reportNumber : `${x.state}${num(id)}`)
  set('INSP_DATE', ymd(date))
  set('INSP_START_TIME', '0930')
  set('INSP_END_TIME', '1010')
  set('COUNTY_CODE_STATE', x.state)
  set('INSP_LEVEL_ID', num(x.level))
  set('HAZMAT_PLACARD_REQ', yn(x.hazmat))
  set('POST_ACC_IND', 'N')
  set('VIOL_TOTAL', num(viol))
  set('OOS_TOTAL', num(x.driverOos + x.vehicleOos + x.hazmatOos))
  set('DRIVER_OOS_TOTAL', num(x.driverOos))
  set('VEHICLE_OOS_TOTAL', num(x.vehicleOos))
  set('HAZMAT_OOS_TOTAL', num(x.hazmatOos))
  set('INSP_CARRIER_NAME', qn(roadsideName(c, x)))
  set('INSP_CARRIER_STREET', qn(c.phy.street))
  set('INSP_CARRIER_CITY', qn(c.phy.city))
  set('INSP_CARRIER_STATE', c.phy.state)
  set('INSP_CARRIER_ZIP_CODE', c.phy.zip)
  set('INSP_INTERSTATE', 'Y')
  return f.join(',')
}

function mcmisUnit(id: number, n: number, v: Vehicle): string {
  return [
    `${ymd(AS_OF - 1)} 0930`,
    num(id),
    num(id * 10 + n),
    UNIT_TYPE_CODE[v.type] ?? '99',
    num(n),
    v.make,
    '',
    v.plate,
    v.plateState,
    v.vin,
    v.decal === '' ? 'N' : 'Y',
    v.decal,
  ].join(',')
}

/**
 * The MCMIS rows of a company: each inspection (same INSPECTION_ID as the SMS `Unique_ID`), plus
 * for every other one an older inspection outside the SMS window (the MCMIS files hold about 3
 * years against the SMS file's 2), and one unit row per inspected unit.
 */
export function mcmisRows(c: Company, out: Emit): void {
  for (const x of c.inspections) {
    const copies: [number, number][] = [[x.uniqueId, x.date]]
    if (x.uniqueId % 2 === 1)
      copies.push([
        x.uniqueId + MCMIS_ONLY_ID_OFFSET,
        AS_OF - 731 - ((x.date - SMS_WINDOW_START + 730) % 364),
      ])
    for (const [id, date] of copies) {
      out.mcmisInspection?.(mcmisInspection(c, x, id, date))
      if (out.mcmisUnits) {
        out.mcmisUnits(mcmisUnit(id, 1, x.unit))
        if (x.unit2) out.mcmisUnits(mcmisUnit(id, 2, x.unit2))
      }
    }
  }
}
