/**
 * Row writers: one company → its records in every FMCSA format (FMCSA-DATA.md §2), each a view of
 * the company model at the right date. Legacy L&I rows are the state at the 2026-05-14 freeze;
 * Motus rows exist only for companies with a transaction since; everything else is as of AS_OF.
 */
import { BASIC_PREFIXES, CENSUS_COLUMNS, type BasicPrefix, type FileKey } from './columns.ts'
import { BASIC_DESC } from './catalog.ts'
import {
  docketStatusCode,
  fleetSizeCode,
  isDriverLevel,
  isVehicleLevel,
  timeWeight,
} from './company.ts'
import { day, dmy, iso, mdy, ymd } from './dates.ts'
import { q, qn } from './csv.ts'
import {
  AS_OF,
  INS_TYPE_DESC,
  LEGACY_FREEZE,
  SMS_WINDOW_START,
  authorityState,
  bipdOnFile,
  hasOnFile,
  insTypeCode,
  isBipd,
  isBondForm,
  isCargoForm,
  isCarrierAuthority,
  policyOnFile,
  powerUnits,
  truckUnits,
  type Authority,
  type BasicKey,
  type Company,
  type Docket,
  type Policy,
  type UnitCounts,
} from './model.ts'
import { US_PLACES } from './vocab.ts'

/** Where each file's records go; a missing key means the file is not being written. */
export type Emit = Partial<Record<FileKey, (record: string) => void>>

const pad8 = (dot: number) => String(dot).padStart(8, '0')
/** Every field quoted (legacy L&I text layout). */
function quoteAll(fields: readonly string[]): string {
  let s = q(fields[0] ?? '')
  for (let i = 1; i < fields.length; i++) s += `,${q(fields[i] ?? '')}`
  return s
}
/** Fields quoted where needed (Socrata rows.csv layout). */
function quoteNeeded(fields: readonly string[]): string {
  let s = qn(fields[0] ?? '')
  for (let i = 1; i < fields.length; i++) s += `,${qn(fields[i] ?? '')}`
  return s
}
const yn = (b: boolean) => (b ? 'Y' : 'N')
const tf = (b: boolean) => (b ? 'true' : 'false')
/** Legacy Carrier amounts: thousands, zero-filled to 5 (`01000` = $1 M). */
const k5 = (dollars: number) => String(Math.round(dollars / 1000)).padStart(5, '0')
/** Legacy insurance amounts: thousands, unpadded. */
const k = (dollars: number) => String(Math.round(dollars / 1000))
/** Motus amounts: dollars with cents. */
const money = (dollars: number) => dollars.toFixed(2)
const SMALL = Array.from({ length: 1000 }, (_, i) => String(i))
const num = (n: number) =>
  n >= 0 && n < 1000 && Number.isInteger(n) ? (SMALL[n] as string) : String(n)
/** `(800) 201-8453`, as the SMS census writes phones. */
const phoneDisplay = (p: string) =>
  p.length === 10 ? `(${p.slice(0, 3)}) ${p.slice(3, 6)}-${p.slice(6)}` : p

const REGION_BY_STATE = new Map(US_PLACES.map((p) => [p[1], p[5]]))
const NATIONALITY = { US: 'U', CA: 'C', MX: 'M' } as const

// ---------------------------------------------------------------------------------------------
// Company Census az4n-8mr2

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

// ---------------------------------------------------------------------------------------------
// licensing helpers

const docketString = (d: Docket) => `${d.prefix}${d.number}`
const docketHyphen = (d: Docket) => `${d.prefix}-${d.number}`

