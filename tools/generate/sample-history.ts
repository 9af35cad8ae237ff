/**
 * The sample's previous census (`previous/az4n-8mr2.csv`): the Company Census as it stood two
 * weeks before the sample, so the sample's identity history has a change from the first start
 * (src/identity/history.ts compares it with the sample census; data/sample/README.md).
 * It is the sample census with the older values of the companies in PREVIOUS_VALUES.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Papa from 'papaparse'
import { CENSUS_COLUMNS } from '../../src/census/columns.ts'

/** USDOT → the census fields it had two weeks earlier (its phone and e-mail changed since). */
export const PREVIOUS_VALUES: Record<string, Record<string, string>> = {
  '1000212': { PHONE: '5595792120', EMAIL_ADDRESS: 'office@ontimetransport.example' },
}

const quote = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v)

/** Writes `<dir>/previous/az4n-8mr2.csv` from `<dir>/az4n-8mr2.csv`. */
export function writePreviousCensus(dir: string): string {
  const lines = readFileSync(join(dir, 'az4n-8mr2.csv'), 'utf8').split('\n')
  const dotAt = CENSUS_COLUMNS.indexOf('DOT_NUMBER')
  const out = lines.map((line, i) => {
    if (i === 0 || line === '') return line
    const fields = Papa.parse<string[]>(line).data[0] ?? []
    const older = PREVIOUS_VALUES[fields[dotAt] ?? '']
    if (!older) return line
    for (const [column, value] of Object.entries(older))
      fields[CENSUS_COLUMNS.indexOf(column)] = value
    return fields.map(quote).join(',')
  })
  mkdirSync(join(dir, 'previous'), { recursive: true })
  const path = join(dir, 'previous', 'az4n-8mr2.csv')
  writeFileSync(path, out.join('\n'))
  return path
}
