/** The Trust Score end to end: census files through the real pipeline, then GET /v1/carrier/{dot}. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CarrierJson } from '../carriers/schema.ts'
import { addReview, reviewInput } from '../reviews/reviews.ts'
import { carrierRow, writeCensus } from '../testing/census-fixture.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'
import { TRUST_VERSION } from './score.ts'
import { daysAgo, TODAY } from '../testing/trust.ts'

const compact = (d: string) => d.replaceAll('-', '')
let ctx: TestContext
let dir: string
let key: string

/** Every company gets its own phone, email and street unless a test shares them on purpose. */
const row = (dot: number, over: Parameters<typeof carrierRow>[1] = {}) =>
  carrierRow(dot, {
    PHONE: `515${String(dot).slice(-7)}`,
    PHY_STREET: `${dot} MAIN ST`,
    ...over,
  })

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cvk-trust-'))
  const fraudMill = Array.from({ length: 13 }, (_, i) =>
    row(3_000_100 + i, { PHONE: '8005550199', EMAIL_ADDRESS: 'dispatch@mill.example' }),
  )
  writeCensus(join(dir, 'az4n-8mr2.csv'), [
    row(3_000_001),
    ...fraudMill,
    row(3_000_020, { STATUS_CODE: 'I' }),
    row(3_000_030, {
      UNDELIV_PHY: 'U',
      MCS150_DATE: '20200101',
      PRIOR_REVOKE_FLAG: 'Y',
      PRIOR_REVOKE_DOT_NUMBER: '999',
    }),
    row(3_000_040, { SAFETY_RATING: 'U', SAFETY_RATING_DATE: '20260101' }),
    row(3_000_050, { ADD_DATE: compact(daysAgo(60)), SAFETY_RATING: '' }),
  ])
  ctx = await createTestContext({ liveDir: dir })
  key = ctx.account('starter').key()
})
afterAll(() => {
  ctx.close()
  rmSync(dir, { recursive: true, force: true })
})

async function trustOf(dot: number) {
  const res = await ctx.get(`/v1/carrier/${dot}`, key)
  expect(res.status).toBe(200)
  const body = CarrierJson.parse(await res.json())
  return {
    body,
    trust: body.trust,
    points: new Map(body.trust.factors.map((f) => [f.id, f.points])),
  }
}

describe('Trust Score in the record', () => {
  test('every record carries a versioned, explained score computed at lookup', async () => {
    const { body, trust, points } = await trustOf(3_000_001)
    expect(trust).toMatchObject({ version: TRUST_VERSION, gates: [] })
    // a census-only mirror cannot be vouched for: authority, insurance and OOS orders are unknown
    expect(trust.trust_verified).toBe(false)
    expect(trust.unverified_reasons).toEqual([
      'dataset_missing:legacy',
      'dataset_missing:motus',
      'dataset_missing:oos',
    ])
    // census only: rating Satisfactory (+2), registered 1999 (+4), nothing else known (neutral)
    expect(points.get('authority_age')).toBe(4)
    expect(points.get('safety_rating')).toBe(2)
    expect(trust.components).toEqual({ authority: 28, insurance: 20, safety: 26, reviews: 10 })
    expect(trust.trust_score).toBe(84)
    expect(trust.grade).toBe('B')
    const age = trust.factors.find((f) => f.id === 'authority_age')
    expect(age?.evidence).toEqual({
      dataset: 'census',
      field: 'identity.registration_date',
      value: '1999-02-21',
      as_of: body.meta.data_as_of.census,
    })
  })

  test('a phone and email shared by 13 companies: 12 links count against each of them', async () => {
    const { trust, points, body } = await trustOf(3_000_105)
    expect(points.get('many_links')).toBe(-4)
    expect(trust.factors.find((f) => f.id === 'many_links')?.reason).toBe(
      'Linked to 12 other USDOT numbers by shared contact details, officers or trucks',
    )
    expect(body.identity.links).toEqual({
      predecessors: 0,
      predecessors_revoked_or_oos: 0,
      concurrent: 12,
    })
    expect(trust.trust_score).toBe(80)
  })

  test('an inactive USDOT is capped at 10', async () => {
    const { trust } = await trustOf(3_000_020)
    expect(trust.gates.map((g) => [g.id, g.cap, g.evidence.field])).toEqual([
      ['not_allowed_to_operate', 10, 'identity.usdot_status'],
    ])
    expect(trust).toMatchObject({ trust_score: 10, trust_verified: false, grade: 'F' })
  })

  test('census risk signals: prior revoked USDOT; undeliverable address and stale MCS-150 as information', async () => {
    const { points, body } = await trustOf(3_000_030)
    expect(Object.fromEntries(points)).toMatchObject({
      address_undeliverable: 0,
      mcs150_outdated: 0,
      prior_revoked_usdot: -6,
    })
    expect(body.identity.prior_revoke).toEqual({ flag: true, dot_number: '999' })
  })

  test('an Unsatisfactory rating caps at 30; a new registration counts as new', async () => {
    expect((await trustOf(3_000_040)).trust).toMatchObject({
      trust_score: 30,
      gates: [expect.objectContaining({ id: 'unsatisfactory_rating', cap: 30 })],
    })
    const young = await trustOf(3_000_050)
    expect(young.points.get('new_authority')).toBe(-15)
    expect(young.points.get('safety_rating')).toBe(0)
  })

  test('verified reviews show in the record with a summary and move the score', async () => {
    const at = { now: ctx.clock().getTime(), today: TODAY }
    const input = reviewInput(TODAY)
    for (const stars of [5, 5, 4])
      addReview(ctx.deps.db, input.parse({ dot: 3_000_001, stars, experience_type: 'payment' }), at)
    const { body, trust, points } = await trustOf(3_000_001)
    expect(body.reviews.summary).toEqual({ average: 4.67, count: 3 })
    expect(body.reviews.verified).toHaveLength(3)
    expect(points.get('verified_reviews')).toBe(5)
    expect(trust.trust_score).toBe(89)
    const ev = trust.factors.find((f) => f.id === 'verified_reviews')?.evidence
    expect(ev).toEqual({
      dataset: 'reviews',
      field: 'reviews.summary.average',
      value: 4.67,
      as_of: TODAY,
    })
  })
})

