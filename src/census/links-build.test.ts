import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { buildDatasetFile } from '../ingest/build.ts'
import { openSqlite, type Sqlite } from '../db/open.ts'
import { carrierRow, writeCensus } from '../testing/census-fixture.ts'
import { CENSUS_FILE_ID, censusDataset } from './census.ts'
import { COMMON_NAME_MARK } from './link-keys.ts'
import { LINK_BITS, LINK_CAPS } from './links-build.ts'

const COMPANIES = 1_200
const OFFICERS = ['JOHN A SMITH', 'Smith, John', 'MARIA OKAFOR', 'OKAFOR, MARIA', 'Li Wei Zhang']

/**
 * Contacts drawn from small pools, so values are shared by a few companies (links), by more than
 * the caps (suppressed), or by none; officers spelled several ways, common and rare names.
 */
function rows() {
  return Array.from({ length: COMPANIES }, (_, i) => {
    const dot = 5_000_000 + i * 3
    return carrierRow(dot, {
      PHONE:
        i % 2 === 0 ? `515${String(i % 97).padStart(7, '0')}` : `614${String(i).padStart(7, '0')}`,
      FAX: i % 3 === 0 ? `712${String(i % 41).padStart(7, '0')}` : '',
      EMAIL_ADDRESS: i % 5 === 0 ? `shared${i % 7}@example.com` : `own${i}@example.com`,
      PHY_STREET: i % 4 === 0 ? `${i % 53} North Main Street` : `${i} ELM ST`,
      COMPANY_OFFICER_1: i % 40 === 0 ? OFFICERS[(i / 40) % OFFICERS.length] : `PAT ${i} ROE`,
      COMPANY_OFFICER_2: i % 110 === 0 ? OFFICERS[(i / 110 + 2) % OFFICERS.length] : '',
    })
  })
}

let dir: string
let serial: string
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cvk-links-build-'))
  const csv = join(dir, 'census.csv')
  writeCensus(csv, rows())
  serial = join(dir, 'serial.db')
  await buildDatasetFile(censusDataset, new Map([[CENSUS_FILE_ID, csv]]), serial, {
    asOf: '2026-11-20',
    today: '2026-11-20',
    signal: AbortSignal.timeout(60_000),
  })
  return () => rmSync(dir, { recursive: true, force: true })
})

type Company = {
  dot_number: number
  phone: string | null
  fax: string | null
  email: string | null
  address_key: string | null
  officer_1: string | null
  officer_2: string | null
  officer_1_key: string | null
  officer_2_key: string | null
}

/** The link index of docs/identity.md, computed the plain way from the companies. */
function expected(db: Sqlite) {
  const companies = db.prepare('SELECT * FROM companies').all() as Company[]
  const groups = new Map<string, { dot: number; name: string | null }[]>()
  const add = (kind: string, value: string | null, dot: number, name: string | null = null) => {
    if (value === null) return
    const g = groups.get(`${kind}\t${value}`) ?? []
    if (!g.some((m) => m.dot === dot)) g.push({ dot, name })
    groups.set(`${kind}\t${value}`, g)
  }
  for (const c of companies) {
    add('phone', c.phone, c.dot_number)
    add('fax', c.fax, c.dot_number)
    add('email', c.email, c.dot_number)
    add('address', c.address_key, c.dot_number)
    add('officer', c.officer_1_key, c.dot_number, c.officer_1?.toUpperCase() ?? null)
    add('officer', c.officer_2_key, c.dot_number, c.officer_2?.toUpperCase() ?? null)
  }
  const values: [string, string, number][] = []
  const pairs = new Map<string, number>()
  for (const [key, g] of groups) {
    if (g.length < 2) continue
    const [kind, value] = key.split('\t') as [
      keyof typeof LINK_CAPS & keyof typeof LINK_BITS,
      string,
    ]
    values.push([kind, value, g.length])
    if (g.length > LINK_CAPS[kind]) continue
    for (const x of g)
      for (const y of g) {
        if (x.dot === y.dot) continue
        let bit: number = LINK_BITS[kind]
        if (kind === 'officer')
          bit =
            x.name === y.name && !value.startsWith(COMMON_NAME_MARK)
              ? LINK_BITS.officer
              : LINK_BITS.officerKey
        const k = `${x.dot} ${y.dot}`
        pairs.set(k, (pairs.get(k) ?? 0) | bit)
      }
  }
  return {
    values: values.sort((a, b) => (`${a[0]}\t${a[1]}` < `${b[0]}\t${b[1]}` ? -1 : 1)),
    pairs: [...pairs]
      .map(([k, bits]) => [...k.split(' ').map(Number), bits])
      .sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number)),
  }
}

const linkTables = (db: Sqlite) => ({
  values: db
    .prepare('SELECT kind, value, companies FROM link_values ORDER BY kind, value')
    .raw()
    .all(),
  pairs: db
    .prepare('SELECT dot_number, other, shared FROM company_links ORDER BY dot_number, other')
    .raw()
    .all(),
})

describe('the link index of the census build', () => {
  test('holds every shared value and every pair within the caps, with their kinds', () => {
    const db = openSqlite(serial, 'readonly')
    try {
      const want = expected(db)
      const got = linkTables(db)
      // the pools give links of every kind, and values over the caps
      expect(new Set(want.values.map((v) => v[0]))).toEqual(
        new Set(['phone', 'fax', 'email', 'address', 'officer']),
      )
      expect(want.values.some(([k, , n]) => n > LINK_CAPS[k as keyof typeof LINK_CAPS])).toBe(true)
      expect(want.pairs.some((p) => ((p[2] as number) & LINK_BITS.officer) !== 0)).toBe(true)
      expect(want.pairs.some((p) => ((p[2] as number) & LINK_BITS.officerKey) !== 0)).toBe(true)
      expect(got.values).toEqual(want.values)
      expect(got.pairs).toEqual(want.pairs)
      // only the phone and e-mail indexes of companies are kept, and no working table
      const names = db
        .prepare("SELECT name FROM sqlite_schema WHERE tbl_name = 'companies' AND type = 'index'")
        .pluck()
        .all()
      expect(names.sort()).toEqual(['companies_email', 'companies_phone'])
      const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all()
      expect(tables).toEqual(expect.arrayContaining(['link_values', 'company_links']))
      for (const work of ['officer_keys', 'link_pairs']) expect(tables).not.toContain(work)
    } finally {
      db.close()
    }
  })
})