const LEGACY_TYPE_NAME: Record<Authority['kind'], Record<Authority['cargo'], string>> = {
  common: {
    property: 'MOTOR PROPERTY COMMON CARRIER',
    passenger: 'MOTOR PASSENGER COMMON CARRIER',
    hhg: 'MOTOR PROPERTY COMMON CARRIER (HOUSEHOLD GOODS)',
  },
  contract: {
    property: 'MOTOR PROPERTY CONTRACT CARRIER',
    passenger: 'MOTOR PASSENGER CONTRACT CARRIER',
    hhg: 'MOTOR PROPERTY CONTRACT CARRIER (HOUSEHOLD GOODS)',
  },
  broker: {
    property: 'PROPERTY BROKER',
    passenger: 'PROPERTY BROKER',
    hhg: 'HOUSEHOLD GOODS BROKER',
  },
}
const legacyTypeName = (d: Docket, a: Authority) =>
  d.prefix === 'FF' ? 'FREIGHT FORWARDER' : LEGACY_TYPE_NAME[a.kind][a.cargo]

/** Motus OP_AUTH_TYPE of an authority (Motus has no common/contract split). */
export function motusAuthType(d: Docket, a: Authority): string {
  if (d.prefix === 'FF') return 'Freight Forwarder of Property (Except Household Goods)'
  if (a.kind === 'broker')
    return a.cargo === 'hhg'
      ? 'Broker of Household Goods'
      : 'Broker of Property (Except Household Goods)'
  if (a.cargo === 'passenger') return 'Motor Carrier of Passengers'
  if (a.cargo === 'hhg') return 'Motor Carrier of Household Goods'
  if (d.prefix === 'MX') return 'Motor Carrier of Property (Mexico-Domiciled Long-Haul)'
  return 'Motor Carrier of Property (Except Household Goods)'
}

/** Motus collapses common and contract: one authority per group. */
function motusGroups(d: Docket): Authority[][] {
  const carrier = d.authorities.filter(isCarrierAuthority)
  const broker = d.authorities.filter((a) => !isCarrierAuthority(a))
  return [carrier, broker].filter((g) => g.length > 0)
}

const LEGACY_TYPE_DESC: Record<string, string> = {
  '1P': 'BIPD/Primary',
  '1E': 'BIPD/Excess',
  '2': 'CARGO',
  '3': 'SURETY',
  '4': 'TRUST FUND',
}
const modCol = (p: Policy) => {
  const t = insTypeCode(p.form)
  return LEGACY_TYPE_DESC[t === 1 ? `1${p.classCode === 'E' ? 'E' : 'P'}` : String(t)] ?? ''
}
const CANCEL_WORD = {
  CANCEL: 'Cancelled',
  'TERM/CANCL': 'Cancelled',
  'TERM/REPL': 'Replaced',
  NAMECHG: 'Name Change',
  TRANSFER: 'Transferred',
} as const
function cancelForm(p: Policy): string {
  const m = p.cancel?.method
  if (m === 'TERM/REPL') return p.form
  if (m === 'NAMECHG') return 'NC'
  if (m === 'TRANSFER') return 'TR'
  return p.form === '84' ? '36' : p.form === '85' ? '85C' : '35'
}

// ---------------------------------------------------------------------------------------------
// legacy L&I (state at the freeze)

const REVOCATION_FILE_FROM = day('2023-01-01')

const NO_AUTHORITY = { stat: 'N', appPending: false, revPending: false } as const

function stateOf(d: Docket, kind: Authority['kind'], t: number) {
  for (const a of d.authorities) if (a.kind === kind) return authorityState(a, t)
  return NO_AUTHORITY
}

