/**
 * Client for the FMCSA QCMobile API (FMCSA's QCMobile API documentation): `carriers/{dot}`, `carriers/{dot}/authority`,
 * `carriers/docket-number/{n}`, `carriers/{dot}/docket-numbers`, `carriers/{dot}/oos`.
 *
 * Tolerant of the API's quirks: numbers sent as numbers or strings ("750", "1.16%"), ratings as
 * codes or words, `content` as an object, an array, a string or null, a bad key answered with
 * 404 + a string, and a maintenance page served as HTML with status 200. Answers are normalised
 * here (dollars, `YYYY-MM-DD`, A/I/N letters) so the rest of the code never sees QCMobile units.
 *
 * The web key rides in the query string, so nothing here logs a URL: only the path.
 */
import { z } from 'zod'
import type { Logger } from '../log.ts'
import * as N from '../ingest/normalize.ts'

/** Why the regulator gave no usable answer. */
export type QcFailure =
  | 'webkey_missing'
  | 'webkey_rejected'
  | 'maintenance'
  | 'timeout'
  | 'rate_limited'
  | 'regulator_error'

/** A failed call: why, the HTTP status if there was one, and how long the regulator asked us to wait. */
export interface QcFailed {
  ok: false
  reason: QcFailure
  status: number | null
  retryAfterMs: number | null
}

export type QcResult<T> = { ok: true; value: T } | QcFailed

export type Letter = 'A' | 'I' | 'N'
export type RatingCode = 'S' | 'C' | 'U'

/** A `carrier` object, normalised. Money in whole dollars (QCMobile sends thousands). */
export interface RegulatorCarrier {
  dotNumber: number | null
  legalName: string | null
  dbaName: string | null
  /** `A` / `I`, or the raw code when it is something else */
  statusCode: string | null
  allowedToOperate: 'Y' | 'N' | null
  commonAuthorityStatus: Letter | null
  contractAuthorityStatus: Letter | null
  brokerAuthorityStatus: Letter | null
  bipdOnFile: number | null
  bipdRequired: number | null
  cargoOnFile: number | null
  bondOnFile: number | null
  safetyRating: RatingCode | null
  safetyRatingDate: string | null
  oosDate: string | null
  totalPowerUnits: number | null
  totalDrivers: number | null
  crashTotal: number | null
  fatalCrash: number | null
  injCrash: number | null
  towawayCrash: number | null
  driverInsp: number | null
  driverOosInsp: number | null
  vehicleInsp: number | null
  vehicleOosInsp: number | null
  hazmatInsp: number | null
  hazmatOosInsp: number | null
  /** percent, e.g. 1.158 */
  driverOosRate: number | null
  vehicleOosRate: number | null
  hazmatOosRate: number | null
}

export interface RegulatorAuthority {
  dotNumber: number | null
  docket: string | null
  commonAuthorityStatus: Letter | null
  contractAuthorityStatus: Letter | null
  brokerAuthorityStatus: Letter | null
  authorizedForBroker: boolean | null
  authorizedForProperty: boolean | null
  authorizedForPassenger: boolean | null
  authorizedForHouseholdGoods: boolean | null
}

export interface RegulatorDocket {
  dotNumber: number | null
  prefix: string | null
  number: number | null
  /** `MC-1515` */
  display: string | null
}

export interface RegulatorOos {
  oosDate: string | null
  reason: string | null
  description: string | null
}

// ---- tolerant field coercions ------------------------------------------------------------------

/** A number from a number or a numeric string (`"750"`, `"1,000"`, `"1.16%"`); anything else → null. */
export function toNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null
  if (typeof v !== 'string') return null
  const t = v.trim().replace(/[,%\s$]/g, '')
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(t)) return null
  return Number(t)
}

/** Trimmed text (numbers and booleans as text); blank → null. U+200B is stripped (§5). */
export function toText(v: unknown): string | null {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  if (typeof v !== 'string') return null
  return N.text(v.replaceAll('\u200B', ''))
}

/** Thousands → whole dollars (QCMobile `*OnFile`, `bipdRequiredAmount`). */
export function thousandsToDollars(v: unknown): number | null {
  const n = toNumber(v)
  return n === null ? null : Math.round(n * 1000)
}

const LETTER_WORDS: Record<string, Letter> = {
  A: 'A',
  ACTIVE: 'A',
  I: 'I',
  INACTIVE: 'I',
  N: 'N',
  NONE: 'N',
}
/** Authority status as a letter; words accepted; unknown → null. */
export function toLetter(v: unknown): Letter | null {
  const t = toText(v)?.toUpperCase()
  return t ? (LETTER_WORDS[t] ?? null) : null
}

