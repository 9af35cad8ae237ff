/**
 * A dataset connection keeps its shared lock (EXCLUSIVE locking mode, datasets.ts `openActive`):
 * other readers still read the file, and nothing can write it while the connection is open. The
 * registry's connections keep small page caches while record workers read the records.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { openActive, type ActiveDataset } from './datasets.ts'
import { DATASET_NAMES, type Channel } from './names.ts'
import { createTestContext } from '../testing/context.ts'
import { pipelineDeps } from '../deps.ts'
import { importDir } from '../sync/pipeline.ts'

const dirs: string[] = []
const opened: ActiveDataset[] = []
afterEach(() => {
  for (const d of opened.splice(0)) if (d.db.open) d.db.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A dataset file as a build leaves it: rollback journal, closed. */
function datasetFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cv-datasets-'))
  dirs.push(dir)
  const path = join(dir, '1.db')
  const db = new Database(path)
  db.pragma('journal_mode = DELETE')
  db.exec('CREATE TABLE companies (dot_number INTEGER PRIMARY KEY, legal_name TEXT)')
  db.prepare('INSERT INTO companies VALUES (?, ?)').run(1234567, 'ACME TRUCKING LLC')
  db.close()
  return path
}

const open = (path: string) => {
  const d = openActive('census', 'live', 1, path, '2026-11-20', Date.now())
  opened.push(d)
  return d
}
const nameOf = (d: ActiveDataset, dot: number) =>
  (
    d.stmt('SELECT legal_name FROM companies WHERE dot_number = ?').get(dot) as
      { legal_name: string } | undefined
  )?.legal_name

describe('a dataset connection', () => {
  it('keeps its shared lock between reads: readers share the file, a writer is refused until it closes', () => {
    const path = datasetFile()
    const a = open(path)
    expect(nameOf(a, 1234567)).toBe('ACME TRUCKING LLC')
    expect(a.db.pragma('locking_mode', { simple: true })).toBe('exclusive')

    // another connection (as a record worker thread or the CLI has) reads the same file
    const b = open(path)
    expect(nameOf(b, 1234567)).toBe('ACME TRUCKING LLC')
    expect(nameOf(a, 7654321)).toBeUndefined()

    // a writer cannot commit while the dataset connections hold their shared locks
    const writer = new Database(path, { timeout: 0 })
    try {
      expect(() =>
        writer.prepare('INSERT INTO companies VALUES (?, ?)').run(7654321, 'NOT ALLOWED'),
      ).toThrow(/locked|busy/i)
      a.db.close()
      b.db.close()
      writer.prepare('INSERT INTO companies VALUES (?, ?)').run(7654321, 'AFTER CLOSE')
    } finally {
      writer.close()
    }
    expect(nameOf(open(path), 7654321)).toBe('AFTER CLOSE')
  })
})

describe('the registry of a server whose record workers read the records', () => {
  it('keeps a small page cache on its connections but the census’s, open now and opened later', async () => {
    const ctx = await createTestContext({ sampleDir: 'data/sample' })
    try {
      // each dataset's connection's page cache (KiB) in a channel
      const caches = (channel: Channel) =>
        Object.fromEntries(
          DATASET_NAMES.map((name) => {
            const d = ctx.deps.datasets.get(name, channel)
            return [name, d && -Number(d.db.pragma('cache_size', { simple: true }))]
          }),
        )
      const sized = (census: number, other: number) =>
        Object.fromEntries(DATASET_NAMES.map((name) => [name, name === 'census' ? census : other]))
      expect(caches('sample')).toEqual(sized(16_384, 8_192))
      ctx.deps.datasets.setCacheKib(1_024)
      expect(caches('sample')).toEqual(sized(16_384, 1_024))
      // versions opened after: the same
      const runs = await importDir(pipelineDeps(ctx.deps), 'data/sample', {
        channel: 'live',
        trigger: 'test',
        signal: AbortSignal.timeout(60_000),
      })
      expect(runs.map((r) => r.status)).toEqual(runs.map(() => 'activated'))
      ctx.deps.datasets.reconcile()
      expect(caches('live')).toEqual(sized(16_384, 1_024))
      // and they still read
      const census = ctx.deps.datasets.get('census', 'live')
      expect(census?.stmt('SELECT count(*) AS n FROM companies').get()).toMatchObject({
        n: expect.any(Number),
      })
    } finally {
      ctx.close()
    }
  })
})
