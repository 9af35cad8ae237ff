/**
 * The entity type the census alone proves (docs/data.md, with no licensing or SMS data): the
 * rule of carriers/entity.ts with no authority roles, computed once per company by the census
 * build for the search index (the entity_type filter) and by the search summaries. The full
 * record may say more: a broker is only known from licensing, and licensing or SMS data can
 * override a census class.
 */
import type { EntityType } from '../fields.ts'

const PRIVATE_CLASS = /^(PRIVATE PROPERTY|PRIVATE PASSENGER.*|PRIV\. PASS\..*)$/
const FOR_HIRE = /(AUTHORIZED FOR HIRE|EXEMPT FOR HIRE)/

interface Classes {
  forHire: boolean
  privateOnly: boolean
}
/** CLASSDEF has a few hundred distinct values: classify each once (the build calls this per row). */
const classCache = new Map<string, Classes>()
function classify(classdef: string | null): Classes {
  if (!classdef) return { forHire: false, privateOnly: false }
  let c = classCache.get(classdef)
  if (!c) {
    const classes = classdef
      .split(';')
      .map((s) => s.trim().toUpperCase())
      .filter(Boolean)
    c = {
      forHire: classes.some((x) => FOR_HIRE.test(x)),
      privateOnly: classes.length > 0 && classes.every((x) => PRIVATE_CLASS.test(x)),
    }
    if (classCache.size < 10_000) classCache.set(classdef, c)
  }
  return c
}

/**
 * carrier (a for-hire class with power units, or any power units), forwarder (an FF docket),
 * private (only private classes and no docket), else null. Never broker: the census cannot tell.
 * `dockets` is the companies.dockets column (a JSON array like `["MC123","FF45"]`, or null).
 */
export function censusEntityType(
  classdef: string | null,
  powerUnits: number | null,
  dockets: string | null,
): Exclude<EntityType, 'broker'> | null {
  const c = classify(classdef)
  const units = powerUnits ?? 0
  if (c.forHire && units > 0) return 'carrier'
  if (dockets?.includes('"FF')) return 'forwarder'
  if (c.privateOnly && (dockets === null || dockets === '[]')) return 'private'
  return units > 0 ? 'carrier' : null
}
