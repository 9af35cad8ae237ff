/** listsDot: the same answer as the table, for every USDOT, from one read of the table. */
import Database from 'better-sqlite3'
import { expect, test } from 'vitest'
import { heldDots, listsDot } from './dot-set.ts'

/** A 32-bit LCG: the same "random" USDOTs on every run. */
function lcg(seed: number) {
  let s = seed >>> 0
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0)
}

function table(dots: number[]) {
  const db = new Database(':memory:')
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, dot_number INTEGER NOT NULL)')
  const insert = db.prepare('INSERT INTO t (dot_number) VALUES (?)')
  for (const d of dots) insert.run(d)
  return db
}

test('answers as the table does for listed, unlisted and edge USDOTs, duplicates included', () => {
  const next = lcg(17)
  const listed = Array.from({ length: 5_000 }, () => 1 + (next() % 3_000_000))
  const db = table([...listed, ...listed.slice(0, 500)])
  const inTable = db.prepare('SELECT 1 FROM t WHERE dot_number = ? LIMIT 1').pluck()
  const probes = [
    ...listed.slice(0, 2_000),
    ...Array.from({ length: 20_000 }, () => 1 + (next() % 3_000_000)),
    0,
    -1,
    Math.min(...listed),
    Math.max(...listed),
    Math.min(...listed) - 1,
    Math.max(...listed) + 1,
  ]
  let hits = 0
  for (const dot of probes) {
    const expected = inTable.get(dot) !== undefined
    if (expected) hits++
    expect(listsDot(db, 't', dot), `USDOT ${dot}`).toBe(expected)
  }
  expect(hits).toBeGreaterThan(2_000)
})

test('a table listing many of the USDOTs in its range is a bitmap, with the same answers', () => {
  const next = lcg(29)
  const listed = Array.from({ length: 60_000 }, () => 1 + (next() % 200_000))
  const db = new Database(':memory:')
  db.exec('CREATE TABLE e (dot INTEGER PRIMARY KEY) WITHOUT ROWID')
  const insert = db.prepare('INSERT OR IGNORE INTO e (dot) VALUES (?)')
  for (const d of listed) insert.run(d)
  const all = db.prepare('SELECT dot FROM e ORDER BY dot').pluck().all() as number[]
  expect('bits' in heldDots(all)).toBe(true)
  expect('sorted' in heldDots(all.filter((d) => d % 50 === 0))).toBe(true)
  const inTable = db.prepare('SELECT 1 FROM e WHERE dot = ?').pluck()
  let hits = 0
  for (let dot = -2; dot <= 200_010; dot++) {
    const expected = inTable.get(dot) !== undefined
    if (expected) hits++
    expect(listsDot(db, 'e', dot, 'dot') === expected, `USDOT ${dot}`).toBe(true)
  }
  expect(hits).toBe(all.length)
  expect(listsDot(db, 'e', (all[0] as number) + 0.5, 'dot')).toBe(false)
  expect(listsDot(db, 'e', 2 ** 40, 'dot')).toBe(false)
})

test('values beyond 32 bits are held exactly; an empty table lists nothing', () => {
  const db = table([5, 2 ** 31 + 7, 99_999_999])
  expect(listsDot(db, 't', 2 ** 31 + 7)).toBe(true)
  expect(listsDot(db, 't', 7)).toBe(false)
  expect(listsDot(db, 't', 99_999_999)).toBe(true)
  const empty = table([])
  expect(listsDot(empty, 't', 5)).toBe(false)
})

test('the table is read once per connection (a dataset file never changes)', () => {
  const db = table([10, 20])
  expect(listsDot(db, 't', 30)).toBe(false)
  db.prepare('INSERT INTO t (dot_number) VALUES (30)').run()
  expect(listsDot(db, 't', 30)).toBe(false)
  // another connection is another set
  expect(listsDot(table([10, 20, 30]), 't', 30)).toBe(true)
})
