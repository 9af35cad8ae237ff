import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { buildDatasetFile } from '../ingest/build.ts'
import { openSqlite, type Sqlite } from '../db/open.ts'
import { carrierRow, writeCensus } from '../testing/census-fixture.ts'
import { CENSUS_FILE_ID, censusDataset } from './census.ts'
import { addressLinkKey, officerLinkKey } from './link-keys.ts'
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
  phy_street: string | null
  phy_city: string | null
  phy_state: string | null
  address_key: number | null
  officer_1: string | null
  officer_2: string | null
  officer_1_key: number | null
  officer_2_key: number | null
}

type Kind = keyof typeof LINK_CAPS & keyof typeof LINK_BITS
type Value = string | number

/** link_values rows in one order, whatever the value's type (SQLite sorts integers first). */
const byKindValue = (a: unknown[], b: unknown[]) => {
  const x = `${String(a[0])}\t${typeof a[1]}\t${String(a[1])}`
  const y = `${String(b[0])}\t${typeof b[1]}\t${String(b[1])}`
  return x < y ? -1 : x > y ? 1 : 0
}

/**
 * The link index of docs/identity.md, computed the plain way from the companies: the officer and
 * address keys from the names and addresses as stored (the row parser must have stored the same).
 */
function expected(db: Sqlite) {
  const companies = db.prepare('SELECT * FROM companies').all() as Company[]
  const groups = new Map<
    string,
    { kind: Kind; value: Value; members: { dot: number; name: string | null }[] }
  >()
  const add = (kind: Kind, value: Value | null, dot: number, name: string | null = null) => {
    if (value === null) return
    const key = `${kind}\t${typeof value}\t${value}`
    const g = groups.get(key) ?? { kind, value, members: [] }
    if (!g.members.some((m) => m.dot === dot)) g.members.push({ dot, name })
    groups.set(key, g)
  }
  for (const c of companies) {
    const officer1 = officerLinkKey(c.officer_1)
    const officer2 = officerLinkKey(c.officer_2)
    const address = addressLinkKey(c.phy_street, c.phy_city, c.phy_state)
    expect([c.officer_1_key, c.officer_2_key, c.address_key]).toEqual([officer1, officer2, address])
    add('phone', c.phone, c.dot_number)
    add('fax', c.fax, c.dot_number)
    add('email', c.email, c.dot_number)
    add('address', address, c.dot_number)
    add('officer', officer1, c.dot_number, c.officer_1?.toUpperCase() ?? null)
    add('officer', officer2, c.dot_number, c.officer_2?.toUpperCase() ?? null)
  }
  const values: [Kind, Value, number][] = []
  const pairs = new Map<string, number>()
  for (const { kind, value, members: g } of groups.values()) {
    if (g.length < 2) continue
    values.push([kind, value, g.length])
    if (g.length > LINK_CAPS[kind]) continue
    for (const x of g)
      for (const y of g) {
        if (x.dot === y.dot) continue
        let bit: number = LINK_BITS[kind]
        if (kind === 'officer')
          bit =
            x.name === y.name && (value as number) > 0 ? LINK_BITS.officer : LINK_BITS.officerKey
        const k = `${x.dot} ${y.dot}`
        pairs.set(k, (pairs.get(k) ?? 0) | bit)
      }
  }
  return {
    values: values.sort(byKindValue),
    pairs: [...pairs]
      .map(([k, bits]) => [...k.split(' ').map(Number), bits])
      .sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number)),
  }
}

const linkTables = (db: Sqlite) => ({
  values: (
    db.prepare('SELECT kind, value, companies FROM link_values').raw().all() as unknown[][]
  ).sort(byKindValue),
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
