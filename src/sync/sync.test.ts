import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { DAY } from '../clock.ts'
import { getCompanyRecord } from '../carriers/record.ts'
import { acquireLease } from '../db/leases.ts'
import { legacyDataset } from '../licensing/legacy.ts'
import { motusDataset } from '../licensing/motus.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES, startFmcsaServer, type FmcsaServer } from '../testing/fmcsa-server.ts'
import { leaseName } from './run.ts'
import { catchUpSync, pendingDatasets } from './startup.ts'
import { syncStatus } from './status.ts'
import { syncAll, syncDataset, type SyncOptions, type SyncResult } from './sync.ts'
import type { DatasetName } from '../db/names.ts'

const TODAY = '2026-11-15'
/** the fake portal's Last-Modified of its files (fmcsa-server.ts): the regulator's date, as_of */
const PORTAL_DAY = '2026-11-01'
const MIRRORED: DatasetName[] = ['census', 'legacy', 'motus']

let server: FmcsaServer
let ctx: TestContext

async function setup(env: Record<string, string> = {}) {
  server = await startFmcsaServer({ dir: LICENSING_FIXTURES })
  ctx = await createTestContext({
    now: `${TODAY}T15:00:00Z`,
    // loopback only: the fixture server on 127.0.0.1
    fetch: globalThis.fetch,
    env: { FMCSA_BASE_URL: server.url, SYNC_TIMEOUT_MS: '400', SYNC_RETRIES: '1', ...env },
  })
}
beforeEach(async () => setup())
afterEach(async () => {
  ctx.close()
  await server.close()
})

const opts = (over: Partial<SyncOptions> = {}): SyncOptions => ({
  signal: AbortSignal.timeout(20_000),
  trigger: 'test',
  retryBaseMs: 1,
  ...over,
})
const syncMirror = () => syncAll(ctx.deps, { ...opts(), only: MIRRORED })
const byName = (rs: SyncResult[]) => Object.fromEntries(rs.map((r) => [r.dataset, r]))
const activeIds = () => MIRRORED.map((n) => ctx.deps.datasets.get(n, 'live')?.versionId ?? null)
const count = (sql: string, ...args: unknown[]) =>
  (ctx.deps.db.prepare(sql).get(...args) as { n: number }).n
const lastRun = (dataset: string) =>
  ctx.deps.db
    .prepare('SELECT status, error FROM sync_runs WHERE dataset = ? ORDER BY id DESC LIMIT 1')
    .get(dataset) as { status: string; error: string | null }
const record = (dot: number) =>
  getCompanyRecord(
    { db: ctx.deps.db, today: TODAY, now: ctx.clock().getTime(), maxAgeHours: 72 },
    ctx.deps.datasets.view('live'),
    dot,
  )
const requestsFor = (id: string) => server.requests.filter((r) => r.id === id && r.form !== 'count')
const censusLines = () =>
  readFileSync(join(LICENSING_FIXTURES, 'az4n-8mr2.csv'), 'utf8').split('\n')

