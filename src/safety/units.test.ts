import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { parsePercentile } from './basics.ts'
import { DEFAULT_NATIONAL_AVERAGES, nationalAverages } from './national-averages.ts'
import { isOosOrderActive } from './oos.ts'
import { parsedRows } from './read.ts'
import {
  byHeader,
  F_DRIVER,
  F_DRIVER_OOS,
  F_HAZMAT,
  F_HAZMAT_OOS,
  F_UNKNOWN_LEVEL,
  F_VEHICLE,
  F_VEHICLE_OOS,
  makeCrashRow,
  makeInspectionRow,
  makeOosOrderRow,
  makePassRow,
  SEV_FATAL,
  SEV_INJURY,
  SEV_TOW,
} from './rows.ts'
import { MIN_INSPECTIONS_FOR_RATE, isRateReliable, oosRate } from './record.ts'
import { windowStart } from './sms.ts'
import type { BuildContext } from '../ingest/types.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function file(content: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'cvk-named-'))
  dirs.push(dir)
  const p = join(dir, 'f.csv')
  writeFileSync(p, content)
  return p
}

describe('oosRate', () => {
  it('is 100 × OOS / inspections with 2 decimals', () => {
    expect(oosRate(3, 259)).toBe(1.16) // QCMobile: 1.158301158…
    expect(oosRate(1, 3)).toBe(33.33)
    expect(oosRate(2, 3)).toBe(66.67)
    expect(oosRate(1, 8)).toBe(12.5)
    expect(oosRate(0, 10)).toBe(0)
    expect(oosRate(5, 5)).toBe(100)
  })

  it('is null without inspections, never a made-up 0', () => {
    expect(oosRate(0, 0)).toBeNull()
    expect(oosRate(null, null)).toBeNull()
    expect(oosRate(null, 4)).toBeNull()
  })

  it('small samples are flagged, not hidden', () => {
    expect(MIN_INSPECTIONS_FOR_RATE).toBe(5)
    expect(isRateReliable(null)).toBe(false)
    expect(isRateReliable(4)).toBe(false)
    expect(isRateReliable(5)).toBe(true)
  })
})

describe('windowStart', () => {
  it('gives exactly 24 months, both ends inclusive', () => {
    expect(windowStart('2026-08-14')).toBe('2024-08-15')
    expect(windowStart('2026-08-31')).toBe('2024-09-01')
    expect(windowStart('2026-01-01')).toBe('2024-01-02')
    expect(windowStart('2026-12-31')).toBe('2025-01-01')
    // Feb 28 two years after a leap year: the day after Feb 28, 2024 is Feb 29
    expect(windowStart('2026-02-28')).toBe('2024-02-29')
    // clamped to the end of a shorter month
    expect(windowStart('2028-02-29')).toBe('2026-03-01')
  })
})

describe('parsePercentile', () => {
  it('reads `64%`, keeps text as the reason, blank as nothing', () => {
    expect(parsePercentile('64%')).toEqual({ value: 64, text: null })
    expect(parsePercentile(' 0% ')).toEqual({ value: 0, text: null })
    expect(parsePercentile('99.5')).toEqual({ value: 99.5, text: null })
    expect(parsePercentile('Less than 5 vehicle inspections')).toEqual({
      value: null,
      text: 'Less than 5 vehicle inspections',
    })
    expect(parsePercentile('150%')).toEqual({ value: null, text: '150%' })
    expect(parsePercentile('')).toEqual({ value: null, text: null })
    expect(parsePercentile(undefined)).toEqual({ value: null, text: null })
  })
})

describe('nationalAverages', () => {
  it('defaults to the figures QCMobile returns', () => {
    expect(nationalAverages()).toEqual({
      driver: 5.51,
      vehicle: 20.72,
      hazmat: 4.5,
      period: '2009-2010',
    })
  })

  it('applies overrides and refuses nonsense', () => {
    expect(nationalAverages({ hazmat: 4.1, period: ' 2023 ' })).toEqual({
      ...DEFAULT_NATIONAL_AVERAGES,
      hazmat: 4.1,
      period: '2023',
    })
    expect(() => nationalAverages({ driver: -1 })).toThrow(RangeError)
    expect(() => nationalAverages({ vehicle: Number.NaN })).toThrow(RangeError)
    expect(() => nationalAverages({ period: ' ' })).toThrow(RangeError)
  })
})

