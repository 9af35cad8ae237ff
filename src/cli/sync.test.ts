import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES, startFmcsaServer, type FmcsaServer } from '../testing/fmcsa-server.ts'
import { createProgress, progressLine } from './progress.ts'
import { runCliCaptured } from '../testing/cli.ts'
import { liveCensusDir } from '../testing/fixture-dirs.ts'
import { acquireLease } from '../db/leases.ts'
import { leaseName } from '../sync/run.ts'

let ctx: TestContext
let server: FmcsaServer
beforeEach(async () => {
  server = await startFmcsaServer({ dir: LICENSING_FIXTURES })
  ctx = await createTestContext({
    fetch: globalThis.fetch,
    env: { FMCSA_BASE_URL: server.url, SYNC_RETRIES: '0' },
  })
})
afterEach(async () => {
  ctx.close()
  await server.close()
})

const cli = (...argv: string[]) => runCliCaptured(ctx, argv)

describe('carrier-verify sync', () => {
  test('sync run DATASET... --json mirrors them and prints one result per dataset', async () => {
    const r = await cli('sync', 'run', 'census', 'legacy', 'motus', '--json')
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout) as { dataset: string; status: string; files: unknown[] }[]
    expect(out.map((x) => [x.dataset, x.status])).toEqual([
      ['census', 'activated'],
      ['legacy', 'activated'],
      ['motus', 'activated'],
    ])
    expect(r.stderr).toBe('') // not a TTY: no progress line
    const again = await cli('sync', 'run', 'census')
    expect(again.code).toBe(0)
    expect(again.stdout).toMatch(/census\s+unchanged/)
  })

  test('a failed sync exits 1; an unknown dataset is a usage error (exit 2)', async () => {
    server.remove('az4n-8mr2')
    expect((await cli('sync', 'run', 'census')).code).toBe(1)
    const bad = await cli('sync', 'run', 'censos')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/usage error/)
  })

  test('sync status --json: per dataset, active version, rows, as-of, last attempt and error', async () => {
    await cli('sync', 'run', 'legacy')
    const r = await cli('sync', 'status', '--json')
    expect(r.code).toBe(0)
    const overview = JSON.parse(r.stdout) as { datasets: Record<string, unknown>[] }
    expect(Object.keys(overview)).toEqual([
      'serving',
      'sync_enabled',
      'next_run',
      'last_mirror',
      'missing_files',
      'datasets',
      'regulator',
    ])
    // no census yet and no sample: nothing serves; syncing is off in tests
    expect(overview).toMatchObject({
      serving: { source: 'none', as_of: null },
      sync_enabled: false,
      next_run: null,
      last_mirror: { updated_at: expect.any(String), checked_at: expect.any(String) },
      regulator: { reachable: true, since: null, sentence: null },
      missing_files: [],
    })
    const status = overview.datasets
    expect(status.map((s) => s.dataset)).toEqual(
      expect.arrayContaining(['census', 'legacy', 'motus']),
    )
    expect(status.find((s) => s.dataset === 'legacy')).toMatchObject({
      active: {
        version: expect.any(Number),
        rows: 188,
        as_of: '2026-05-14',
        imported_at: '2026-11-15T12:00:00.000Z', // the test clock
      },
      last_run: { status: 'activated', trigger: 'cli' },
      last_error: null,
      running: false,
    })
    const text = await cli('sync', 'status')
    expect(text.stdout).toMatch(/^serving: nothing/m)
    expect(text.stdout).toMatch(/^sync: disabled/m)
    expect(text.stdout).toMatch(/^dataset\s+version\s+rows\s+as_of/m)
    expect(text.stdout).toMatch(/legacy\s+\d+\s+188\s+2026-05-14/)
  })

  test('sync status: the mirror serving with its as-of, an error on one line (in full in --json)', async () => {
    await cli('sync', 'run', 'census')
    server.fail('inys-ebih', { kind: 'status', status: 500 })
    await cli('sync', 'run', 'motus')
    const text = await cli('sync', 'status')
    // the regulator's date: the fake portal's Last-Modified
    expect(text.stdout).toMatch(/^serving: the mirror, census as of 2026-11-01$/m)
    const motusLine = text.stdout.split('\n').find((l) => l.startsWith('motus')) ?? ''
    expect(motusLine).toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\dZ inys-ebih: /)
    const json = JSON.parse((await cli('sync', 'status', '--json')).stdout) as {
      serving: unknown
      datasets: { dataset: string; last_error: { message: string } | null; error_summary: string }[]
    }
    expect(json.serving).toMatchObject({ source: 'mirror', as_of: '2026-11-01' })
    const motus = json.datasets.find((d) => d.dataset === 'motus')
    expect(motus?.last_error?.message).toMatch(/^inys-ebih: /)
    expect(motus?.error_summary.length).toBeLessThanOrEqual(100)
    expect(motus?.error_summary).not.toMatch(/\n/)
  })

  test('sync rollback DATASET: the previous version is active again; again undoes it', async () => {
    await cli('sync', 'run', 'census')
    const first = ctx.deps.datasets.get('census', 'live')?.versionId
    await cli('sync', 'run', 'census', '--force')
    const second = ctx.deps.datasets.get('census', 'live')?.versionId
    expect(second).not.toBe(first)
    const r = await cli('sync', 'rollback', 'census')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`^census: version ${first} .* is active again`))
    expect(ctx.deps.datasets.get('census', 'live')?.versionId).toBe(first)
    const undo = await cli('sync', 'rollback', 'census', '--json')
    expect(undo.json()).toMatchObject({ dataset: 'census', version: second, previous: first })
    expect(ctx.deps.datasets.get('census', 'live')?.versionId).toBe(second)
  })

  test('sync rollback without a previous version, or a dataset, fails clearly', async () => {
    const none = await cli('sync', 'rollback', 'legacy')
    expect(none).toMatchObject({ code: 1, stderr: 'error: legacy has no active mirror version\n' })
    await cli('sync', 'run', 'legacy')
    const one = await cli('sync', 'rollback', 'legacy')
    expect(one.code).toBe(1)
    expect(one.stderr).toMatch(/no previous version to roll back to/)
    expect((await cli('sync', 'rollback')).code).toBe(2)
  })
})

