import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeAll, describe, expect, test } from 'vitest'
import { buildDatasetFile } from '../ingest/build.ts'
import { openSqlite, type Sqlite } from '../db/open.ts'
import { carrierRow, writeCensus } from '../testing/census-fixture.ts'
import { stoppedPart } from '../testing/parts.ts'
import { CENSUS_FILE_ID, censusDataset } from './census.ts'
import { SEARCH_PARTS, SEARCH_PARTS_MIN_COMPANIES, startSearchBuild } from './search-build.ts'
import { buildSearchPart, pairWords, TIERS } from './search-index.ts'

const WORDS = ['SMITH', 'EXPRESS', 'TRUCKING', 'LOGISTICS', 'AND', 'SONS', 'JOSÉ', '"B"', '#1']
const STATES = ['TX', 'CA', 'IA', 'ON', '']
const CLASSES = ['AUTHORIZED FOR HIRE', 'PRIVATE PROPERTY', 'EXEMPT FOR HIRE', '']

/** A varied census: every tier, leading punctuation, accents, pair words, states, entity types. */
function rows(n: number) {
  return Array.from({ length: n }, (_, i) => {
    const dot = 3_000_000 + i * 7
    const name = [0, 1, 2, 3]
      .map((k) => WORDS[(i * (k + 3) + k) % WORDS.length])
      .slice(0, 2 + (i % 3))
      .join(' ')
    return carrierRow(dot, {
      LEGAL_NAME: `${name} ${i % 11}`,
      DBA_NAME: i % 4 === 0 ? `${WORDS[i % WORDS.length]} HAULING` : '',
      STATUS_CODE: i % 5 === 0 ? 'I' : 'A',
      DOCKET1PREFIX: i % 3 === 0 ? '' : 'MC',
      PHY_STATE: STATES[i % STATES.length],
      PHY_COUNTRY: i % STATES.length === 3 ? 'CA' : 'US',
      CLASSDEF: CLASSES[i % CLASSES.length],
      POWER_UNITS: String(i % 4),
    })
  })
}

/** Companies in the test census: below SEARCH_PARTS_MIN_COMPANIES */
const COMPANIES = 3_000
let dir: string
let serial: string
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cvk-search-build-'))
  const csv = join(dir, 'census.csv')
  writeCensus(csv, rows(COMPANIES))
  serial = join(dir, 'serial.db')
  // 3,000 companies: below SEARCH_PARTS_MIN_COMPANIES, so the build makes the index in its thread
  await buildDatasetFile(censusDataset, new Map([[CENSUS_FILE_ID, csv]]), serial, {
    asOf: '2026-11-20',
    today: '2026-11-20',
    signal: AbortSignal.timeout(30_000),
  })
  return () => rmSync(dir, { recursive: true, force: true })
})

const SEARCH_TABLES = [
  'search_terms',
  'search_prefixes',
  'search_pair_words',
  'search_tag_kinds',
  ...TIERS.flatMap((t) => [`${t.table}_data`, `${t.table}_idx`, `${t.table}_config`]),
]

/** A copy of the serially built file with its search index dropped: a census build after its load. */
function loadedCopy(name: string): { path: string; db: Sqlite } {
  const path = join(dir, name)
  copyFileSync(serial, path)
  const build = openSqlite(path, 'readwrite')
  build.pragma('journal_mode = MEMORY')
  build.pragma('locking_mode = EXCLUSIVE')
  for (const t of TIERS) build.exec(`DROP TABLE ${t.table}`)
  for (const t of SEARCH_TABLES.slice(0, 4)) build.exec(`DROP TABLE ${t}`)
  return { path, db: build }
}

const phases = () => {
  const seen: Record<string, number> = {}
  return { seen, phase: (k: string, s: number) => (seen[k] = (seen[k] ?? 0) + s) }
}
const leftovers = (path: string) =>
  readdirSync(dir).filter((f) => f.startsWith(`${path.split('/').pop() ?? ''}-`))

