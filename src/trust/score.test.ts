import { describe, expect, it, vi } from 'vitest'
import { GATES, gradeOf } from './policy.ts'
import { TrustJson } from './schema.ts'
import { computeTrust, TRUST_VERSION, type TrustContext } from './score.ts'
import { reviewsAsOf, type LinkedSignal, type LinkSignals } from './signals.ts'
import {
  basics,
  brokerRecord,
  carrierRecord,
  daysAgo,
  filing,
  revocation,
  trustContext,
  trustInput,
  type TestRecord as CompanyRecord,
} from '../testing/trust.ts'

/** The score of a test record, read through the record composition's TrustInput mapping. */
const score = (r: CompanyRecord, ctx: TrustContext) => computeTrust(trustInput(r), ctx)

interface Case {
  name: string
  record: () => CompanyRecord
  ctx?: Partial<TrustContext>
  score: number
  grade?: string
  gates?: string[]
  /** factor id → points (only the listed ones are checked) */
  factors?: Record<string, number>
  /** factor ids that must not appear */
  absent?: string[]
  verified?: boolean
  components?: Record<string, number>
}

const review = (stars: number, date = daysAgo(30)) => ({
  stars,
  title: null,
  text: null,
  date,
  experience_type: 'payment',
  author: null,
})
const withReviews = (r: CompanyRecord, stars: number[]) => {
  r.reviews.verified = stars.map((s) => review(s))
  r.reviews.summary = {
    average: Math.round((stars.reduce((a, b) => a + b, 0) / stars.length) * 100) / 100,
    count: stars.length,
  }
}
const links = (over: Partial<LinkSignals>): LinkSignals => ({
  predecessors: [],
  successors: [],
  concurrent: [],
  ...over,
})
const linked = (n: number, event: string | null = null): LinkedSignal[] =>
  Array.from({ length: n }, (_, i) => ({ dot: String(7654321 + i), shared: ['phone'], event }))
const revoke = (r: CompanyRecord) => {
  r.authority.common_authority = 'I'
  r.authority.allowed_to_operate = 'N'
  r.authority.authority_types = []
  r.authority.revoked_date = daysAgo(100)
  r.authority.history = [revocation()]
}

