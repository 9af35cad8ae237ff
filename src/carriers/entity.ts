/** Entity type (docs/data.md, precedence): collect every role, then choose one primary value. */
import type { CensusRow } from '../census/read.ts'
import type { Roles } from '../licensing/record.ts'
import type { EntityType } from '../fields.ts'

const PRIVATE_CLASSES = /^(PRIVATE PROPERTY|PRIVATE PASSENGER.*|PRIV\. PASS\..*)$/
const FOR_HIRE = /(AUTHORIZED FOR HIRE|EXEMPT FOR HIRE)/

export function censusClasses(row: CensusRow | null): string[] {
  return row?.classdef
    ? row.classdef
        .split(';')
        .map((s) => s.trim())
        .filter(Boolean)
    : []
}

/** true when every census class is a private one (and there is at least one) */
export function isPrivateOnly(row: CensusRow | null): boolean | null {
  const classes = censusClasses(row)
  if (classes.length === 0) return null
  return classes.every((c) => PRIVATE_CLASSES.test(c.toUpperCase()))
}

export interface EntityInput {
  census: CensusRow | null
  roles: Roles | null
  /** SMS census PRIVATE_ONLY */
  privateOnly: boolean | null
}

/** All roles that apply, primary first, and the primary one (never a fifth value). */
export function entityTypes(input: EntityInput): { primary: EntityType | null; all: EntityType[] } {
  const { census, roles } = input
  const dockets: string[] = census?.dockets ? (JSON.parse(census.dockets) as string[]) : []
  const classes = censusClasses(census).map((c) => c.toUpperCase())
  const forHireCensus = classes.some((c) => FOR_HIRE.test(c)) && (census?.power_units ?? 0) > 0
  const ffDocket = dockets.some((d) => d.startsWith('FF'))
  const carrier = roles?.carrier ?? (forHireCensus ? 'inactive' : null)
  const broker = roles?.broker ?? null
  const forwarder = roles?.forwarder ?? (ffDocket ? 'inactive' : null)
  const privateEntity = input.privateOnly ?? isPrivateOnly(census) ?? false
  const held: [EntityType, 'active' | 'inactive' | null][] = [
    ['carrier', carrier],
    ['broker', broker],
    ['forwarder', forwarder],
  ]
  const all: EntityType[] = held.filter(([, s]) => s !== null).map(([t]) => t)
  const hasDocket = dockets.length > 0 || all.length > 0
  if (privateEntity && !hasDocket) all.push('private')
  let primary: EntityType | null = null
  if (broker === 'active' && carrier !== 'active') primary = 'broker'
  else if (carrier === 'active') primary = 'carrier'
  else if (forwarder === 'active') primary = 'forwarder'
  else if (all.includes('private')) primary = 'private'
  else if (forHireCensus || carrier) primary = 'carrier'
  else if (broker) primary = 'broker'
  else if (forwarder) primary = 'forwarder'
  else if (census && (census.power_units ?? 0) > 0) primary = 'carrier'
  if (primary && !all.includes(primary)) all.unshift(primary)
  return { primary, all: primary ? [primary, ...all.filter((t) => t !== primary)] : all }
}

/**
 * `identity.private_entity`: true when the company is a private (non-for-hire) entity, false when
 * a file says it is not (SMS PRIVATE_ONLY false, a census class that is not private, or a role
 * held under a docket or authority), null only when no file says either way.
 */
export function privateEntity(
  census: CensusRow | null,
  privateOnly: boolean | null,
  roles: { primary: EntityType | null; all: readonly EntityType[] },
): boolean | null {
  if (roles.all.includes('private')) return true
  if (privateOnly !== null || isPrivateOnly(census) !== null || roles.primary !== null) return false
  return null
}
