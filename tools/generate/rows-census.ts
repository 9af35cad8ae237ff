/** Row writer of the Company Census (az4n-8mr2). */
import { CENSUS_COLUMNS } from './columns.ts'
import { fleetSizeCode } from './company.ts'
import { qn } from './csv.ts'
import { ymd } from './dates.ts'
import { docketStatusCode } from './docket.ts'
import { type Company, powerUnits, truckUnits, type UnitCounts } from './model.ts'
import { NATIONALITY, num, REGION_BY_STATE, yn } from './rows-format.ts'

const CI = Object.fromEntries(CENSUS_COLUMNS.map((n, i) => [n, i])) as Record<string, number>
const ci = (name: string): number => {
  const i = CI[name]
  if (i === undefined) throw new Error(`unknown census column ${name}`)
  return i
}
const FLEET_KINDS = CENSUS_COLUMNS.filter((n) => n.startsWith('OWN')).map((n) =>
  n.slice(3),
) as (keyof UnitCounts)[]
const NO_FLEET = ','.repeat(FLEET_KINDS.length * 3 - 1)
const CARGO_ORDER = CENSUS_COLUMNS.filter(
  (n) => n.startsWith('CRGO_') && n !== 'CRGO_CARGOOTHR_DESC',
).map((n) => n.slice(5))

/** Memoises the joined OWN/TRM/TRP and CRGO blocks: a few thousand distinct values cover most rows. */
function blockCache<T>(build: (x: T) => string, keyOf: (x: T) => string): (x: T) => string {
  const cache = new Map<string, string>()
  return (x) => {
    const key = keyOf(x)
    let s = cache.get(key)
    if (s === undefined) {
      s = build(x)
      if (cache.size < 50_000) cache.set(key, s)
    }
    return s
  }
}
const countsKey = (u: UnitCounts) => {
  let k = ''
  for (const kind in u) k += `${kind}${u[kind as keyof UnitCounts] ?? 0}`
  return k
}
const fleetBlock = blockCache(
  (c: Company) =>
    [c.own, c.trm, c.trp]
      .map((counts) => FLEET_KINDS.map((kind) => num(counts[kind] ?? 0)).join(','))
      .join(','),
  (c: Company) => `${countsKey(c.own)}/${countsKey(c.trm)}/${countsKey(c.trp)}`,
)
const cargoBlock = blockCache(
  (cargo: readonly string[]) => CARGO_ORDER.map((k) => (cargo.includes(k) ? 'X' : '')).join(','),
  (cargo: readonly string[]) => cargo.join(' '),
)

const censusParts: string[] = new Array<string>(80).fill('')

/**
 * One Company Census record (147 fields, quoted only where RFC 4180 needs it). Built from ~70
 * parts, some of them pre-joined runs of fields, because this runs millions of times.
 */
