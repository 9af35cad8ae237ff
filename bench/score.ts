/**
 * computeTrust runs at lookup time on the assembled record, so it must cost microseconds:
 * `npx vitest bench src/trust`. (Not part of `vitest run`; figures are printed, never asserted.)
 */
import { bench, describe } from 'vitest'
import { computeTrust } from '../src/trust/score.ts'
import {
  basics,
  brokerRecord,
  carrierRecord,
  daysAgo,
  filing,
  revocation,
  trustContext,
  trustInput,
} from '../src/testing/trust.ts'

const ctx = trustContext()
const carrier = trustInput(carrierRecord())
const broker = trustInput(brokerRecord())
const heavy = trustInput(
  carrierRecord((r) => {
    r.authority.history = Array.from({ length: 10 }, (_, i) =>
      revocation({ revocation_date: daysAgo(100 + i * 50) }),
    )
    for (let i = 0; i < 30; i++)
      r.insurance.filings.push(
        filing({ policy_no: `X${i}`, status: 'cancelled', cancellation_date: daysAgo(i * 40) }),
      )
    r.identity.passenger_carrier = true
    r.safety.basics = basics(true).map((b) => (b.public ? { ...b, alert: true } : b))
  }),
)

describe('computeTrust', () => {
  bench('established carrier', () => void computeTrust(carrier, ctx))
  bench('broker with bond', () => void computeTrust(broker, ctx))
  bench('10 revocations, 32 filings, 5 BASIC alerts', () => void computeTrust(heavy, ctx))
})
