/** POST /v1/checks with `equipment`: each unit judged against the checked carrier, in the signed check. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CENSUS_FILE_ID } from '../../census/census.ts'
import { CheckCreatedJson } from '../../checks/schema.ts'
import { parsePolicyText, setPolicy } from '../../checks/policy.ts'
import { BUNDLED_POLICY } from '../../checks/policy-schema.ts'
import { carrierRow, writeCensus } from '../../testing/census-fixture.ts'
import { createTestContext, type TestContext } from '../../testing/context.ts'

const NOW = '2026-11-15T12:00:00Z'
/** seen under 1000001 (last 2026-10-19) and 1000024 (2025-10-28) */
const SHARED_TRACTOR = '1XKYDPGX9NJ412345'
/** seen under 1000001 only, last on 2026-07-16: more than 90 days before NOW */
const ACME_OLD = 'LH5SR3FJXG3TD57P1'
type Json = Record<string, unknown>
interface Unit {
  unit: Json
  status: string
  other_carriers: Json[]
  last_seen_with_this_carrier: string | null
  evidence: Json | null
}
let ctx: TestContext
let root: string
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cvk-checks-equipment-'))
  const live = join(root, 'live')
  mkdirSync(live)
  writeCensus(join(live, `${CENSUS_FILE_ID}.csv`), [carrierRow(1_000_001)])
  ctx = await createTestContext({ sampleDir: 'data/sample', liveDir: live, now: NOW })
}, 120_000)
afterAll(() => {
  ctx.close()
  rmSync(root, { recursive: true, force: true })
})

async function check(key: string, body: unknown) {
  const res = await ctx.post('/v1/checks', body, key)
  return { res, body: (await res.json()) as Json }
}
const rule = (body: Json, id: string) => (body['rules'] as Json[]).find((r) => r['rule_id'] === id)
const unitsOf = (body: Json) => (body['equipment_check'] as { units: Unit[] }).units

