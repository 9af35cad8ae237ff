import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { getCompanyRecord } from '../carriers/record.ts'
import { AuthorityJson, InsuranceJson } from './schema.ts'
import type { DataView } from '../db/datasets.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'
import { findDotsByDocket, getLicensing, type LicensingFacts } from './record.ts'

const TODAY = '2026-11-15'

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

describe('authority and insurance from the legacy baseline and Motus', () => {
  test('legacy-only carrier: letters, BI&PD on file, the replaced policy listed once', () => {
    const l = lic(1000001)
    expect(l.authority).toMatchObject({
      common_authority: 'A',
      contract_authority: 'N',
      broker_authority: 'N',
      granted_date: '2010-03-01',
      revoked_date: null,
      authority_types: ['common', 'property'],
      pending_application: false,
      revocation_pending: false,
      source: 'legacy',
    })
    expect(l.insurance).toMatchObject({
      bipd_on_file: 1_000_000,
      bipd_required: 750_000,
      insurer: 'PROGRESSIVE COUNTY MUTUAL',
      insurance_company: 'PROGRESSIVE COUNTY MUTUAL',
      policy_no: 'CA-111',
      effective_date: '2020-01-01',
      expiry_date: null,
      insurance_type: 'BI&PD',
      coverage_amount: 1_000_000,
      pending_cancellation: false,
    })
    expect(l.insurance.filings.map((f) => [f.form, f.policy_no, f.status])).toEqual([
      ['BMC-91X', 'CA-111', 'active'],
      ['BMC-91X', 'G-1', 'replaced'], // twice in InsHist, once here
      ['BMC-34', 'C-9', 'cancelled'],
    ])
    // legacy cargo amount 0 = not published
    expect(l.insurance.filings[2]?.max_coverage).toBeNull()
    expect(l.insurance.filings[1]).toMatchObject({
      min_coverage: 750_000,
      cancellation_method: 'TERM/REPL',
    })
    expect(l.mcNumber).toBe('MC-100001')
    expect(l.roles).toEqual({ carrier: 'active', broker: null, forwarder: null })
    expect(l.asOf).toEqual({ motus: null, legacy: '2026-05-14' })
    expect(l.boc3Filed).toBe(true)
  })

  test('broker with a BMC-84 bond: the Motus policy supersedes the legacy copy, $75,000 as published', () => {
    const l = lic(1000002)
    expect(l.authority).toMatchObject({
      broker_authority: 'A',
      common_authority: 'N',
      source: 'motus',
    })
    expect(l.roles.broker).toBe('active')
    expect(l.insurance).toMatchObject({
      bond_on_file: 75_000,
      bond_filed: true,
      bond_required: true,
      insurer: 'XYZ SURETY CO',
      insurance_type: 'Bond',
    })
    expect(l.insurance.filings).toHaveLength(1)
    expect(l.insurance.filings[0]).toMatchObject({
      form: 'BMC-84',
      source: 'motus',
      status: 'active',
    })
  })

  test('a trust fund whose amount is not published: filed, but never a made-up $75,000', () => {
    const l = lic(1000012)
    expect(l.insurance).toMatchObject({
      bond_on_file: null,
      bond_filed: true,
      insurance_type: 'Trust fund',
      coverage_amount: null,
    })
  })

  test('pending cancellation: a future Motus cancel date gives expiry_date and the filing status', () => {
    const l = lic(1000008)
    expect(l.insurance).toMatchObject({
      policy_no: 'P-888',
      expiry_date: '2026-12-01',
      pending_cancellation: true,
      bipd_on_file: 1_000_000,
      cargo_on_file: 5_000,
      cargo_filed: true,
    })
    expect(l.insurance.filings.find((f) => f.policy_no === 'P-888')).toMatchObject({
      status: 'pending_cancellation',
      cancellation_date: '2026-12-01',
      cancellation_method: 'CANCEL',
    })
    // the Motus letter goes to the authority the docket held in L&I (contract)
    expect(l.authority).toMatchObject({ common_authority: 'N', contract_authority: 'A' })
  })

  test('revoked and reinstated: one merged entry per revocation with its reinstatement', () => {
    const l = lic(1000009)
    expect(l.authority).toMatchObject({
      common_authority: 'A',
      revoked_date: '2026-09-01',
      reinstated_date: '2026-09-20',
      granted_date: '2005-05-01',
    })
    expect(l.authority.history).toEqual([
      {
        docket_number: 'MC-100009',
        authority_type: 'common',
        revocation_date: '2020-07-26',
        serve_date: '2020-06-26',
        revocation_type: 'INVOLUNTARY REVOCATION',
        reinstatement_date: '2020-09-15',
        source: 'legacy',
      },
      {
        docket_number: 'MC-100009',
        authority_type: 'common',
        revocation_date: '2026-09-01',
        serve_date: '2026-08-01',
        revocation_type: 'INVOLUNTARY SUSPENSION',
        reinstatement_date: '2026-09-20',
        source: 'motus',
      },
    ])
    // MC0000139446-style padding and MC- hyphens are joined on the canonical docket
    expect(l.insurance.policy_no).toBe('D-2')
    expect(l.insurance.filings.map((f) => [f.policy_no, f.status])).toEqual([
      ['D-2', 'active'],
      ['D-1B', 'cancelled'],
      ['D-1', 'cancelled'],
    ])
  })

  test('Motus-only new authority: common = the Motus letter, contract N, granted since the cutover', () => {
    const l = lic(1000015)
    expect(l.authority).toMatchObject({
      common_authority: 'A',
      contract_authority: 'N',
      broker_authority: 'N',
      granted_date: '2026-06-01',
      source: 'motus',
    })
    // whole numbers below the thresholds are thousands (docs/data.md, money units)
    // bipd_on_file from the BMC-91X filing (`1000` = $1M), not BIPD_FILE (`750`)
    expect(l.insurance).toMatchObject({
      bipd_on_file: 1_000_000,
      bipd_on_file_source: 'filings',
      coverage_amount: 1_000_000,
    })
    expect(l.asOf).toEqual({ motus: TODAY, legacy: null })
    expect(l.legalName).toBe('FOXTROT NEW CARRIER LLC')
    expect(l.mailingAddress).toEqual({
      street: 'PO BOX 15',
      city: 'CHICAGO',
      state: 'IL',
      zip: '60602',
      country: 'US',
    })
  })

  test('a legacy cancel date already past: the policy is cancelled, not current', () => {
    const l = lic(1000036)
    expect(l.insurance.filings).toHaveLength(1)
    expect(l.insurance.filings[0]).toMatchObject({
      status: 'cancelled',
      cancellation_date: '2026-06-30',
    })
    expect(l.insurance).toMatchObject({
      insurer: null,
      policy_no: null,
      expiry_date: null,
      bipd_on_file: 0, // the frozen 1,000 (thousands) no longer holds
      insurance_filed: false,
    })
  })

  test('the same policy before its cancel date is current with a pending cancellation', () => {
    const l = lic(1000036, '2026-05-20')
    expect(l.insurance).toMatchObject({
      policy_no: 'OLD-36',
      expiry_date: '2026-06-30',
      pending_cancellation: true,
      bipd_on_file: 1_000_000,
    })
  })

  test('freight forwarder: an FF docket gives the forwarder role', () => {
    const l = lic(1000050)
    expect(l.roles).toEqual({ carrier: null, broker: null, forwarder: 'active' })
    expect(l.dockets).toEqual(['FF-100050'])
    expect(l.mcNumber).toBeNull()
    expect(l.authority.authority_types).toEqual(['forwarder'])
  })

  test('carrier and broker on one docket; a future revocation order is pending, not a revocation', () => {
    const l = lic(1000060)
    expect(l.roles).toEqual({ carrier: 'active', broker: 'active', forwarder: null })
    expect(l.authority).toMatchObject({
      common_authority: 'A',
      broker_authority: 'A',
      revocation_pending: true,
      revoked_date: null,
      authority_types: ['common', 'broker', 'property'],
    })
    // a discontinued revocation proceeding is not a revocation
    expect(l.authority.history).toEqual([])
    // a carrier's summary policy is its BI&PD; the legacy bond stays in the filings
    expect(l.insurance).toMatchObject({
      insurance_type: 'BI&PD',
      policy_no: 'IC-600',
      bond_filed: true,
    })
    expect(l.insurance.filings.map((f) => f.policy_no)).toEqual(['IC-600', 'IS-601'])
  })

  test('a pending Motus application: letter N and pending_application', () => {
    const l = lic(1000070)
    expect(l.authority).toMatchObject({ broker_authority: 'N', pending_application: true })
    expect(l.roles.broker).toBeNull()
  })

  test('no row in either dataset → null', () => {
    expect(getLicensing(view, 1000099, TODAY)).toBeNull()
    expect(getLicensing(view, 1, TODAY)).toBeNull()
  })

  test('docket → USDOT: Motus, then legacy; hyphenated and padded forms are the same docket', () => {
    expect(findDotsByDocket(view, 'MC', 100009)).toEqual([1000009])
    expect(findDotsByDocket(view, 'MC', 1500015)).toEqual([1000015])
    expect(findDotsByDocket(view, 'FF', 100050)).toEqual([1000050])
    expect(findDotsByDocket(view, 'MC', 421775)).toEqual([])
    // a legacy docket whose USDOT is 00000000 has no USDOT to return
    expect(findDotsByDocket(view, 'MC', 100099)).toEqual([])
    // a real row of the legacy sample: padded USDOT 00124159
    expect(findDotsByDocket(view, 'MC', 675)).toEqual([124159])
  })
})

