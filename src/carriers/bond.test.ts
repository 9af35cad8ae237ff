import { describe, expect, test } from 'vitest'
import { emptyInsurance } from './blocks.ts'
import { bondForm, toBondJson } from './bond.ts'
import type { FilingJson, InsuranceJson } from '../licensing/schema.ts'

const filing = (over: Partial<FilingJson>): FilingJson => ({
  docket_number: 'MC-100002',
  form: 'BMC-84',
  type: 'Surety',
  insurer: 'XYZ SURETY CO',
  policy_no: 'B-1',
  effective_date: '2020-01-01',
  cancellation_date: null,
  min_coverage: 75_000,
  max_coverage: 75_000,
  underlying_limit: null,
  status: 'active',
  cancellation_method: null,
  source: 'motus',
  ...over,
})
const ins = (over: Partial<InsuranceJson>): InsuranceJson => ({ ...emptyInsurance(), ...over })

describe('bondForm', () => {
  test.each([
    ['BMC-84', null, 'BMC-84'],
    ['84', null, 'BMC-84'],
    ['bmc 85', null, 'BMC-85'],
    [null, 'TRUST FUND', 'BMC-85'],
    [null, 'SURETY', 'BMC-84'],
    ['BMC-91X', 'BIPD', null],
    ['BMC-34', 'CARGO', null],
    ['85C', 'TRUST FUND', null],
    ['36', 'SURETY', null],
  ])('form %s type %s → %s', (form, type, expected) => {
    expect(bondForm({ form, type })?.form ?? null).toBe(expected)
  })
})

describe('toBondJson', () => {
  test('an active BMC-84: amount, surety, bond number, dates, status', () => {
    const b = toBondJson(
      ins({ bond_on_file: 75_000, bond_filed: true, bond_required: true, filings: [filing({})] }),
    )
    expect(b).toMatchObject({
      on_file: true,
      required: true,
      type: 'surety_bond',
      form: 'BMC-84',
      amount: 75_000,
      surety: 'XYZ SURETY CO',
      bond_number: 'B-1',
      effective_date: '2020-01-01',
      cancellation_date: null,
      status: 'active',
    })
    expect(b.history).toHaveLength(1)
  })

  test('a pending cancellation is still on file, with its cancellation date', () => {
    const b = toBondJson(
      ins({
        filings: [filing({ status: 'pending_cancellation', cancellation_date: '2026-12-01' })],
      }),
    )
    expect(b).toMatchObject({
      on_file: true,
      status: 'pending_cancellation',
      cancellation_date: '2026-12-01',
    })
  })

  test('the active replacement is shown before the bond being cancelled, history newest first', () => {
    const b = toBondJson(
      ins({
        filings: [
          filing({
            policy_no: 'OLD',
            status: 'pending_cancellation',
            effective_date: '2024-01-01',
          }),
          filing({ policy_no: 'NEW', effective_date: '2023-06-01', insurer: 'NEW SURETY' }),
          filing({ policy_no: 'GONE', status: 'cancelled', effective_date: '2019-01-01' }),
          filing({ form: 'BMC-91X', type: 'BIPD', policy_no: 'BIPD-1' }),
        ],
      }),
    )
    expect(b).toMatchObject({ bond_number: 'NEW', surety: 'NEW SURETY', status: 'active' })
    expect(b.history.map((h) => h.bond_number)).toEqual(['OLD', 'NEW', 'GONE'])
  })

  test('only cancelled bonds: not on file, the latest one described', () => {
    const b = toBondJson(
      ins({
        bond_filed: false,
        filings: [
          filing({
            policy_no: 'A',
            status: 'cancelled',
            effective_date: '2018-01-01',
            cancellation_date: '2019-01-01',
          }),
          filing({
            policy_no: 'B',
            status: 'replaced',
            effective_date: '2019-01-01',
            cancellation_date: '2021-05-01',
          }),
        ],
      }),
    )
    expect(b).toMatchObject({
      on_file: false,
      bond_number: 'B',
      status: 'replaced',
      cancellation_date: '2021-05-01',
    })
  })

  test('a trust fund without a published amount: filed, amount null, never the $75,000 minimum', () => {
    const b = toBondJson(
      ins({
        bond_filed: true,
        filings: [
          filing({ form: 'BMC-85', type: 'TRUST FUND', min_coverage: 75_000, max_coverage: null }),
        ],
      }),
    )
    expect(b).toMatchObject({ on_file: true, type: 'trust_fund', form: 'BMC-85', amount: null })
  })

  test('on-file facts without any filing (legacy flag, Motus amount)', () => {
    expect(toBondJson(ins({ bond_filed: true }))).toMatchObject({
      on_file: true,
      amount: null,
      form: null,
      status: null,
    })
    expect(toBondJson(ins({ bond_on_file: 75_000 }))).toMatchObject({
      on_file: true,
      amount: 75_000,
    })
    expect(toBondJson(ins({ bond_filed: false, bond_on_file: 0 }))).toMatchObject({
      on_file: false,
      amount: null,
    })
  })

  test('a BMC-85 trust fund below the $75,000 minimum, and a pending suspension of the broker', () => {
    const b = toBondJson(
      ins({
        filings: [filing({ form: 'BMC-85', insurer: 'TRUST PROVIDER CO', max_coverage: 50_000 })],
      }),
      {
        states: [
          {
            docket_number: 'MC-100002',
            authority_type: 'carrier',
            state: 'suspended',
            since: '2026-01-01',
            reason: 'insurance',
          },
          {
            docket_number: 'MC-100002',
            authority_type: 'broker',
            state: 'suspension_pending',
            since: '2026-11-01',
            reason: 'bond_drawdown',
          },
        ],
        pending_suspension: {
          effective_date: '2026-12-01',
          reason: 'bond_drawdown',
          authority_type: 'broker',
          docket_number: 'MC-100002',
          order_type: 'SUSPENSION',
          days_until: 16,
        },
      },
    )
    expect(b).toMatchObject({
      type: 'trust_fund',
      form: 'BMC-85',
      provider: 'TRUST PROVIDER CO',
      amount: 50_000,
      minimum: 75_000,
      meets_minimum: false,
      pending_cancellation: null,
      // the carrier's suspension is not the broker security's
      suspension: {
        state: 'suspension_pending',
        effective_date: '2026-12-01',
        reason: 'bond_drawdown',
        authority_type: 'broker',
      },
    })
  })

  test('nothing known → on_file null, every field null', () => {
    expect(toBondJson(emptyInsurance())).toEqual({
      on_file: null,
      required: null,
      type: null,
      form: null,
      amount: null,
      surety: null,
      bond_number: null,
      effective_date: null,
      cancellation_date: null,
      status: null,
      docket_number: null,
      provider: null,
      minimum: 75_000,
      meets_minimum: null,
      pending_cancellation: null,
      suspension: null,
      history: [],
    })
  })
})