describe('POST /v1/checks with equipment', () => {
  test('each unit answered: this carrier, another carrier, never seen, an invalid VIN', async () => {
    const key = ctx.account('starter').key('test')
    const { res, body } = await check(key, {
      dot: '1000024',
      equipment: [
        { vin: SHARED_TRACTOR.toLowerCase() },
        { vin: ACME_OLD },
        { plate: 'nope-99', state: 'tx' },
        { vin: 'UNKNOWN' },
      ],
    })
    expect(res.status).toBe(201)
    expect(CheckCreatedJson.safeParse(body).success).toBe(true)
    const units = unitsOf(body)
    expect(units.map((u) => u.status)).toEqual([
      'this_carrier',
      'other_carrier',
      'never_seen',
      'invalid_vin',
    ])
    expect(units[0]).toMatchObject({
      unit: { vin: SHARED_TRACTOR },
      last_seen_with_this_carrier: '2025-10-28',
      other_carriers: [
        { dot_number: '1000001', legal_name: 'ACME FREIGHT LINES LLC', last_seen: '2026-10-19' },
      ],
    })
    // the sightings used are kept in the signed check
    expect(units[0]?.evidence).toMatchObject({ vin: SHARED_TRACTOR, shared_widely: false })
    expect((units[0]?.evidence?.['carriers'] as Json[]).length).toBe(2)
    expect(units[2]).toMatchObject({ unit: { plate: 'NOPE99', state: 'TX' }, evidence: null })
    expect(body['equipment_check']).toMatchObject({
      this_carrier: 1,
      other_carrier: 1,
      never_seen: 1,
      invalid_vin: 1,
      other_carrier_last_seen: '2026-07-16',
      reason: null,
    })
    expect(body['request']).toMatchObject({
      equipment: [
        { vin: SHARED_TRACTOR },
        { vin: ACME_OLD },
        { plate: 'NOPE99', state: 'TX' },
        { vin: 'UNKNOWN' },
      ],
    })
    // seen elsewhere more than 90 days ago: no review for that; the invalid VIN is one
    expect(rule(body, 'equipment_not_another_carriers')).toMatchObject({ result: 'pass' })
    expect(rule(body, 'equipment_vin_valid')).toMatchObject({ result: 'review' })
    expect(body['verdict']).not.toBe('pass')
    // reading it back answers the same stored document
    const got = (await (
      await ctx.get(`/v1/checks/${String(body['check_id'])}`, key)
    ).json()) as Json
    expect(got['equipment_check']).toEqual(body['equipment_check'])
  })

  test('a unit seen under another carrier within 90 days and never under this one: review', async () => {
    const key = ctx.account('starter').key('test')
    const { body } = await check(key, { dot: '1000002', equipment: [{ vin: SHARED_TRACTOR }] })
    expect(unitsOf(body)[0]).toMatchObject({
      status: 'other_carrier',
      last_seen_with_this_carrier: null,
    })
    expect(rule(body, 'equipment_not_another_carriers')).toMatchObject({
      result: 'review',
      observed: { 'equipment_check.other_carrier_last_seen': '2026-10-19' },
    })
    expect(rule(body, 'equipment_vin_valid')).toMatchObject({ result: 'pass' })
  })

  test('no equipment asked: equipment_check null and its rules not applicable', async () => {
    const key = ctx.account('starter').key('test')
    const { body } = await check(key, { dot: '1000001' })
    expect(body['equipment_check']).toBeNull()
    expect(rule(body, 'equipment_not_another_carriers')).toMatchObject({ result: 'n/a' })
    expect(rule(body, 'equipment_vin_valid')).toMatchObject({ result: 'n/a' })
  })

  test('a lessor’s widely shared tractor never counts as another carrier’s unit', async () => {
    const key = ctx.account('starter').key('test')
    const { body } = await check(key, {
      dot: '1000001',
      equipment: [{ plate: 'RT40021', state: 'IN' }],
    })
    expect(unitsOf(body)[0]).toMatchObject({ status: 'other_carrier', shared_widely: true })
    expect(body['equipment_check']).toMatchObject({ other_carrier_last_seen: null })
    expect(rule(body, 'equipment_not_another_carriers')).toMatchObject({ result: 'n/a' })
  })

  test('without the equipment dataset the answer says so and the VIN rule asks for review', async () => {
    const { key } = ctx.account('starter')
    const { res, body } = await check(key(), { dot: '1000001', equipment: [{ vin: ACME_OLD }] })
    expect(res.status).toBe(201)
    expect(body['equipment_check']).toMatchObject({
      units: [],
      invalid_vin: null,
      reason: 'dataset_missing:equipment',
    })
    expect(rule(body, 'equipment_vin_valid')).toMatchObject({ result: 'review' })
  })

  test('bad units: 400 naming the field', async () => {
    const key = ctx.account('starter').key('test')
    const five = Array.from({ length: 5 }, () => ({ vin: ACME_OLD }))
    for (const [equipment, field] of [
      [five, 'equipment'],
      [[], 'equipment'],
      [[{ vin: 'A'.repeat(200) }], 'equipment.0.vin'],
      [[{ vin: `1FUJGLDR0\u0001CLBP123` }], 'equipment.0.vin'],
      [[{ vin: ACME_OLD }, { plate: 'ABC123', state: 'ZZ' }], 'equipment.1.state'],
      [[{ plate: 'ABC123' }], 'equipment.0.state'],
      [[{ vin: ACME_OLD, plate: 'ABC123', state: 'TX' }], 'equipment.0'],
      ['1XKYDPGX9NJ412345', 'equipment'],
    ] as const) {
      const { res, body } = await check(key, { dot: '1000001', equipment })
      expect(res.status, JSON.stringify(equipment).slice(0, 60)).toBe(400)
      expect(body).toMatchObject({ code: 'invalid_request', status: 400 })
      expect(String(body['error'])).toContain(field)
    }
  })

  test('a policy may name the equipment fields; a misspelt one is refused', async () => {
    const { account, key } = ctx.account('starter')
    const extra = [
      {
        id: 'no_roadside_mismatch',
        description: 'officers wrote the census name',
        require: { field: 'equipment.roadside.name_mismatches', op: 'eq', value: 0 },
        otherwise: 'review',
      },
      {
        id: 'no_other_units',
        description: 'no unit of another carrier',
        when: [{ field: 'equipment_check', op: 'present' }],
        require: { field: 'equipment_check.other_carrier', op: 'eq', value: 0 },
        otherwise: 'fail',
      },
      {
        id: 'few_medical',
        description: 'few medical citations',
        require: { field: 'safety.driver_qualification.medical', op: 'lte', value: 3 },
        otherwise: 'review',
      },
    ]
    const text = (rules: unknown[]) =>
      JSON.stringify({
        ...BUNDLED_POLICY,
        name: 'equipment strict',
        rules: [...BUNDLED_POLICY.rules, ...rules],
      })
    const parsed = parsePolicyText(text(extra))
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems))
    const typo = parsePolicyText(
      text([
        {
          ...extra[1],
          id: 'typo',
          require: { field: 'equipment_check.invalid_vins', op: 'eq', value: 0 },
        },
      ]),
    )
    expect(typo.ok).toBe(false)
    expect(JSON.stringify(typo)).toContain('did you mean equipment_check.invalid_vin?')
    const dq = parsePolicyText(
      text([
        {
          ...extra[2],
          id: 'typo',
          require: { field: 'safety.driver_qualification.no_cdl', op: 'eq', value: 0 },
        },
      ]),
    )
    expect(dq.ok).toBe(false)

    setPolicy(ctx.deps.db, account.id, parsed.policy, Date.parse(NOW), { actor: 'test' })
    const { body } = await check(key('test'), { dot: '1000024', equipment: [{ vin: ACME_OLD }] })
    expect(rule(body, 'no_roadside_mismatch')).toMatchObject({ result: 'review' })
    expect(rule(body, 'no_other_units')).toMatchObject({ result: 'fail' })
    expect(rule(body, 'few_medical')).toMatchObject({ result: 'pass' })
    expect(body['verdict']).toBe('fail')
  })
})