export function censusRecord(c: Company): string {
  const p = censusParts
  const pu = powerUnits(c)
  const trucks = truckUnits(c)
  const r = c.rating
  const mileage = c.mileage > 0
  const beyond = c.interDrivers > 0 ? Math.round(c.drivers * 0.6) : 0
  const intraBeyond = c.intraDrivers > 0 ? Math.round(c.intraDrivers * 0.3) : 0
  let i = 0
  p[i++] = ymd(c.mcs150Date) // MCS150_DATE
  p[i++] = c.addDateWithTime ? `${ymd(c.addDate)} 0000` : ymd(c.addDate)
  p[i++] = c.status
  p[i++] = num(c.dot)
  p[i++] = '' // DUN_BRADSTREET_NO
  p[i++] = REGION_BY_STATE.get(c.phy.state) ?? ''
  p[i++] = c.phy.country === 'US' ? c.phy.state : '' // SAFETY_INV_TERR
  p[i++] = c.operation
  p[i++] = c.businessOrgId
  p[i++] = mileage ? num(c.mileage) : ''
  p[i++] = mileage ? num(c.mileageYear) : ''
  p[i++] = ',,1,N,' // MCS151_MILEAGE TOTAL_CARS MCS150_UPDATE_CODE_ID PRIOR_REVOKE_FLAG PRIOR_REVOKE_DOT_NUMBER
  p[i++] = c.phone
  p[i++] = c.fax
  p[i++] = c.cell
  p[i++] = qn(c.officer1)
  p[i++] = qn(c.officer2)
  p[i++] = c.businessOrgDesc
  p[i++] = num(trucks)
  p[i++] = num(pu)
  p[i++] = num(pu - trucks) // BUS_UNITS
  p[i++] = fleetSizeCode(pu)
  p[i++] = r ? r.reviewId : ''
  p[i++] = r?.reviewId ? '0' : '' // RECORDABLE_CRASH_RATE
  p[i++] = NATIONALITY[c.mail.country]
  p[i++] = NATIONALITY[c.phy.country]
  p[i++] = qn(c.phy.colonia)
  p[i++] = qn(c.mail.colonia)
  p[i++] = 'C' // CARSHIP
  for (let n = 0; n < 3; n++) {
    const d = c.dockets[n]
    p[i++] = d ? `${d.prefix},${num(d.number)}` : ','
  }
  p[i++] = '' // POINTNUM
  p[i++] = num(c.intraDrivers)
  p[i++] = '0,' // MCSIPSTEP MCSIPDATE
  p[i++] = yn(c.hazmat)
  p[i++] = num(beyond)
  p[i++] = num(c.interDrivers > 0 ? c.interDrivers - beyond : 0)
  p[i++] = num(intraBeyond)
  p[i++] = num(c.intraDrivers - intraBeyond)
  p[i++] = num(c.cdl)
  p[i++] = num(c.drivers)
  p[i++] = num(c.avgLeased)
  p[i++] = qn(c.classdef.join(';'))
  p[i++] = qn(c.legalName)
  p[i++] = qn(c.dbaName)
  p[i++] = qn(c.phy.street)
  p[i++] = qn(c.phy.city)
  p[i++] = c.phy.country
  p[i++] = c.phy.state
  p[i++] = c.phy.zip
  p[i++] = c.phy.county
  p[i++] = qn(c.mail.street)
  p[i++] = c.mail.state
  p[i++] = qn(c.mail.city)
  p[i++] = c.mail.country
  p[i++] = c.mail.zip
  p[i++] = c.mail.county
  p[i++] = c.mailUndeliverableDate === null ? '' : ymd(c.mailUndeliverableDate)
  p[i++] = num(c.interDrivers)
  p[i++] = qn(c.email)
  p[i++] = r ? `${r.reviewType},${ymd(r.reviewDate)},${r.code},${ymd(r.date)}` : ',,,'
  p[i++] = c.undeliverablePhy ? 'U' : ''
  p[i++] = cargoBlock(c.cargo)
  p[i++] = qn(c.cargoOther)
  p[i++] = pu > 0 ? fleetBlock(c) : NO_FLEET
  for (let n = 0; n < 3; n++) {
    const d = c.dockets[n]
    p[i++] = d ? docketStatusCode(d) : ''
  }
  p.length = i
  const line = p.join(',')
  return c.censusOverrides ? withOverrides(line, c.censusOverrides) : line
}

/** Replaces named fields of a census record (rare: real values kept verbatim). */
function withOverrides(line: string, overrides: Record<string, string>): string {
  const fields: string[] = []
  let i = 0
  while (i <= line.length) {
    if (line[i] === '"') {
      let j = i + 1
      while (j < line.length && !(line[j] === '"' && line[j + 1] !== '"'))
        j += line[j] === '"' ? 2 : 1
      fields.push(line.slice(i, j + 1))
      i = j + 2
    } else {
      const j = line.indexOf(',', i)
      const end = j < 0 ? line.length : j
      fields.push(line.slice(i, end))
      i = end + 1
    }
  }
  for (const [name, value] of Object.entries(overrides)) fields[ci(name)] = qn(value)
  return fields.join(',')
}