describe('the search index built in parts (other threads), then copied in', () => {
  const opened: Sqlite[] = []
  afterEach(() => {
    for (const db of opened.splice(0)) if (db.open) db.close()
  })

  test('gives the same index, row for row, as the build in one thread', async () => {
    expect(SEARCH_PARTS_MIN_COMPANIES).toBeGreaterThan(COMPANIES)
    const { path, db } = loadedCopy('parts.db')
    opened.push(db)
    const p = phases()
    const search = await startSearchBuild(db, {
      path,
      companies: COMPANIES,
      signal: AbortSignal.timeout(30_000),
      phase: p.phase,
      parts: true,
    })
    // while the parts read the file, this connection writes it (the census' contact indexes)
    db.exec('CREATE INDEX test_meanwhile ON companies (phy_zip)')
    await search.finish()
    db.pragma('journal_mode = DELETE')
    db.close()
    expect(Object.keys(p.seen)).toEqual(
      expect.arrayContaining(['fts', 'fts.words', 'fts.parts', 'fts.wait', 'fts.copy']),
    )
    // the part files and the WAL are gone
    expect(leftovers(path)).toEqual([])

    const a = openSqlite(serial, 'readonly')
    const b = openSqlite(path, 'readonly')
    opened.push(a, b)
    for (const table of SEARCH_TABLES) {
      const columns = a.pragma(`table_info(${table})`) as { cid: number }[]
      const order = columns.map((c) => c.cid + 1).join(', ')
      const all = (d: Sqlite) => d.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).raw().all()
      const rowsA = all(a)
      expect(rowsA.length, table).toBeGreaterThan(0)
      expect(all(b), table).toEqual(rowsA)
    }
    // FTS5's own check of each tier, and the words of the names are found through it
    // (a command FTS5 takes as an INSERT: a connection that may write, the file left as it is)
    const check = new Database(path)
    opened.push(check)
    for (const t of TIERS)
      check.exec(`INSERT INTO ${t.table}(${t.table}) VALUES ('integrity-check')`)
    const hits = (q: string) =>
      b
        .prepare(
          `SELECT count(*) FROM (${TIERS.map((t) => `SELECT rowid FROM ${t.table} WHERE ${t.table} MATCH ?`).join(' UNION ALL ')})`,
        )
        .pluck()
        .get(...TIERS.map(() => q))
    // accents folded (JOSÉ), a first word after leading punctuation ("B"), a state tag
    for (const q of ['jose', 'fwb', 'sttx', 'fw1 AND stca']) expect(hits(q), q).toBeGreaterThan(0)
    expect(b.pragma('quick_check', { simple: true })).toBe('ok')
    expect(b.pragma('journal_mode', { simple: true })).toBe('delete')
  })

  test('a failing part fails the build and leaves no part file', async () => {
    const { db } = loadedCopy('failing.db')
    opened.push(db)
    // the parts read another file, which has no companies table
    const wrong = join(dir, 'empty.db')
    openSqlite(wrong, 'readwrite').close()
    const search = await startSearchBuild(db, {
      path: wrong,
      companies: COMPANIES,
      signal: AbortSignal.timeout(30_000),
      phase: () => {},
      parts: true,
    })
    await expect(search.finish()).rejects.toThrow(/search index part: .*companies/)
    expect(SEARCH_PARTS.every((_, i) => !existsSync(`${wrong}-search${i}`))).toBe(true)
  })

  test('a part asked to stop fails with an ordinary error and leaves no transaction open', () => {
    // parts are stopped by a shared flag, never by terminate(): a thread terminated while SQLite
    // ran the tags function on its rows brought V8, and the whole process, down
    const { path, db } = loadedCopy('stopped.db')
    opened.push(db)
    const words = pairWords(db)
    db.close()
    const part = stoppedPart(path, join(dir, 'stopped-part.db'), { tiers: [TIERS[1]], words })
    const target = part.db
    opened.push(target)
    expect(() => buildSearchPart(part.job, target, part.stop)).toThrow('build part stopped')
    expect(target.inTransaction).toBe(false)
    expect(
      target.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'").get(),
    ).toEqual({ n: 0 })
  })

  test('an abort stops the parts and removes their files', async () => {
    const { path, db } = loadedCopy('aborted.db')
    opened.push(db)
    const stop = new AbortController()
    const search = await startSearchBuild(db, {
      path,
      companies: COMPANIES,
      signal: stop.signal,
      phase: () => {},
      parts: true,
    })
    stop.abort(new Error('stopped by the test'))
    await expect(search.finish()).rejects.toThrow('stopped by the test')
    expect(SEARCH_PARTS.every((_, i) => !existsSync(`${path}-search${i}`))).toBe(true)

    const again = loadedCopy('aborted-2.db')
    opened.push(again.db)
    const other = await startSearchBuild(again.db, {
      path: again.path,
      companies: COMPANIES,
      signal: AbortSignal.timeout(30_000),
      phase: () => {},
      parts: true,
    })
    // the caller's own indexes failed: abort() stops the parts
    await other.abort()
    expect(SEARCH_PARTS.every((_, i) => !existsSync(`${again.path}-search${i}`))).toBe(true)
  })
})
