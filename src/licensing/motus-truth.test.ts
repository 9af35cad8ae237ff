/**
 * Issue 12 (licensing side): BI&PD derived from the Motus filings, authority states with pending
 * suspensions that follow the clock, broker security in full. Rows in the real Motus formats
 * (test/fixtures/licensing/make.ts, companies 1000080–1000085).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { getCompanyRecord } from '../carriers/record.ts'
import { BondResponseJson } from '../carriers/bond.ts'
import { BrokerJson } from '../http/routes/broker.ts'
import type { DataView } from '../db/datasets.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'
import { runWatchMonitor } from '../webhooks/monitor.ts'
import { addToWatchlist } from '../webhooks/watchlist.ts'
import { getLicensing, type LicensingFacts } from './record.ts'
import { AuthorityJson, InsuranceJson } from './schema.ts'

const TODAY = '2026-11-15'
const TOMORROW = '2026-11-16'

let ctx: TestContext
let view: DataView
beforeAll(async () => {
  ctx = await createTestContext({ liveDir: LICENSING_FIXTURES, now: `${TODAY}T12:00:00Z` })
  view = ctx.deps.datasets.view('live')
})
afterAll(() => ctx.close())

const lic = (dot: number, today = TODAY): LicensingFacts => {
  const l = getLicensing(view, dot, today)
  if (!l) throw new Error(`no licensing facts for ${dot}`)
  AuthorityJson.parse(l.authority)
  InsuranceJson.parse(l.insurance)
  return l
}
const record = (dot: number, today = TODAY) => {
  const r = getCompanyRecord(
    { db: ctx.deps.db, today, now: Date.parse(`${today}T12:00:00Z`), maxAgeHours: 72 },
    view,
    dot,
  )
  if (!r) throw new Error(`no record for ${dot}`)
  return r
}

describe('BI&PD on file from the Motus filings', () => {
  test('large fleet: four Motus rows of BIPD_FILE 0, legacy 01000, a $1M BMC-91X → $1M from the filings, not lapsed', () => {
    const l = lic(1000080)
    expect(l.insurance).toMatchObject({
      bipd_on_file: 1_000_000,
      bipd_on_file_source: 'filings',
      bipd_required: 750_000,
      insurance_filed: true,
      insurer: 'KILO MUTUAL INSURANCE CO',
    })
    const r = record(1000080)
    expect(r.trust.gates.map((g) => g.id)).not.toContain('bipd_below_required')
    expect(r.trust.factors.find((f) => f.id === 'bipd_coverage')).toMatchObject({
      reason: 'BI&PD liability on file $1,000,000 meets the $750,000 required',
    })
    expect(r.authority.common_authority).toBe('A')
  })

  test('primary + excess layers add up; a layer filed twice counts once; BMC-34 and BMC-84 never count', () => {
    const l = lic(1000081)
    // 750,000 primary + 1,000,000 excess (its own layer above 750,000), not the BIPD_FILE 750,000
    expect(l.insurance).toMatchObject({
      bipd_on_file: 1_750_000,
      bipd_on_file_source: 'filings',
      cargo_on_file: 100_000,
      policy_no: 'PR-81',
    })
    // the excess layer filed twice (`XS-81`, `XS 81`) is listed once
    expect(l.insurance.filings.map((f) => [f.form, f.policy_no, f.status])).toEqual([
      ['BMC-91X', 'PR-81', 'active'],
      ['BMC-91X', 'XS-81', 'active'],
      ['BMC-34', 'CG-81', 'active'],
      ['BMC-84', 'BD-81', 'active'],
    ])
  })

  test('no filing data: Motus Carrier BIPD_FILE, `750.00` read as thousands with cents', () => {
    expect(lic(1000083).insurance).toMatchObject({
      bipd_on_file: 750_000,
      bipd_on_file_source: 'carrier_file',
      bipd_required: 750_000,
    })
  })

  test('no Motus activity: the legacy baseline (thousands)', () => {
    expect(lic(1000001).insurance).toMatchObject({
      bipd_on_file: 1_000_000,
      bipd_on_file_source: 'legacy_baseline',
    })
  })

  test('BI&PD cancelled in Motus InsHist: the filings say 0 and the insurance gate uses it', () => {
    const l = lic(1000084)
    expect(l.insurance).toMatchObject({ bipd_on_file: 0, bipd_on_file_source: 'filings' })
    expect(record(1000084).trust.gates.map((g) => g.id)).toContain('bipd_below_required')
  })
})

describe('authority states and pending suspensions (clock-driven)', () => {
  test('pending today: suspension_pending, the order explained, authority still active', () => {
    const l = lic(1000084)
    expect(l.authority.pending_suspension).toEqual({
      effective_date: TOMORROW,
      reason: 'insurance', // the BMC-91X cancelled 2026-10-20, the day before the order
      authority_type: 'carrier',
      docket_number: 'MC-100084',
      order_type: 'INVOLUNTARY SUSPENSION',
      days_until: 1,
    })
    expect(l.authority.states).toEqual([
      {
        docket_number: 'MC-100084',
        authority_type: 'carrier',
        state: 'suspension_pending',
        since: '2026-10-21',
        reason: 'insurance',
      },
    ])
    expect(l.authority).toMatchObject({
      common_authority: 'A',
      revocation_pending: true,
      history: [],
      granted_date: '2020-01-15',
      age_days: 2496,
    })
    const r = record(1000084)
    expect(r.authority.allowed_to_operate).toBe('Y')
    const f = r.trust.factors.find((x) => x.id === 'pending_suspension')
    expect(f).toMatchObject({
      component: 'authority',
      points: -12,
      evidence: { field: 'authority.pending_suspension.effective_date', value: TOMORROW },
    })
    expect(f?.reason).toMatch(/MC-100084 to be suspended on 2026-11-16 \(in 1 day; insurance/)
    // one factor for the order, not also revocation_pending
    expect(r.trust.factors.map((x) => x.id)).not.toContain('revocation_pending')
  })

  test('tomorrow, with the same files: suspended, letter I, not allowed to operate', () => {
    const l = lic(1000084, TOMORROW)
    expect(l.authority.pending_suspension).toBeNull()
    expect(l.authority.states).toEqual([
      {
        docket_number: 'MC-100084',
        authority_type: 'carrier',
        state: 'suspended',
        since: TOMORROW,
        reason: 'insurance',
      },
    ])
    expect(l.authority).toMatchObject({ common_authority: 'I', revoked_date: TOMORROW })
    expect(l.authority.history).toHaveLength(1)
    expect(l.roles.carrier).toBe('inactive')
    const r = record(1000084, TOMORROW)
    expect(r.authority.allowed_to_operate).toBe('N')
    expect(r.trust.factors.map((x) => x.id)).not.toContain('pending_suspension')
  })

  test('an order in effect before the file was published while the file says Active: the file wins', () => {
    // MC-100009: suspended 2026-09-01, reinstated 2026-09-20 (AuthHist), Active in Motus
    const l = lic(1000009)
    expect(l.authority.states).toEqual([
      {
        docket_number: 'MC-100009',
        authority_type: 'carrier',
        state: 'reinstated',
        since: '2026-09-20',
        reason: null,
      },
    ])
    expect(l.authority.common_authority).toBe('A')
  })

  test('the same suspension in RevokeSuspend and AuthHist (two days apart) appears once', () => {
    const l = lic(1000085)
    expect(l.authority.history).toEqual([
      {
        docket_number: 'MC-100085',
        authority_type: 'broker',
        revocation_date: '2026-11-10',
        serve_date: '2026-11-01',
        revocation_type: 'INVOLUNTARY SUSPENSION - FINANCIAL SECURITY DRAWDOWN',
        reinstatement_date: null,
        source: 'motus',
      },
    ])
    expect(l.authority.states).toEqual([
      {
        docket_number: 'MC-100085',
        authority_type: 'broker',
        state: 'suspended',
        since: '2026-11-10',
        reason: 'bond_drawdown',
      },
    ])
    expect(l.authority).toMatchObject({ broker_authority: 'I', pending_suspension: null })
  })

  test('pending application, inactive and active states per authority type', () => {
    expect(lic(1000070).authority.states).toEqual([
      {
        docket_number: 'MC-1700070',
        authority_type: 'broker',
        state: 'pending',
        since: null,
        reason: null,
      },
    ])
    const fleet = lic(1000080).authority.states
    expect(fleet.map((s) => [s.authority_type, s.state])).toEqual([
      ['carrier', 'active'],
      ['broker', 'inactive'],
    ])
    expect(lic(1000080).authority.age_days).toBeGreaterThan(10_000)
  })

  test('a pending revocation order is a pending suspension of the broker authority', () => {
    const l = lic(1000060)
    expect(l.authority.pending_suspension).toMatchObject({
      effective_date: '2026-12-05',
      authority_type: 'broker',
      order_type: 'INVOLUNTARY REVOCATION',
      reason: 'other',
    })
    expect(l.authority.states.map((s) => [s.authority_type, s.state])).toEqual([
      ['carrier', 'active'],
      ['broker', 'suspension_pending'],
    ])
  })
})

describe('broker security in /v1/bond and /v1/broker', () => {
  test('form, provider, amount against the $75,000 minimum, pending cancellation, drawdown suspension', async () => {
    const key = ctx.account('starter').key()
    const res = await ctx.get('/v1/bond/1000085', key)
    expect(res.status).toBe(200)
    const body = BondResponseJson.parse(await res.json())
    expect(body.bond).toMatchObject({
      on_file: true,
      type: 'surety_bond',
      form: 'BMC-84',
      provider: 'WESTERN SURETY CO',
      surety: 'WESTERN SURETY CO',
      amount: 75_000,
      minimum: 75_000,
      meets_minimum: true,
      status: 'pending_cancellation',
      pending_cancellation: { cancellation_date: '2026-12-10', docket_number: 'MC-100085' },
      suspension: {
        state: 'suspended',
        effective_date: '2026-11-10',
        reason: 'bond_drawdown',
        docket_number: 'MC-100085',
        authority_type: 'broker',
      },
    })
    const broker = BrokerJson.parse(await (await ctx.get('/v1/broker/MC-100085', key)).json())
    expect(broker.bond).toEqual(body.bond)
  })

  test('an active bond without events: no pending cancellation, no suspension', async () => {
    const key = ctx.account('starter').key()
    const body = BondResponseJson.parse(await (await ctx.get('/v1/bond/1000002', key)).json())
    expect(body.bond).toMatchObject({
      form: 'BMC-84',
      provider: 'XYZ SURETY CO',
      amount: 75_000,
      meets_minimum: true,
      pending_cancellation: null,
      suspension: null,
    })
  })
})

describe('carrier.changed for watchers', () => {
  test('the day a pending suspension takes effect, without a new file', () => {
    const { account } = ctx.account('starter')
    addToWatchlist(ctx.deps.db, account.id, [1000084], ctx.clock().getTime())
    expect(runWatchMonitor(ctx.deps)).toMatchObject({ status: 'done', firstSeen: 1 })
    // same day: nothing to compare
    expect(runWatchMonitor(ctx.deps)).toMatchObject({ status: 'done', checked: 0 })
    ctx.clock.set(`${TOMORROW}T06:00:00Z`)
    expect(runWatchMonitor(ctx.deps)).toMatchObject({ status: 'done', changed: 1 })
    const ev = ctx.deps.db
      .prepare("SELECT data FROM webhook_events WHERE type = 'carrier.changed' AND account_id = ?")
      .all(account.id) as { data: string }[]
    expect(ev).toHaveLength(1)
    const changes = (JSON.parse(ev[0]?.data ?? '{}') as { changes: unknown[] }).changes
    expect(changes).toEqual(
      expect.arrayContaining([
        { field: 'authority.common_authority', previous: 'A', current: 'I' },
        { field: 'authority.allowed_to_operate', previous: 'Y', current: 'N' },
        { field: 'authority.pending_suspension', previous: TOMORROW, current: null },
        {
          field: 'authority.states',
          previous: 'MC-100084 carrier suspension_pending',
          current: 'MC-100084 carrier suspended',
        },
      ]),
    )
    ctx.clock.set(`${TODAY}T12:00:00Z`)
  })
})
