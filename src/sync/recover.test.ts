import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { pipelineDeps } from '../deps.ts'
import { acquireLease, getLease, HEARTBEAT_STALE_MS } from '../db/leases.ts'
import { createLogger } from '../log.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { liveCensusDir } from '../testing/fixture-dirs.ts'
import { importDir } from './pipeline.ts'
import { recoverRuns, INTERRUPTED_MESSAGE } from './recover.ts'
import { leaseName } from './run.ts'

let ctx: TestContext
let lines: Record<string, unknown>[]
beforeEach(async () => {
  lines = []
  const log = createLogger('info', {
    write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>),
  })
  ctx = await createTestContext({ log })
})
afterEach(() => ctx.close())

/** The pid of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid
const LEASE = leaseName('census', 'live')

function recordLease(over: { holder?: string; pid: number | null; host?: string; beat?: number }) {
  const now = ctx.clock().getTime()
  ctx.deps.db
    .prepare(
      `INSERT INTO leases (name, holder, acquired_at, expires_at, pid, host, heartbeat_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      LEASE,
      over.holder ?? 'someone-else:1',
      now,
      now + 3_600_000,
      over.pid,
      over.host ?? hostname(),
      over.beat ?? null,
    )
}
const take = () => acquireLease(ctx.deps.db, LEASE, ctx.clock, { ttlMs: 3_600_000 })

describe('leases: a holder that is gone frees the lease at once', () => {
  test('a live holder (this process) keeps it; release frees it', () => {
    const a = take()
    expect(a).not.toBeNull()
    expect(take()).toBeNull()
    expect(getLease(ctx.deps.db, LEASE)).toMatchObject({ pid: process.pid, host: hostname() })
    a?.release()
    expect(take()).not.toBeNull()
  })

  test('same host, pid not alive: free long before the TTL', () => {
    recordLease({ pid: deadPid() })
    expect(take()).not.toBeNull()
  })

  test('same host, this pid but an earlier process (a restarted container): free', () => {
    recordLease({ pid: process.pid, holder: 'an-earlier-process:1' })
    expect(take()).not.toBeNull()
  })

  test('another host: alive while its heartbeat is fresh, free once it is stale', () => {
    recordLease({ pid: deadPid(), host: 'another-host', beat: ctx.clock().getTime() })
    expect(take()).toBeNull()
    ctx.clock.advance(HEARTBEAT_STALE_MS + 1_000)
    expect(take()).not.toBeNull()
  })

  test('a lease without heartbeat on another host waits for its TTL', () => {
    recordLease({ pid: 1, host: 'another-host' })
    expect(take()).toBeNull()
    ctx.clock.advance(3_600_000 + 1)
    expect(take()).not.toBeNull()
  })
})

describe('recoverRuns', () => {
  test('closes orphaned runs as interrupted, fails building versions, deletes partial files, says so', async () => {
    const dir = liveCensusDir()
    const [r] = await importDir(pipelineDeps(ctx.deps), dir, {
      channel: 'live',
      trigger: 'test',
      signal: AbortSignal.timeout(20_000),
    })
    expect(r?.status).toBe('activated')
    const db = ctx.deps.db
    const now = ctx.clock().getTime()
    // what a kill -9 mid-build leaves: a lease of a dead process, a running run, a building version and its file
    recordLease({ pid: deadPid(), holder: 'dead:1' })
    const v = Number(
      db
        .prepare(
          `INSERT INTO dataset_versions (dataset, channel, status, path, created_at) VALUES ('census', 'live', 'building', 'x', ?)`,
        )
        .run(now).lastInsertRowid,
    )
    const run = Number(
      db
        .prepare(
          `INSERT INTO sync_runs (dataset, channel, trigger, holder, status, started_at, version_id)
           VALUES ('census', 'live', 'cli', 'dead:1', 'running', ?, ?)`,
        )
        .run(now, v).lastInsertRowid,
    )
    const folder = join(ctx.config.paths.datasets, 'live', 'census')
    // with the census search index's part files (census/search-build.ts) and their companions
    for (const f of [
      `${v}.db`,
      `${v}.db-journal`,
      `${v}.db-wal`,
      `${v}.db-search0`,
      `${v}.db-search1-journal`,
    ])
      writeFileSync(join(folder, f), 'partial')
    mkdirSync(ctx.config.paths.downloads, { recursive: true })
    writeFileSync(join(ctx.config.paths.downloads, 'az4n-8mr2.part'), 'half a file')

    const done = recoverRuns(pipelineDeps(ctx.deps))
    expect(done).toMatchObject({ runs: [run], versions: [v] })
    expect(Object.keys(done.leases)).toEqual([LEASE])
    expect(getLease(db, LEASE)).toBeNull()
    expect(db.prepare('SELECT status, error FROM sync_runs WHERE id = ?').get(run)).toEqual({
      status: 'interrupted',
      error: INTERRUPTED_MESSAGE,
    })
    expect(db.prepare('SELECT status FROM dataset_versions WHERE id = ?').get(v)).toEqual({
      status: 'failed',
    })
    // only the active version's file is left
    expect(readdirSync(folder)).toEqual([`${r?.version}.db`])
    expect(readdirSync(ctx.config.paths.downloads)).toEqual([])
    expect(lines.find((l) => String(l.msg).startsWith('recovered'))).toMatchObject({
      level: 'warn',
      runs_interrupted: [run],
      versions_removed: [v],
    })
    // nothing left to do: a second pass is silent
    lines.length = 0
    expect(recoverRuns(pipelineDeps(ctx.deps))).toEqual({
      leases: {},
      runs: [],
      versions: [],
      files: [],
    })
    expect(lines).toEqual([])
  })

  test('leaves a live run alone: its lease, run row, building version and file stay', () => {
    const db = ctx.deps.db
    const now = ctx.clock().getTime()
    const lease = take()
    const v = Number(
      db
        .prepare(
          `INSERT INTO dataset_versions (dataset, channel, status, path, created_at) VALUES ('census', 'live', 'building', 'x', ?)`,
        )
        .run(now).lastInsertRowid,
    )
    db.prepare(
      `INSERT INTO sync_runs (dataset, channel, trigger, holder, status, started_at, version_id)
       VALUES ('census', 'live', 'cli', ?, 'running', ?, ?)`,
    ).run(lease?.holder, now, v)
    const folder = join(ctx.config.paths.datasets, 'live', 'census')
    mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, `${v}.db`), 'being built')
    mkdirSync(ctx.config.paths.downloads, { recursive: true })
    writeFileSync(join(ctx.config.paths.downloads, 'az4n-8mr2.part'), 'downloading')
    expect(recoverRuns(pipelineDeps(ctx.deps))).toEqual({
      leases: {},
      runs: [],
      versions: [],
      files: [],
    })
    expect(existsSync(join(folder, `${v}.db`))).toBe(true)
    expect(existsSync(join(ctx.config.paths.downloads, 'az4n-8mr2.part'))).toBe(true)
    lease?.release()
  })
})

describe('a run waits for a held lease when asked to', () => {
  test('waits, then runs once the holder releases; without waiting it is skipped with who holds it', async () => {
    const dir = liveCensusDir()
    const run = (waitMs: number, onWait?: () => void) =>
      importDir(pipelineDeps(ctx.deps), dir, {
        channel: 'live',
        trigger: 'test',
        signal: AbortSignal.timeout(20_000),
        waitMs,
        onWait,
      })
    const lease = take()
    const [skipped] = await run(0)
    expect(skipped).toMatchObject({ status: 'skipped' })
    expect(skipped?.error).toMatch(/^another sync of this dataset is running \(process \d+ on /)
    let waited = 0
    setTimeout(() => lease?.release(), 300)
    const [r] = await run(10_000, () => waited++)
    expect(waited).toBe(1)
    expect(r?.status).toBe('activated')
  })
})
