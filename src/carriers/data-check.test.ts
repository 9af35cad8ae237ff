/** "Verified" is never claimed on incomplete or stale data (issue 15.2): the reasons say why. */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { HOUR } from '../clock.ts'
import { CarrierJson } from './schema.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'
import { dataReasons, REQUIRED_DATASETS } from './data-check.ts'

const SAFETY_FIXTURES = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'safety')
const OOS = 'p2mt-9ige.csv'
/** legacy-only carrier with BI&PD on file: no gate fails (test/fixtures/licensing/make.ts) */
const CLEAN = 1_000_001

let tmp: string
const contexts: TestContext[] = []

/** A live mirror built from the licensing fixtures (census, legacy, Motus) plus the OOS orders. */
function mirrorDir(name: string, keep: (file: string) => boolean): string {
  const dir = join(tmp, name)
  mkdirSync(dir, { recursive: true })
  for (const f of readdirSync(LICENSING_FIXTURES).filter(keep))
    copyFileSync(join(LICENSING_FIXTURES, f), join(dir, f))
  copyFileSync(join(SAFETY_FIXTURES, OOS), join(dir, OOS))
  return dir
}

async function context(opts: Parameters<typeof createTestContext>[0]) {
  const ctx = await createTestContext(opts)
  contexts.push(ctx)
  return ctx
}

async function trustOf(ctx: TestContext, dot: number, mode: 'live' | 'test' = 'live') {
  const key = ctx.account('starter').key(mode)
  const res = await ctx.get(`/v1/carrier/${dot}`, key)
  expect(res.status).toBe(200)
  return CarrierJson.parse(await res.json())
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'cvk-verified-'))
})
afterAll(() => {
  for (const c of contexts) c.close()
  rmSync(tmp, { recursive: true, force: true })
})

describe('trust_verified and trust.unverified_reasons', () => {
  test('the required datasets are the inputs of the gates', () => {
    expect(REQUIRED_DATASETS.map((d) => [d.name, d.freshness])).toEqual([
      ['census', 'daily'],
      ['legacy', 'frozen'],
      ['motus', 'daily'],
      ['oos', 'daily'],
    ])
  })

  let full: TestContext
  test('a fresh mirror with every required dataset is verified, with no reason', async () => {
    full = await context({ liveDir: mirrorDir('full', () => true) })
    const r = await trustOf(full, CLEAN)
    expect(r.meta.source).toBe('mirror')
    expect(r.trust.gates).toEqual([])
    expect(r.trust.trust_verified).toBe(true)
    expect(r.trust.unverified_reasons).toEqual([])
  })

  test('a census older than its limit is stale; a run that found the file unchanged confirms it', async () => {
    full.clock.advance(73 * HOUR)
    let r = await trustOf(full, CLEAN)
    expect(r.trust.trust_verified).toBe(false)
    expect(r.trust.unverified_reasons).toEqual([
      'dataset_stale:census',
      'dataset_stale:motus',
      'dataset_stale:oos',
    ])
    // the frozen legacy baseline is never stale; the score itself does not change
    const now = full.clock().getTime()
    const insert = full.deps.db.prepare(
      `INSERT INTO sync_runs (dataset, trigger, status, started_at, finished_at) VALUES (?, 'schedule', ?, ?, ?)`,
    )
    insert.run('motus', 'unchanged', now - HOUR, now - HOUR + 60_000)
    insert.run('oos', 'unchanged', now - HOUR, now - HOUR + 60_000)
    insert.run('census', 'failed', now - HOUR, now - HOUR + 60_000) // a failure confirms nothing
    r = await trustOf(full, CLEAN)
    expect(r.trust.unverified_reasons).toEqual(['dataset_stale:census'])
    insert.run('census', 'unchanged', now - 2 * HOUR, now - 2 * HOUR + 60_000)
    r = await trustOf(full, CLEAN)
    expect(r.trust.unverified_reasons).toEqual([])
    expect(r.trust.trust_verified).toBe(true)
  })

  test('licensing datasets missing: never verified, and each missing dataset is named', async () => {
    // the incident of issue 15: an import that skipped licensing served census-only records
    const ctx = await context({ liveDir: mirrorDir('no-licensing', (f) => f === 'az4n-8mr2.csv') })
    const r = await trustOf(ctx, CLEAN)
    expect(r.meta.source).toBe('mirror')
    expect(r.authority.source).toBe('census')
    expect(r.trust.gates).toEqual([])
    expect(r.trust.trust_verified).toBe(false)
    expect(r.trust.unverified_reasons).toEqual(['dataset_missing:legacy', 'dataset_missing:motus'])
  })

  test('a failing gate is a reason too: false always comes with at least one reason', async () => {
    // 1000036: legacy policy whose cancel date has passed → BI&PD below required
    const r = await trustOf(full, 1_000_036)
    expect(r.trust.trust_verified).toBe(false)
    expect(r.trust.unverified_reasons.length).toBeGreaterThan(0)
    expect(r.trust.unverified_reasons).toEqual(r.trust.gates.map((g) => `gate:${g.id}`))
  })

  test('a sample record says sample_data', async () => {
    const ctx = await context({ sampleDir: mirrorDir('sample', () => true) })
    for (const mode of ['live', 'test'] as const) {
      const r = await trustOf(ctx, CLEAN, mode)
      expect(r.meta.source).toBe('sample')
      expect(r.trust.trust_verified).toBe(false)
      expect(r.trust.unverified_reasons).toEqual(['sample_data'])
    }
  })

  test('a verdict without a stale dataset holds to the millisecond its first dataset expires, and no later', async () => {
    const ctx = await context({ liveDir: mirrorDir('kept', () => true) })
    const view = ctx.deps.datasets.view('live')
    const maxAgeHours = ctx.deps.config.sync.maxAgeHours
    const activated = Math.min(
      ...(['census', 'motus', 'oos'] as const).map((n) => view.get(n)?.activatedAt ?? 0),
    )
    const at = (now: number) => dataReasons({ db: ctx.deps.db, now, maxAgeHours }, view)
    const limit = activated + maxAgeHours * HOUR
    expect(at(activated)).toEqual([])
    // kept from here on: the sync runs are not read again until the limit
    const insert = ctx.deps.db.prepare(
      `INSERT INTO sync_runs (dataset, trigger, status, started_at, finished_at) VALUES (?, 'schedule', 'unchanged', ?, ?)`,
    )
    insert.run('census', limit - HOUR, limit - HOUR)
    expect(at(limit)).toEqual([])
    // past it the verdict is judged again: census was confirmed since, the others were not
    expect(at(limit + 1)).toEqual(['dataset_stale:motus', 'dataset_stale:oos'])
    // a stale verdict is never kept: a confirmation clears it on the next call
    insert.run('motus', limit, limit)
    insert.run('oos', limit, limit)
    expect(at(limit + 1)).toEqual([])
    // another limit is another verdict
    expect(dataReasons({ db: ctx.deps.db, now: limit + 1, maxAgeHours: 1 }, view)).toEqual([
      'dataset_stale:census',
    ])
  })
})
