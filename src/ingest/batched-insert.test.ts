import { describe, expect, test } from 'vitest'
import Database from 'better-sqlite3'
import { batchedInsert } from './batched-insert.ts'

const table = () => {
  const db = new Database(':memory:')
  db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT) STRICT')
  return db
}

describe('batchedInsert', () => {
  test('every row goes in, full statements and the rest at flush, in the order added', () => {
    const db = table()
    const rows = batchedInsert(db, 'INSERT INTO t (k, v)', 2)
    for (let k = 1; k <= 150; k++) rows.add([k, `v${k}`])
    // two statements of 64 rows ran as the rows came; 22 wait for flush
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(128)
    rows.flush()
    const got = db.prepare('SELECT k, v FROM t ORDER BY rowid').raw().all() as [number, string][]
    expect(got).toEqual(Array.from({ length: 150 }, (_, i) => [i + 1, `v${i + 1}`]))
    rows.flush()
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(150)
  })

  test('a later row replaces an earlier one, within a statement and across statements', () => {
    const db = table()
    const rows = batchedInsert(db, 'INSERT OR REPLACE INTO t (k, v)', 2)
    rows.add([1, 'first'])
    rows.add([1, 'second'])
    for (let k = 2; k <= 70; k++) rows.add([k, 'x'])
    rows.add([2, 'late'])
    rows.flush()
    expect(db.prepare('SELECT v FROM t WHERE k = 1').pluck().get()).toBe('second')
    expect(db.prepare('SELECT v FROM t WHERE k = 2').pluck().get()).toBe('late')
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(70)
  })
})
