/** identity.private_entity: true, false when any file says "not private", null only when none says. */
import { describe, expect, test } from 'vitest'
import type { CensusRow } from '../census/read.ts'
import { censusRow } from '../testing/trust.ts'
import { entityTypes, privateEntity } from './entity.ts'

const judge = (census: CensusRow | null, privateOnly: boolean | null) =>
  privateEntity(census, privateOnly, entityTypes({ census, roles: null, privateOnly }))

const bare = (over: Partial<CensusRow> = {}) =>
  censusRow({ classdef: null, power_units: null, dockets: null, ...over })

describe('private_entity', () => {
  test('a private-only company without a docket is private', () => {
    expect(judge(bare({ classdef: 'PRIVATE PROPERTY', power_units: 3 }), null)).toBe(true)
    expect(judge(bare(), true)).toBe(true)
  })

  test('an explicit "not private" in any file gives false', () => {
    // SMS PRIVATE_ONLY false, with nothing else on file
    expect(judge(bare(), false)).toBe(false)
    // a census class that is not private
    expect(judge(bare({ classdef: 'AUTHORIZED FOR HIRE' }), null)).toBe(false)
    expect(judge(bare({ classdef: 'PRIVATE PROPERTY;EXEMPT FOR HIRE' }), null)).toBe(false)
    // private classes, but a docket: a for-hire authority holder
    expect(judge(bare({ classdef: 'PRIVATE PROPERTY', dockets: '["MC123456"]' }), null)).toBe(false)
  })

  test('null only when no file says either way', () => {
    expect(judge(bare(), null)).toBeNull()
    expect(judge(null, null)).toBeNull()
  })
})
