/** listsDot: the same answer as the table, for every USDOT, from one read of the table. */
import Database from 'better-sqlite3'
import { expect, test } from 'vitest'
import { listsDot } from './dot-set.ts'

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