/** USDOT status: `A`/`I` (or the words); any other code is kept as sent. */
export function toStatusCode(v: unknown): string | null {
  const t = toText(v)?.toUpperCase()
  if (!t) return null
  if (t === 'ACTIVE') return 'A'
  if (t === 'INACTIVE') return 'I'
  return t
}

const RATING_WORDS: Record<string, RatingCode> = {
  S: 'S',
  SATISFACTORY: 'S',
  C: 'C',
  CONDITIONAL: 'C',
  U: 'U',
  UNSATISFACTORY: 'U',
}
/** Safety rating as a code; words accepted; blank, "none", "unrated" → null (not rated). */
export function toRating(v: unknown): RatingCode | null {
  const t = toText(v)?.toUpperCase()
  return t ? (RATING_WORDS[t] ?? null) : null
}

/** Y/N from `Y`, `N`, booleans, yes/no; QCMobile's `u` and anything else → null. */
export function toYesNo(v: unknown): 'Y' | 'N' | null {
  if (typeof v === 'boolean') return v ? 'Y' : 'N'
  const f = N.flag(toText(v))
  return f === null ? null : f ? 'Y' : 'N'
}

const toDate = (v: unknown) => N.date(toText(v))
const toFlag = (v: unknown) => N.flag(toText(v))

/** A field that may be missing or of any type, coerced by `f` (zod never fails on it). */
const field = <T>(f: (v: unknown) => T) => z.unknown().optional().transform(f)
const num = field(toNumber)
const txt = field(toText)
const any = z.unknown().optional()

// ---- schemas -----------------------------------------------------------------------------------

/** The `carrier` object; every field optional and coerced, so a shape drift never throws. */
export const RegulatorCarrier = z
  .object({
    dotNumber: num,
    legalName: txt,
    dbaName: txt,
    statusCode: field(toStatusCode),
    allowedToOperate: any,
    // the QCMobile docs spell it this way (§5)
    allowToOperate: any,
    commonAuthorityStatus: field(toLetter),
    contractAuthorityStatus: field(toLetter),
    brokerAuthorityStatus: field(toLetter),
    bipdInsuranceOnFile: field(thousandsToDollars),
    bipdRequiredAmount: field(thousandsToDollars),
    cargoInsuranceOnFile: field(thousandsToDollars),
    bondInsuranceOnFile: field(thousandsToDollars),
    safetyRating: field(toRating),
    safetyRatingDate: field(toDate),
    oosDate: field(toDate),
    totalPowerUnits: num,
    totalDrivers: num,
    crashTotal: num,
    fatalCrash: num,
    injCrash: num,
    towawayCrash: num,
    driverInsp: num,
    driverOosInsp: num,
    vehicleInsp: num,
    vehicleOosInsp: num,
    hazmatInsp: num,
    hazmatOosInsp: num,
    driverOosRate: num,
    vehicleOosRate: num,
    hazmatOosRate: num,
  })
  .transform((c): RegulatorCarrier => ({
    dotNumber: c.dotNumber,
    legalName: c.legalName,
    dbaName: c.dbaName,
    statusCode: c.statusCode,
    allowedToOperate: toYesNo(c.allowedToOperate ?? c.allowToOperate),
    commonAuthorityStatus: c.commonAuthorityStatus,
    contractAuthorityStatus: c.contractAuthorityStatus,
    brokerAuthorityStatus: c.brokerAuthorityStatus,
    bipdOnFile: c.bipdInsuranceOnFile,
    bipdRequired: c.bipdRequiredAmount,
    cargoOnFile: c.cargoInsuranceOnFile,
    bondOnFile: c.bondInsuranceOnFile,
    safetyRating: c.safetyRating,
    safetyRatingDate: c.safetyRatingDate,
    oosDate: c.oosDate,
    totalPowerUnits: c.totalPowerUnits,
    totalDrivers: c.totalDrivers,
    crashTotal: c.crashTotal,
    fatalCrash: c.fatalCrash,
    injCrash: c.injCrash,
    towawayCrash: c.towawayCrash,
    driverInsp: c.driverInsp,
    driverOosInsp: c.driverOosInsp,
    vehicleInsp: c.vehicleInsp,
    vehicleOosInsp: c.vehicleOosInsp,
    hazmatInsp: c.hazmatInsp,
    hazmatOosInsp: c.hazmatOosInsp,
    driverOosRate: c.driverOosRate,
    vehicleOosRate: c.vehicleOosRate,
    hazmatOosRate: c.hazmatOosRate,
  }))

const docketDisplay = (prefix: string | null, n: number | null) =>
  n === null ? null : `${prefix ?? 'MC'}-${n}`

