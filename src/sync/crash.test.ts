/**
 * Crash and stop tests with real processes: a child `carrier-verify` (import, sync run, serve) is
 * killed with SIGKILL at a chosen point of its dataset run (lease taken, download under way,
 * build under way, first-start sample build), or stopped with SIGTERM; the next run must succeed
 * at once and leave nothing behind: no `running` run, no `building` version, no dataset file that
 * belongs to no kept version, no partial download. Bounded: 7 child processes, each killed or
 * stopped within seconds, one 20,000-row census built a few times.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { loadConfig } from '../config.ts'
import { createDeps } from '../compose.ts'
import { pipelineDeps, type Deps } from '../deps.ts'
import { silentLogger } from '../log.ts'
import { carrierRow, writeCensus } from '../testing/census-fixture.ts'
import {
  filesOf,
  LICENSING_FIXTURES,
  startFmcsaServer,
  type FmcsaServer,
} from '../testing/fmcsa-server.ts'
import { DATASETS } from './datasets.ts'
import { importDir } from './pipeline.ts'
import { syncAll } from './sync.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const LOADER = join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')
const CENSUS = 'az4n-8mr2'
const ROWS = 20_000

let work: string
let big: string
let server: FmcsaServer

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cvk-crash-'))
  big = join(work, 'big')
  mkdirSync(big)
  writeCensus(
    join(big, `${CENSUS}.csv`),
    Array.from({ length: ROWS }, (_, i) => carrierRow(1_000_001 + i)),
  )
  server = await startFmcsaServer({ dir: LICENSING_FIXTURES })
  server.set(CENSUS, (await import('node:fs')).readFileSync(join(big, `${CENSUS}.csv`)))
})
afterAll(async () => {
  await server.close()
  rmSync(work, { recursive: true, force: true })
})

interface Child {
  proc: ChildProcess
  stderr: () => string
  exited: Promise<number | null>
}

function start(dataDir: string, args: string[], env: Record<string, string> = {}): Child {
  let err = ''
  const proc = spawn(process.execPath, ['--import', `file://${LOADER}`, 'src/main.ts', ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      SYNC_ENABLED: 'false',
      SYNC_RETRIES: '0',
      SYNC_TIMEOUT_MS: '60000',
      FMCSA_BASE_URL: server.url,
      SAMPLE_DATA_DIR: join(work, 'no-sample'),
      HOST: '127.0.0.1',
      PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  proc.stderr?.on('data', (d: Buffer) => void (err += d.toString()))
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)))
  return { proc, stderr: () => err, exited }
}

async function waitFor(what: string, cond: () => boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 15))
  }
}

/** Reads app.db of a data dir (null until the child created it). */
function query<T>(dataDir: string, sql: string): T[] {
  const path = join(dataDir, 'app.db')
  if (!existsSync(path)) return []
  const db = new Database(path, { readonly: true, fileMustExist: true, timeout: 5_000 })
  try {
    return db.prepare(sql).all() as T[]
  } catch {
    return [] // not migrated yet
  } finally {
    db.close()
  }
}

/** A version file of a `building` version exists: the build is under way. */
const building =
  (dataDir: string, channel = 'live') =>
  () =>
    query<{ id: number }>(
      dataDir,
      `SELECT id FROM dataset_versions WHERE status = 'building' AND channel = '${channel}'`,
    ).some((v) => existsSync(join(dataDir, 'datasets', channel, 'census', `${v.id}.db`)))

async function kill(child: Child): Promise<void> {
  child.proc.kill('SIGKILL')
  await child.exited
}

