/** The bundled sample (data/sample) through the real pipeline and HTTP API, with a sandbox key. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { CarrierJson } from './schema.ts'

let ctx: TestContext
let key: string
beforeAll(async () => {
  ctx = await createTestContext({
    sampleDir: 'data/sample',
    now: '2026-11-15T12:00:00Z',
    env: { NATIONAL_AVG_DRIVER_OOS: '6.1', NATIONAL_AVG_PERIOD: '2024-2025' },
  })
  key = ctx.account('free').key('test')
}, 120_000)
afterAll(() => ctx.close())

async function record(dot: number): Promise<CarrierJson> {
  const res = await ctx.get(`/v1/carrier/${dot}`, key)
  expect(res.status).toBe(200)
  return CarrierJson.parse(await res.json())
}

describe('bundled sample through the API', () => {
  test('every sample company validates against the record schema', async () => {
    for (const dot of [
      344554, 1000001, 1000002, 1000004, 1000005, 1000006, 1000007, 1000010, 1000011, 1000012,
      1000015, 1000018, 1000100,
    ]) {
      const r = await record(dot)
      expect(r.meta.source).toBe('sample')
      expect(r.meta.billed).toBe(false)
    }
  })

  test('an active carrier with BIPD on file, authority and safety figures', async () => {
    const r = await record(1000001)
    expect(r).toMatchObject({
      entity_type: 'carrier',
      mc_number: 'MC-100001',
      legal_name: 'ACME FREIGHT LINES LLC',
    })
    expect(r.authority).toMatchObject({
      status: 'ACTIVE',
      common_authority: 'A',
      allowed_to_operate: 'Y',
    })
    expect(r.insurance).toMatchObject({ bipd_on_file: 1_000_000, bipd_required: 750_000 })
    expect(r.safety.safety_rating).toBe('Satisfactory')
    expect(r.safety.driver_inspections).toBeGreaterThan(0)
    expect(r.safety.driver_oos_rate_national_average).toBe(6.1)
    expect(r.safety.national_average_period).toBe('2024-2025')
    expect(r.safety.basics).toHaveLength(7)
    expect(r.trust.trust_score).toBeGreaterThanOrEqual(70)
    // sample data is never vouched for, and says so
    expect(r.trust.trust_verified).toBe(false)
    expect(r.trust.unverified_reasons).toEqual(['sample_data'])
    expect(r.safety.elp_oos_violations).toEqual({ count_24m: 0, last_date: null })
  })

  test('English-language-proficiency OOS violations from the sample violation file', async () => {
    // data/sample/8mt8-2mdr.csv: 1000016 has one 391.11(b)(2) OOS violation on 16-JAN-26
    const r = await record(1000016)
    expect(r.safety.elp_oos_violations).toEqual({ count_24m: 1, last_date: '2026-01-16' })
    expect(r.meta.data_as_of.violations).not.toBeNull()
  })

  test('a broker with a BMC-84 bond', async () => {
    const r = await record(1000002)
    expect(r.entity_type).toBe('broker')
    expect(r.authority.broker_authority).toBe('A')
    expect(r.insurance.bond_on_file).toBe(75_000)
    expect(r.insurance.filings.some((f) => f.form === 'BMC-84')).toBe(true)
  })

  test('forwarder, private, inactive, Canadian and Mexican companies', async () => {
    expect((await record(1000004)).entity_type).toBe('forwarder')
    const priv = await record(1000005)
    expect(priv.entity_type).toBe('private')
    expect(priv.identity.private_entity).toBe(true)
    const inactive = await record(1000006)
    expect(inactive.authority.status).toBe('INACTIVE')
    expect(inactive.authority.allowed_to_operate).toBe('N')
    expect((await record(1000007)).identity.country).toBe('CA')
    expect((await record(1000018)).identity.docket_numbers).toContain('MX-100018')
  })

  test('a pending cancellation, a revocation with reinstatement', async () => {
    const pending = await record(1000008)
    expect(pending.insurance.expiry_date).toBe('2027-01-15')
    expect(pending.insurance.pending_cancellation).toBe(true)
    const phoenix = await record(1000009)
    expect(phoenix.authority.history.length).toBeGreaterThan(0)
    expect(phoenix.authority.reinstated_date).toBe('2023-05-01')
    expect(phoenix.authority.allowed_to_operate).toBe('Y')
  })

  test('passenger percentiles, an active OOS order, crashes', async () => {
    const coach = await record(1000010)
    const hos = coach.safety.basics.find((b) => b.code === 'hos_compliance')
    expect(hos).toMatchObject({ percentile: 82, alert: true, public: true })
    const oos = await record(1000011)
    expect(oos.identity).toMatchObject({ out_of_service: true, out_of_service_date: '2026-09-10' })
    expect(oos.authority.allowed_to_operate).toBe('N')
    expect(oos.trust.trust_score).toBeLessThanOrEqual(10)
    const crashes = await record(1000012)
    expect(crashes.safety).toMatchObject({
      crash_total: 6,
      fatal_crash: 1,
      injury_crash: 2,
      towaway_crash: 3,
    })
    expect((await record(1000013)).identity.out_of_service).toBe(false)
  })
  test('the equipment block: vehicles, roadside names and a name mismatch; its as-of', async () => {
    const quick = await record(1000024)
    expect(quick.equipment).toMatchObject({
      reason: null,
      as_of: quick.meta.data_as_of.equipment,
      window: { from: expect.any(String), to: expect.any(String) },
    })
    expect(quick.equipment.power_units_seen).toBeGreaterThan(0)
    expect(quick.equipment.vins_seen_under_other_carriers).toBeGreaterThanOrEqual(1)
    expect(quick.equipment.roadside?.name_mismatches).toBeGreaterThanOrEqual(1)
    expect(quick.equipment.roadside?.names_seen.map((n) => n.name)).toContain('ACME FREIGHT LINES')
    const acme = await record(1000001)
    // written without LLC at the roadside: not a mismatch
    expect(acme.equipment.roadside?.name_mismatches).toBe(0)
    expect(acme.equipment.reported_power_units).toBe(acme.fleet.power_units)
  })

  test('driver qualification counted over 24 months, with its as-of', async () => {
    const r = await record(1000111)
    expect(r.safety.driver_qualification).toMatchObject({
      no_valid_cdl: 2,
      window_months: 24,
      as_of: r.meta.data_as_of.violations,
    })
  })
})
