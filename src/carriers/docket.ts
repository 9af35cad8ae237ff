/**
 * Docket and authority identifiers (docs/api.md, GET /v1/broker/{mc}) and their resolution to a company:
 * `MC-123456`, `MC123456`, `mc 0123456`, `123456` (bare = MC), `FF…`, `MX…`, and the newer
 * USDOT-suffix identifiers (`1234567B`, `1234567-B`, `USDOT 1234567-B`).
 */
import { z } from 'zod'
import type { DataView } from '../db/datasets.ts'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { findDotsByDocket } from '../licensing/record.ts'
import type { Caller } from '../keys/keys.ts'
import * as N from '../ingest/normalize.ts'
import { resolveDocketViaQcmobile } from '../crosscheck/crosscheck.ts'
import { findCensusByDocket } from '../census/read.ts'
import { openRecords, type RecordReads } from './records.ts'
import type { RecordAnswer } from './answer.ts'
import type { CompanyRecord } from './record.ts'
import type { EntityType } from '../fields.ts'

/**
 * Authority letters of USDOT-suffix identifiers (fmcsa.dot.gov registration modernization):
 * C property carrier, B broker, F freight forwarder, P passenger, H household goods, V private,
 * E enterprise, X/Z Mexico long-haul/commercial zone, N non-North-American, R intrastate.
 */
export const AUTHORITY_SUFFIXES = ['C', 'B', 'F', 'P', 'H', 'V', 'E', 'X', 'Z', 'N', 'R'] as const
export type AuthoritySuffix = (typeof AUTHORITY_SUFFIXES)[number]

/** The entity role a suffix proves; null where no role of ours maps to it (E). */
export const SUFFIX_ROLE: Record<AuthoritySuffix, EntityType | null> = {
  C: 'carrier',
  P: 'carrier',
  H: 'carrier',
  X: 'carrier',
  Z: 'carrier',
  N: 'carrier',
  R: 'carrier',
  B: 'broker',
  F: 'forwarder',
  V: 'private',
  E: null,
}

const SUFFIX_WORD: Record<AuthoritySuffix, string> = {
  C: 'property carrier',
  P: 'passenger carrier',
  H: 'household goods carrier',
  X: 'Mexico long-haul carrier',
  Z: 'Mexico commercial-zone carrier',
  N: 'non-North-American carrier',
  R: 'intrastate carrier',
  B: 'broker',
  F: 'freight forwarder',
  V: 'private',
  E: 'enterprise',
}

export type Identifier =
  | { kind: 'docket'; prefix: N.DocketPrefix; number: number; display: string }
  | { kind: 'usdot_suffix'; dot: number; suffix: AuthoritySuffix; display: string }

/** An MC, FF or MX docket (not a USDOT-suffix identifier). */
export type DocketIdentifier = Extract<Identifier, { kind: 'docket' }>

