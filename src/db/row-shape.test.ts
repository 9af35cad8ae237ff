/** rowShape and getRow: the same rows as better-sqlite3's objects, built from array rows. */
import Database from 'better-sqlite3'
import { expect, test } from 'vitest'
import { getRow, rowShape } from './row-shape.ts'

function wide(columns: number) {
  const db = new Database(':memory:')
  const names = Array.from({ length: columns }, (_, i) => `c_${i}`)
  db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, ${names.join(', ')})`)
  const insert = db.prepare(
    `INSERT INTO t (id, ${names.join(', ')}) VALUES (?, ${names.map(() => '?').join(', ')})`,
  )
  insert.run(1, ...names.map((_, i) => (i % 3 === 0 ? i : i % 3 === 1 ? `v${i}` : null)))
  insert.run(2, ...names.map((_, i) => i * 1.5))
  return { db, names }
}

test('getRow answers what the object row says, key for key and in column order, for wide rows', () => {
  const { db } = wide(50)
  const sql = 'SELECT * FROM t WHERE id = ?'
  for (const id of [1, 2]) {
    const expected = db.prepare(sql).get(id) as Record<string, unknown>
    const row = getRow<Record<string, unknown>>(db.prepare(sql), id)
    expect(row).toEqual(expected)
    expect(Object.keys(row ?? {})).toEqual(Object.keys(expected))
    expect(JSON.stringify(row)).toBe(JSON.stringify(expected))
  }
  expect(getRow(db.prepare(sql), 3)).toBeUndefined()
})

test('getRow names the columns of each statement, also the same text over another schema', () => {
  const sql = 'SELECT * FROM t WHERE id = ?'
  const narrow = getRow<Record<string, unknown>>(wide(3).db.prepare(sql), 1)
  const broad = getRow<Record<string, unknown>>(wide(5).db.prepare(sql), 1)
  expect(narrow).toEqual({ id: 1, c_0: 0, c_1: 'v1', c_2: null })
  expect(broad).toEqual({ id: 1, c_0: 0, c_1: 'v1', c_2: null, c_3: 3, c_4: 'v4' })
})

test('getRow keeps one shape per statement: two statements over the same table differ', () => {
  const { db } = wide(20)
  const a = getRow<Record<string, unknown>>(db.prepare('SELECT c_0, c_1 FROM t WHERE id = ?'), 1)
  const b = getRow<Record<string, unknown>>(
    db.prepare('SELECT c_1, c_4 AS four FROM t WHERE id = ?'),
    1,
  )
  expect(a).toEqual({ c_0: 0, c_1: 'v1' })
  expect(b).toEqual({ c_1: 'v1', four: 'v4' })
})

test('rowShape puts the lead keys first, then the columns by position', () => {
  const shape = rowShape(['min_cov', 'bond_req'], ['prefix', 'number'])
  const docket = { prefix: 'MC', number: 123, other: 'not copied' }
  expect(shape([750, 'Y'], docket)).toEqual({
    prefix: 'MC',
    number: 123,
    min_cov: 750,
    bond_req: 'Y',
  })
  expect(Object.keys(shape([1, 2], docket))).toEqual(['prefix', 'number', 'min_cov', 'bond_req'])
  // a short row leaves the missing columns undefined, as the loop it replaced did
  expect(shape([750], docket)).toEqual({
    prefix: 'MC',
    number: 123,
    min_cov: 750,
    bond_req: undefined,
  })
})

test('rowShape refuses a name that is not a plain identifier (it becomes code)', () => {
  for (const bad of ['a-b', 'x; process.exit()', '1st', '', 'a b', '__proto__: 1, y', '__proto__'])
    expect(() => rowShape([bad])).toThrow(/not a column name/)
  expect(() => rowShape(['ok'], ['le ad'])).toThrow(/not a column name/)
})
