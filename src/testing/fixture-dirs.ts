/** Small census directories for tests: a live mirror and a distinct sandbox sample. */
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { carrierRow, writeCensus } from './census-fixture.ts'

/** Live census: 344554 (HULL COOPERATIVE ASSOCIATION, as in the real fixture) and 1000001..1000009. */
export function liveCensusDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cvk-live-'))
  writeCensus(join(dir, 'az4n-8mr2.csv'), [
    carrierRow(344554, {
      LEGAL_NAME: 'HULL COOPERATIVE ASSOCIATION',
      DOCKET1: '421775',
      EMAIL_ADDRESS: 'accounting@hullcoop.com',
    }),
    ...Array.from({ length: 9 }, (_, i) => carrierRow(1_000_001 + i)),
  ])
  return dir
}

/** Sandbox sample: different companies (9000001, 9000002) so tests can tell the channels apart. */
export function sampleCensusDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cvk-sample-'))
  mkdirSync(dir, { recursive: true })
  writeCensus(join(dir, 'az4n-8mr2.csv'), [
    carrierRow(9_000_001, { LEGAL_NAME: 'SAMPLE FREIGHT INC' }),
    carrierRow(9_000_002, { LEGAL_NAME: 'SAMPLE BROKERS LLC' }),
  ])
  return dir
}

/** The SMS fixture files (test/fixtures/safety/README.md): inspections and crashes with units. */
export const SAFETY_FIXTURES = fileURLToPath(
  new URL('../../test/fixtures/safety/', import.meta.url),
)
