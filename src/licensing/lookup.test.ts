import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import type { ActiveDataset } from '../db/datasets.ts'
import { openSqlite, type Sqlite } from '../db/open.ts'
import { pipelineDeps } from '../deps.ts'
import { importDir } from '../sync/pipeline.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'
import { gather } from './lookup.ts'

let ctx: TestContext
let dir: string
const opened: Sqlite[] = []
beforeEach(async () => {
  ctx = await createTestContext({ now: '2026-11-15T12:00:00Z' })
  dir = mkdtempSync(join(tmpdir(), 'cvk-lookup-'))
  for (const name of readdirSync(LICENSING_FIXTURES))
    copyFileSync(join(LICENSING_FIXTURES, name), join(dir, name))
  const results = await importDir(pipelineDeps(ctx.deps), dir, {
    channel: 'live',
    trigger: 'test',
    signal: AbortSignal.timeout(30_000),
    only: ['legacy', 'motus'],
  })
  expect(results.map((r) => r.status)).toEqual(['activated', 'activated'])
})
afterEach(() => {
  for (const db of opened.splice(0)) db.close()
  ctx.close()
  rmSync(dir, { recursive: true, force: true })
})

const active = (name: 'legacy' | 'motus'): ActiveDataset => {
  const ds = ctx.deps.datasets.get(name, 'live')
  if (!ds) throw new Error(`${name} is not active`)
  return ds
}

/** The same dataset version as a file built before `docket_rows` existed. */
function withoutDocs(ds: ActiveDataset): ActiveDataset {
  const path = join(dir, `${ds.name}-tables.db`)
  copyFileSync(ds.db.name, path)
  const rw = openSqlite(path, 'readwrite')
  rw.exec('DROP TABLE docket_rows')
  rw.close()
  const db = openSqlite(path, 'readonly')
  opened.push(db)
  return { ...ds, db, stmt: (sql) => db.prepare(sql) }
}

const dotsOf = (ds: ActiveDataset) =>
  ds.db.prepare('SELECT DISTINCT dot_number FROM dot_dockets').pluck().all() as number[]

test('one docket_rows document per docket of the dataset', () => {
  for (const name of ['legacy', 'motus'] as const) {
    const db = active(name).db
    const dockets = db
      .prepare('SELECT count(*) FROM (SELECT DISTINCT prefix, number FROM dot_dockets)')
      .pluck()
      .get()
    expect(dockets).toBeGreaterThan(10)
    expect(db.prepare('SELECT count(*) FROM docket_rows').pluck().get()).toBe(dockets)
  }
})

test('a lookup reads the same rows from the per-docket documents as from the tables', () => {
  const motus = active('motus')
  const legacy = active('legacy')
  const motusTables = withoutDocs(motus)
  const legacyTables = withoutDocs(legacy)
  const dots = [...new Set([...dotsOf(motus), ...dotsOf(legacy)])].sort((a, b) => a - b)
  expect(dots.length).toBeGreaterThan(50)
  let withRows = 0
  for (const dot of dots) {
    const fromDocs = gather(motus, legacy, dot)
    expect(gather(motusTables, legacyTables, dot), `USDOT ${dot}`).toEqual(fromDocs)
    // one dataset rebuilt, the other not yet: the pair right after an upgrade
    expect(gather(motusTables, legacy, dot), `USDOT ${dot}`).toEqual(fromDocs)
    expect(gather(motus, null, dot), `USDOT ${dot}`).toEqual(gather(motusTables, null, dot))
    if (fromDocs.hist.length && fromDocs.events.length) withRows++
  }
  // the fixtures hold companies with filings and authority history
  expect(withRows).toBeGreaterThanOrEqual(5)
  expect(
    dots.some((d) => {
      const g = gather(motus, legacy, d)
      return g.used.motus && g.used.legacy
    }),
  ).toBe(true)
})
