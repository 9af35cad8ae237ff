import { describe, expect, test } from 'vitest'
import { evaluatePolicy, evaluateRule, readField, worst } from './evaluate.ts'
import { parsePolicyText } from './policy.ts'
import { BUNDLED_POLICY, PolicyDocument, Rule } from './policy-schema.ts'

const TODAY = '2026-11-15'
const rule = (r: unknown) => Rule.parse(r)

describe('policy language', () => {
  test('the bundled default is a valid policy', () => {
    expect(PolicyDocument.safeParse(BUNDLED_POLICY).success).toBe(true)
    expect(new Set(BUNDLED_POLICY.rules.map((r) => r.id)).size).toBe(BUNDLED_POLICY.rules.length)
  })

  test('YAML and JSON parse; every problem is listed with its path', () => {
    const yaml = `
policy_language: 1
name: mine
rules:
  - id: bipd
    description: BIPD at least 1M
    require: { field: insurance.bipd_on_file, op: gte, value: 1000000 }
    otherwise: fail
`
    const ok = parsePolicyText(yaml)
    expect(ok.ok).toBe(true)
    if (ok.ok) expect(ok.policy.rules[0]?.missing).toBe('review')
    expect(parsePolicyText(JSON.stringify(BUNDLED_POLICY)).ok).toBe(true)
    const bad = parsePolicyText(`
policy_language: 1
name: mine
rules:
  - id: Bad-Id
    description: x
    require: { field: insurance.bipd_on_file, op: gte, value: "1M" }
    otherwise: maybe
  - id: dup
    description: x
    require: { field: a, op: in, value: 3 }
    otherwise: fail
  - id: other
    description: x
    require: { field: a, op: is_true, value: 3 }
    otherwise: fail
`)
    expect(bad.ok).toBe(false)
    if (!bad.ok) {
      const paths = bad.problems.map((p) => p.path)
      expect(paths).toEqual(
        expect.arrayContaining([
          'rules.0.id',
          'rules.0.require.value',
          'rules.0.otherwise',
          'rules.1.require.value',
          'rules.2.require.value',
        ]),
      )
    }
    const dup = { ...BUNDLED_POLICY, rules: [BUNDLED_POLICY.rules[0], BUNDLED_POLICY.rules[0]] }
    const d = parsePolicyText(JSON.stringify(dup))
    expect(d.ok ? [] : d.problems).toEqual([
      { path: 'rules.1.id', message: 'duplicate rule id usdot_active' },
    ])
    expect(parsePolicyText('{ not yaml: [').ok).toBe(false)
    expect(parsePolicyText('policy_language: 2\nname: x\nrules: []').ok).toBe(false)
  })
})