const MAX_INPUT = 40
// `USDOT 1234567-B`, `DOT#1234567 B`, `1234567B`: digits then one authority letter
const SUFFIX_FORM = /^(?:US\s*DOT|DOT)?\s*(?:NO\.?|#)?\s*(\d{1,10})\s*[-–\s]?\s*([A-Z])$/
// a USDOT without a suffix: a company, but not a docket
const PLAIN_USDOT = /^(?:US\s*DOT|DOT)\s*(?:NO\.?|#)?\s*\d+$/

export const DOCKET_HINT =
  'expected an MC/FF/MX docket (MC-123456, MC123456, 123456, FF-12345, MX-12345) or a USDOT-suffix identifier (1234567-B)'

/** Why `raw` is not an identifier, for the 400 message; null when it is one. */
export function identifierProblem(raw: string): string | null {
  return parseIdentifier(raw) ? null : explainInvalid(raw)
}

function explainInvalid(raw: string): string {
  const t = raw.trim().toUpperCase()
  if (t === '') return `Docket number is required: ${DOCKET_HINT}`
  if (PLAIN_USDOT.test(t))
    return `${JSON.stringify(raw.trim().slice(0, MAX_INPUT))} is a USDOT number, not a docket: use GET /v1/carrier/{dot}, or ${DOCKET_HINT}`
  const m = SUFFIX_FORM.exec(t)
  if (m?.[2] && !(AUTHORITY_SUFFIXES as readonly string[]).includes(m[2]))
    return `Unknown authority letter ${m[2]}: USDOT-suffix identifiers end in one of ${AUTHORITY_SUFFIXES.join(', ')}`
  return `Not a docket number: ${DOCKET_HINT}`
}

/** Parses a docket or USDOT-suffix identifier; null when it is neither. */
export function parseIdentifier(raw: string): Identifier | null {
  const t = raw.trim().toUpperCase()
  if (t === '' || t.length > MAX_INPUT) return null
  const s = SUFFIX_FORM.exec(t)
  if (s?.[1] && s[2]) {
    const suffix = s[2]
    if (!isSuffix(suffix)) return null
    const dot = N.usdot(s[1])
    if (dot === null) return null
    return { kind: 'usdot_suffix', dot, suffix, display: `${dot}-${suffix}` }
  }
  if (PLAIN_USDOT.test(t)) return null
  const d = N.docket(t)
  if (!d) return null
  return { kind: 'docket', prefix: d.prefix, number: d.number, display: N.docketDisplay(d) }
}

const isSuffix = (v: string): v is AuthoritySuffix =>
  (AUTHORITY_SUFFIXES as readonly string[]).includes(v)

/** A stable key for duplicate detection: `MC123456`, `1234567-B`. */
export const identifierKey = (id: Identifier): string =>
  id.kind === 'docket' ? `${id.prefix}${id.number}` : id.display

export type ResolvedVia = 'licensing' | 'census' | 'qcmobile' | 'usdot'

export interface DocketCandidate {
  dot: number
  via: ResolvedVia
}

/** Most candidates we assemble records for when several USDOTs hold one docket. */
const MAX_CANDIDATES = 10

/**
 * USDOT numbers holding a docket in the local data: licensing (Motus, then legacy; most relevant
 * first), then the census DOCKETn columns. Deduplicated, licensing order kept.
 */
export function docketCandidates(
  view: DataView,
  prefix: string,
  number: number,
): DocketCandidate[] {
  const out: DocketCandidate[] = []
  const seen = new Set<number>()
  const add = (dots: readonly number[], via: ResolvedVia) => {
    for (const dot of dots)
      if (!seen.has(dot) && out.length < MAX_CANDIDATES) {
        seen.add(dot)
        out.push({ dot, via })
      }
  }
  add(findDotsByDocket(view, prefix, number), 'licensing')
  const census = view.get('census')
  if (census) add(findCensusByDocket(census, prefix, number), 'census')
  return out
}

export interface IdentifierMatch {
  identifier: Identifier
  record: CompanyRecord
  via: ResolvedVia
  /** other USDOT numbers that hold the same docket (not chosen) */
  others: number[]
}

export type IdentifierResolution =
  { ok: true; match: IdentifierMatch } | { ok: false; message: string }

const VIA_RANK: Record<ResolvedVia, number> = { usdot: 0, licensing: 1, census: 2, qcmobile: 3 }

const hasActiveAuthority = (r: CompanyRecord) =>
  [
    r.authority.common_authority,
    r.authority.contract_authority,
    r.authority.broker_authority,
  ].includes('A')

/**
 * Orders the holders of one docket: active authority first, then an active USDOT, then the
 * source (licensing before census), then the most recent registration, then the higher USDOT.
 */
export function rankHolders<T extends { record: CompanyRecord; via: ResolvedVia }>(list: T[]): T[] {
  const key = (x: T): [number, number, number, string, number] => [
    hasActiveAuthority(x.record) ? 0 : 1,
    x.record.identity.usdot_status === 'active' ? 0 : 1,
    VIA_RANK[x.via],
    x.record.identity.registration_date ?? '',
    x.record.dotNumber,
  ]
  return [...list].sort((a, b) => {
    const [a0, a1, a2, a3, a4] = key(a)
    const [b0, b1, b2, b3, b4] = key(b)
    return a0 - b0 || a1 - b1 || a2 - b2 || (a3 === b3 ? 0 : a3 < b3 ? 1 : -1) || b4 - a4
  })
}

/**
 * Finds the company an identifier names, in the caller's view. Dockets resolve through
 * licensing, then the census, then (live mirror only, when configured) QCMobile; when several
 * USDOTs hold the docket the best-ranked one is chosen and the others are reported.
 * USDOT-suffix identifiers resolve to their USDOT, filtered by the authority the letter names.
 * `read`: the request's readers (a batch's, so its items read at one instant), else this one's.
 */
export async function resolveIdentifier(
  deps: Deps,
  caller: Caller,
  id: Identifier,
  read: Pick<RecordReads, 'view' | 'record'> = openRecords(deps, caller.mode),
): Promise<IdentifierResolution> {
  if (id.kind === 'usdot_suffix') {
    const record = await read.record(id.dot)
    if (!record) return { ok: false, message: `No company found for USDOT number ${id.dot}` }
    const role = SUFFIX_ROLE[id.suffix]
    const roles = record.identity.entity_types
    if (role && roles.length > 0 && !roles.includes(role))
      return {
        ok: false,
        message: `USDOT number ${id.dot} holds no ${SUFFIX_WORD[id.suffix]} authority (${id.display})`,
      }
    return { ok: true, match: { identifier: id, record, via: 'usdot', others: [] } }
  }
  return bestHolder(id, await docketHolders(deps, read.view, id), read.record)
}

/** How an identifier named by docket resolved: the `lookup` block's facts. */
export type DocketLookup = Pick<IdentifierMatch, 'identifier' | 'via' | 'others'>

/** A company found by identifier whose answer was assembled as text (answer.ts). */
export interface AnsweredMatch {
  answer: RecordAnswer
  dot: number
  lookup: DocketLookup
}

export type AnswerResolution = { ok: true; answered: AnsweredMatch } | IdentifierResolution

/**
 * `resolveIdentifier` for a request answered as text (no cross-check). A docket with one holder,
 * as most have, has nothing to rank: its holder's answer is assembled whole (`read.answer`: by a
 * record worker when the server runs them), with its bond block's text when `bond`. A docket
 * several USDOTs hold, or a USDOT-suffix identifier, resolves from records as resolveIdentifier
 * does.
 */
export async function resolveAnswer(
  deps: Deps,
  caller: Caller,
  id: Identifier,
  read: RecordReads,
  bond = false,
): Promise<AnswerResolution> {
  if (id.kind !== 'docket') return resolveIdentifier(deps, caller, id, read)
  const holders = await docketHolders(deps, read.view, id)
  const [only] = holders
  if (!only || holders.length > 1) return bestHolder(id, holders, read.record)
  const answer = await read.answer(only.dot, bond)
  if (!answer) return { ok: false, message: noDocketHolder(id) }
  const lookup = { identifier: id, via: only.via, others: [] }
  return { ok: true, answered: { answer, dot: only.dot, lookup } }
}

/**
 * The USDOT numbers holding a docket in a view: licensing, then the census, then (live mirror
 * only, when configured) QCMobile when the local data names none.
 */
async function docketHolders(
  deps: Deps,
  view: DataView,
  id: DocketIdentifier,
): Promise<DocketCandidate[]> {
  if (!view.get('census')) throw new AppError('dataset_unavailable')
  const candidates = docketCandidates(view, id.prefix, id.number)
  if (candidates.length > 0 || view.source !== 'mirror') return candidates
  const dots = (await resolveDocketViaQcmobile(deps, id.prefix, id.number)) ?? []
  return dots.slice(0, MAX_CANDIDATES).map((dot) => ({ dot, via: 'qcmobile' as const }))
}

const noDocketHolder = (id: DocketIdentifier) => `No company found for docket ${id.display}`

/**
 * The best-ranked of a docket's holders whose records are found (`record`: the request's reader),
 * with the others reported.
 */
async function bestHolder(
  id: DocketIdentifier,
  candidates: readonly DocketCandidate[],
  record: (dot: number) => Promise<CompanyRecord | null>,
): Promise<IdentifierResolution> {
  const read = await Promise.all(candidates.map((c) => record(c.dot)))
  const found = candidates.flatMap((c, i) => {
    const r = read[i]
    return r ? [{ record: r, via: c.via }] : []
  })
  const [best, ...rest] = rankHolders(found)
  if (!best) return { ok: false, message: noDocketHolder(id) }
  return {
    ok: true,
    match: {
      identifier: id,
      record: best.record,
      via: best.via,
      others: rest.map((r) => r.record.dotNumber),
    },
  }
}

/** A USDOT number as given (path parameter or batch item): 1–8 digits after trimming, not zero. */
export const DotParam = z
  .string()
  .trim()
  .min(1, { error: 'USDOT number is required', abort: true })
  .regex(/^\d+$/, { error: 'USDOT number must contain digits only', abort: true })
  .regex(/^\d{1,8}$/, { error: 'USDOT number must be at most 8 digits', abort: true })
  .transform(Number)
  .refine((n) => n > 0, 'USDOT number must not be 0')

/** A docket or USDOT-suffix identifier as given (path parameter or batch `mc`). */
export const McParam = z
  .string()
  .max(MAX_INPUT)
  .transform((v, ctx): Identifier => {
    const id = parseIdentifier(v)
    if (id) return id
    ctx.addIssue({ code: 'custom', message: identifierProblem(v) ?? 'invalid docket' })
    return z.NEVER
  })
  .meta({
    description:
      'An MC/FF/MX docket (`MC-123456`, `MC123456`, `mc 0123456`, `123456` = MC, `FF-12345`, `MX-12345`) or a USDOT-suffix identifier (`1234567B`, `1234567-B`, `USDOT 1234567-B`).',
  })

/** How an identifier was resolved (broker answers and batch items given by `mc`). */
export const DocketLookupJson = z.object({
  query: z.string().meta({ description: 'the identifier as given' }),
  identifier: z.string().meta({ description: 'canonical form: MC-123456, FF-1234 or 1234567-B' }),
  kind: z.enum(['docket', 'usdot_suffix']),
  resolved_via: z.enum(['licensing', 'census', 'qcmobile', 'usdot']).meta({
    description:
      'licensing (Motus/legacy L&I), census (DOCKETn columns), qcmobile (the regulator, when the mirror has no holder) or usdot (suffix identifiers)',
  }),
  other_dot_numbers: z.array(z.string()).meta({
    description:
      'other USDOT numbers holding the same docket; the record shown is the one with active authority, then an active USDOT, then the most recent',
  }),
})
export type DocketLookupJson = z.infer<typeof DocketLookupJson>

/** The `lookup` block of a resolved identifier. */
export const toDocketLookupJson = (query: string, m: DocketLookup): DocketLookupJson => ({
  query,
  identifier: m.identifier.display,
  kind: m.identifier.kind,
  resolved_via: m.via,
  other_dot_numbers: m.others.map(String),
})
