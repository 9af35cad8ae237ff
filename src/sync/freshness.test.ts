/**
 * The freshness gate end to end: a local fake portal on 127.0.0.1 serving the real-format fixtures
 * (licensing mirror and safety files), with its own count(*) answers and stale-replica headers.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import {
  LICENSING_FIXTURES,
  recordCount,
  startFmcsaServer,
  type FmcsaServer,
} from '../testing/fmcsa-server.ts'
import { censusDataset } from '../census/census.ts'
import { importDir } from './pipeline.ts'
import { pipelineDeps } from '../deps.ts'
import { checkFreeSpace, lastMirror, parseCount } from './freshness.ts'
import { syncAll, syncDataset, type SyncOptions } from './sync.ts'

const TODAY = '2026-11-15'
const SAFETY_FIXTURES = join(LICENSING_FIXTURES, '..', '..', 'safety')

let server: FmcsaServer
let ctx: TestContext
let started = false

async function setup(env: Record<string, string> = {}, dir = LICENSING_FIXTURES) {
  server = await startFmcsaServer({ dir })
  ctx = await createTestContext({
    now: `${TODAY}T15:00:00Z`,
    fetch: globalThis.fetch, // loopback only: the fake portal
    env: { FMCSA_BASE_URL: server.url, SYNC_TIMEOUT_MS: '400', SYNC_RETRIES: '1', ...env },
  })
  started = true
}
afterEach(async () => {
  if (!started) return
  started = false
  ctx.close()
  await server.close()
})

const opts = (over: Partial<SyncOptions> = {}): SyncOptions => ({
  signal: AbortSignal.timeout(30_000),
  trigger: 'test',
  retryBaseMs: 1,
  ...over,
})
const syncCensus = async () => (await syncAll(ctx.deps, { ...opts(), only: ['census'] }))[0]
const fileRequests = (id: string) =>
  server.requests.filter((r) => r.id === id && r.form !== 'count')
const countRequests = (id: string) =>
  server.requests.filter((r) => r.id === id && r.form === 'count')
const sourceRow = (id: string) =>
  ctx.deps.db
    .prepare(
      'SELECT etag, last_modified AS lastModified, sha256 FROM source_files WHERE file_id = ?',
    )
    .get(id) as { etag: string | null; lastModified: string | null; sha256: string }
const versionFiles = (id: number | null | undefined): unknown =>
  JSON.parse(
    (
      ctx.deps.db.prepare('SELECT files FROM dataset_versions WHERE id = ?').get(id) as {
        files: string
      }
    ).files,
  )
const censusRows = () => recordCount(server.body('az4n-8mr2') ?? Buffer.alloc(0))

describe('the row count gate', () => {
  test('parseCount reads the SODA answer and nothing else', () => {
    expect(parseCount([{ count: '4512353' }])).toBe(4_512_353)
    expect(parseCount([{ count_1: '12' }])).toBe(12)
    expect(parseCount([{ count: 'x' }])).toBeNull()
    expect(parseCount({ error: true })).toBeNull()
    expect(parseCount([])).toBeNull()
  })

  test('a census with fewer rows than the portal counts is refused, however small the gap', async () => {
    await setup()
    const rows = censusRows()
    // the known case in small: 1.39 M of 4.5 M rows; here one row short of the portal's count
    server.setCount('az4n-8mr2', rows + 1)
    const r = await syncCensus()
    expect(r).toMatchObject({
      status: 'failed',
      error: `az4n-8mr2: ${rows} rows in the export, the portal counts ${rows + 1} (a short export is refused)`,
    })
    expect(ctx.deps.datasets.get('census', 'live')).toBeNull()
    // the refused copy's validators are forgotten: the next request is unconditional
    expect(sourceRow('az4n-8mr2')).toMatchObject({ etag: null, lastModified: null })
    server.setCount('az4n-8mr2', rows)
    const again = await syncCensus()
    expect(again?.status).toBe('activated')
    expect(fileRequests('az4n-8mr2').at(-1)?.headers['if-none-match']).toBeUndefined()
    const files = versionFiles(again?.version) as {
      inputs: Record<string, { portal_count: number }>
    }
    expect(files.inputs['az4n-8mr2']?.portal_count).toBe(rows)
  })

  test('a chunked body cut cleanly at a line end passes the download and is refused by the count', async () => {
    await setup()
    const body = server.body('az4n-8mr2')?.toString() ?? ''
    // the cut lands just after a line break: a body that looks whole
    const cut = body.lastIndexOf('\n', Math.floor(body.length * 0.8)) + 1
    server.fail('az4n-8mr2', { kind: 'chunked_cut', fraction: cut / body.length })
    const r = await syncCensus()
    expect(r).toMatchObject({ status: 'failed', error: expect.stringMatching(/short export/) })
    expect(ctx.deps.datasets.get('census', 'live')).toBeNull()
  })

  test('more rows than the portal counts is refused too (the file changed during the sync)', async () => {
    await setup()
    server.setCount('az4n-8mr2', censusRows() - 2)
    const r = await syncCensus()
    expect(r?.error).toMatch(/the file changed during the sync/)
  })

  test('a file the portal has no count for is not activated unverified', async () => {
    await setup()
    server.setCount('az4n-8mr2', null)
    const r = await syncCensus()
    expect(r).toMatchObject({
      status: 'failed',
      error: 'az4n-8mr2: the portal has no row count for it; not activated unverified',
    })
  })

  test('every file of every mirrored dataset matches its portal count (the real formats)', async () => {
    await setup()
    const rs = await syncAll(ctx.deps, { ...opts(), only: ['census', 'legacy', 'motus'] })
    expect(rs.map((r) => [r.dataset, r.status])).toEqual([
      ['census', 'activated'],
      ['legacy', 'activated'],
      ['motus', 'activated'],
    ])
    // the legacy InsHist served in its text form is counted under the id it came from
    expect(countRequests('nzpz-e5xn')).toHaveLength(1)
  })

  test('the safety files match their portal counts too (the real formats)', async () => {
    await setup({}, SAFETY_FIXTURES)
    const rs = await syncAll(ctx.deps, { ...opts(), only: ['sms', 'oos'] })
    expect(rs.map((r) => [r.dataset, r.status, r.error])).toEqual([
      ['sms', 'activated', null],
      ['oos', 'activated', null],
    ])
  })

  test('SYNC_VERIFY_COUNT=false skips the count (an internal mirror without SODA)', async () => {
    await setup({ SYNC_VERIFY_COUNT: 'false' })
    server.setCount('az4n-8mr2', null)
    expect((await syncCensus())?.status).toBe('activated')
    expect(countRequests('az4n-8mr2')).toHaveLength(0)
  })
})

describe('stale portal replicas (X-SODA2-Data-Out-Of-Date: true)', () => {
  test('a stale file answer is retried after the delay within the run, then activated', async () => {
    await setup({ SYNC_STALE_DELAY_MS: '150' })
    server.stale('az4n-8mr2', 1, 'file')
    const started = Date.now()
    const r = await syncCensus()
    expect(r?.status).toBe('activated')
    expect(fileRequests('az4n-8mr2')).toHaveLength(2)
    expect(Date.now() - started).toBeGreaterThanOrEqual(150)
  })

  test('a stale count answer is retried too', async () => {
    await setup()
    server.stale('az4n-8mr2', 2, 'count')
    const r = await syncCensus()
    expect(r?.status).toBe('activated')
    expect(countRequests('az4n-8mr2')).toHaveLength(3)
  })

  test('still stale after the retries: not activated, the previous version and kept copy stay', async () => {
    await setup({ SYNC_STALE_RETRIES: '2' })
    const first = await syncCensus()
    const before = sourceRow('az4n-8mr2')
    const body = server.body('az4n-8mr2')?.toString() ?? ''
    server.set('az4n-8mr2', body.replace('TEST CARRIER', 'RENAMED CARRIER'))
    server.stale('az4n-8mr2', 10, 'file')
    const r = await syncCensus()
    expect(r).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/out-of-date replica .*3 time\(s\).*next scheduled run/),
    })
    expect(fileRequests('az4n-8mr2').length).toBe(1 + 3)
    expect(ctx.deps.datasets.get('census', 'live')?.versionId).toBe(first?.version)
    expect(sourceRow('az4n-8mr2')).toEqual(before)
    // the next scheduled run, on a fresh replica, activates the new file
    server.clear()
    server.stale('az4n-8mr2', 0)
    const next = await syncCensus()
    expect(next?.status).toBe('activated')
  })
})

describe('vintage, parallel downloads and the mirror duration', () => {
  test('the version records each file’s vintage and the oldest as the dataset’s', async () => {
    await setup()
    server.truth('az4n-8mr2', 'Sun, 15 Nov 2026 10:18:00 GMT')
    const r = await syncCensus()
    expect(versionFiles(r?.version)).toMatchObject({
      vintage: '2026-11-15T10:18:00.000Z',
      inputs: { 'az4n-8mr2': { vintage: '2026-11-15T10:18:00.000Z' } },
    })
  })

  test('downloads run in parallel up to SYNC_PARALLEL_DOWNLOADS; the mirror’s duration is stored', async () => {
    await setup({ SYNC_PARALLEL_DOWNLOADS: '2' })
    expect(lastMirror(ctx.deps.db)).toBeNull()
    // every file answer takes a while, so that overlaps show
    for (const id of ['az4n-8mr2', '6eyk-hxee', 'qh9u-swkp', 'inys-ebih', 'c5y8-a4uz'])
      server.fail(id, { kind: 'drip', bytes: 4096, everyMs: 60 }, 1)
    const rs = await syncAll(ctx.deps, { ...opts(), only: ['census', 'legacy', 'motus'] })
    expect(rs.every((r) => r.status === 'activated')).toBe(true)
    expect(server.maxConcurrent).toBe(2)
    const m = lastMirror(ctx.deps.db)
    expect(m).toMatchObject({
      datasets: ['census', 'legacy', 'motus'],
      parallel: 2,
      started_at: `${TODAY}T15:00:00.000Z`,
    })
    expect(m?.seconds).toBeGreaterThan(0)
    // stored with each run of the mirror
    const stats = ctx.deps.db
      .prepare(`SELECT json_extract(stats, '$.mirror.parallel') AS p FROM sync_runs`)
      .all()
    expect(stats).toEqual([{ p: 2 }, { p: 2 }, { p: 2 }])
  })
})

describe('suspect files and disk space', () => {
  test('a near-empty out-of-service-orders file is suspect, not "no orders"', async () => {
    await setup({ SYNC_OOS_MIN_ROWS: '100' }, SAFETY_FIXTURES)
    const [r] = await syncAll(ctx.deps, { ...opts(), only: ['oos'] })
    expect(r).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/p2mt-9ige: only 5 out-of-service orders .*suspect/),
    })
    expect(ctx.deps.datasets.get('oos', 'live')).toBeNull()
    ctx.close()
    await server.close()
    await setup({ SYNC_OOS_MIN_ROWS: '5' }, SAFETY_FIXTURES)
    expect((await syncAll(ctx.deps, { ...opts(), only: ['oos'] }))[0]?.status).toBe('activated')
  })

  test('a sync checks free space for its expected size before it starts', async () => {
    await setup({ SYNC_MIN_FREE_MB: String(1024 ** 3) }) // a petabyte
    const r = await syncDataset(censusDataset, ctx.deps, opts())
    expect(r).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(
        /^not enough free disk space in .*: the census sync needs about/,
      ),
    })
    expect(server.requests).toHaveLength(0)
    // twice the last download plus the floor
    await expect(
      checkFreeSpace(
        ctx.deps.db,
        { ...ctx.config, sync: { ...ctx.config.sync, minFreeBytes: 0 } },
        censusDataset,
        async () => 10,
      ),
    ).resolves.toBeUndefined()
  })
})

describe('import --dir with <file>.count sidecars', () => {
  test('a file with a sidecar is activated only with exactly that many rows', async () => {
    await setup()
    const dir = mkdtempSync(join(tmpdir(), 'cvk-import-'))
    cpSync(join(LICENSING_FIXTURES, 'az4n-8mr2.csv'), join(dir, 'az4n-8mr2.csv'))
    const rows = recordCount(readFileSync(join(dir, 'az4n-8mr2.csv')))
    const run = () =>
      importDir(pipelineDeps(ctx.deps), dir, {
        channel: 'live',
        trigger: 'import',
        signal: AbortSignal.timeout(30_000),
      })
    writeFileSync(join(dir, 'az4n-8mr2.csv.count'), `${rows + 100}\n`)
    expect((await run())[0]).toMatchObject({
      status: 'failed',
      error: `az4n-8mr2: ${rows} rows in the export, the portal counts ${rows + 100} (a short export is refused)`,
    })
    writeFileSync(join(dir, 'az4n-8mr2.csv.count'), 'many')
    expect((await run())[0]?.error).toMatch(/az4n-8mr2\.csv\.count: expected the file's row count/)
    writeFileSync(join(dir, 'az4n-8mr2.csv.count'), String(rows))
    expect((await run())[0]?.status).toBe('activated')
  })
})