describe('sync end to end against a local FMCSA server', () => {
  test('a full sync mirrors every source; lookups return the full authority and insurance record', async () => {
    const rs = byName(await syncMirror())
    expect(rs.census?.status).toBe('activated')
    expect(rs.legacy?.status).toBe('activated')
    expect(rs.motus?.status).toBe('activated')
    // today's diffs that are not published yet: "not yet", not a failure
    expect(rs.motus?.files.find((f) => f.id === 'xe5s-wca7')?.status).toBe('not_yet')
    // the legacy InsHist comes from its text form when the rows.csv id answers 404
    expect(requestsFor('nzpz-e5xn')[0]?.form).toBe('text')

    const r = record(1000009)
    expect(r?.identity).toMatchObject({ mc_number: 'MC-100009', entity_type: 'carrier' })
    expect(r?.authority).toMatchObject({
      status: 'ACTIVE',
      common_authority: 'A',
      contract_authority: 'N',
      broker_authority: 'N',
      allowed_to_operate: 'Y',
      granted_date: '2005-05-01',
      revoked_date: '2026-09-01',
      reinstated_date: '2026-09-20',
      source: 'motus',
    })
    expect(r?.authority.history.map((h) => h.revocation_date)).toEqual(['2020-07-26', '2026-09-01'])
    expect(r?.insurance).toMatchObject({
      bipd_on_file: 750_000,
      bipd_required: 750_000,
      insurer: 'DELTA NEW INSURANCE CO',
      policy_no: 'D-2',
      effective_date: '2026-09-15',
    })
    // the regulator's date (the portal's Last-Modified), not the download day
    expect(r?.dataAsOf).toMatchObject({
      census: PORTAL_DAY,
      motus: PORTAL_DAY,
      legacy: '2026-05-14',
    })
    const broker = record(1000002)
    expect(broker?.entity_type).toBe('broker')
    expect(broker?.insurance.bond_on_file).toBe(75_000)

    // size and checksum recorded; the raw copies kept for rebuilds
    const file = ctx.deps.db
      .prepare(`SELECT sha256, bytes, etag, path FROM source_files WHERE file_id = 'az4n-8mr2'`)
      .get() as { sha256: string; bytes: number; etag: string; path: string }
    expect(file).toMatchObject({
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      etag: expect.any(String),
    })
    expect(file.bytes).toBe(server.body('az4n-8mr2')?.length)
    expect(readdirSync(ctx.config.paths.downloads)).toContain('az4n-8mr2.csv')
    expect(count(`SELECT count(*) AS n FROM webhook_events WHERE type = 'dataset.updated'`)).toBe(3)
  })

  test('the same files served twice: conditional requests, no new version', async () => {
    await syncMirror()
    const before = activeIds()
    const served = server.requests.length
    const rs = byName(await syncMirror())
    expect(rs.census?.status).toBe('unchanged')
    expect(rs.legacy?.status).toBe('unchanged')
    // nothing changed, and some of today's diffs are not out yet
    expect(rs.motus?.status).toBe('not_yet')
    expect(activeIds()).toEqual(before)
    const again = server.requests.slice(served)
    expect(again.filter((r) => r.status === 304).length).toBeGreaterThan(10)
    expect(again.find((r) => r.id === 'az4n-8mr2')?.headers['if-none-match']).toMatch(/^"/)
    expect(count('SELECT count(*) AS n FROM dataset_versions')).toBe(3)
  })

  test('a file built with an older format is rebuilt from unchanged sources, once', async () => {
    await syncMirror()
    const before = activeIds()
    // what an earlier version of the appliance stored: no format (= 1); census is at format 2
    ctx.deps.db
      .prepare(
        "UPDATE dataset_versions SET files = json_remove(files, '$.format') WHERE dataset = 'census' AND status = 'active'",
      )
      .run()
    const rs = byName(await syncAll(ctx.deps, { ...opts(), only: ['census', 'legacy'] }))
    expect(rs.census?.status).toBe('activated')
    expect(rs.legacy?.status).toBe('unchanged')
    expect(activeIds()[0]).not.toBe(before[0])
    expect(record(1000001)?.legal_name).toBeTruthy()
    const [again] = await syncAll(ctx.deps, { ...opts(), only: ['census'] })
    expect(again?.status).toBe('unchanged')
  })

  test('a new ETag on identical bytes is still unchanged (SHA-256)', async () => {
    await syncMirror()
    const body = server.body('az4n-8mr2')
    if (!body) throw new Error('no census')
    server.set('az4n-8mr2', body, { etag: 'republished' })
    const [r] = await syncAll(ctx.deps, { ...opts(), only: ['census'] })
    expect(r?.status).toBe('unchanged')
    expect(r?.files[0]?.status).toBe('unchanged')
  })

  test('a truncated file is retried, then refused; the previous version stays, no partial file', async () => {
    await syncMirror()
    const before = activeIds()
    const shaBefore = ctx.deps.db
      .prepare(`SELECT sha256 FROM source_files WHERE file_id = 'az4n-8mr2'`)
      .get()
    server.set('az4n-8mr2', `${censusLines().join('\n')}\n`.replace('TEST CARRIER', 'NEW NAME'))
    server.fail('az4n-8mr2', { kind: 'truncate' })
    const served = requestsFor('az4n-8mr2').length
    const [r] = await syncAll(ctx.deps, { ...opts(), only: ['census'] })
    expect(r).toMatchObject({ status: 'failed', error: expect.stringContaining('truncated') })
    expect(requestsFor('az4n-8mr2').length - served).toBe(2) // one retry (SYNC_RETRIES=1)
    expect(activeIds()).toEqual(before)
    expect(readdirSync(ctx.config.paths.downloads).filter((f) => f.endsWith('.part'))).toEqual([])
    expect(
      ctx.deps.db.prepare(`SELECT sha256 FROM source_files WHERE file_id = 'az4n-8mr2'`).get(),
    ).toEqual(shaBefore)
    expect(lastRun('census')).toMatchObject({ status: 'failed' })
    expect(count(`SELECT count(*) AS n FROM webhook_events WHERE type = 'sync.failed'`)).toBe(1)
  })

  test.each([
    ['text/html', 'text/html; charset=utf-8'],
    ['an HTML body labelled text/csv', 'text/csv'],
  ])('an HTML error page with status 200 (%s) is refused', async (_name, contentType) => {
    server.fail('az4n-8mr2', { kind: 'html', contentType })
    const [r] = await syncAll(ctx.deps, { ...opts(), only: ['census'] })
    expect(r).toMatchObject({ status: 'failed', error: expect.stringContaining('HTML page') })
    expect(ctx.deps.datasets.get('census', 'live')).toBeNull()
  })

  test('an empty file is refused', async () => {
    server.fail('6eyk-hxee', { kind: 'empty' })
    const [r] = await syncAll(ctx.deps, { ...opts(), only: ['legacy'] })
    expect(r).toMatchObject({ status: 'failed', error: expect.stringContaining('empty body') })
  })

  test('a wrong header is refused at build time; the old version stays active', async () => {
    await syncMirror()
    const before = activeIds()
    const insur = server.body('c5y8-a4uz')?.toString() ?? ''
    server.set('c5y8-a4uz', insur.replace('POLICY_NO', 'POLICY_NUMBER'))
    const [r] = await syncAll(ctx.deps, { ...opts(), only: ['motus'] })
    expect(r).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('header does not match the expected columns'),
    })
    expect(activeIds()).toEqual(before)
    expect(syncStatus(ctx.deps).find((s) => s.dataset === 'motus')?.last_error?.message).toMatch(
      /header does not match/,
    )
  })

  test('a file that shrank by half is refused (whole dataset, and per file)', async () => {
    await syncMirror()
    const before = activeIds()
    const lines = censusLines().filter(Boolean)
    server.set(
      'az4n-8mr2',
      `${lines.slice(0, 1 + Math.floor((lines.length - 1) / 2)).join('\n')}\n`,
    )
    const [census] = await syncAll(ctx.deps, { ...opts(), only: ['census'] })
    expect(census).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('previous version'),
    })
    // the legacy Carrier file halved: too small a share of the dataset to show in its total
    const lc = (server.body('6eyk-hxee')?.toString() ?? '').split('\n').filter(Boolean)
    server.set('6eyk-hxee', `${lc.slice(0, 6).join('\n')}\n`)
    const [legacy] = await syncAll(ctx.deps, { ...opts(), only: ['legacy'] })
    expect(legacy).toMatchObject({
      status: 'failed',
      error: "6eyk-hxee: 5 rows is less than 90% of the previous version's 12",
    })
    expect(activeIds()).toEqual(before)
  })

  test('a server that stalls: the read times out, is retried, and the sync fails', async () => {
    server.fail('az4n-8mr2', { kind: 'stall', fraction: 0.3 })
    const started = Date.now()
    const [r] = await syncAll(ctx.deps, { ...opts(), only: ['census'] })
    expect(r).toMatchObject({ status: 'failed', error: expect.stringContaining('stalled') })
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(requestsFor('az4n-8mr2')).toHaveLength(2)
  })

  test('a transient 503 is retried with backoff and succeeds', async () => {
    server.fail('az4n-8mr2', { kind: 'status', status: 503 }, 1)
    const [r] = await syncAll(ctx.deps, { ...opts(), only: ['census'] })
    expect(r?.status).toBe('activated')
    expect(requestsFor('az4n-8mr2').map((q) => q.status)).toEqual([503, 200])
  })

  test('a required baseline file answering 404 fails the sync', async () => {
    server.remove('inys-ebih')
    const [r] = await syncAll(ctx.deps, { ...opts(), only: ['motus'] })
    expect(r).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('inys-ebih: HTTP 404'),
    })
    expect(r?.files.find((f) => f.id === 'inys-ebih')?.status).toBe('missing')
  })

  test('an abort in the middle of a build is "interrupted", removes the partial file; the old version stays', async () => {
    await syncMirror()
    const before = ctx.deps.datasets.get('motus', 'live')?.versionId
    const carrier = server.body('inys-ebih')?.toString() ?? ''
    server.set('inys-ebih', carrier.replace('CHARLIE TRUCKING CO', 'CHARLIE TRUCKING COMPANY'))
    const abort = new AbortController()
    const r = await syncDataset(motusDataset, ctx.deps, {
      ...opts(),
      signal: abort.signal,
      onProgress: (p) => {
        if (p.phase === 'build') abort.abort(new Error('stop requested'))
      },
    })
    expect(r).toMatchObject({ status: 'interrupted', error: 'interrupted: stop requested' })
    expect(lastRun('motus')).toEqual({
      status: 'interrupted',
      error: 'interrupted: stop requested',
    })
    // a normal stop is not a failure: no sync.failed event
    expect(count(`SELECT count(*) AS n FROM webhook_events WHERE type = 'sync.failed'`)).toBe(0)
    expect(r.version).not.toBeNull()
    const v = ctx.deps.db
      .prepare('SELECT status, path FROM dataset_versions WHERE id = ?')
      .get(r.version) as { status: string; path: string }
    expect(v.status).toBe('failed')
    expect(v.path).toMatch(/^datasets\/live\/motus\/\d+\.db$/)
    expect(existsSync(join(ctx.config.paths.dataDir, v.path))).toBe(false)
    expect(ctx.deps.datasets.get('motus', 'live')?.versionId).toBe(before)
    // the next sync builds the changed file
    const again = await syncDataset(motusDataset, ctx.deps, opts())
    expect(again.status).toBe('activated')
  })

  test('a daily diff that deletes and updates rows: logged as changes; current state from the AWH', async () => {
    await syncMirror()
    ctx.clock.advance(DAY)
    const today = '2026-11-16'
    // the portal regenerates the AWH and publishes the day's difference file
    const insur = (server.body('c5y8-a4uz')?.toString() ?? '').replace(
      'MC100008,1000008,BMC-91X,1,P,1000000.00,0.00,P-888,20250601',
      'MC100008,1000008,BMC-91X,1,P,1000000.00,0.00,P-999,20261116',
    )
    server.set('c5y8-a4uz', insur)
    // the portal re-publishes every Motus file that day
    for (const f of motusDataset.files) server.truth(f.id, 'Mon, 16 Nov 2026 10:18:00 GMT')
    const header = insur.split('\n')[0] ?? ''
    server.set(
      'x96h-evps',
      [
        header,
        'MC100008,1000008,BMC-91X,1,P,1000000.00,0.00,P-999,20261116,NEW MUTUAL,20261116',
        'MC100002,1000002,,,,,,,,,',
        '',
      ].join('\n'),
    )
    const [r] = await syncAll(ctx.deps, { ...opts(), only: ['motus'] })
    expect(r?.status).toBe('activated')
    const db = ctx.deps.datasets.get('motus', 'live')?.db
    const changes = db
      ?.prepare(
        `SELECT kind, prefix || number AS docket, as_of FROM changes WHERE file_id = 'x96h-evps' ORDER BY line`,
      )
      .all()
    expect(changes).toEqual([
      { kind: 'changed', docket: 'MC100008', as_of: today },
      { kind: 'deleted', docket: 'MC100002', as_of: today },
    ])
    const lic = getCompanyRecord(
      { db: ctx.deps.db, today, now: ctx.clock().getTime(), maxAgeHours: 72 },
      ctx.deps.datasets.view('live'),
      1000008,
    )
    expect(lic?.insurance.policy_no).toBe('P-999')
    // the blank row is not a record: MC100002's bond (in the AWH) is still there, nothing blank added
    expect(record(1000002)?.insurance.filings).toHaveLength(1)
    expect(lic?.insurance.filings.every((f) => f.form !== null)).toBe(true)
  })

  test('a diff answering 404 is "not yet": skipped, never an older copy', async () => {
    await syncMirror() // nakq-58th and x96h-evps were published that day
    ctx.clock.advance(DAY)
    server.remove('x96h-evps')
    const carrier = server.body('inys-ebih')?.toString() ?? ''
    server.set('inys-ebih', carrier.replace('DELTA HAULING LLC', 'DELTA HAULING L.L.C.'))
    const [r] = await syncAll(ctx.deps, { ...opts(), only: ['motus'] })
    expect(r?.status).toBe('activated')
    expect(r?.files.find((f) => f.id === 'x96h-evps')?.status).toBe('not_yet')
    const n = ctx.deps.datasets
      .get('motus', 'live')
      ?.db.prepare(`SELECT count(*) AS n FROM changes WHERE file_id = 'x96h-evps'`)
      .get() as { n: number }
    expect(n.n).toBe(0)
  })

  test('another process holding the lease: the sync is skipped and recorded', async () => {
    const lease = acquireLease(ctx.deps.db, leaseName('legacy', 'live'), ctx.clock, {
      ttlMs: 60_000,
    })
    const r = await syncDataset(legacyDataset, ctx.deps, opts())
    expect(r).toMatchObject({
      status: 'skipped',
      error: expect.stringMatching(
        new RegExp(
          `^another sync of this dataset is running \\(process ${process.pid} on .+, since 2026-11-15T15:00:00.000Z\\)$`,
        ),
      ),
    })
    expect(lastRun('legacy').status).toBe('skipped')
    expect(syncStatus(ctx.deps).find((s) => s.dataset === 'legacy')?.running).toBe(true)
    lease?.release()
    expect((await syncDataset(legacyDataset, ctx.deps, opts())).status).toBe('activated')
  })

  test('a start syncs the datasets owed, and retries one whose lease is held instead of waiting a day', async () => {
    // census and legacy are current; motus was interrupted by a shutdown
    await syncAll(ctx.deps, { ...opts(), only: ['census', 'legacy'] })
    ctx.deps.db
      .prepare(
        `INSERT INTO sync_runs (dataset, channel, trigger, status, started_at) VALUES ('motus', 'live', 'startup', 'interrupted', 0)`,
      )
      .run()
    expect(pendingDatasets(ctx.deps.db, ctx.deps.config.paths.dataDir)).toEqual([
      'motus',
      'sms',
      'oos',
      'violations',
      'equipment',
    ])
    const lease = acquireLease(ctx.deps.db, leaseName('motus', 'live'), ctx.clock, {
      ttlMs: 60_000,
    })
    setTimeout(() => lease?.release(), 250)
    const results = await catchUpSync(ctx.deps, ['motus'], {
      signal: AbortSignal.timeout(20_000),
      retryMs: 100,
    })
    expect(results.map((r) => [r.dataset, r.status])).toEqual([['motus', 'activated']])
    const runs = ctx.deps.db
      .prepare(
        `SELECT status FROM sync_runs WHERE dataset = 'motus' AND trigger = 'startup' ORDER BY id`,
      )
      .all()
    expect(runs[runs.length - 1]).toEqual({ status: 'activated' })
    expect(runs).toContainEqual({ status: 'skipped' })
    expect(pendingDatasets(ctx.deps.db, ctx.deps.config.paths.dataDir)).toEqual([
      'sms',
      'oos',
      'violations',
      'equipment',
    ])
  })

  test('sync status: active version, last attempt, an error only until the next success', async () => {
    server.fail('az4n-8mr2', { kind: 'status', status: 500 })
    await syncAll(ctx.deps, { ...opts(), only: ['census'] })
    let s = syncStatus(ctx.deps).find((x) => x.dataset === 'census')
    expect(s).toMatchObject({ active: null, last_run: { status: 'failed' } })
    expect(s?.last_error?.message).toContain('HTTP 500')
    server.clear()
    await syncAll(ctx.deps, { ...opts(), only: ['census'] })
    s = syncStatus(ctx.deps).find((x) => x.dataset === 'census')
    expect(s).toMatchObject({
      active: { version: expect.any(Number), rows: 15, as_of: PORTAL_DAY },
      last_run: { status: 'activated', trigger: 'test' },
      last_error: null,
      cron: null, // SYNC_ENABLED=false in tests
    })
    expect(s?.files[0]).toMatchObject({ id: 'az4n-8mr2', bytes: expect.any(Number) })
  })
})

describe('the Socrata app token', () => {
  test('sent as X-App-Token only when configured', async () => {
    await syncAll(ctx.deps, { ...opts(), only: ['census'] })
    expect(requestsFor('az4n-8mr2')[0]?.headers['x-app-token']).toBeUndefined()
    ctx.close()
    await server.close()
    await setup({ SOCRATA_APP_TOKEN: 'tok123' })
    await syncAll(ctx.deps, { ...opts(), only: ['census'] })
    expect(requestsFor('az4n-8mr2')[0]?.headers['x-app-token']).toBe('tok123')
  })

  test('a blank token is unset (a blank header would get 403)', async () => {
    ctx.close()
    await server.close()
    await setup({ SOCRATA_APP_TOKEN: '' })
    const [r] = await syncAll(ctx.deps, { ...opts(), only: ['census'] })
    expect(r?.status).toBe('activated')
    expect(requestsFor('az4n-8mr2')[0]?.headers['x-app-token']).toBeUndefined()
  })
})