describe('evaluation', () => {
  const doc = {
    insurance: { bipd_on_file: 1_000_000, cargo_on_file: null },
    authority: { granted_date: '2026-10-01', common_authority: 'N', contract_authority: 'A' },
    safety: { safety_rating: 'Conditional', driver_inspections: 3, driver_oos_rate: 50 },
  }

  test('pass, otherwise and the reason; a null field yields `missing`', () => {
    const r = rule({
      id: 'b',
      description: 'B',
      require: { field: 'insurance.bipd_on_file', op: 'gte', value: 2_000_000 },
      otherwise: 'fail',
    })
    expect(evaluateRule(r, doc, TODAY)).toMatchObject({
      result: 'fail',
      reason: 'insurance.bipd_on_file is 1000000; required insurance.bipd_on_file at least 2000000',
      observed: { 'insurance.bipd_on_file': 1_000_000 },
    })
    const cargo = rule({
      id: 'c',
      description: 'C',
      require: { field: 'insurance.cargo_on_file', op: 'gte', value: 1 },
      otherwise: 'fail',
      missing: 'pass',
    })
    expect(evaluateRule(cargo, doc, TODAY)).toMatchObject({
      result: 'pass',
      reason: expect.stringContaining('not on file'),
    })
  })

  test('a field absent from the record (not supplied yet) is review with its reason, not a crash', () => {
    const r = rule({
      id: 's',
      description: 'S',
      require: { field: 'authority.pending_suspension', op: 'is_false' },
      otherwise: 'fail',
    })
    expect(evaluateRule(r, doc, TODAY)).toMatchObject({
      result: 'review',
      reason: expect.stringContaining('authority.pending_suspension is not in the record'),
    })
    expect(evaluateRule(r, null, TODAY).result).toBe('review')
    expect(evaluateRule(r, { authority: 'x' }, TODAY).result).toBe('review')
  })

  test('is_null: no pending suspension passes, an order due fails, a field not supplied is missing', () => {
    const r = rule({
      id: 'n',
      description: 'N',
      require: { field: 'authority.pending_suspension', op: 'is_null' },
      otherwise: 'fail',
    })
    const with_ = (v: unknown) => ({ authority: { pending_suspension: v } })
    expect(evaluateRule(r, with_(null), TODAY).result).toBe('pass')
    expect(evaluateRule(r, with_({ effective_date: '2026-11-16' }), TODAY).result).toBe('fail')
    expect(evaluateRule(r, { authority: {} }, TODAY).result).toBe('review')
  })

  test('any/all, when, days_since, ne and in', () => {
    const anyAuth = rule({
      id: 'a',
      description: 'A',
      require: {
        any: [
          { field: 'authority.common_authority', op: 'eq', value: 'A' },
          { field: 'authority.contract_authority', op: 'eq', value: 'A' },
        ],
      },
      otherwise: 'fail',
    })
    expect(evaluateRule(anyAuth, doc, TODAY).result).toBe('pass')
    const allAuth = rule({
      ...anyAuth,
      require: { all: anyAuth.require && 'any' in anyAuth.require ? anyAuth.require.any : [] },
    })
    expect(evaluateRule(allAuth, doc, TODAY).result).toBe('fail')
    const age = rule({
      id: 'g',
      description: 'G',
      require: { field: 'authority.granted_date', op: 'days_since_gte', value: 90 },
      otherwise: 'review',
    })
    expect(evaluateRule(age, doc, TODAY)).toMatchObject({
      result: 'review',
      observed: { 'authority.granted_date#days_since': 45 },
    })
    expect(evaluateRule(age, doc, '2027-01-01').result).toBe('pass')
    const oos = rule({
      id: 'o',
      description: 'O',
      when: [{ field: 'safety.driver_inspections', op: 'gte', value: 5 }],
      require: { field: 'safety.driver_oos_rate', op: 'lte', value: 11 },
      otherwise: 'review',
    })
    expect(evaluateRule(oos, doc, TODAY)).toMatchObject({ result: 'n/a', applicable: false })
    const many = { ...doc, safety: { ...doc.safety, driver_inspections: 9 } }
    expect(evaluateRule(oos, many, TODAY)).toMatchObject({ result: 'review', applicable: true })
    const cond = rule({
      id: 'r',
      description: 'R',
      require: {
        field: 'safety.safety_rating',
        op: 'not_in',
        value: ['Conditional', 'Unsatisfactory'],
      },
      otherwise: 'review',
    })
    expect(evaluateRule(cond, doc, TODAY).result).toBe('review')
  })

  test('the verdict is the worst result', () => {
    expect(worst([])).toBe('pass')
    expect(worst(['pass', 'review', 'pass'])).toBe('review')
    expect(worst(['review', 'fail', 'pass'])).toBe('fail')
    const e = evaluatePolicy(BUNDLED_POLICY, {}, TODAY)
    expect(e.results).toHaveLength(BUNDLED_POLICY.rules.length)
    expect(e.verdict).toBe('review')
  })

  test('readField walks objects only', () => {
    expect(readField({ a: { b: 0 } }, 'a.b')).toEqual({ present: true, value: 0 })
    expect(readField({ a: [1] }, 'a.0')).toEqual({ present: false })
    expect(readField({ a: null }, 'a.b')).toEqual({ present: false })
  })
})
