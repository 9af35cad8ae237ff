/**
 * The companies of the bundled sample dataset: the special companies of the SPECIALS table, then
 * random fillers.
 */
import { buildSpecial } from './build-special.ts'
import { randomCore } from './company.ts'
import { type GenContext } from './context.ts'
import { addLicensing } from './licensing.ts'
import { type Company } from './model.ts'
import { slug } from './names.ts'
import { addSafety } from './safety.ts'
import { SPECIALS } from './specials.ts'
import { applyEquipmentCase } from './specials-equipment.ts'
import { applyLinkCase } from './specials-links.ts'
import { NAME_WORDS } from './vocab.ts'

/** First USDOT of the random fillers, and how many there are (300 companies in all). */
const FIRST_FILLER_DOT = 1000100
const FILLER_COUNT = 262

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
    applyEquipmentCase(c)
    applyLinkCase(c)
    yield c
  }
}

/** Every company of the sample dataset, in USDOT order. */
export function* sampleCompanies(ctx: GenContext): Generator<Company> {
  const special = SPECIALS.map((s) => buildSpecial(ctx, s))
  for (const c of special) {
    applyEquipmentCase(c)
    applyLinkCase(c)
  }
  const taken = new Set(special.map((c) => c.legalName))
  yield* special
  yield* fillers(ctx, taken)
}