describe('sync status with syncing enabled', () => {
  test('the next scheduled run, overall and per dataset', async () => {
    const on = await createTestContext({ env: { SYNC_ENABLED: 'true' } }) // clock: 2026-11-15T12:00Z
    try {
      const r = await runCliCaptured(on, ['sync', 'status', '--json'])
      const s = JSON.parse(r.stdout) as {
        sync_enabled: boolean
        next_run: { at: string; datasets: string[] }
        datasets: { dataset: string; next_run: string }[]
      }
      expect(s.sync_enabled).toBe(true)
      // daily files at 14:30 UTC (SYNC_SCHEDULE_DAILY), SMS on the 3rd, legacy on Sundays
      expect(s.next_run.at).toBe('2026-11-15T14:30:00.000Z')
      expect(s.next_run.datasets).toContain('census')
      expect(s.datasets.find((d) => d.dataset === 'sms')?.next_run).toBe('2026-12-03T06:00:00.000Z')
      const text = await runCliCaptured(on, ['sync', 'status'])
      expect(text.stdout).toMatch(/^sync: enabled; next run 2026-11-15T14:30:00.000Z \(census/m)
    } finally {
      on.close()
    }
  })
})

describe('carrier-verify import while another run holds a dataset', () => {
  test('waits for it with a message, or tells exactly what to re-run', async () => {
    const lease = acquireLease(ctx.deps.db, leaseName('census', 'live'), ctx.clock, {
      ttlMs: 60_000,
    })
    const dir = liveCensusDir()
    const r = await cli('import', '--dir', dir, '--as-of', '2026-11-14', '--wait', '1')
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      /^census: another run holds this dataset \(process \d+ on .+\); waiting up to 1 s/,
    )
    expect(r.stderr).toContain(
      `not imported: census; re-run: carrier-verify import --dir ${dir} --dataset census --as-of 2026-11-14\n`,
    )
    setTimeout(() => lease?.release(), 300)
    const ok = await cli('import', '--dir', dir, '--as-of', '2026-11-14')
    expect(ok.code).toBe(0)
    expect(ok.stdout).toMatch(/census\s+activated/)
  })
})

describe('progress', () => {
  test('one redrawn line on a TTY, throttled; nothing otherwise', () => {
    let out = ''
    let t = 0
    const p = createProgress({ isTTY: true, stderr: (s) => void (out += s) }, { now: () => t })
    p.update({ dataset: 'census', phase: 'build', file: 'az4n-8mr2', rows: 1_234_567 })
    t += 50
    p.update({ dataset: 'census', phase: 'build', file: 'az4n-8mr2', rows: 1_300_000 })
    t += 500
    p.update({
      dataset: 'census',
      phase: 'download',
      file: 'az4n-8mr2',
      bytes: 3_145_728,
      total: 10_485_760,
    })
    p.done()
    expect(out).toBe(
      '\r\x1b[2Kcensus: building from az4n-8mr2, 1,234,567 rows' +
        '\r\x1b[2Kcensus: downloading az4n-8mr2 3.0 MB of 10.0 MB' +
        '\r\x1b[2K',
    )
    let quiet = ''
    const q = createProgress({ isTTY: false, stderr: (s) => void (quiet += s) })
    q.update({ dataset: 'census', phase: 'build', file: 'x', rows: 1 })
    q.done()
    expect(quiet).toBe('')
    expect(
      progressLine({ dataset: 'legacy', phase: 'download', file: 'a', bytes: 0, total: null }),
    ).toBe('legacy: downloading a 0.0 MB')
  })
})
