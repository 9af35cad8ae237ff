import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { openSqlite } from '../db/open.ts'
import { BUILD_ALONE, BUILD_BESIDE, buildDatasetFile, type BuildSorting } from './build.ts'
import type { DatasetSpec } from './types.ts'

const dir = mkdtempSync(join(tmpdir(), 'cv-build-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function* numbers(n: number) {
  for (let i = 1; i <= n; i++) yield i
}

describe('buildDatasetFile', () => {
  test('builds with the journal in memory (not through a WAL), records its phases, ends readable', async () => {
    const seen: Record<string, unknown> = {}
    const spec: DatasetSpec = {
      name: 'census',
      title: 'test',
      files: [],
      schedule: 'daily',
      minRowsRatio: 0,
      maxRejectRatio: 1,
      async build(ctx) {
        seen.journal = ctx.db.pragma('journal_mode', { simple: true })
        seen.synchronous = ctx.db.pragma('synchronous', { simple: true })
        ctx.db.exec('CREATE TABLE t (n INTEGER PRIMARY KEY)')
        const insert = ctx.db.prepare('INSERT INTO t VALUES (?)')
        await ctx.insertBatches('f', numbers(12_000), (n) => {
          insert.run(n)
          ctx.accept('f')
        })
        ctx.timed('index', () => ctx.db.exec('CREATE INDEX t_n ON t (n)'))
      },
    }
    const path = join(dir, 'a.db')
    const stats = await buildDatasetFile(spec, new Map(), path, {
      asOf: '2026-11-26',
      today: '2026-11-26',
      signal: new AbortController().signal,
    })
    expect(seen).toEqual({ journal: 'memory', synchronous: 0 })
    expect(stats.rows).toBe(12_000)
    for (const phase of ['load', 'insert', 'index', 'optimize', 'quick_check', 'total'])
      expect(stats.phases?.[phase]).toBeGreaterThanOrEqual(0)
    expect(stats.phases?.insert).toBeLessThanOrEqual(stats.phases?.load ?? 0)
    const db = openSqlite(path, 'readonly')
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete')
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 12_000 })
    db.close()
  })

  test('sorts with the cache and sorter threads it is given, by default those of a build alone', async () => {
    const seen: [number, number][] = []
    const spec: DatasetSpec = {
      name: 'census',
      title: 'test',
      files: [],
      schedule: 'daily',
      minRowsRatio: 0,
      maxRejectRatio: 1,
      build(ctx) {
        seen.push([
          ctx.db.pragma('threads', { simple: true }) as number,
          ctx.db.pragma('cache_size', { simple: true }) as number,
        ])
        ctx.db.exec('CREATE TABLE t (n INTEGER PRIMARY KEY)')
        return Promise.resolve()
      },
    }
    const build = (name: string, sorting?: BuildSorting) =>
      buildDatasetFile(spec, new Map(), join(dir, name), {
        asOf: '2026-11-26',
        today: '2026-11-26',
        signal: new AbortController().signal,
        sorting,
      })
    await build('alone.db')
    await build('beside.db', BUILD_BESIDE)
    await build('odd.db', { cacheKib: 4_096, threads: 1 })
    expect(seen).toEqual([
      [BUILD_ALONE.threads, -BUILD_ALONE.cacheKib],
      [0, -BUILD_BESIDE.cacheKib],
      [1, -4_096],
    ])
    expect(BUILD_ALONE.threads).toBeGreaterThanOrEqual(1)
  })
})