function legacyRows(c: Company, out: Emit): void {
  const dot8 = pad8(c.dot)
  const T = LEGACY_FREEZE
  for (const d of c.dockets) {
    const dk = docketString(d)
    if (out.legacyCarrier) {
      const common = stateOf(d, 'common', T)
      const contract = stateOf(d, 'contract', T)
      const broker = stateOf(d, 'broker', T)
      const carrierAuth = d.prefix !== 'FF' && d.authorities.some(isCarrierAuthority)
      const cargoKinds = new Set(d.authorities.filter(isCarrierAuthority).map((a) => a.cargo))
      const bondReq = d.prefix === 'FF' || d.authorities.some((a) => a.kind === 'broker')
      const mailDiffers = c.mail.street !== c.phy.street || c.mail.city !== c.phy.city
      const f = [
        dk,
        dot8,
        d.mxType,
        '',
        common.stat,
        contract.stat,
        broker.stat,
        yn(common.appPending),
        yn(contract.appPending),
        yn(broker.appPending),
        yn(common.revPending),
        yn(contract.revPending),
        yn(broker.revPending),
        yn(cargoKinds.has('property') || d.prefix === 'FF'),
        yn(cargoKinds.has('passenger')),
        yn(cargoKinds.has('hhg')),
        'N',
        'N',
        k5(carrierAuth ? d.bipdRequired : 0),
        yn(cargoKinds.has('hhg')),
        yn(bondReq),
        k5(bipdOnFile(d, T)),
        yn(hasOnFile(d, T, isCargoForm)),
        yn(hasOnFile(d, T, isBondForm)),
        // per the FMCSA definitions PDF: Y = deliverable, N = undeliverable
        yn(!d.undeliverableMail),
        c.dbaName,
        c.legalName,
        c.phy.street,
        c.phy.colonia,
        c.phy.city,
        c.phy.state,
        c.phy.country,
        c.phy.zip,
        c.phone,
        c.fax,
        mailDiffers ? c.mail.street : '',
        mailDiffers ? c.mail.colonia : '',
        mailDiffers ? c.mail.city : '',
        mailDiffers ? c.mail.state : '',
        mailDiffers ? c.mail.country : '',
        mailDiffers ? c.mail.zip : '',
        '',
        '',
      ]
      out.legacyCarrier(quoteAll(f))
    }
    for (const p of d.policies) {
      const endedBeforeFreeze = p.cancel !== null && p.cancel.effective <= T
      if (out.legacyActPendInsur && p.posted <= T && !endedBeforeFreeze) {
        const bipd = isBipd(p.form)
        const f = [
          dk,
          dot8,
          p.form,
          modCol(p),
          p.insurer,
          p.policyNo,
          mdy(p.posted),
          bipd ? k(p.underlying) : '0',
          bipd ? k(p.maxCov) : '0',
          mdy(p.effective),
          p.cancel !== null && p.cancel.filed <= T ? mdy(p.cancel.effective) : '',
        ]
        out.legacyActPendInsur(quoteAll(f))
      }
      if (out.legacyInsHist && endedBeforeFreeze && p.cancel) {
        const bipd = isBipd(p.form)
        const t = insTypeCode(p.form)
        // field 9 (minimum coverage) is unquoted in the text files
        out.legacyInsHist(
          [
            q(dk),
            q(dot8),
            q(p.form),
            q(CANCEL_WORD[p.cancel.method]),
            q(cancelForm(p)),
            q(bipd ? ' ' : '*'),
            q(INS_TYPE_DESC[t]),
            q(p.policyNo),
            bipd ? k(d.bipdRequired) : '0',
            q(p.classCode),
            q(mdy(p.effective)),
            q(bipd && p.underlying > 0 ? k(p.underlying) : ''),
            q(bipd ? k(p.maxCov) : ''),
            q(mdy(p.cancel.effective)),
            q(p.cancel.method),
            q(p.branch || '00'),
            q(p.insurer),
          ].join(','),
        )
      }
    }
    if (out.legacyAuthHist && !d.noHistory) {
      for (const a of d.authorities) {
        const type = legacyTypeName(d, a)
        let open: { action: string; date: number } | null = null
        const row = (
          action: string,
          date: number,
          disp: string,
          decided: number | null,
          served: number | null,
        ) =>
          out.legacyAuthHist?.(
            [
              dk,
              dot8,
              '0',
              type,
              action,
              mdy(date),
              disp,
              decided === null ? '' : mdy(decided),
              served === null ? '' : mdy(served),
            ]
              .map(q)
              .join(','),
          )
        for (const e of a.events) {
          if (e.kind === 'granted' || e.kind === 'reinstated') {
            if (e.date > T) continue
            open = { action: e.kind === 'granted' ? 'GRANTED' : 'REINSTATED', date: e.date }
          } else if (e.kind === 'revoked') {
            if (e.effective > T || !open) continue
            row(open.action, open.date, 'REVOKED', e.serve, e.effective)
            open = null
          } else if (e.kind === 'discontinued' && e.decided <= T) {
            row('INVOLUNTARY REVOCATION', e.serve, 'DISCONTINUED REVOCATION', e.decided, e.decided)
          }
        }
        if (open) row(open.action, open.date, '', null, null)
      }
    }
    if (out.legacyRevocation) {
      for (const a of d.authorities) {
        for (const e of a.events) {
          // the generated Revocation file holds orders served since 2023 (FMCSA's full file: ~300 k rows)
          if (e.kind !== 'revoked' || e.serve > T || e.serve < REVOCATION_FILE_FROM || e.suspension)
            continue
          const type =
            a.kind === 'broker' ? 'BROKER' : a.kind === 'contract' ? 'CONTRACT' : 'COMMON'
          out.legacyRevocation(
            [
              dk,
              dot8,
              type,
              mdy(e.serve),
              e.voluntary ? 'VOLUNTARY REVOCATION' : 'INVOLUNTARY REVOCATION',
              e.voluntary ? '' : mdy(e.effective),
            ]
              .map(q)
              .join(','),
          )
        }
      }
    }
    if (out.legacyBoc3 && d.agent) {
      const g = d.agent
      out.legacyBoc3(
        [dk, dot8, g.name, g.attention, g.street, g.city, g.state, 'US', g.zip].map(q).join(','),
      )
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Motus (state at AS_OF; only entities with a transaction since the freeze)

const eventDate = (e: Authority['events'][number]) =>
  e.kind === 'revoked' || e.kind === 'discontinued' ? e.serve : e.date

function motusRows(c: Company, out: Emit): void {
  const dot = num(c.dot)
  const T = AS_OF
  for (const d of c.dockets) {
    const dk = docketString(d)
    const groups = motusGroups(d)
    if (out.motusCarrier) {
      const cargoReq = d.authorities.some((a) => a.cargo === 'hhg' && isCarrierAuthority(a))
      const bondReq = d.prefix === 'FF' || d.authorities.some((a) => a.kind === 'broker')
      const mailDiffers = c.mail.street !== c.phy.street || c.mail.city !== c.phy.city
      for (const g of groups) {
        const states = g.map((a) => authorityState(a, T))
        const status = states.some((s) => s.stat === 'A')
          ? 'Active'
          : states.some((s) => s.appPending)
            ? 'Pending'
            : 'Inactive'
        const f = [
          dk,
          dot,
          '',
          motusAuthType(d, g[0] as Authority),
          status,
          money(d.prefix !== 'FF' && d.authorities.some(isCarrierAuthority) ? d.bipdRequired : 0),
          yn(cargoReq),
          yn(bondReq),
          money(bipdOnFile(d, T)),
          yn(hasOnFile(d, T, isCargoForm)),
          yn(hasOnFile(d, T, isBondForm)),
          yn(d.undeliverableMail),
          yn(d.undeliverableMail),
          c.dbaName,
          c.legalName,
          c.phy.street,
          c.phy.colonia,
          c.phy.city,
          c.phy.state,
          c.phy.country,
          c.phy.zip,
          c.phone,
          mailDiffers ? c.mail.street : c.phy.street,
          c.mail.colonia,
          c.mail.city,
          c.mail.state,
          c.mail.country,
          c.mail.zip,
        ]
        out.motusCarrier(quoteNeeded(f))
      }
    }
    for (const p of d.policies) {
      const t = insTypeCode(p.form)
      if (out.motusInsur && policyOnFile(p, T)) {
        out.motusInsur(
          [
            dk,
            dot,
            `BMC-${p.form}`,
            num(t),
            p.classCode,
            money(p.maxCov),
            money(p.underlying),
            p.policyNo,
            ymd(p.effective),
            p.insurer,
            ymd(p.posted),
          ]
            .map(qn)
            .join(','),
        )
      }
      if (
        out.motusInsHist &&
        p.cancel &&
        p.cancel.effective > LEGACY_FREEZE &&
        p.cancel.filed < T
      ) {
        const bipd = isBipd(p.form)
        out.motusInsHist(
          [
            dk,
            dot,
            `BMC-${p.form}`,
            p.cancel.method,
            num(t),
            bipd ? ' ' : '*',
            p.policyNo,
            INS_TYPE_DESC[t],
            money(bipd ? d.bipdRequired : 0),
            p.classCode,
            ymd(p.effective),
            money(p.underlying),
            money(p.maxCov),
            ymd(p.cancel.effective),
            p.insurer,
          ]
            .map(qn)
            .join(','),
        )
      }
    }
    for (const g of groups) {
      const a = g[0] as Authority
      const type = motusAuthType(d, a)
      // Motus AuthHist: the event behind the status at the freeze, then every change since
      let from = 0
      for (const e of a.events)
        if ((e.kind === 'granted' || e.kind === 'reinstated') && e.date <= LEGACY_FREEZE)
          from = e.date
      for (const e of a.events) {
        // AuthHist records status changes (a revocation when it takes effect); RevokeSuspend the orders served
        const changed = e.kind === 'revoked' ? e.effective : eventDate(e)
        if (out.motusAuthHist && changed >= from && changed < T && e.kind !== 'discontinued') {
          const rec = (status: string, reason: string) =>
            out.motusAuthHist?.([dk, dot, type, status, reason, ymd(changed)].map(qn).join(','))
          if (e.kind === 'applied') rec('Pending', 'Published to FMCSA Register')
          else if (e.kind === 'granted') rec('Active', 'Granted')
          else if (e.kind === 'reinstated') rec('Active', 'Reinstated')
          else
            rec(
              'Inactive',
              e.suspension
                ? 'Involuntary Suspension'
                : e.voluntary
                  ? 'Voluntary Revocation'
                  : 'Revoked',
            )
        }
        if (
          out.motusRevokeSuspend &&
          e.kind === 'revoked' &&
          e.serve > LEGACY_FREEZE &&
          e.serve < T
        ) {
          const desc = e.suspension
            ? 'INVOLUNTARY SUSPENSION'
            : e.voluntary
              ? 'VOLUNTARY REVOCATION'
              : 'INVOLUNTARY REVOCATION'
          out.motusRevokeSuspend(
            [docketHyphen(d), dot, type, ymd(e.serve), desc, ymd(e.effective)].map(qn).join(','),
          )
        }
      }
    }
    if (out.motusBoc3 && d.agent) {
      const g = d.agent
      out.motusBoc3([dk, dot, g.name, g.street, g.city, g.state, g.zip, 'US'].map(qn).join(','))
    }
  }
}

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

function smsCensusRecord(c: Company): string {
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

function inspectionRows(c: Company, out: Emit): void {
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

function crashRows(c: Company, out: Emit): void {
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

function resultRows(c: Company, out: Emit): void {
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

function oosRows(c: Company, out: Emit): void {
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

/** Writes every record of company `c` to the files in `out`. */
export function emitCompany(c: Company, out: Emit): void {
  if (out.census) out.census(censusRecord(c))
  if (
    c.legacy &&
    (out.legacyCarrier ||
      out.legacyActPendInsur ||
      out.legacyInsHist ||
      out.legacyAuthHist ||
      out.legacyRevocation ||
      out.legacyBoc3)
  )
    legacyRows(c, out)
  if (
    c.motus &&
    (out.motusCarrier ||
      out.motusInsur ||
      out.motusInsHist ||
      out.motusAuthHist ||
      out.motusRevokeSuspend ||
      out.motusBoc3)
  )
    motusRows(c, out)
  if (out.smsCensus && c.sms) out.smsCensus(smsCensusRecord(c))
  if (out.smsInspection || out.smsViolation) inspectionRows(c, out)
  crashRows(c, out)
  resultRows(c, out)
  oosRows(c, out)
}