/** What a dead run can leave behind. */
function leftovers(dataDir: string) {
  const running = query<{ id: number }>(
    dataDir,
    `SELECT id FROM sync_runs WHERE status = 'running'`,
  )
  const buildingRows = query<{ id: number }>(
    dataDir,
    `SELECT id FROM dataset_versions WHERE status = 'building'`,
  )
  const kept = new Set(
    query<{ id: number }>(
      dataDir,
      `SELECT id FROM dataset_versions WHERE status IN ('active', 'superseded')`,
    ).map((v) => `${v.id}.db`),
  )
  const stray: string[] = []
  const root = join(dataDir, 'datasets')
  for (const channel of existsSync(root) ? readdirSync(root) : [])
    for (const ds of readdirSync(join(root, channel)))
      for (const f of readdirSync(join(root, channel, ds)))
        if (!kept.has(f)) stray.push(`${channel}/${ds}/${f}`)
  const downloads = join(dataDir, 'downloads')
  const parts = existsSync(downloads)
    ? readdirSync(downloads).filter((f) => f.endsWith('.part'))
    : []
  return { running: running.length, building: buildingRows.length, stray, parts }
}

const CLEAN = { running: 0, building: 0, stray: [], parts: [] }

/** The next run, in this process: it must run at once (not 'skipped') and activate. */
async function nextRun(dataDir: string, how: 'import' | 'sync'): Promise<void> {
  const deps: Deps = createDeps(
    loadConfig({
      DATA_DIR: dataDir,
      SYNC_ENABLED: 'false',
      SYNC_RETRIES: '0',
      FMCSA_BASE_URL: server.url,
    }),
    { log: silentLogger() },
  )
  try {
    const signal = AbortSignal.timeout(60_000)
    const [r] =
      how === 'import'
        ? await importDir(pipelineDeps(deps), big, {
            channel: 'live',
            trigger: 'test',
            signal,
            only: ['census'],
          })
        : await syncAll(deps, { signal, trigger: 'test', only: ['census'], force: true })
    expect(r).toMatchObject({ dataset: 'census', status: 'activated' })
    expect(deps.datasets.get('census', 'live')?.versionId).toBe(r?.version)
  } finally {
    deps.close()
  }
  expect(leftovers(dataDir)).toEqual(CLEAN)
}

/** The `listening` log line's port. */
function portOf(child: Child): number | null {
  for (const line of child.stderr().split('\n')) {
    if (!line.includes('"listening"')) continue
    return (JSON.parse(line) as { port: number }).port
  }
  return null
}

const logLines = (child: Child) =>
  child
    .stderr()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: string; msg: string; [k: string]: unknown })

describe('kill -9 at several points of a run: the next run succeeds at once, nothing is left', () => {
  test('import: killed just after taking the lease, and in the middle of the build', async () => {
    const data = join(work, 'import')
    const lease = start(data, [
      'import',
      '--dir',
      big,
      '--dataset',
      'census',
      '--as-of',
      '2026-11-01',
    ])
    await waitFor('the lease', () =>
      query<{ pid: number }>(data, `SELECT pid FROM leases WHERE name = 'sync:live:census'`).some(
        (l) => l.pid === lease.proc.pid,
      ),
    )
    await kill(lease)
    await nextRun(data, 'import')

    const mid = start(data, [
      'import',
      '--dir',
      big,
      '--dataset',
      'census',
      '--as-of',
      '2026-11-01',
    ])
    await waitFor('the build', building(data))
    await kill(mid)
    // what the kill left: a running run and a building version with its partial file
    const left = leftovers(data)
    expect(left).toMatchObject({ running: 1, building: 1 })
    expect(left.stray).toContainEqual(expect.stringMatching(/^live\/census\/\d+\.db/))
    await nextRun(data, 'import')
  }, 180_000)

  test('sync run: killed during the download, and in the middle of the build', async () => {
    const data = join(work, 'sync')
    server.fail(CENSUS, { kind: 'stall', fraction: 0.3 }, 1)
    const dl = start(data, ['sync', 'run', 'census'])
    await waitFor(
      'the partial download',
      () =>
        existsSync(join(data, 'downloads')) &&
        readdirSync(join(data, 'downloads')).some((f) => f.endsWith('.part')),
    )
    await kill(dl)
    expect(leftovers(data)).toMatchObject({ running: 1, parts: [`${CENSUS}.part`] })
    await nextRun(data, 'sync')

    const mid = start(data, ['sync', 'run', 'census', '--force'])
    await waitFor('the build', building(data))
    await kill(mid)
    await nextRun(data, 'sync')
  }, 180_000)

  test('first start: killed during the sample build, the next start serves (readyz 200)', async () => {
    const data = join(work, 'first')
    const env = { SAMPLE_DATA_DIR: big }
    const first = start(data, ['serve'], env)
    await waitFor('the sample build', building(data, 'sample'))
    await kill(first)
    const second = start(data, ['serve'], env)
    try {
      await waitFor('listening', () => portOf(second) !== null, 90_000)
      const res = await fetch(`http://127.0.0.1:${portOf(second)}/readyz`)
      expect(res.status).toBe(200)
      expect(logLines(second).find((l) => l.msg.startsWith('recovered'))).toMatchObject({
        level: 'warn',
        runs_interrupted: [expect.any(Number)],
      })
    } finally {
      second.proc.kill('SIGTERM')
      expect(await second.exited).toBe(0)
    }
    expect(leftovers(data)).toEqual(CLEAN)
  }, 180_000)
})