const CASES: Case[] = [
  // --- baselines
  {
    name: 'an established carrier with everything in order',
    record: () => carrierRecord(),
    score: 86,
    grade: 'A',
    gates: [],
    verified: true,
    factors: { authority_age: 4, bipd_coverage: 3, cargo_coverage: 1, safety_rating: 0 },
    components: { authority: 28, insurance: 24, safety: 24, reviews: 10 },
  },
  {
    name: 'an active broker with a bond',
    record: () => brokerRecord(),
    score: 85,
    grade: 'A',
    gates: [],
    verified: true,
    factors: { authority_age: 4, broker_bond: 3, safety_not_scored: 0, verified_reviews: 0 },
    absent: ['bipd_coverage', 'cargo_coverage', 'safety_rating', 'crash_rate', 'mcs150_outdated'],
    components: { authority: 40, insurance: 35, reviews: 10 },
  },
  {
    name: 'a freight forwarder is judged like a broker (bond, no safety)',
    record: () =>
      brokerRecord((r) => {
        r.entity_type = 'forwarder'
        r.identity.entity_type = 'forwarder'
        r.identity.entity_types = ['forwarder']
        r.authority.broker_authority = 'N'
        r.authority.authority_types = ['forwarder']
        r.insurance.bond_filed = false
        r.insurance.bond_on_file = null
      }),
    score: 30,
    gates: ['no_broker_bond'],
    factors: { broker_bond: -10, safety_not_scored: 0 },
  },
  {
    name: 'a forwarder whose bond FMCSA marks as not required is not gated',
    record: () =>
      brokerRecord((r) => {
        r.entity_type = 'forwarder'
        r.identity.entity_type = 'forwarder'
        r.identity.entity_types = ['forwarder']
        r.authority.broker_authority = 'N'
        r.authority.authority_types = ['forwarder']
        r.insurance.bond_required = false
        r.insurance.bond_filed = false
        r.insurance.bond_on_file = null
      }),
    score: 82,
    gates: [],
    absent: ['broker_bond'],
  },
  // --- authority age (new authority is a fraud signal; it fades)
  {
    name: 'a new authority (45 days)',
    record: () => carrierRecord((r) => (r.authority.granted_date = daysAgo(45))),
    score: 67,
    grade: 'C',
    gates: [],
    factors: { new_authority: -15 },
    absent: ['authority_age'],
  },
  {
    name: 'authority 120 days old',
    record: () => carrierRecord((r) => (r.authority.granted_date = daysAgo(120))),
    score: 72,
    factors: { new_authority: -10 },
  },
  {
    name: 'authority 300 days old',
    record: () => carrierRecord((r) => (r.authority.granted_date = daysAgo(300))),
    score: 76,
    factors: { new_authority: -6 },
  },
  {
    name: 'authority 500 days old',
    record: () => carrierRecord((r) => (r.authority.granted_date = daysAgo(500))),
    score: 80,
    factors: { new_authority: -2 },
  },
  {
    name: 'authority 3 years old',
    record: () => carrierRecord((r) => (r.authority.granted_date = daysAgo(1100))),
    score: 84,
    factors: { authority_age: 2 },
  },
  {
    name: 'no grant date: the USDOT registration date stands in',
    record: () =>
      carrierRecord((r) => {
        r.authority.granted_date = null
        r.identity.registration_date = daysAgo(60)
      }),
    score: 67,
    factors: { new_authority: -15 },
  },
  {
    name: 'no date at all: neutral',
    record: () =>
      carrierRecord((r) => {
        r.authority.granted_date = null
        r.identity.registration_date = null
      }),
    score: 82,
    factors: { authority_age: 0 },
  },
  // --- small, unrated, little data: never punished
  {
    name: 'an unrated small carrier with few inspections is not punished',
    record: () =>
      carrierRecord((r) => {
        r.authority.granted_date = daysAgo(1100)
        r.fleet.power_units = 2
        r.fleet.total_drivers = 2
        r.safety.driver_inspections = 2
        r.safety.driver_oos_inspections = 1
        r.safety.driver_oos_rate = 50
        r.safety.vehicle_inspections = 1
        r.safety.vehicle_oos_inspections = 1
        r.safety.vehicle_oos_rate = 100
        r.safety.crash_total = 1
      }),
    score: 84,
    grade: 'B',
    gates: [],
    verified: true,
    factors: { safety_rating: 0, driver_oos_rate: 0, vehicle_oos_rate: 0, crash_rate: 0 },
    components: { authority: 26, insurance: 24, safety: 24, reviews: 10 },
  },
  {
    name: 'no safety data at all is neutral',
    record: () =>
      carrierRecord((r) => {
        r.safety = {
          ...r.safety,
          crash_total: null,
          driver_inspections: null,
          vehicle_inspections: null,
          hazmat_inspections: null,
          driver_oos_rate: null,
          vehicle_oos_rate: null,
        }
        r.dataAsOf.sms = null
      }),
    score: 86,
    components: { authority: 28, insurance: 24, safety: 24, reviews: 10 },
    absent: ['driver_oos_rate', 'vehicle_oos_rate', 'crash_rate'],
  },
  {
    name: 'no licensing data is neutral: no insurance factors, no authority gates',
    record: () =>
      carrierRecord((r) => {
        r.authority = {
          ...r.authority,
          source: 'census',
          common_authority: null,
          contract_authority: null,
          broker_authority: null,
          allowed_to_operate: null,
          granted_date: null,
          authority_types: [],
        }
        r.insurance = {
          ...r.insurance,
          bipd_on_file: null,
          bipd_required: null,
          cargo_on_file: null,
          cargo_filed: null,
          bond_filed: null,
          filings: [],
        }
      }),
    score: 82,
    gates: [],
    factors: { authority_age: 4 },
    components: { authority: 28, insurance: 20, safety: 24, reviews: 10 },
  },
  // --- gates
  {
    name: 'a revoked carrier',
    record: () => carrierRecord(revoke),
    score: 10,
    grade: 'F',
    gates: ['not_allowed_to_operate', 'no_active_authority'],
    verified: false,
    factors: { recent_revocations: -8 },
    absent: ['bipd_coverage'],
  },
  {
    name: 'an active out-of-service order',
    record: () =>
      carrierRecord((r) => {
        r.identity.out_of_service = true
        r.identity.out_of_service_date = daysAgo(10)
        r.identity.out_of_service_reason = 'NOP'
        r.authority.allowed_to_operate = 'N'
      }),
    score: 10,
    gates: ['out_of_service_order'],
  },
  {
    name: 'an inactive USDOT number',
    record: () =>
      carrierRecord((r) => {
        r.identity.usdot_status = 'inactive'
        r.authority.status = 'INACTIVE'
        r.authority.allowed_to_operate = 'N'
      }),
    score: 10,
    gates: ['not_allowed_to_operate'],
  },
  {
    name: 'an authority application still pending',
    record: () =>
      carrierRecord((r) => {
        r.authority.common_authority = 'N'
        r.authority.authority_types = []
        r.authority.pending_application = true
        r.authority.granted_date = null
        r.authority.allowed_to_operate = null
        r.identity.registration_date = daysAgo(20)
      }),
    score: 20,
    gates: ['no_active_authority'],
  },
  {
    name: 'BI&PD on file below the required amount',
    record: () => carrierRecord((r) => (r.insurance.bipd_on_file = 500_000)),
    score: 30,
    gates: ['bipd_below_required'],
    factors: { bipd_coverage: -10 },
  },
  {
    name: 'a broker without a bond',
    record: () =>
      brokerRecord((r) => {
        r.insurance.bond_filed = false
        r.insurance.bond_on_file = null
        r.insurance.filings = []
      }),
    score: 30,
    grade: 'F',
    gates: ['no_broker_bond'],
    factors: { broker_bond: -10 },
  },
  {
    name: 'a broker bond below $75,000',
    record: () => brokerRecord((r) => (r.insurance.bond_on_file = 10_000)),
    score: 30,
    gates: ['broker_bond_below_minimum'],
    factors: { broker_bond: -10 },
  },
  {
    name: 'a broker whose bond status is unknown is not gated',
    record: () =>
      brokerRecord((r) => {
        r.insurance.bond_filed = null
        r.insurance.bond_on_file = null
      }),
    score: 82,
    gates: [],
    absent: ['broker_bond'],
  },
  {
    name: 'an Unsatisfactory rating',
    record: () =>
      carrierRecord((r) => {
        r.safety.safety_rating = 'Unsatisfactory'
        r.safety.safety_rating_code = 'U'
        r.safety.safety_rating_date = daysAgo(200)
      }),
    score: 30,
    gates: ['unsatisfactory_rating'],
    factors: { safety_rating: -15 },
  },
  {
    name: 'gates combine: the lowest cap wins, all are listed',
    record: () =>
      carrierRecord((r) => {
        revoke(r)
        r.identity.out_of_service = true
        r.safety.safety_rating_code = 'U'
        r.safety.safety_rating = 'Unsatisfactory'
      }),
    score: 10,
    gates: [
      'not_allowed_to_operate',
      'out_of_service_order',
      'no_active_authority',
      'unsatisfactory_rating',
    ],
  },
  // --- authority & compliance factors
  {
    name: 'a rating of Conditional',
    record: () =>
      carrierRecord((r) => {
        r.safety.safety_rating = 'Conditional'
        r.safety.safety_rating_code = 'C'
      }),
    score: 78,
    factors: { safety_rating: -8 },
  },
  {
    name: 'a rating of Satisfactory',
    record: () =>
      carrierRecord((r) => {
        r.safety.safety_rating = 'Satisfactory'
        r.safety.safety_rating_code = 'S'
      }),
    score: 88,
    factors: { safety_rating: 2 },
  },
  {
    name: 'a pending revocation',
    record: () => carrierRecord((r) => (r.authority.revocation_pending = true)),
    score: 76,
    factors: { revocation_pending: -10 },
  },
  {
    name: 'a revocation two years ago, since reinstated',
    record: () =>
      carrierRecord((r) => {
        r.authority.revoked_date = daysAgo(700)
        r.authority.reinstated_date = daysAgo(650)
        r.authority.history = [
          revocation({ revocation_date: daysAgo(700), reinstatement_date: daysAgo(650) }),
        ]
      }),
    score: 82,
    gates: [],
    factors: { recent_revocations: -4 },
  },
  {
    name: 'three suspensions in the last year',
    record: () =>
      carrierRecord((r) => {
        r.authority.history = [100, 200, 300].map((d) =>
          revocation({
            revocation_date: daysAgo(d),
            revocation_type: 'Involuntary Suspension',
            reinstatement_date: daysAgo(d - 20),
          }),
        )
      }),
    score: 74,
    factors: { recent_revocations: -12 },
  },
  {
    name: 'voluntary and old revocations do not count',
    record: () =>
      carrierRecord((r) => {
        r.authority.history = [
          revocation({ revocation_date: daysAgo(100), revocation_type: 'VOLUNTARY REVOCATION' }),
          revocation({ revocation_date: daysAgo(2000) }),
        ]
      }),
    score: 86,
    absent: ['recent_revocations'],
  },
  {
    name: 'an outdated MCS-150 is shown with its date, as information (2026: inactivations paused)',
    record: () => carrierRecord((r) => (r.fleet.mcs150_date = daysAgo(1000))),
    score: 86,
    gates: [],
    verified: true,
    factors: { mcs150_outdated: 0 },
  },
  {
    name: 'brokers owe no MCS-150 update',
    record: () => brokerRecord((r) => (r.fleet.mcs150_date = daysAgo(1000))),
    score: 85,
    absent: ['mcs150_outdated'],
  },
  {
    name: 'an undeliverable address is information, never a gate',
    record: () => carrierRecord((r) => (r.contact.physical_address_undeliverable = true)),
    score: 86,
    gates: [],
    verified: true,
    factors: { address_undeliverable: 0 },
  },
  {
    name: 'linked to a previously revoked USDOT',
    record: () =>
      carrierRecord((r) => (r.identity.prior_revoke = { flag: true, dot_number: '999' })),
    score: 80,
    factors: { prior_revoked_usdot: -6 },
  },
  {
    name: 'a prior-revoke link the census flags N is no factor',
    record: () =>
      carrierRecord((r) => (r.identity.prior_revoke = { flag: false, dot_number: null })),
    score: 86,
    absent: ['prior_revoked_usdot'],
  },
  {
    name: 'a pending USDOT registration is not allowed to operate',
    record: () =>
      carrierRecord((r) => {
        r.identity.usdot_status = 'pending'
        r.authority.allowed_to_operate = 'N'
      }),
    score: 10,
    gates: ['not_allowed_to_operate'],
    verified: false,
  },
  {
    name: 'linked to many other USDOTs',
    record: () => carrierRecord(),
    ctx: { links: links({ concurrent: linked(12) }) },
    score: 82,
    factors: { many_links: -4 },
  },
  {
    name: 'one or two links are normal',
    record: () => carrierRecord(),
    ctx: { links: links({ concurrent: linked(2) }) },
    score: 86,
    absent: ['many_links', 'linked_to_revoked_or_oos'],
  },
  {
    name: 'linked to a revoked company',
    record: () => carrierRecord(),
    ctx: { links: links({ concurrent: linked(1, 'revoked') }) },
    score: 82,
    factors: { linked_to_revoked_or_oos: -4 },
  },
  {
    name: 'a predecessor revoked within the time gate (a chameleon pattern)',
    record: () => carrierRecord(),
    ctx: { links: links({ predecessors: linked(1, 'revoked') }) },
    score: 76,
    factors: { linked_predecessor_revoked_or_oos: -10 },
  },
  {
    name: 'an inactive predecessor',
    record: () => carrierRecord(),
    ctx: { links: links({ predecessors: linked(1, 'inactive') }) },
    score: 82,
    factors: { linked_predecessor_inactive: -4 },
    absent: ['linked_predecessor_revoked_or_oos'],
  },
  {
    name: 'a successor weighs nothing on this company',
    record: () => carrierRecord(),
    ctx: { links: links({ successors: linked(1, 'revoked') }) },
    score: 86,
    absent: ['linked_predecessor_revoked_or_oos', 'linked_to_revoked_or_oos'],
  },
  // --- the examples of docs/trust-score.md §5 not covered above
  {
    name: 'docs example 3: a new authority with its BI&PD pending cancellation',
    record: () =>
      carrierRecord((r) => {
        r.authority.granted_date = daysAgo(45)
        r.insurance.filings[0] = filing({
          status: 'pending_cancellation',
          cancellation_date: daysAgo(-25),
        })
        r.insurance.pending_cancellation = true
      }),
    score: 49,
    grade: 'D',
    gates: [],
    verified: true,
  },
  {
    name: 'docs example 8: a fraud-mill pattern with a revoked predecessor',
    record: () => carrierRecord(),
    ctx: {
      links: links({ predecessors: linked(1, 'revoked'), concurrent: linked(12) }),
    },
    score: 72,
    grade: 'B',
  },
  // --- insurance & bond
  {
    name: 'a pending cancellation of the BI&PD policy',
    record: () =>
      carrierRecord((r) => {
        r.insurance.filings[0] = filing({
          status: 'pending_cancellation',
          cancellation_date: daysAgo(-25),
        })
        r.insurance.pending_cancellation = true
        r.insurance.expiry_date = daysAgo(-25)
      }),
    score: 68,
    grade: 'C',
    gates: [],
    factors: { pending_cancellation: -18, bipd_coverage: 3 },
  },
  {
    name: 'a pending cancellation of the broker bond',
    record: () =>
      brokerRecord((r) => {
        r.insurance.filings = r.insurance.filings.map((f) => ({
          ...f,
          status: 'pending_cancellation' as const,
          cancellation_date: daysAgo(-10),
        }))
        r.insurance.pending_cancellation = true
      }),
    score: 67,
    factors: { pending_cancellation: -18 },
  },
  {
    name: 'a pending cancellation of cargo only',
    record: () =>
      carrierRecord((r) => {
        r.insurance.filings[1] = filing({
          form: 'BMC-34',
          type: 'Cargo',
          status: 'pending_cancellation',
          cancellation_date: daysAgo(-5),
        })
        r.insurance.pending_cancellation = true
      }),
    score: 82,
    factors: { pending_cancellation: -4 },
  },
  {
    name: 'a cancellation date already past is not pending',
    record: () =>
      carrierRecord((r) => {
        r.insurance.filings.push(
          filing({
            policy_no: 'OLD',
            status: 'pending_cancellation',
            cancellation_date: daysAgo(5),
          }),
        )
      }),
    score: 86,
    absent: ['pending_cancellation'],
  },
  {
    name: 'insurance churn: 3 filings ended in 2 years',
    record: () =>
      carrierRecord((r) => {
        for (const d of [100, 300, 500])
          r.insurance.filings.push(
            filing({
              policy_no: `X${d}`,
              status: 'replaced',
              cancellation_date: daysAgo(d),
              cancellation_method: 'TERM/REPL',
            }),
          )
      }),
    score: 83,
    factors: { insurance_churn: -3 },
  },
  {
    name: 'insurance churn: 5 filings ended in 2 years',
    record: () =>
      carrierRecord((r) => {
        for (const d of [50, 150, 250, 400, 600])
          r.insurance.filings.push(
            filing({
              policy_no: `X${d}`,
              status: 'cancelled',
              cancellation_date: daysAgo(d),
              cancellation_method: 'CANCEL',
            }),
          )
      }),
    score: 80,
    factors: { insurance_churn: -6 },
  },
  {
    name: 'name changes, old and duplicate filings are not churn',
    record: () =>
      carrierRecord((r) => {
        r.insurance.filings.push(
          filing({
            policy_no: 'N1',
            status: 'replaced',
            cancellation_date: daysAgo(100),
            cancellation_method: 'NAMECHG',
          }),
          filing({ policy_no: 'D1', status: 'cancelled', cancellation_date: daysAgo(200) }),
          filing({ policy_no: 'D1', status: 'cancelled', cancellation_date: daysAgo(200) }),
          filing({ policy_no: 'O1', status: 'cancelled', cancellation_date: daysAgo(900) }),
        )
      }),
    score: 86,
    absent: ['insurance_churn'],
  },
  // --- safety
  {
    name: 'a driver OOS rate more than twice the national average',
    record: () =>
      carrierRecord((r) => {
        r.safety.driver_inspections = 20
        r.safety.driver_oos_rate = 15
      }),
    score: 80,
    factors: { driver_oos_rate: -6 },
  },
  {
    name: 'a vehicle OOS rate 1.5 times the national average',
    record: () => carrierRecord((r) => (r.safety.vehicle_oos_rate = 31)),
    score: 83,
    factors: { vehicle_oos_rate: -3 },
  },
  {
    name: 'a vehicle OOS rate well below the national average',
    record: () => carrierRecord((r) => (r.safety.vehicle_oos_rate = 8)),
    score: 88,
    factors: { vehicle_oos_rate: 2 },
  },
  {
    name: 'hazmat inspections count once there are enough',
    record: () =>
      carrierRecord((r) => {
        r.safety.hazmat_inspections = 6
        r.safety.hazmat_oos_rate = 16.67
      }),
    score: 80,
    factors: { hazmat_oos_rate: -6 },
  },
  {
    name: 'a high crash rate',
    record: () => carrierRecord((r) => (r.safety.crash_total = 4)),
    score: 82,
    factors: { crash_rate: -4 },
  },
  {
    name: 'a passenger carrier with a BASIC alert',
    record: () =>
      carrierRecord((r) => {
        r.identity.passenger_carrier = true
        r.insurance.bipd_required = 5_000_000
        r.insurance.bipd_on_file = 5_000_000
        r.safety.basics = basics(true).map((b) =>
          b.code === 'unsafe_driving' ? { ...b, alert: true, percentile: 82 } : b,
        )
      }),
    score: 75,
    grade: 'B',
    gates: [],
    factors: { basic_alert_unsafe_driving: -10, bipd_coverage: 3 },
    absent: ['cargo_coverage'],
  },
  {
    name: 'BASIC alerts count at most twice; acute/critical violations count',
    record: () =>
      carrierRecord((r) => {
        r.identity.passenger_carrier = true
        r.safety.basics = basics(true).map((b) => ({
          ...b,
          alert: b.public ? true : b.alert,
          acute_critical: b.code === 'unsafe_driving' ? true : b.acute_critical,
        }))
      }),
    score: 62,
    factors: {
      basic_alert_controlled_substances_alcohol: -10,
      basic_alert_driver_fitness: -10,
      basic_alert_hos_compliance: 0,
      acute_critical_unsafe_driving: -3,
    },
  },
  // --- reviews
  {
    name: 'two glowing reviews are too few to count',
    record: () => carrierRecord((r) => withReviews(r, [5, 5])),
    score: 86,
    factors: { verified_reviews: 0 },
  },
  {
    name: 'good verified reviews',
    record: () => carrierRecord((r) => withReviews(r, [5, 5, 5, 4, 5])),
    score: 91,
    grade: 'A',
    factors: { verified_reviews: 5 },
  },
  {
    name: 'bad verified reviews',
    record: () => carrierRecord((r) => withReviews(r, [1, 2, 1, 2])),
    score: 78,
    factors: { verified_reviews: -8 },
  },
  {
    name: 'an external aggregate with enough reviews',
    record: () =>
      carrierRecord((r) => {
        r.reviews.external = [
          {
            source: 'Google',
            overall_rating: 4.6,
            total_reviews: 120,
            latest_review: { date: daysAgo(3), text: 'ok' },
          },
          { source: 'Tiny', overall_rating: 1, total_reviews: 2, latest_review: null },
        ]
      }),
    score: 88,
    factors: { external_reviews: 2 },
  },
  {
    name: 'external aggregates with few reviews are neutral',
    record: () =>
      carrierRecord((r) => {
        r.reviews.external = [
          { source: 'Tiny', overall_rating: 1, total_reviews: 9, latest_review: null },
        ]
      }),
    score: 86,
    factors: { external_reviews: 0 },
  },
  // --- freshness
  {
    name: 'stale data: same score, not verified',
    record: () => carrierRecord(),
    ctx: { fresh: false },
    score: 86,
    gates: [],
    verified: false,
  },
]