describe('isOosOrderActive', () => {
  const order = { oos_date: '2026-01-01', reason: null, status: 'ACTIVE', rescind_date: null }
  it('ACTIVE without a rescind date, or with one still ahead', () => {
    expect(isOosOrderActive(order, '2026-09-10')).toBe(true)
    expect(isOosOrderActive({ ...order, rescind_date: '2026-09-11' }, '2026-09-10')).toBe(true)
    expect(isOosOrderActive({ ...order, rescind_date: '2026-09-10' }, '2026-09-10')).toBe(false)
    expect(isOosOrderActive({ ...order, status: 'RESCINDED' }, '2026-09-10')).toBe(false)
    expect(isOosOrderActive({ ...order, status: null }, '2026-09-10')).toBe(false)
  })
})

describe('byHeader', () => {
  const parser = () => byHeader(['A', 'B'], ['C'], (f, ix) => [f[ix.A], f[ix.B], ix.C])

  it('finds columns by name in any order and case, then parses rows', () => {
    const p = parser()
    expect(p(['b', ' A ', 'extra'])).toBeNull()
    expect(p(['2', '1', 'x'])).toEqual(['1', '2', -1])
    expect(p(['2', '1'])).toBe('expected 3 fields, got 2')
  })

  it('throws a FormatError when a required column is missing', () => {
    expect(() => parser()(['A', 'X'])).toThrow(/missing B/)
  })
})

