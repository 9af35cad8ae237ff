/**
 * The entity type the census alone proves (FMCSA-DATA.md §6 with no licensing or SMS data): the
 * rule of carriers/entity.ts with no authority roles, computed once per company by the census
 * build for the search index and the search summaries. The full record may say more: a broker
 * is only known from licensing, and licensing or SMS data can override a census class.
 */
import type { EntityType } from '../fields.ts'

const PRIVATE_CLASS = /^(PRIVATE PROPERTY|PRIVATE PASSENGER.*|PRIV\. PASS\..*)$/
const FOR_HIRE = /(AUTHORIZED FOR HIRE|EXEMPT FOR HIRE)/

/**
 * carrier (a for-hire class with power units, or any power units), forwarder (an FF docket),
 * private (only private classes and no docket), else null. Never broker: the census cannot tell.
 */
export function censusEntityType(
  classdef: string | null,
  powerUnits: number | null,
  dockets: string | null,
): Exclude<EntityType, 'broker'> | null {
  const classes = classdef
    ? classdef
        .split(';')
        .map((s) => s.trim().toUpperCase())
        .filter(Boolean)
    : []
  const units = powerUnits ?? 0
  if (classes.some((c) => FOR_HIRE.test(c)) && units > 0) return 'carrier'
  const list: string[] = dockets ? (JSON.parse(dockets) as string[]) : []
  if (list.some((d) => d.startsWith('FF'))) return 'forwarder'
  if (list.length === 0 && classes.length > 0 && classes.every((c) => PRIVATE_CLASS.test(c)))
    return 'private'
  return units > 0 ? 'carrier' : null
}
