import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES, startFmcsaServer, type FmcsaServer } from '../testing/fmcsa-server.ts'
import { createProgress, progressLine } from './progress.ts'
import { runCliCaptured } from '../testing/cli.ts'

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
    const status = JSON.parse(r.stdout) as Record<string, unknown>[]
    expect(status.map((s) => s.dataset)).toEqual(
      expect.arrayContaining(['census', 'legacy', 'motus']),
    )
    expect(status.find((s) => s.dataset === 'legacy')).toMatchObject({
      active: { version: expect.any(Number), rows: 188, as_of: '2026-05-14' },
      last_run: { status: 'activated', trigger: 'cli' },
      last_error: null,
      running: false,
    })
    const text = await cli('sync', 'status')
    expect(text.stdout).toMatch(/^dataset\s+version\s+rows\s+as_of/m)
    expect(text.stdout).toMatch(/legacy\s+\d+\s+188\s+2026-05-14/)
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
