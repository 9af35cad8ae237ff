/** Writes census files in the real 147-column format for tests. */
import { writeFileSync } from 'node:fs'
import { CENSUS_COLUMNS } from '../census/columns.ts'

export type CensusFields = Partial<Record<(typeof CENSUS_COLUMNS)[number], string>>

const quote = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v)

export function censusLine(fields: CensusFields & { DOT_NUMBER: string }): string {
  const f = fields as Record<string, string | undefined>
  return CENSUS_COLUMNS.map((c) => quote(f[c] ?? '')).join(',')
}

/** A plausible active for-hire carrier; override any column. */
export function carrierRow(
  dot: number,
  over: CensusFields = {},
): CensusFields & { DOT_NUMBER: string } {
  return {
    MCS150_DATE: '20250429',
    ADD_DATE: '19990221',
    STATUS_CODE: 'A',
    DOT_NUMBER: String(dot),
    CARRIER_OPERATION: 'A',
    MCS150_MILEAGE: '531000',
    MCS150_MILEAGE_YEAR: '2024',
    PHONE: '7124392831',
    POWER_UNITS: '32',
    TRUCK_UNITS: '29',
    TOTAL_DRIVERS: '30',
    TOTAL_CDL: '30',
    HM_Ind: 'N',
    CLASSDEF: 'AUTHORIZED FOR HIRE',
    LEGAL_NAME: `TEST CARRIER ${dot} LLC`,
    PHY_STREET: '805 ELM ST',
    PHY_CITY: 'HULL',
    PHY_STATE: 'IA',
    PHY_ZIP: '51239',
    PHY_COUNTRY: 'US',
    CARRIER_MAILING_STREET: 'PO BOX 1',
    CARRIER_MAILING_CITY: 'HULL',
    CARRIER_MAILING_STATE: 'IA',
    CARRIER_MAILING_ZIP: '512390001',
    CARRIER_MAILING_COUNTRY: 'US',
    EMAIL_ADDRESS: `Ops${dot}@Example.com`,
    SAFETY_RATING: 'S',
    SAFETY_RATING_DATE: '20060103',
    OWNTRUCK: '12',
    OWNTRACT: '17',
    OWNTRAIL: '17',
    TRMTRACT: '2',
    CRGO_GENFREIGHT: 'X',
    DOCKET1PREFIX: 'MC',
    DOCKET1: String(dot % 1_000_000),
    DOCKET1_STATUS_CODE: 'A',
    ...over,
  }
}

/** Writes a census CSV (header + lines); extra raw lines are appended verbatim (for malformed rows). */
export function writeCensus(
  path: string,
  rows: (CensusFields & { DOT_NUMBER: string })[],
  rawLines: string[] = [],
): void {
  writeFileSync(
    path,
    [CENSUS_COLUMNS.join(','), ...rows.map(censusLine), ...rawLines].join('\n') + '\n',
  )
}
