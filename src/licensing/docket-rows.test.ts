import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { pipelineDeps } from '../deps.ts'
import { openSqlite, type Sqlite } from '../db/open.ts'
import { importDir } from '../sync/pipeline.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'
import { stoppedPart } from '../testing/parts.ts'
import { buildDocketRows, buildDocketRowsPart, type AuthorityTable } from './docket-rows.ts'

let ctx: TestContext
let dir: string
beforeAll(async () => {
  ctx = await createTestContext({ now: '2026-11-15T12:00:00Z' })
  dir = mkdtempSync(join(tmpdir(), 'cvk-dockets-'))
  const runs = await importDir(pipelineDeps(ctx.deps), LICENSING_FIXTURES, {
    channel: 'live',
    trigger: 'test',
    signal: AbortSignal.timeout(30_000),
    only: ['legacy', 'motus'],
  })
  expect(runs.map((r) => r.status)).toEqual(['activated', 'activated'])
})
afterAll(() => {
  ctx.close()
  rmSync(dir, { recursive: true, force: true })
})
const opened: Sqlite[] = []
afterEach(() => {
  for (const db of opened.splice(0)) db.close()
})

const DATASETS = [
  { name: 'legacy', authorityTable: 'carriers' },
  { name: 'motus', authorityTable: 'authorities' },
] as const satisfies readonly { name: string; authorityTable: AuthorityTable }[]

const documents = (db: Sqlite) => db.prepare('SELECT id, doc FROM docket_rows ORDER BY id').all()

/** A copy of a built licensing file without its documents, opened as its build left it. */
function withoutDocuments(name: 'legacy' | 'motus', copy: string): { path: string; db: Sqlite } {
  const active = ctx.deps.datasets.get(name, 'live')
  if (!active) throw new Error(`${name} is not active`)
  const path = join(dir, copy)
  copyFileSync(active.path, path)
  const db = openSqlite(path, 'readwrite')
  opened.push(db)
  db.pragma('journal_mode = MEMORY')
  db.pragma('locking_mode = EXCLUSIVE')
  db.exec('DROP TABLE docket_rows')
  return { path, db }
}

describe('docket documents made in two threads', () => {
  test.each(DATASETS)(
    '$name: the same documents as the build made in one, in id order',
    async ({ name, authorityTable }) => {
      const built = documents(ctx.deps.datasets.get(name, 'live')?.db as Sqlite)
      // both prefixes of the fixtures (MC and FF ids) in the legacy file
      expect(built.length).toBeGreaterThan(10)
      const { path, db } = withoutDocuments(name, `${name}-parts.db`)
      const phases: Record<string, number> = {}
      await buildDocketRows(db, {
        path,
        authorityTable,
        signal: AbortSignal.timeout(30_000),
        phase: (k, s) => (phases[k] = (phases[k] ?? 0) + s),
        parts: true,
      })
      expect(documents(db)).toEqual(built)
      // rows appended in id order: rowid order is id order (INTEGER PRIMARY KEY)
      expect(db.prepare('SELECT count(*) FROM docket_rows').pluck().get()).toBe(built.length)
      expect(Object.keys(phases)).toEqual(
        expect.arrayContaining([
          'docket_rows.own',
          'docket_rows.parts',
          'docket_rows.wait',
          'docket_rows.copy',
        ]),
      )
      expect(existsSync(`${path}-dockets0`)).toBe(false)
      // the build file is back in its own journal, locked by the build
      expect(db.pragma('journal_mode', { simple: true })).toBe('memory')
      expect(db.pragma('locking_mode', { simple: true })).toBe('exclusive')
    },
  )

  test('in one thread (below the size of parts): the same documents', async () => {
    const built = documents(ctx.deps.datasets.get('legacy', 'live')?.db as Sqlite)
    const { path, db } = withoutDocuments('legacy', 'legacy-one.db')
    const phases: Record<string, number> = {}
    await buildDocketRows(db, {
      path,
      authorityTable: 'carriers',
      signal: AbortSignal.timeout(30_000),
      phase: (k, s) => (phases[k] = (phases[k] ?? 0) + s),
    })
    expect(documents(db)).toEqual(built)
    expect(phases).toEqual({})
  })

  test('an abort of the build stops the part and removes its file', async () => {
    const { path, db } = withoutDocuments('legacy', 'legacy-aborted.db')
    const stop = new AbortController()
    stop.abort(new Error('stopped by the test'))
    await expect(
      buildDocketRows(db, {
        path,
        authorityTable: 'carriers',
        signal: stop.signal,
        phase: () => {},
        parts: true,
      }),
    ).rejects.toThrow('stopped by the test')
    expect(existsSync(`${path}-dockets0`)).toBe(false)
  })

  test('a part asked to stop fails at its next docket, with no transaction left open', () => {
    const { path, db } = withoutDocuments('legacy', 'legacy-stopped.db')
    db.close()
    opened.pop()
    const part = stoppedPart(path, join(dir, 'stopped-part.db'), {
      authorityTable: 'carriers' as const,
      from: 0,
    })
    const target = part.db
    opened.push(target)
    expect(() => buildDocketRowsPart(part.job, target, part.stop)).toThrow('build part stopped')
    expect(target.inTransaction).toBe(false)
    expect(target.prepare('SELECT count(*) FROM docket_rows').pluck().get()).toBe(0)
  })
})

describe('the USDOT → dockets map (dot_dockets)', () => {
  test.each(DATASETS)(
    '$name: every USDOT of the authority rows, then of the other tables for dockets it lacks',
    ({ name, authorityTable }) => {
      const db = ctx.deps.datasets.get(name, 'live')?.db as Sqlite
      const others = ['policies', 'ins_hist', 'auth_events', 'revocations', 'boc3']
      // the map's definition, row by row: a DISTINCT over every row of each table
      const expected = db
        .prepare(
          `SELECT DISTINCT coalesce(dot_number, 0) AS dot, prefix, number FROM ${authorityTable}
           UNION
           ${others
             .map(
               (t) => `SELECT coalesce(t.dot_number, 0), t.prefix, t.number FROM ${t} t
               WHERE NOT EXISTS (SELECT 1 FROM ${authorityTable} a
                 WHERE a.prefix = t.prefix AND a.number = t.number)`,
             )
             .join(' UNION ')}
           ORDER BY 1, 2, 3`,
        )
        .all()
      const map = db
        .prepare('SELECT dot_number AS dot, prefix, number FROM dot_dockets ORDER BY 1, 2, 3')
        .all()
      expect(map).toEqual(expected)
      if (name === 'legacy') {
        // the fixtures reach both branches: dockets only other tables know, rows with no USDOT
        const count = (sql: string) => db.prepare(sql).pluck().get() as number
        expect(
          count(`SELECT count(*) FROM dot_dockets d WHERE NOT EXISTS (
            SELECT 1 FROM carriers a WHERE a.prefix = d.prefix AND a.number = d.number)`),
        ).toBeGreaterThan(0)
        expect(count('SELECT count(*) FROM dot_dockets WHERE dot_number = 0')).toBeGreaterThan(0)
      }
    },
  )
})
