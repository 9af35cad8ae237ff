/**
 * Company names of the full-scale census (bench/generate.ts): drawn from large word lists with
 * Zipf-like frequencies (vocab-names.ts), plus coined brand words, initials and numbers, so name
 * search is measured against a realistic vocabulary (tens of thousands of distinct words, a few
 * very common ones like TRUCKING and LLC, a long tail of rare ones). Names come from their own
 * seeded stream per USDOT: deterministic, and the other fields of a company do not depend on them.
 */
import { type GenContext } from './context.ts'
import { mixSeed, Rng, weights } from './prng.ts'
import * as W from './vocab-names.ts'

const LAYER_NAMES = 0x6e616d65

/**
 * An index in [0, n) with P(k) ≈ 1/((k + 1) ln n): a log-uniform draw, which is Zipf's law with
 * exponent 1 (the first item about ln-n times as likely as the tenth... and so on).
 */
export function zipfIndex(rng: Rng, n: number): number {
  return Math.min(n - 1, Math.floor(Math.exp(rng.next() * Math.log(n + 1))) - 1)
}
const zipf = (rng: Rng, list: readonly string[]) => list[zipfIndex(rng, list.length)] as string

/** Distinct coined words; the id is drawn Zipf-like, the spelling derived from it. */
const COINED_IDS = 2_000_000
const coinedCache = new Map<number, string>()
function coined(rng: Rng): string {
  // half Zipf-like (brand words that recur), half uniform over a large space (the rare tail)
  const id = rng.chance(0.5) ? zipfIndex(rng, COINED_IDS) : rng.int(0, COINED_IDS - 1)
  let w = coinedCache.get(id)
  if (w === undefined) {
    const r = new Rng(mixSeed(id, LAYER_NAMES))
    const n = r.chance(0.6) ? 2 : 3
    w = ''
    for (let i = 0; i < n; i++) w += r.pick(W.SYLLABLES)
    if (r.chance(0.7)) w += r.pick(W.CODAS)
    if (coinedCache.size < 50_000) coinedCache.set(id, w)
  }
  return w
}

const LETTERS = 'ABCDEFGHIJKLMNOPRSTVW'
function initials(rng: Rng): string {
  const a = rng.pick([...LETTERS])
  const b = rng.pick([...LETTERS])
  const r = rng.next()
  if (r < 0.35) return `${a} & ${b}`
  if (r < 0.55) return `${a} ${b}`
  if (r < 0.75) return `${a}${b}${rng.pick([...LETTERS])}`
  if (r < 0.9) return `${a} ${b} ${rng.pick([...LETTERS])}`
  return `${a}&${b}`
}

const NUMBERS = [
  'A1',
  '1ST',
  'A-1',
  '24/7',
  '3 BROTHERS',
  '4 STAR',
  '5 STAR',
  '2 GUYS',
  'TWO BROTHERS',
  '1ST CHOICE',
  'NUMBER ONE',
  'I-10',
  'I 35',
  '777',
  '101',
  'ROUTE 66',
  '3D',
  'B & B',
  'TRIPLE J',
  'DOUBLE D',
]
function numbered(rng: Rng): string {
  if (rng.chance(0.6)) return zipf(rng, NUMBERS)
  const n = rng.chance(0.5) ? rng.int(1, 99) : rng.int(100, 9999)
  return rng.chance(0.5) ? String(n) : `${rng.pick([...LETTERS])}${n}`
}

const SUFFIXES = weights({
  '': 30,
  LLC: 36,
  INC: 20,
  CORP: 5,
  CO: 3,
  LTD: 1.5,
  CORPORATION: 1,
  INCORPORATED: 0.8,
  'L L C': 0.6,
  LP: 0.4,
  'L.L.C.': 0.4,
  PLLC: 0.1,
})
const suffix = (rng: Rng) => {
  const s = rng.weighted(SUFFIXES)
  return s ? ` ${s}` : ''
}
/** A surname: mostly from the list, sometimes a rare one (coined). */
const surname = (rng: Rng) => (rng.chance(0.12) ? coined(rng) : zipf(rng, W.SURNAMES))

/** What the company does: the kind's own nouns, or a common industry word. */
const trade = (rng: Rng, nouns: readonly string[]) =>
  rng.chance(0.55) ? rng.pick(nouns) : zipf(rng, W.INDUSTRY)

const person = (rng: Rng) =>
  rng.chance(0.7)
    ? `${zipf(rng, W.GIVEN_NAMES)} ${rng.pick([...LETTERS])} ${surname(rng)}`
    : `${zipf(rng, W.GIVEN_NAMES)} ${surname(rng)}`

function company(rng: Rng, nouns: readonly string[]): string {
  const r = rng.next()
  const t = () => trade(rng, nouns)
  const s = () => suffix(rng)
  if (r < 0.2) return `${surname(rng)} ${t()}${s()}`
  if (r < 0.24)
    return `${surname(rng)} ${rng.pick(['& SONS', 'BROTHERS', 'AND SONS', 'BROS'])} ${t()}${s()}`
  if (r < 0.27) return `${surname(rng)} ${surname(rng)} ${t()}${s()}`
  if (r < 0.45) return `${zipf(rng, W.BRAND_WORDS)} ${t()}${s()}`
  if (r < 0.51) return `${zipf(rng, W.BRAND_WORDS)} ${zipf(rng, W.BRAND_WORDS)} ${t()}${s()}`
  if (r < 0.61) return `${zipf(rng, W.PLACES)} ${t()}${s()}`
  if (r < 0.64) return `${zipf(rng, W.PLACES)} ${zipf(rng, W.BRAND_WORDS)} ${t()}${s()}`
  if (r < 0.74) return `${coined(rng)}${rng.chance(0.6) ? ` ${t()}` : ''}${s()}`
  if (r < 0.82) return `${initials(rng)} ${t()}${s()}`
  if (r < 0.87) return `${numbered(rng)} ${t()}${s()}`
  if (r < 0.95) return `${person(rng)} ${t()}${s()}`
  return `${surname(rng)} ${t()} AND ${zipf(rng, W.INDUSTRY)}${s()}`
}

/**
 * Legal and DBA names of one full-scale company: a person's name for a sole proprietor (often
 * with a trade name as DBA), else a company name; `withDba` asks for a DBA.
 */
export function scaleNames(
  ctx: GenContext,
  dot: number,
  nouns: readonly string[],
  soleProp: boolean,
  withDba: boolean,
): { legalName: string; dbaName: string } {
  const rng = new Rng(mixSeed(mixSeed(ctx.seed, LAYER_NAMES), dot))
  if (soleProp) {
    const legalName = person(rng)
    const surname = legalName.split(' ').at(-1) ?? ''
    return { legalName, dbaName: withDba ? `${surname} ${trade(rng, nouns)}` : '' }
  }
  const legalName = company(rng, nouns)
  return {
    legalName,
    dbaName: withDba
      ? company(rng, nouns).replace(
          / (LLC|INC|CORP|CO|LTD|LP|L L C|L\.L\.C\.|PLLC|CORPORATION|INCORPORATED)$/,
          '',
        )
      : '',
  }
}