describe('Trust Score on the licensing fixtures (legacy L&I + Motus through the pipeline)', () => {
  let lic: TestContext
  let licKey: string
  beforeAll(async () => {
    lic = await createTestContext({ liveDir: LICENSING_FIXTURES, now: `${TODAY}T12:00:00Z` })
    licKey = lic.account('starter').key()
  })
  afterAll(() => lic.close())

  async function trust(dot: number) {
    const res = await lic.get(`/v1/carrier/${dot}`, licKey)
    expect(res.status).toBe(200)
    const t = CarrierJson.parse(await res.json()).trust
    const f = (id: string) => t.factors.find((x) => x.id === id)
    return { t, f, gates: t.gates.map((g) => g.id) }
  }

  test('a broker with a BMC-84 bond: bond factor, no safety component, no gate', async () => {
    const { t, f, gates } = await trust(1000002)
    expect(gates).toEqual([])
    expect(f('broker_bond')?.points).toBe(3)
    expect(f('safety_not_scored')?.points).toBe(0)
    expect(Object.keys(t.components ?? {})).toEqual(['authority', 'insurance', 'reviews'])
  })

  test('a BI&PD policy pending cancellation', async () => {
    const { f } = await trust(1000008)
    expect(f('pending_cancellation')).toMatchObject({
      points: -18,
      evidence: {
        dataset: 'motus',
        field: 'insurance.filings.cancellation_date',
        value: '2026-12-01',
      },
    })
  })

  test('a suspension this year, since reinstated; the 2020 revocation is too old to count', async () => {
    const { f, gates } = await trust(1000009)
    expect(gates).toEqual([])
    expect(f('recent_revocations')).toMatchObject({
      points: -8,
      evidence: { dataset: 'motus', value: '2026-09-01' },
    })
  })

  test('a new Motus authority; a lapsed legacy policy; a pending application', async () => {
    expect((await trust(1000015)).f('new_authority')).toMatchObject({
      points: -10,
      evidence: { field: 'authority.granted_date', value: '2026-06-01' },
    })
    expect((await trust(1000036)).gates).toEqual(['bipd_below_required'])
    const pending = await trust(1000070)
    expect(pending.gates).toEqual(['no_active_authority'])
    expect(pending.t.trust_score).toBe(20)
  })

  test('a phone shared with a company suspended this year: a link to a revoked company', async () => {
    // the fixture census gives every company the same phone; 1000009 was suspended 2026-09-01
    const { f } = await trust(1000001)
    expect(f('linked_to_revoked_or_oos')).toMatchObject({
      points: -4,
      evidence: { dataset: 'census', field: 'identity.links.concurrent' },
    })
    expect(f('linked_to_revoked_or_oos')?.reason).toMatch(/USDOTs? .*1000009/)
    // the suspended company is not linked to itself
    const own = await trust(1000009)
    expect(own.f('linked_to_revoked_or_oos')?.reason ?? '').not.toMatch(/1000009/)
  })

  test('a freight forwarder with active FF authority is allowed to operate and not gated', async () => {
    const { t, gates } = await trust(1000050)
    expect(gates).toEqual([])
    expect(t.components).toHaveProperty('insurance')
    expect(t.components).not.toHaveProperty('safety')
  })
})