describe('row parsers', () => {
  it('inspection: levels, OOS and hazmat flags, dates in any form', () => {
    const p = makeInspectionRow()
    p([
      'dot_number',
      'insp_date',
      'insp_level_id',
      'driver_oos_total',
      'vehicle_oos_total',
      'hazmat_oos_total',
      'hm_insp',
      'hazmat_placard_req',
    ])
    const day = (iso: string) => Date.parse(iso) / 86_400_000
    expect(p(['123', '30-JAN-24', '1', '1', '0', '0', 'false', 'false'])).toEqual([
      123,
      day('2024-01-30'),
      F_DRIVER | F_DRIVER_OOS | F_VEHICLE,
    ])
    expect(p(['123', '20240130', '5', '2', '1', '0', 'N', 'N'])).toEqual([
      123,
      day('2024-01-30'),
      F_VEHICLE | F_VEHICLE_OOS,
    ])
    expect(p(['123', '2024-01-30T00:00:00.000', '3', '0', '0', '1', 'false', 'true'])).toEqual([
      123,
      day('2024-01-30'),
      F_DRIVER | F_HAZMAT | F_HAZMAT_OOS,
    ])
    expect(p(['123', '30-JAN-24', '', '0', '0', '0', 'false', 'false'])).toEqual([
      123,
      day('2024-01-30'),
      F_UNKNOWN_LEVEL,
    ])
    expect(p(['0', '30-JAN-24', '1', '0', '0', '0', 'false', 'false'])).toBe(
      'invalid DOT_Number "0"',
    )
    expect(p(['123', '31-FEB-24', '1', '0', '0', '0', 'false', 'false'])).toBe(
      'invalid Insp_Date "31-FEB-24"',
    )
  })

  it('crash: worst outcome and report key', () => {
    const p = makeCrashRow()
    p([
      'Report_Number',
      'DOT_Number',
      'Report_Date',
      'Report_State',
      'Fatalities',
      'Injuries',
      'Tow_Away',
    ])
    expect(p(['in001', '5', '01-MAR-26', 'in', '1', '3', 'true'])).toEqual([
      5,
      expect.any(Number),
      SEV_FATAL,
      '5|IN|IN001',
      0,
    ])
    expect(p(['X', '5', '01-MAR-26', 'TX', '0', '0', 'false'])).toEqual([
      5,
      expect.any(Number),
      SEV_TOW,
      '5|TX|X',
      1,
    ])
    expect(p(['', '5', '01-MAR-26', 'TX', '0', '2', 'true'])).toEqual([
      5,
      expect.any(Number),
      SEV_INJURY,
      '',
      0,
    ])
  })

  it('results: counts, measures, percentiles and flags', () => {
    const p = makePassRow()
    const basics = ['UNSAFE_DRIV', 'HOS_DRIV', 'DRIV_FIT', 'CONTR_SUBST', 'VEH_MAINT']
    const header = [
      'DOT_NUMBER',
      'INSP_TOTAL',
      'DRIVER_INSP_TOTAL',
      'DRIVER_OOS_INSP_TOTAL',
      'VEHICLE_INSP_TOTAL',
      'VEHICLE_OOS_INSP_TOTAL',
      ...basics.flatMap((b) =>
        ['INSP_W_VIOL', 'MEASURE', 'PCT', 'RD_ALERT', 'AC', 'BASIC_ALERT'].map((f) => `${b}_${f}`),
      ),
    ]
    p(header)
    const row = [
      '00001234',
      '9',
      '8',
      '1',
      '7',
      '2',
      ...basics.flatMap(() => ['2', '.17', '64%', 'Y', '', 'N']),
    ]
    expect(p(row)).toEqual([
      1234,
      9,
      8,
      1,
      7,
      2,
      ...basics.flatMap(() => [2, 0.17, 64, null, 1, 0, 0]),
    ])
  })

  it('OOS order: dates in any form, STATUS upper case', () => {
    const p = makeOosOrderRow()
    p(['DOT_NUMBER', 'LEGAL_NAME', 'DBA_NAME', 'OOS_DATE', 'OOS_REASON', 'STATUS', 'RESCIND_DATE'])
    expect(p(['7', 'X', '', '05/01/2025', 'NOP', 'active', 'soon'])).toEqual([
      7,
      '2025-05-01',
      'NOP',
      'ACTIVE',
      null,
      0,
      1,
    ])
  })
})

describe('parsedRows', () => {
  const ctxFor = () => {
    const rejects: [string, number, string][] = []
    const ctx = {
      signal: AbortSignal.timeout(30_000),
      reject: (id: string, line: number, reason: string) => rejects.push([id, line, reason]),
    } as unknown as BuildContext
    return { ctx, rejects }
  }
  const content =
    'STATUS,DOT_NUMBER,OOS_DATE,OOS_REASON,RESCIND_DATE\n' +
    'ACTIVE,12,2026-01-02,NOP,\n' +
    'ACTIVE,abc,2026-01-02,NOP,\n' +
    'RESCINDED,13,2025-01-02,UNFIT,2025-02-01\n'

  for (const worker of [false, true])
    it(`${worker ? 'in a worker thread' : 'in this thread'}: rows, rejects with record numbers, header errors`, async () => {
      const { ctx, rejects } = ctxFor()
      const rows = []
      for await (const r of parsedRows(ctx, 'p2mt-9ige', file(content), 'oosOrderRow', { worker }))
        rows.push(r)
      expect(rows).toEqual([
        { line: 1, row: [12, '2026-01-02', 'NOP', 'ACTIVE', null, 0, 0] },
        { line: 3, row: [13, '2025-01-02', 'UNFIT', 'RESCINDED', '2025-02-01', 0, 0] },
      ])
      expect(rejects).toEqual([['p2mt-9ige', 2, 'invalid DOT_NUMBER "abc"']])
      const bad = parsedRows(ctx, 'p2mt-9ige', file('DOT_NUMBER,OOS_DATE\n1,2\n'), 'oosOrderRow', {
        worker,
      })
      await expect(bad.next()).rejects.toThrow(/missing OOS_REASON, STATUS, RESCIND_DATE/)
    })
})