export const RegulatorAuthority = z
  .object({
    dotNumber: num,
    prefix: txt,
    docketNumber: num,
    commonAuthorityStatus: field(toLetter),
    contractAuthorityStatus: field(toLetter),
    brokerAuthorityStatus: field(toLetter),
    authorizedForBroker: field(toFlag),
    authorizedForProperty: field(toFlag),
    authorizedForPassenger: field(toFlag),
    authorizedForHouseholdGoods: field(toFlag),
  })
  .transform((a): RegulatorAuthority => ({
    dotNumber: a.dotNumber,
    docket: docketDisplay(a.prefix?.toUpperCase() ?? null, a.docketNumber),
    commonAuthorityStatus: a.commonAuthorityStatus,
    contractAuthorityStatus: a.contractAuthorityStatus,
    brokerAuthorityStatus: a.brokerAuthorityStatus,
    authorizedForBroker: a.authorizedForBroker,
    authorizedForProperty: a.authorizedForProperty,
    authorizedForPassenger: a.authorizedForPassenger,
    authorizedForHouseholdGoods: a.authorizedForHouseholdGoods,
  }))

export const RegulatorDocket = z
  .object({ dotNumber: num, prefix: txt, docketNumber: num })
  .transform((d): RegulatorDocket => ({
    dotNumber: d.dotNumber,
    prefix: d.prefix?.toUpperCase() ?? null,
    number: d.docketNumber,
    display: docketDisplay(d.prefix?.toUpperCase() ?? null, d.docketNumber),
  }))

export const RegulatorOos = z
  .object({ oosDate: field(toDate), oosReason: txt, oosReasonDescription: txt })
  .transform((o): RegulatorOos => ({
    oosDate: o.oosDate,
    reason: o.oosReason,
    description: o.oosReasonDescription,
  }))

/** `{content, retrievalDate?, _links?}` */
const Envelope = z.object({ content: z.unknown() })

// ---- content shapes ----------------------------------------------------------------------------

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** `content` as a list of items: an array as is, an object as a list of one, null/other → []. */
const itemsOf = (content: unknown): unknown[] =>
  Array.isArray(content) ? content : isObject(content) ? [content] : []

/** Each item unwrapped from its wrapper key (`{carrier: …}`, `{oos: …}`) when it has one. */
function unwrap<T>(content: unknown, key: string | null, schema: z.ZodType<T>): T[] {
  const out: T[] = []
  for (const item of itemsOf(content)) {
    const inner = key && isObject(item) && isObject(item[key]) ? item[key] : item
    const parsed = schema.safeParse(inner)
    if (parsed.success) out.push(parsed.data)
  }
  return out
}

// ---- the client --------------------------------------------------------------------------------

export interface QcmobileClientOptions {
  fetch: typeof globalThis.fetch
  /** e.g. `https://mobile.fmcsa.dot.gov/qc/services` (no trailing slash) */
  baseUrl: string
  webKey: string | null
  log: Logger
}

/** One HTTP answer, classified; `content: null` = the regulator does not know the entity. */
export type QcBody = { ok: true; content: unknown } | QcFailed

const MAINTENANCE = /<title>\s*FMCSA System Maintenance Page\s*<\/title>|system maintenance/i
const WEBKEY_TEXT = /web\s*key/i
const RETRY_AFTER_CAP_MS = 60_000

const failed = (
  reason: QcFailure,
  status: number | null = null,
  retryAfterMs: number | null = null,
): QcFailed => ({ ok: false, reason, status, retryAfterMs })
const NOT_FOUND: QcBody = { ok: true, content: null }

function retryAfter(res: Response): number | null {
  const s = toNumber(res.headers.get('retry-after'))
  return s === null ? null : Math.min(Math.max(0, s * 1000), RETRY_AFTER_CAP_MS)
}

const isAbort = (err: unknown) =>
  err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')

/**
 * Classifies one HTTP answer (docs/crosscheck.md, "Reasons"): `content: null` means the
 * regulator does not know the entity; a failure says why there is no answer.
 */
