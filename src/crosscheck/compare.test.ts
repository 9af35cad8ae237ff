import { describe, expect, test } from 'vitest'
import { baseCarrier } from '../testing/qcmobile-server.ts'
import { agrees, compareFacts, nameKey, regulatorFacts, type Facts } from './compare.ts'
import { RegulatorCarrier } from './qcmobile.ts'

const veriha = () => RegulatorCarrier.parse(baseCarrier())

describe('nameKey', () => {
  test.each([
    ['A.B.C. TRUCKING, INC.', 'ABC Trucking Inc'],
    ['  SMITH-JONES   LOGISTICS LLC', 'Smith Jones Logistics, L.L.C.'],
    ['R & R FREIGHT', 'R AND R FREIGHT'],
    ['TRANSPORTES JOSÉ', 'TRANSPORTES JOSE'],
  ])('%s equals %s', (a, b) => {
    expect(nameKey(a)).toBe(nameKey(b))
  })

  test('different names differ', () => {
    expect(nameKey('VERIHA TRUCKING INC')).not.toBe(nameKey('VERIHA TRANSPORT INC'))
  })
})

describe('agrees', () => {
  test.each([
    ['exact', 'ACTIVE', 'ACTIVE', true],
    ['exact', 'A', 'I', false],
    ['exact', 1_000_000, 750_000, false],
    ['exact', null, null, true],
    ['exact', null, '2024-01-02', false],
    ['name', 'VERIHA TRUCKING, INC.', 'Veriha Trucking Inc', true],
    ['count', 259, 262, true], // within 10 %
    ['count', 3, 5, true], // within 2
    ['count', 3, 6, false],
    ['count', 100, 115, false],
    ['rate', 1.16, 2.5, true], // within 2 points
    ['rate', 13.71, 25, false],
    ['rate', 40, 43.9, true], // within 10 %
  ] as const)('%s: %s vs %s → %s', (rule, m, r, expected) => {
    expect(agrees(rule, m, r)).toBe(expected)
  })
})

describe('compareFacts', () => {
  test('only fields both sources have are compared', () => {
    const mirror: Facts = { legal_name: 'X LLC', 'fleet.power_units': 3 }
    const regulator: Facts = { legal_name: 'X, L.L.C.', 'fleet.total_drivers': 9 }
    expect(compareFacts(mirror, regulator)).toEqual([])
  })

  test('differences carry both values in the record units', () => {
    const mirror: Facts = { 'insurance.bipd_on_file': 750_000, 'safety.safety_rating': null }
    const regulator: Facts = {
      'insurance.bipd_on_file': 1_000_000,
      'safety.safety_rating': 'Satisfactory',
    }
    expect(compareFacts(mirror, regulator)).toEqual([
      { field: 'insurance.bipd_on_file', mirror: 750_000, regulator: 1_000_000 },
      { field: 'safety.safety_rating', mirror: null, regulator: 'Satisfactory' },
    ])
  })
})

describe('regulatorFacts', () => {
  test('the real capture in record units: dollars, words, YYYY-MM-DD, rates to 2 decimals', () => {
    const f = regulatorFacts(veriha())
    expect(f).toMatchObject({
      legal_name: 'VERIHA TRUCKING INC',
      dba_name: null,
      'authority.status': 'ACTIVE',
      'authority.allowed_to_operate': 'Y',
      'authority.common_authority': 'A',
      'authority.contract_authority': 'A',
      'authority.broker_authority': 'N',
      'insurance.bipd_on_file': 1_000_000,
      'insurance.bipd_required': 750_000,
      'insurance.cargo_filed': false,
      'insurance.bond_filed': false,
      'fleet.power_units': 213,
      'fleet.total_drivers': 213,
      'safety.safety_rating': 'Satisfactory',
      'safety.safety_rating_date': '1996-04-25',
      'identity.out_of_service_date': null,
      'safety.crash_total': 15,
      'safety.injury_crash': 3,
      'safety.driver_oos_rate': 1.16,
      'safety.vehicle_oos_rate': 13.71,
    })
  })

  test('an unrated carrier has no rating date to compare', () => {
    const f = regulatorFacts({ ...veriha(), safetyRating: null })
    expect(f['safety.safety_rating']).toBeNull()
    expect('safety.safety_rating_date' in f).toBe(false)
  })

  test('an unknown status code is kept as sent', () => {
    expect(regulatorFacts({ ...veriha(), statusCode: 'P' })['authority.status']).toBe('P')
  })
})
