import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { fixedClock } from '../clock.ts'
import { loadConfig } from '../config.ts'
import { createDeps } from '../compose.ts'
import { type Deps } from '../deps.ts'
import { silentLogger } from '../log.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { liveCensusDir } from '../testing/fixture-dirs.ts'
import { isInsideDataDir, resolveStoredPath, toStoredPath } from './paths.ts'
import { pruneVersions } from './versions.ts'

const cleanup: (() => void)[] = []
afterEach(() => {
  for (const f of cleanup.splice(0)) f()
})

async function importedContext(): Promise<TestContext> {
  const ctx = await createTestContext({ liveDir: liveCensusDir() })
  cleanup.push(() => ctx.close())
  return ctx
}

/** Opens the appliance on a data directory, as `serve` or a CLI command would. */
function open(dataDir: string): Deps {
  const deps = createDeps(
    loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SYNC_ENABLED: 'false' }),
    { clock: fixedClock('2026-11-15T12:00:00Z'), log: silentLogger() },
  )
  cleanup.push(() => deps.close())
  return deps
}

const versionPaths = (d: Deps) =>
  d.db.prepare('SELECT id, path FROM dataset_versions ORDER BY id').all() as {
    id: number
    path: string
  }[]

/** Copies a data directory after a checkpoint (a backup restored elsewhere). */
function copyDataDir(ctx: TestContext): string {
  const to = mkdtempSync(join(tmpdir(), 'cvk-restored-'))
  ctx.deps.db.pragma('wal_checkpoint(TRUNCATE)')
  cpSync(ctx.config.paths.dataDir, to, { recursive: true })
  cleanup.push(() => rmSync(to, { recursive: true, force: true }))
  return to
}

describe('stored paths', () => {
  test('relative inside the data directory; never outside it', () => {
    expect(toStoredPath('/data', '/data/datasets/live/census/3.db')).toBe(
      'datasets/live/census/3.db',
    )
    expect(toStoredPath('/data', '/elsewhere/x.db')).toBe('/elsewhere/x.db')
    expect(resolveStoredPath('/srv/data', 'datasets/live/census/3.db')).toBe(
      '/srv/data/datasets/live/census/3.db',
    )
    expect(isInsideDataDir('/data', '/data/downloads/a.csv')).toBe(true)
    expect(isInsideDataDir('/data', '/data/../etc/passwd')).toBe(false)
    expect(isInsideDataDir('/data', '/database/x')).toBe(false)
  })

  test('a version is stored relative to the data directory', async () => {
    const ctx = await importedContext()
    expect(versionPaths(ctx.deps).map((v) => v.path)).toEqual([
      expect.stringMatching(/^datasets\/live\/census\/\d+\.db$/),
    ])
  })

  test('a data directory restored to another path serves its datasets', async () => {
    const ctx = await importedContext()
    const to = copyDataDir(ctx)
    ctx.close() // the old place is gone
    const deps = open(to)
    expect(deps.datasets.get('census', 'live')).not.toBeNull()
    expect(deps.datasets.isReady()).toBe(true)
  })

  test('absolute rows of an older release are rewritten at start-up to the copy’s own files', async () => {
    const ctx = await importedContext()
    const from = ctx.config.paths.dataDir
    // as an older release stored it
    ctx.deps.db.prepare(`UPDATE dataset_versions SET path = ? || '/' || path`).run(from)
    const to = copyDataDir(ctx)
    const deps = open(to)
    expect(versionPaths(deps).map((v) => v.path)).toEqual([
      expect.stringMatching(/^datasets\/live\/census\/\d+\.db$/),
    ])
    expect(deps.datasets.get('census', 'live')).not.toBeNull()
  })

  test('pruning never deletes a file outside the data directory, nor the original’s files', async () => {
    const ctx = await importedContext()
    const from = ctx.config.paths.dataDir
    const originalFile = join(from, 'datasets', 'live', 'census', '50.db')
    writeFileSync(originalFile, 'an old version of the original')
    // three superseded versions, oldest first: one outside any data dir, one in the original's
    // layout (an absolute row of an older release), one of the copy
    const outside = join(mkdtempSync(join(tmpdir(), 'cvk-outside-')), 'keep.db')
    writeFileSync(outside, 'not ours')
    cleanup.push(() => rmSync(outside, { force: true }))
    const insert = ctx.deps.db.prepare(
      `INSERT INTO dataset_versions (dataset, channel, status, path, as_of, created_at)
       VALUES ('census', 'live', 'superseded', ?, '2026-11-01', 0)`,
    )
    insert.run(outside)
    insert.run(originalFile)
    const to = copyDataDir(ctx)
    const deps = open(to)
    const copyFile = join(to, 'datasets', 'live', 'census', '99.db')
    writeFileSync(copyFile, 'old')
    deps.db
      .prepare(
        `INSERT INTO dataset_versions (id, dataset, channel, status, path, as_of, created_at)
         VALUES (99, 'census', 'live', 'superseded', 'datasets/live/census/99.db', '2026-11-02', 0)`,
      )
      .run()
    // the row in the original's layout now names the copy's file, the outside one stays absolute
    expect(versionPaths(deps).map((v) => v.path)).toContain(outside)
    pruneVersions(deps.db, to, 'census', 'live')
    expect(existsSync(outside)).toBe(true)
    expect(existsSync(originalFile)).toBe(true)
    expect(existsSync(join(to, 'datasets', 'live', 'census', '50.db'))).toBe(false)
    const statuses = deps.db
      .prepare(`SELECT path, status FROM dataset_versions WHERE status != 'active' ORDER BY id`)
      .all()
    expect(statuses).toEqual([
      { path: outside, status: 'deleted' },
      { path: 'datasets/live/census/50.db', status: 'deleted' },
      { path: 'datasets/live/census/99.db', status: 'superseded' }, // the newest is kept
    ])
    // the copy still serves its own active version
    expect(deps.datasets.get('census', 'live')).not.toBeNull()
  })
})