describe('computeTrust', () => {
  it.each(CASES)('$name', (c) => {
    const record = c.record()
    const t = score(record, trustContext(c.ctx))
    const detail = JSON.stringify({
      components: t.components,
      gates: t.gates.map((g) => g.id),
      factors: t.factors.map((f) => [f.id, f.points]),
    })
    expect(t.trust_score, detail).toBe(c.score)
    expect(t.version).toBe(TRUST_VERSION)
    expect(t.grade).toBe(gradeOf(c.score))
    if (c.grade) expect(t.grade).toBe(c.grade)
    if (c.gates) expect(t.gates.map((g) => g.id).sort()).toEqual([...c.gates].sort())
    for (const g of t.gates) expect(g.cap).toBe(GATES[g.id as keyof typeof GATES])
    if (c.verified !== undefined) expect(t.trust_verified).toBe(c.verified)
    if (c.components) expect(t.components).toEqual(c.components)
    const points = new Map(t.factors.map((f) => [f.id, f.points]))
    for (const [id, p] of Object.entries(c.factors ?? {}))
      expect([id, points.get(id)], detail).toEqual([id, p])
    for (const id of c.absent ?? []) expect(points.has(id), `${id} present`).toBe(false)

    // contract: the response schema, unique factor ids, evidence citing a dataset and its date
    expect(() => TrustJson.parse(t)).not.toThrow()
    expect(new Set(t.factors.map((f) => f.id)).size).toBe(t.factors.length)
    for (const e of [...t.factors, ...t.gates].map((x) => x.evidence)) {
      expect(['census', 'motus', 'legacy', 'sms', 'oos', 'reviews']).toContain(e.dataset)
      expect(e.field).not.toBe('')
      expect(e.as_of).toBe(
        e.dataset === 'reviews' ? reviewsAsOf(record.reviews) : record.dataAsOf[e.dataset],
      )
    }
    // the score is the sum of the components, capped by the gates
    const raw = Object.values(t.components ?? {}).reduce((a, b) => a + b, 0)
    expect(t.trust_score).toBe(Math.min(raw, ...t.gates.map((g) => g.cap)))
  })

  it('trust_verified is true only with no gate and fresh data', () => {
    expect(score(carrierRecord(), trustContext({ fresh: true })).trust_verified).toBe(true)
    expect(score(carrierRecord(), trustContext({ fresh: false })).trust_verified).toBe(false)
    expect(score(carrierRecord(revoke), trustContext({ fresh: true })).trust_verified).toBe(false)
  })

  it('unverified_reasons: the data reasons first, then each failing gate; empty only when verified', () => {
    const ok = score(carrierRecord(), trustContext())
    expect([ok.trust_verified, ok.unverified_reasons]).toEqual([true, []])
    const stale = score(carrierRecord(), trustContext({ fresh: false }))
    expect(stale.unverified_reasons).toEqual(['data_stale'])
    const reasons = ['sample_data', 'dataset_missing:motus']
    const both = score(carrierRecord(revoke), trustContext({ fresh: false, dataReasons: reasons }))
    expect(both.trust_verified).toBe(false)
    expect(both.unverified_reasons).toEqual([...reasons, ...both.gates.map((g) => `gate:${g.id}`)])
    expect(both.gates.length).toBeGreaterThan(0)
    // a data reason alone is enough, whatever `fresh` says
    expect(
      score(carrierRecord(), trustContext({ dataReasons: ['sample_data'] })).trust_verified,
    ).toBe(false)
  })

  it('missing data is neutral: a small unrated carrier scores like one with average data', () => {
    const small = carrierRecord((r) => {
      r.safety = {
        ...r.safety,
        driver_inspections: 1,
        driver_oos_rate: 100,
        vehicle_inspections: 0,
        vehicle_oos_rate: null,
        crash_total: 0,
      }
      r.fleet.power_units = 1
    })
    const average = carrierRecord()
    const none = carrierRecord((r) => {
      r.safety = {
        ...r.safety,
        driver_inspections: null,
        vehicle_inspections: null,
        crash_total: null,
        driver_oos_rate: null,
        vehicle_oos_rate: null,
      }
    })
    const scores = [small, average, none].map((r) => score(r, trustContext()))
    expect(scores.map((t) => t.trust_score)).toEqual([86, 86, 86])
    for (const t of scores) expect(t.factors.filter((f) => f.points < 0)).toEqual([])
  })

  it('is stable: the same data gives the same score, whatever the order of lists or the clock', () => {
    const build = () =>
      carrierRecord((r) => {
        r.authority.history = [
          revocation({ revocation_date: daysAgo(100) }),
          revocation({ revocation_date: daysAgo(400), docket_number: 'MC-1' }),
        ]
        for (const d of [50, 150, 250])
          r.insurance.filings.push(
            filing({ policy_no: `X${d}`, status: 'cancelled', cancellation_date: daysAgo(d) }),
          )
        r.identity.passenger_carrier = true
        r.safety.basics = basics(true).map((b) => (b.public ? { ...b, alert: true } : b))
        r.reviews.external = [
          { source: 'B', overall_rating: 4, total_reviews: 20, latest_review: null },
          { source: 'A', overall_rating: 5, total_reviews: 30, latest_review: null },
        ]
      })
    const ctx = trustContext({
      links: links({ predecessors: linked(2, 'revoked'), concurrent: linked(4) }),
    })
    const first = score(build(), ctx)
    expect(score(build(), ctx)).toEqual(first)

    const shuffled = build()
    shuffled.authority.history.reverse()
    shuffled.insurance.filings.reverse()
    shuffled.safety.basics.reverse()
    shuffled.reviews.external.reverse()
    const ctx2 = trustContext({
      links: links({
        predecessors: [...(ctx.links?.predecessors ?? [])],
        concurrent: [...(ctx.links?.concurrent ?? [])],
      }),
    })
    expect(score(shuffled, ctx2)).toEqual(first)

    vi.useFakeTimers()
    try {
      vi.setSystemTime(new Date('2031-01-01T00:00:00Z'))
      expect(score(build(), ctx)).toEqual(first)
    } finally {
      vi.useRealTimers()
    }
    // ages are measured against ctx.today only
    const later = score(
      carrierRecord((r) => (r.authority.granted_date = daysAgo(45))),
      trustContext({ today: daysAgo(-1100) }),
    )
    expect(later.factors.find((f) => f.id === 'authority_age')?.points).toBe(2)
  })

  it('every factor and gate explains itself', () => {
    const t = score(carrierRecord(revoke), trustContext())
    const gate = t.gates.find((g) => g.id === 'no_active_authority')
    expect(gate).toMatchObject({
      cap: 20,
      evidence: {
        dataset: 'motus',
        field: 'authority.common_authority',
        value: 'I',
        as_of: '2026-11-14',
      },
    })
    const rev = t.factors.find((f) => f.id === 'recent_revocations')
    expect(rev?.reason).toContain(daysAgo(100))
    expect(rev?.evidence).toEqual({
      dataset: 'motus',
      field: 'authority.history.revocation_date',
      value: daysAgo(100),
      as_of: '2026-11-14',
    })
    const age = score(carrierRecord(), trustContext()).factors.find((f) => f.id === 'authority_age')
    expect(age).toMatchObject({
      component: 'authority',
      points: 4,
      evidence: { dataset: 'motus', field: 'authority.granted_date', value: '2019-05-01' },
    })
    expect(age?.reason).toMatch(/granted 2019-05-01 \(7\.5 years ago\)/)
  })

  it('grades: A ≥ 85, B ≥ 70, C ≥ 55, D ≥ 40, F below', () => {
    expect([100, 85, 84, 70, 69, 55, 54, 40, 39, 0].map(gradeOf)).toEqual([
      'A',
      'A',
      'B',
      'B',
      'C',
      'C',
      'D',
      'D',
      'F',
      'F',
    ])
  })
})

describe('2026 information factors', () => {
  it('say their date and why they cost nothing', () => {
    const t = score(
      carrierRecord((r) => {
        r.fleet.mcs150_date = '2023-01-10'
        r.contact.mailing_address_undeliverable = true
        r.contact.mailing_address_undeliverable_date = '2026-06-02'
      }),
      trustContext(),
    )
    const reason = (id: string) => t.factors.find((f) => f.id === id)?.reason
    expect(reason('mcs150_outdated')).toMatch(/^MCS-150 last updated 2023-01-10 .*information only/)
    expect(reason('address_undeliverable')).toMatch(
      /^Mailing address marked undeliverable since 2026-06-02: information only/,
    )
    expect(t.trust_verified).toBe(true)
  })

  it('the prior-revoke factor names the predecessor and cites identity.prior_revoke', () => {
    const t = score(
      carrierRecord((r) => (r.identity.prior_revoke = { flag: true, dot_number: '2345678' })),
      trustContext(),
    )
    const f = t.factors.find((x) => x.id === 'prior_revoked_usdot')
    expect(f?.reason).toContain('USDOT 2345678')
    expect(f?.evidence).toMatchObject({
      dataset: 'census',
      field: 'identity.prior_revoke',
      value: '2345678',
    })
  })
})