describe('SIGTERM during the first sync', () => {
  test('the run is recorded interrupted, logged at info with no error line, and retried at the next start', async () => {
    const data = join(work, 'sigterm')
    const env = { SYNC_ENABLED: 'true', SAMPLE_DATA_DIR: join(work, 'no-sample') }
    server.fail(CENSUS, { kind: 'stall', fraction: 0.3 }, 1)
    // every dataset syncs at start: a file the fixture server lacks answers 404, and a run failing
    // on it before the kill logs an error line (a race with the census download), so those stall
    const served = new Set(Object.keys(filesOf(LICENSING_FIXTURES)))
    const lacking = DATASETS.flatMap((d) => d.files.map((f) => f.id)).filter(
      (id) => id !== CENSUS && !served.has(id),
    )
    for (const id of lacking) server.fail(id, { kind: 'stall' })
    const first = start(data, ['serve'], env)
    await waitFor(
      'the download',
      () =>
        query<{ status: string }>(
          data,
          `SELECT status FROM sync_runs WHERE dataset = 'census'`,
        ).some((r) => r.status === 'running') &&
        existsSync(join(data, 'downloads', `${CENSUS}.part`)),
    )
    first.proc.kill('SIGTERM')
    expect(await first.exited).toBe(0)
    // stalled downloads would hold the next start's download slots: they answer 404 again
    for (const id of lacking) server.clear(id)
    const lines = logLines(first)
    expect(lines.filter((l) => l.level === 'error' || l.level === 'fatal')).toEqual([])
    expect(first.stderr()).not.toMatch(/\n\s+at /) // no stack trace
    // datasets sync at once: every run reached is interrupted, each logged at info
    const stopped = lines.filter((l) => l.msg.startsWith('dataset run interrupted'))
    expect(stopped.map((l) => l.level)).not.toContain('warn')
    expect(stopped.find((l) => l.dataset === 'census')).toMatchObject({ level: 'info' })
    expect(
      query<{ status: string; error: string }>(
        data,
        `SELECT status, error FROM sync_runs WHERE dataset = 'census'`,
      ),
    ).toEqual([{ status: 'interrupted', error: 'interrupted: shutting down' }])

    // the next start syncs it again at once, without waiting for the schedule
    const second = start(data, ['serve'], env)
    try {
      await waitFor(
        'the census activated',
        () =>
          query(
            data,
            `SELECT id FROM dataset_versions WHERE dataset = 'census' AND status = 'active'`,
          ).length === 1,
        90_000,
      )
    } finally {
      second.proc.kill('SIGTERM')
      expect(await second.exited).toBe(0)
    }
    expect(
      query<{ trigger: string; status: string }>(
        data,
        `SELECT trigger, status FROM sync_runs WHERE dataset = 'census' ORDER BY id`,
      ),
    ).toEqual([
      { trigger: 'startup', status: 'interrupted' },
      { trigger: 'startup', status: 'activated' },
    ])
    expect(leftovers(data)).toMatchObject({ running: 0, building: 0, stray: [] })
  }, 180_000)
})
