/**
 * The dockets and authority timelines of a random company (the core layer, company.ts): a new
 * entity's pending or fresh authority, an established one's grants, revocation cycles, dismissed
 * proceedings, revocations and an older docket now and then. Draws from the core layer's stream
 * in a fixed order: the same (seed, USDOT) gives the same dockets.
 */
import { daysBetween, type GenContext, type Kind } from './context.ts'
import { bipdRequiredFor, type DocketOptions, eventDay, makeDocket } from './docket.ts'
import {
  type Address,
  AS_OF,
  type Authority,
  type CargoKind,
  type Docket,
  LEGACY_FREEZE,
  type UnitCounts,
} from './model.ts'
import { poisson, type Rng } from './prng.ts'

interface DocketInputs {
  kind: Kind
  wasCarrier: boolean
  country: Address['country']
  cargoKind: CargoKind
  hazmat: boolean
  fleet: { own: UnitCounts }
  addDate: number
}

/** Its dockets and authority timelines, and whether Motus files hold its rows. */
export function randomDockets(ctx: GenContext, rng: Rng, o: DocketInputs) {
  const { kind, wasCarrier, country, cargoKind, hazmat, fleet, addDate } = o
  const dockets: Docket[] = []
  let motus = false
  const hasDocket =
    kind === 'carrier' ||
    kind === 'broker' ||
    kind === 'dual' ||
    kind === 'forwarder' ||
    kind === 'new' ||
    (kind === 'inactive' && rng.chance(0.8))
  if (hasDocket) {
    ctx.nextDocket += rng.int(1, 3)
    const number = ctx.nextDocket
    const prefix: Docket['prefix'] = kind === 'forwarder' ? 'FF' : country === 'MX' ? 'MX' : 'MC'
    const kinds: Authority['kind'][] =
      kind === 'broker' || (kind === 'inactive' && !wasCarrier)
        ? ['broker']
        : kind === 'dual'
          ? ['common', 'broker']
          : kind === 'forwarder'
            ? ['common']
            : rng.chance(0.25)
              ? ['common', 'contract']
              : ['common']
    const bipdRequired =
      kinds.some((k) => k !== 'broker') && kind !== 'forwarder'
        ? bipdRequiredFor(cargoKind, hazmat, (fleet.own.COACH ?? 0) + (fleet.own.BUS_16 ?? 0) > 0)
        : 0
    if (kind === 'new') {
      const applied = addDate + rng.int(1, 10)
      const pending = rng.chance(0.3) || applied + 40 >= AS_OF
      dockets.push(
        makeDocket({
          prefix,
          number,
          kinds,
          cargo: cargoKind,
          applied,
          granted: applied + rng.int(28, 40),
          pending,
          bipdRequired,
        }),
      )
      motus = true
    } else {
      const applied = addDate + rng.int(5, 60)
      const granted = applied + rng.int(25, 90)
      const cycles: NonNullable<DocketOptions['cycles']>[number][] = []
      if (rng.chance(0.1) && granted < LEGACY_FREEZE - 400) {
        const serve = daysBetween(rng, granted + 200, LEGACY_FREEZE - 120)
        cycles.push({ serve, effective: serve + 30, reinstated: serve + 30 + rng.int(5, 90) })
      }
      // revocation proceedings dismissed because insurance was restored in time (legacy AuthHist rows)
      const discontinued: { serve: number; decided: number }[] = []
      const lastLegacyDay = LEGACY_FREEZE - 60
      for (let n = poisson(rng, (Math.max(0, lastLegacyDay - granted) / 365) * 0.2); n > 0; n--) {
        const serve = daysBetween(rng, granted + 60, lastLegacyDay)
        discontinued.push({ serve, decided: serve + rng.int(10, 30) })
      }
      let revoked: DocketOptions['revoked']
      if (kind === 'inactive') {
        // most inactive authorities lasted a few years
        const start = (cycles.at(-1)?.reinstated ?? granted) + 60
        const serve = Math.max(
          start,
          Math.min(LEGACY_FREEZE - 40, start + Math.round(-Math.log(1 - rng.next()) * 365 * 3)),
        )
        const voluntary = rng.chance(0.3)
        revoked = { serve, effective: voluntary ? serve : serve + 30, voluntary }
      } else {
        // an active docket holder: a quarter has a transaction since the freeze (Motus rows)
        motus = rng.chance(0.2)
        if (motus && rng.chance(0.12)) {
          const serve = daysBetween(rng, LEGACY_FREEZE + 5, AS_OF - 10)
          const suspension = rng.chance(0.2)
          revoked = { serve, effective: serve + 30, voluntary: false, suspension }
        }
      }
      const docket = makeDocket({
        prefix,
        number,
        kinds,
        cargo: cargoKind,
        applied,
        granted,
        cycles,
        revoked,
        bipdRequired,
      })
      if (discontinued.length > 0) {
        const first = docket.authorities[0] as Authority
        const end = revoked ? revoked.serve : Infinity
        for (const x of discontinued)
          if (x.decided < end)
            first.events.push({ kind: 'discontinued', serve: x.serve, decided: x.decided })
        first.events.sort((a, b) => eventDay(a) - eventDay(b))
      }
      dockets.push(docket)
      // a few carriers also hold an older docket, voluntarily revoked long ago
      if (
        (kind === 'carrier' || kind === 'inactive') &&
        rng.chance(0.05) &&
        granted > addDate + 400
      ) {
        ctx.nextDocket += rng.int(1, 3)
        const oldGrant = addDate + rng.int(20, 100)
        const serve = daysBetween(rng, oldGrant + 100, Math.min(granted, LEGACY_FREEZE - 10))
        dockets.push(
          makeDocket({
            prefix: 'MC',
            number: ctx.nextDocket,
            kinds: ['common'],
            cargo: cargoKind,
            granted: oldGrant,
            revoked: { serve, effective: serve, voluntary: true },
            bipdRequired,
          }),
        )
      }
    }
  }

  return { dockets, motus }
}