export function classify(status: number, contentType: string, text: string): QcBody {
  const trimmed = text.trimStart()
  if (/html/i.test(contentType) || trimmed.startsWith('<')) {
    // maintenance arrives as 200 HTML; a blocked network as 403 HTML from the load balancer
    return MAINTENANCE.test(text)
      ? failed('maintenance', status)
      : failed('regulator_error', status)
  }
  if (status === 429) return failed('rate_limited', status)
  if (status >= 500) return failed('regulator_error', status)
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return failed('regulator_error', status)
  }
  // no envelope (a proxy's or framework's error page): not the regulator's answer
  const env = Envelope.safeParse(json)
  if (!env.success || !isObject(json) || !('content' in json))
    return failed('regulator_error', status)
  const { content } = env.data
  // A string is a message, never an answer: a bad key comes as 404 "Webkey not found" (§7 trap 9)
  if (typeof content === 'string') {
    return WEBKEY_TEXT.test(content)
      ? failed('webkey_rejected', status)
      : failed('regulator_error', status)
  }
  if (status === 401 || status === 403) return failed('webkey_rejected', status)
  // unknown USDOT: 200 + null (another source reports 404); unknown docket: []
  if (status === 404) return NOT_FOUND
  if (status < 200 || status >= 300) return failed('regulator_error', status)
  if (content === null || content === undefined) return NOT_FOUND
  if (Array.isArray(content) && content.length === 0) return NOT_FOUND
  return { ok: true, content }
}

export type QcmobileClient = ReturnType<typeof createQcmobileClient>

/** A QCMobile client. Every method resolves (never rejects); failures are values. */
export function createQcmobileClient(opts: QcmobileClientOptions) {
  /** GETs `{baseUrl}/{path}?webKey=…` and classifies the answer. Logs the path only. */
  async function get(path: string, signal: AbortSignal): Promise<QcBody> {
    if (!opts.webKey) return failed('webkey_missing')
    const url = `${opts.baseUrl}/${path}?webKey=${encodeURIComponent(opts.webKey)}`
    const started = performance.now()
    let body: QcBody
    let status: number | null = null
    try {
      const res = await opts.fetch(url, { signal, headers: { accept: 'application/json' } })
      status = res.status
      const text = await res.text()
      body = classify(res.status, res.headers.get('content-type') ?? '', text)
      if (!body.ok && body.reason === 'rate_limited') {
        body = failed('rate_limited', res.status, retryAfter(res))
      }
    } catch (err) {
      // never log err itself: a fetch error may carry the URL, and the URL carries the key
      body = isAbort(err) || signal.aborted ? failed('timeout', status) : failed('regulator_error')
    }
    const ms = Math.round(performance.now() - started)
    if (body.ok) {
      const result = body.content === null ? 'not_found' : 'found'
      opts.log.debug({ path, status, duration_ms: ms, result }, 'qcmobile answered')
    } else if (body.reason === 'webkey_rejected') {
      opts.log.error(
        { path, status, duration_ms: ms },
        'QCMobile rejected the web key: check QCMOBILE_WEBKEY',
      )
    } else {
      opts.log.warn({ path, status, duration_ms: ms, reason: body.reason }, 'qcmobile unavailable')
    }
    return body
  }

  async function list<T>(
    path: string,
    key: string | null,
    schema: z.ZodType<T>,
    signal: AbortSignal,
  ): Promise<QcResult<T[]>> {
    const body = await get(path, signal)
    if (!body.ok) return body
    return { ok: true, value: unwrap(body.content, key, schema) }
  }

  return {
    /** `carriers/{dot}`: the carrier, or null when the regulator does not know the USDOT. */
    async carrier(dot: number, signal: AbortSignal): Promise<QcResult<RegulatorCarrier | null>> {
      const body = await get(`carriers/${dot}`, signal)
      if (!body.ok) return body
      if (body.content === null) return { ok: true, value: null }
      const carriers = unwrap(body.content, 'carrier', RegulatorCarrier)
      const match = carriers.find((c) => c.dotNumber === dot) ?? carriers[0]
      // content that holds no carrier object is not an answer
      return match ? { ok: true, value: match } : failed('regulator_error', 200)
    },
    /** `carriers/{dot}/authority`; [] when none or the USDOT is unknown. */
    authority: (dot: number, signal: AbortSignal) =>
      list(`carriers/${dot}/authority`, 'carrierAuthority', RegulatorAuthority, signal),
    /** `carriers/docket-number/{n}` (digits only, MC): the carriers holding it; [] when unknown. */
    carriersByDocket: (n: number, signal: AbortSignal) =>
      list(`carriers/docket-number/${n}`, 'carrier', RegulatorCarrier, signal),
    /** `carriers/{dot}/docket-numbers`; [] when none. */
    docketNumbers: (dot: number, signal: AbortSignal) =>
      list(`carriers/${dot}/docket-numbers`, null, RegulatorDocket, signal),
    /** `carriers/{dot}/oos`: the OOS orders; [] when none. */
    oos: (dot: number, signal: AbortSignal) =>
      list(`carriers/${dot}/oos`, 'oos', RegulatorOos, signal),
  }
}
