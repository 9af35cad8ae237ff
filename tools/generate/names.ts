/** Random company and person names, e-mail slugs and addresses. */
import * as V from './vocab.ts'
import { pad } from './context.ts'
import { type Address } from './model.ts'
import { Rng } from './prng.ts'

export function companyName(rng: Rng, nouns: readonly string[]): string {
  const r = rng.next()
  const noun = rng.pick(nouns)
  const suffix = rng.pick(V.SUFFIXES)
  if (r < 0.6) return `${rng.pick(V.NAME_WORDS)} ${noun} ${suffix}`
  if (r < 0.75) return `${rng.pick(V.SURNAMES)} & SONS ${noun} ${suffix}`
  if (r < 0.9) return `${rng.pick(V.SURNAMES)} ${noun} ${suffix}`
  return `${rng.pick(V.SURNAMES)} ${rng.pick(V.SURNAMES)} ${noun} ${suffix}`
}

const INITIALS = V.MIDDLE_INITIALS.split('')
export const personName = (rng: Rng) =>
  `${rng.pick(V.FIRST_NAMES)} ${rng.pick(INITIALS)} ${rng.pick(V.SURNAMES)}`

/** Lower-case slug of a name for e-mail domains. */
export const slug = (name: string) =>
  (/[^\x20-\x7e]/.test(name) ? name.normalize('NFD').replace(/[\u0300-\u036f]/g, '') : name)
    .toLowerCase()
    .replace(/\b(llc|inc|corp|co|ltd)\b/g, '')
    .replace(/[^a-z0-9]+/g, '')
    .slice(0, 30) || 'carrier'

function usAddress(rng: Rng): Address & { area: string; region: string } {
  const [city, state, zip, county, area, region] = rng.pick(V.US_PLACES)
  const zip5 = pad((Number(zip) + rng.int(0, 40)) % 100_000, 5)
  return {
    street: `${rng.int(1, 19999)} ${rng.pick(V.STREET_NAMES)} ${rng.pick(V.STREET_TYPES)}`,
    city,
    state,
    zip: rng.chance(0.1) ? `${zip5}${rng.digits(4)}` : zip5,
    country: 'US',
    county,
    colonia: '',
    area,
    region,
  }
}

function caAddress(rng: Rng): Address & { area: string; region: string } {
  const [city, state, fsa, area] = rng.pick(V.CA_PLACES)
  const ldu = `${rng.int(1, 9)}${rng.chars('ABCEGHJKLMNPRSTVWXYZ', 1)}${rng.int(0, 9)}`
  return {
    street: `${rng.int(1, 9999)} ${rng.pick(V.STREET_NAMES)} ${rng.pick(['ST', 'AVE', 'RD', 'BLVD', 'DR'])}`,
    city,
    state,
    zip: `${fsa} ${ldu}`,
    country: 'CA',
    county: '',
    colonia: '',
    area,
    region: '5',
  }
}

function mxAddress(rng: Rng): Address & { area: string; region: string } {
  const [city, state, zip, colonia] = rng.pick(V.MX_PLACES)
  return {
    street: `${rng.pick(['AV', 'CALLE', 'BLVD', 'CARRETERA'])} ${rng.pick(['JUAREZ', 'HIDALGO', 'MORELOS', 'REFORMA', 'INDUSTRIAL', 'LIBRAMIENTO'])} ${rng.int(1, 4999)}`,
    city,
    state,
    zip,
    country: 'MX',
    county: '',
    colonia,
    area: '81',
    region: '3',
  }
}

export function randomAddress(rng: Rng, country: Address['country']) {
  return country === 'CA' ? caAddress(rng) : country === 'MX' ? mxAddress(rng) : usAddress(rng)
}
