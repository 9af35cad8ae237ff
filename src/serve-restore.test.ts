/**
 * The README's restore procedure with real processes: an app.db backup copied alone into an empty
 * data directory comes up ready on the sample, names the missing mirror files in /readyz and
 * `sync status`, answers live and sandbox keys, and the next sync rebuilds the mirror without
 * `--force`.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { loadConfig } from './config.ts'
import { createDeps } from './compose.ts'
import { pipelineDeps, type Deps } from './deps.ts'
import { silentLogger } from './log.ts'
import { ensureSample } from './sync/sample.ts'
import { syncAll } from './sync/sync.ts'
import { runCliCaptured } from './testing/cli.ts'
import { sampleCensusDir } from './testing/fixture-dirs.ts'
import { LICENSING_FIXTURES, startFmcsaServer, type FmcsaServer } from './testing/fmcsa-server.ts'
import { startProcess, type ServerProcess } from './testing/server-process.ts'

let work: string
let fmcsa: FmcsaServer
let sample: string
let backup: string
const keys = { live: '', test: '' }

const envOf = (dataDir: string) => ({
  DATA_DIR: dataDir,
  SAMPLE_DATA_DIR: sample,
  FMCSA_BASE_URL: fmcsa.url,
  SYNC_ENABLED: 'false',
  SYNC_OOS_MIN_ROWS: '1',
  SYNC_MIN_FREE_MB: '1',
  SYNC_RETRIES: '0',
})

function depsOf(dataDir: string): Deps {
  return createDeps(loadConfig({ ...envOf(dataDir), LOG_LEVEL: 'silent' }), {
    log: silentLogger(),
  })
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cvk-restore-'))
  fmcsa = await startFmcsaServer({ dir: LICENSING_FIXTURES })
  sample = sampleCensusDir()
  // the original installation: the sample, a mirror, an account with a live and a sandbox key
  const deps = depsOf(join(work, 'original'))
  try {
    const signal = AbortSignal.timeout(60_000)
    const built = await ensureSample(pipelineDeps(deps), sample, signal)
    expect(built).not.toBe('absent')
    const synced = await syncAll(deps, {
      signal,
      trigger: 'test',
      only: ['census', 'legacy', 'motus'],
      retryBaseMs: 1,
    })
    expect(synced.map((r) => r.status)).toEqual(['activated', 'activated', 'activated'])
    const ctx = { config: deps.config, deps }
    const account = await runCliCaptured(ctx, [
      'accounts',
      'create',
      '--name',
      'Acme',
      '--plan',
      'starter',
      '--json',
    ])
    const id = String(account.json().id)
    keys.live = (await runCliCaptured(ctx, ['keys', 'create', '--account', id])).stdout.trim()
    keys.test = (
      await runCliCaptured(ctx, ['keys', 'create', '--account', id, '--sandbox'])
    ).stdout.trim()
    const out = await runCliCaptured(ctx, ['backup', '--out', join(work, 'b'), '--json'])
    backup = String(out.json().path)
  } finally {
    deps.close()
  }
}, 120_000)
afterAll(async () => {
  await fmcsa.close()
  rmSync(work, { recursive: true, force: true })
  rmSync(sample, { recursive: true, force: true })
})

const lookup = (port: number, key: string, dot: number) =>
  fetch(`http://127.0.0.1:${port}/v1/carrier/${dot}`, {
    headers: { authorization: `Bearer ${key}` },
  })

describe('an app.db restored into an empty data directory', () => {
  let server: ServerProcess
  const restored = () => join(work, 'restored')
  afterAll(() => server?.stop())

  test('comes up ready on the sample, names the missing files, and a sync without --force rebuilds the mirror', async () => {
    mkdirSync(restored())
    copyFileSync(backup, join(restored(), 'app.db'))
    const started = Date.now()
    server = startProcess(process.env.PATH ?? '', ['serve'], envOf(restored()))
    const port = await server.listening(60_000)
    let ready: Response
    for (;;) {
      ready = await fetch(`http://127.0.0.1:${port}/readyz`)
      if (ready.status === 200 || Date.now() - started > 60_000) break
      await new Promise((r) => setTimeout(r, 200))
    }
    expect(ready.status).toBe(200)
    expect(Date.now() - started).toBeLessThan(60_000)
    const body = (await ready.json()) as { missing_files?: string[]; message?: string }
    expect(body.missing_files).toEqual(['live:census', 'live:legacy', 'live:motus'])
    expect(body.message).toContain('the next sync rebuilds them')

    // both keys answer from the rebuilt sample (live keys read it until the mirror has a census)
    expect((await lookup(port, keys.test, 9_000_001)).status).toBe(200)
    expect((await lookup(port, keys.live, 9_000_001)).status).toBe(200)

    const deps = depsOf(restored())
    try {
      const ctx = { config: deps.config, deps }
      const status = await runCliCaptured(ctx, ['sync', 'status', '--json'])
      const overview = status.json() as {
        missing_files: string[]
        serving: { source: string }
      }
      expect(overview.missing_files).toEqual(['census', 'legacy', 'motus'])
      expect(overview.serving.source).toBe('sample')
      const text = await runCliCaptured(ctx, ['sync', 'status'])
      expect(text.stdout).toContain('missing files: the mirror')

      // the regulator's files did not change, yet the sync rebuilds: no --force needed
      const run = await runCliCaptured(ctx, ['sync', 'run', 'census', '--json'])
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toContain('"activated"')
      expect(
        (
          (await runCliCaptured(ctx, ['sync', 'status', '--json'])).json() as {
            missing_files: string[]
          }
        ).missing_files,
      ).toEqual(['legacy', 'motus'])
    } finally {
      deps.close()
    }
    // the server takes the new census at its next reconcile (every 10 s)
    const until = Date.now() + 30_000
    let mirror = await lookup(port, keys.live, 1_000_009)
    while (mirror.status !== 200 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250))
      mirror = await lookup(port, keys.live, 1_000_009)
    }
    expect(mirror.status).toBe(200)
    expect((await lookup(port, keys.test, 9_000_002)).status).toBe(200)

    // everything the appliance wrote is private to its user
    expect(statSync(restored()).mode & 0o777).toBe(0o700)
    for (const d of ['datasets/sample/census', 'datasets/live/census']) {
      const dir = join(restored(), d)
      expect(statSync(dir).mode & 0o777).toBe(0o700)
      for (const f of readdirSync(dir)) expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600)
    }
  }, 150_000)
})