describe('the assembled record (getCompanyRecord)', () => {
  const record = (dot: number) => {
    const r = getCompanyRecord(
      { db: ctx.deps.db, today: TODAY, now: ctx.clock().getTime(), maxAgeHours: 72 },
      view,
      dot,
    )
    if (!r) throw new Error(`no record for ${dot}`)
    return r
  }

  test('a carrier: identity, authority and insurance blocks from licensing', () => {
    const r = record(1000009)
    expect(r.mc_number).toBe('MC-100009')
    expect(r.entity_type).toBe('carrier')
    expect(r.authority).toMatchObject({
      status: 'ACTIVE',
      common_authority: 'A',
      allowed_to_operate: 'Y',
      revoked_date: '2026-09-01',
      reinstated_date: '2026-09-20',
    })
    expect(r.authority.history).toHaveLength(2)
    expect(r.insurance.insurer).toBe('DELTA NEW INSURANCE CO')
    expect(r.dataAsOf).toMatchObject({ census: TODAY, motus: TODAY, legacy: '2026-05-14' })
  })

  test('a broker: entity_type broker and the bond', () => {
    const r = record(1000002)
    expect(r.entity_type).toBe('broker')
    expect(r.identity.entity_types).toEqual(['broker'])
    expect(r.insurance.bond_on_file).toBe(75_000)
  })

  test('carrier and broker: entity_type carrier, both roles listed', () => {
    const r = record(1000060)
    expect(r.entity_type).toBe('carrier')
    expect(r.identity.entity_types).toEqual(['carrier', 'broker'])
  })

  test('an entity known only to Motus still gets a record (no census row)', () => {
    const r = record(1000070)
    expect(r.legal_name).toBe('JULIET PENDING BROKER LLC')
    expect(r.mc_number).toBe('MC-1700070')
  })
})
