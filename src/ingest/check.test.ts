import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { openSqlite } from '../db/open.ts'
import { quickCheckFile, tablesBySize } from './check.ts'

const dir = mkdtempSync(join(tmpdir(), 'cv-check-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const TABLES = ['big', 'wide', 'small', 'pairs']

/**
 * A finished build file, made as a build makes one (each table filled, then its indexes, before
 * the next): tables of different sizes, two with indexes, one WITHOUT ROWID, one FTS5.
 */
function makeFile(name: string): string {
  const path = join(dir, name)
  const db = openSqlite(path, 'readwrite')
  const rows = (n: number) =>
    `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n})`
  db.exec(`
    CREATE TABLE big (id INTEGER PRIMARY KEY, name TEXT NOT NULL, n INTEGER);
    ${rows(20_000)} INSERT INTO big SELECT i, 'name ' || (i * 7919 % 20000), i FROM s;
    CREATE INDEX big_name ON big (name);
    CREATE TABLE wide (id INTEGER PRIMARY KEY, doc TEXT);
    ${rows(2_000)} INSERT INTO wide SELECT i, printf('%.600c', 'x') FROM s;
    CREATE TABLE small (k TEXT PRIMARY KEY, v INTEGER);
    ${rows(300)} INSERT INTO small SELECT 'k' || i, i FROM s;
    CREATE TABLE pairs (a INTEGER, b INTEGER, PRIMARY KEY (a, b)) WITHOUT ROWID;
    ${rows(5_000)} INSERT INTO pairs SELECT i, i * 3 % 5000 FROM s;
    CREATE INDEX pairs_b ON pairs (b);
    CREATE VIRTUAL TABLE docs USING fts5(body);
    ${rows(3_000)} INSERT INTO docs SELECT 'word' || (i % 97) || ' other' || (i % 13) FROM s;
  `)
  db.pragma('journal_mode = DELETE')
  db.close()
  return path
}

/** Overwrites the cell count of a leaf page in the middle of `table`'s B-tree. */
function damage(path: string, table: string): void {
  const db = openSqlite(path, 'readonly')
  const pageSize = db.pragma('page_size', { simple: true }) as number
  const leaves = db
    .prepare("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno")
    .pluck()
    .all(table) as number[]
  db.close()
  const page = leaves[Math.floor(leaves.length / 2)]
  if (page === undefined) throw new Error(`no leaf page in ${table}`)
  const fd = openSync(path, 'r+')
  // bytes 3–4 of a B-tree page header: its number of cells
  writeSync(fd, Buffer.from([0xff, 0xff]), 0, 2, (page - 1) * pageSize + (page === 1 ? 103 : 3))
  closeSync(fd)
}

describe('quickCheckFile', () => {
  test('a sound file passes, whole or split between two threads', async () => {
    const path = makeFile('sound.db')
    expect(await quickCheckFile(path, { threads: 1 })).toEqual({ result: 'ok', helperCpu: 0 })
    const split = await quickCheckFile(path, { threads: 2, minPages: 0 })
    expect(split.result).toBe('ok')
    // the checker thread ran (and its CPU was measured on Linux)
    if (process.platform === 'linux') expect(split.helperCpu).not.toBeNull()
  })

  test.each(TABLES)('split between threads, damage in %s is found', async (table) => {
    const path = makeFile(`damaged-${table}.db`)
    damage(path, table)
    const whole = await quickCheckFile(path, { threads: 1 })
    expect(whole.result).not.toBe('ok')
    const split = await quickCheckFile(path, { threads: 2, minPages: 0 })
    expect(split.result).not.toBe('ok')
    // the damaged table is named (by SQLite's report of its tree, or by the check that stopped)
    expect(split.result).toMatch(new RegExp(`^${table}: |Tree \\d+ page \\d+`, 'm'))
  })

  test('every table is claimed once, the schema first, then by size (virtual ones too)', () => {
    const db = openSqlite(makeFile('order.db'), 'readonly')
    const tables = tablesBySize(db)
    const all = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
      .pluck()
      .all() as string[]
    // the pages each plain table and its indexes really hold
    const pages = new Map(
      (
        db
          .prepare(
            `SELECT s.tbl_name AS name, sum(d.pageno) AS pages
             FROM dbstat AS d JOIN sqlite_schema AS s ON s.name = d.name
             WHERE d.aggregate = TRUE GROUP BY s.tbl_name`,
          )
          .all() as { name: string; pages: number }[]
      ).map((r) => [r.name, r.pages]),
    )
    db.close()
    expect(tables[0]).toBe('sqlite_schema')
    expect([...tables].sort()).toEqual(['sqlite_schema', ...all].sort())
    const plain = tables.filter((t) => ['big', 'wide', 'small', 'pairs'].includes(t))
    const bySize = [...plain].sort((a, b) => (pages.get(b) ?? 0) - (pages.get(a) ?? 0))
    expect(plain).toEqual(bySize)
    expect(plain.at(-1)).toBe('small')
  })

  test('a file under the threshold is checked whole in this thread', async () => {
    const path = makeFile('small.db')
    expect(await quickCheckFile(path)).toEqual({ result: 'ok', helperCpu: 0 })
  })
})
