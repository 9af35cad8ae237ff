/** The state of one generation run and the seeded stream of each company layer. */
import { mixSeed, Rng } from './prng.ts'

export type Profile = 'sample' | 'scale'
export type Kind =
  'carrier' | 'intrastate' | 'broker' | 'dual' | 'forwarder' | 'private' | 'inactive' | 'new'

/** Mutable counters shared by one generation run (dockets, inspection and crash ids). */
export interface GenContext {
  seed: number
  profile: Profile
  nextDocket: number
  nextInspection: number
  nextCrash: number
}

export function createContext(seed: number, profile: Profile): GenContext {
  return {
    seed,
    profile,
    nextDocket: profile === 'sample' ? 200_000 : 100_000,
    nextInspection: 1,
    nextCrash: 1,
  }
}

const LAYER_CORE = 0x636f7265
const LAYER_LICENSING = 0x6c696373
const LAYER_SAFETY = 0x73616665

/** The seeded stream of one layer of one company. */
export const layerRng = (ctx: GenContext, dot: number, layer: 'core' | 'licensing' | 'safety') =>
  new Rng(
    mixSeed(
      mixSeed(
        ctx.seed,
        layer === 'core' ? LAYER_CORE : layer === 'licensing' ? LAYER_LICENSING : LAYER_SAFETY,
      ),
      dot,
    ),
  )

export const pad = (n: number, width: number) => String(n).padStart(width, '0')
export const daysBetween = (rng: Rng, from: number, to: number) =>
  to <= from ? from : rng.int(from, to)
