import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { fixedClock } from '../clock.ts'
import { openAppDb } from '../db/app-db.ts'
import type { Sqlite } from '../db/open.ts'
import { silentLogger } from '../log.ts'
import { startFmcsaServer, type FmcsaServer } from '../testing/fmcsa-server.ts'
import {
  backoffMs,
  deadlineMs,
  downloadFile,
  DownloadError,
  getSourceFile,
  type DownloadOptions,
} from './download.ts'
import { sourceUrl } from './sources.ts'

let server: FmcsaServer
let dir: string
let db: Sqlite
const CSV = 'DOCKET_NUMBER,USDOT_NUMBER\nMC1,1\n'
beforeEach(async () => {
  server = await startFmcsaServer({ files: { 'aaaa-1111': CSV, 'bbbb-2222': 'B\n1\n' } })
  dir = mkdtempSync(join(tmpdir(), 'cvk-dl-'))
  db = openAppDb(join(dir, 'app.db')).sqlite
})
afterEach(async () => {
  db.close()
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

const deps = () => ({
  db,
  fetch: globalThis.fetch,
  clock: fixedClock('2026-11-15T12:00:00Z'),
  random: () => 0.5,
  log: silentLogger(),
})
const options = (over: Partial<DownloadOptions> = {}): DownloadOptions => ({
  signal: AbortSignal.timeout(10_000),
  dataDir: dir,
  dir: join(dir, 'downloads'),
  timeoutMs: 400,
  retries: 2,
  retryBaseMs: 1,
  appToken: null,
  maxTotalMs: 60_000,
  ...over,
})
const rows = (id: string) => ({ id, form: 'rows' as const, url: sourceUrl(server.url, id, 'rows') })
const text = (id: string) => ({ id, form: 'text' as const, url: sourceUrl(server.url, id, 'text') })

describe('downloads', () => {
  test('backoff doubles per attempt with ±50% jitter from the injected random, capped at a minute', () => {
    expect(backoffMs(0, 1_000, () => 0.5)).toBe(1_000)
    expect(backoffMs(3, 1_000, () => 0.5)).toBe(8_000)
    expect(backoffMs(1, 1_000, () => 0)).toBe(1_000)
    expect(backoffMs(1, 1_000, () => 0.999)).toBe(2_998)
    expect(backoffMs(20, 1_000, () => 0.5)).toBe(60_000)
  })

  test('a new file is streamed to <downloads>/<id>.csv with its size, SHA-256, ETag and Last-Modified', async () => {
    const r = await downloadFile(deps(), 'aaaa-1111', [rows('aaaa-1111')], options())
    expect(r).toMatchObject({
      status: 'changed',
      bytes: CSV.length,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    })
    if (r.status === 'not_found') return
    expect(readFileSync(r.path, 'utf8')).toBe(CSV)
    expect(getSourceFile(db, 'aaaa-1111', dir)).toMatchObject({
      url: rows('aaaa-1111').url,
      etag: expect.stringMatching(/^".+"$/),
      lastModified: expect.stringMatching(/GMT$/),
      bytes: CSV.length,
    })
  })

  test('the next request is conditional and a 304 keeps the copy', async () => {
    await downloadFile(deps(), 'aaaa-1111', [rows('aaaa-1111')], options())
    const r = await downloadFile(deps(), 'aaaa-1111', [rows('aaaa-1111')], options())
    expect(r.status).toBe('unchanged')
    expect(server.requests.map((q) => q.status)).toEqual([200, 304])
    expect(server.requests[1]?.headers['if-none-match']).toBe(
      getSourceFile(db, 'aaaa-1111', dir)?.etag,
    )
  })

  test('without a kept copy the request is unconditional again', async () => {
    const first = await downloadFile(deps(), 'aaaa-1111', [rows('aaaa-1111')], options())
    if (first.status === 'not_found') throw new Error('not found')
    rmSync(first.path)
    const r = await downloadFile(deps(), 'aaaa-1111', [rows('aaaa-1111')], options())
    expect(r.status).toBe('changed')
    expect(server.requests[1]?.headers['if-none-match']).toBeUndefined()
  })

  test('a 404 tries the fallback URLs in order; 404 everywhere is "not found", never retried', async () => {
    const r = await downloadFile(
      deps(),
      'cccc-3333',
      [rows('cccc-3333'), text('bbbb-2222')],
      options(),
    )
    expect(r).toMatchObject({ status: 'changed', url: text('bbbb-2222').url })
    const none = await downloadFile(deps(), 'dddd-4444', [rows('dddd-4444')], options())
    expect(none.status).toBe('not_found')
    expect(server.requests.filter((q) => q.id === 'dddd-4444')).toHaveLength(1)
  })

  test('a 403 is not retried and says what to check', async () => {
    server.fail('aaaa-1111', { kind: 'status', status: 403 })
    const err = await downloadFile(deps(), 'aaaa-1111', [rows('aaaa-1111')], options()).catch(
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(DownloadError)
    expect((err as Error).message).toMatch(/HTTP 403 \(check SOCRATA_APP_TOKEN/)
    expect(server.requests).toHaveLength(1)
  })

  test('truncated, HTML and empty bodies are retried, then refused; nothing is recorded', async () => {
    for (const failure of [{ kind: 'truncate' }, { kind: 'html' }, { kind: 'empty' }] as const) {
      server.fail('aaaa-1111', failure)
      const err = await downloadFile(deps(), 'aaaa-1111', [rows('aaaa-1111')], options()).catch(
        (e: unknown) => e,
      )
      expect(err).toBeInstanceOf(DownloadError)
      expect(getSourceFile(db, 'aaaa-1111', dir)).toBeNull()
    }
    expect(server.requests).toHaveLength(9) // 3 attempts each
  })

  test('an abort stops the download at once, without retries', async () => {
    server.fail('aaaa-1111', { kind: 'stall' })
    const abort = new AbortController()
    const p = downloadFile(
      deps(),
      'aaaa-1111',
      [rows('aaaa-1111')],
      options({ signal: abort.signal, timeoutMs: 5_000 }),
    )
    setTimeout(() => abort.abort(new Error('shutting down')), 50)
    await expect(p).rejects.toThrow('shutting down')
    expect(server.requests).toHaveLength(1)
  })

  test('a slow drip is cut off at the overall deadline (expected length at the minimum rate)', async () => {
    const hours3 = 3 * 3_600_000
    expect(deadlineMs(1_000, 10 * 1024 * 1024, 100 * 1024, hours3)).toBe(103_400) // 10 MiB at 100 KiB/s
    expect(deadlineMs(1_000, null, 1024 ** 2, hours3)).toBe(hours3) // unknown: the ceiling
    expect(deadlineMs(1_000, 2 * 1024 ** 3, 100 * 1024, hours3)).toBe(hours3) // never past it
    server.set('eeee-5555', `A\n${'1\n'.repeat(500)}`) // 1,002 bytes
    server.fail('eeee-5555', { kind: 'drip', bytes: 20, everyMs: 20 }) // ~1 KB/s, never stalls
    const started = Date.now()
    const err = await downloadFile(
      deps(),
      'eeee-5555',
      [rows('eeee-5555')],
      options({ retries: 0, minRateBytesPerSec: 5_000 }), // deadline 400 + 200 ms
    ).catch((e: unknown) => e)
    expect((err as Error).message).toMatch(/download deadline of \d+ s exceeded after \d+ bytes/)
    expect(Date.now() - started).toBeLessThan(900)
    expect(getSourceFile(db, 'eeee-5555', dir)).toBeNull()
  })

  test('the lease is renewed while a long body streams; a lost lease stops the download', async () => {
    server.set('eeee-5555', `A\n${'1\n'.repeat(100)}`)
    server.fail('eeee-5555', { kind: 'drip', bytes: 20, everyMs: 15 }, 1)
    let renewals = 0
    const r = await downloadFile(
      deps(),
      'eeee-5555',
      [rows('eeee-5555')],
      options({ renewEveryMs: 20, renew: () => ++renewals > 0 }),
    )
    expect(r.status).toBe('changed')
    expect(renewals).toBeGreaterThanOrEqual(2)
    server.set('eeee-5555', `A\n${'2\n'.repeat(100)}`)
    server.fail('eeee-5555', { kind: 'drip', bytes: 20, everyMs: 15 }, 1)
    const err = await downloadFile(
      deps(),
      'eeee-5555',
      [rows('eeee-5555')],
      options({ renewEveryMs: 20, renew: () => false }),
    ).catch((e: unknown) => e)
    expect((err as Error).message).toMatch(/lost its lease/)
    expect(server.requests.filter((q) => q.id === 'eeee-5555')).toHaveLength(2) // not retried
  })

  test('a chunked body that ends cleanly in the middle of a line is refused', async () => {
    server.set('eeee-5555', 'DOT_NUMBER,NAME\n1,ALPHA\n2,BRAVO\n3,CHARLIE\n')
    server.fail('eeee-5555', { kind: 'chunked_cut', fraction: 0.8 }) // ends inside "3,CHARLIE"
    const err = await downloadFile(
      deps(),
      'eeee-5555',
      [rows('eeee-5555')],
      options({ retries: 1 }),
    ).catch((e: unknown) => e)
    expect((err as Error).message).toMatch(/ends mid-line after \d+ bytes/)
    expect(server.requests.filter((q) => q.id === 'eeee-5555')).toHaveLength(2)
    expect(getSourceFile(db, 'eeee-5555', dir)).toBeNull()
  })

  test('a full disk says "no space left on device", not "truncated body", and is not retried', async () => {
    // the part file is a link to /dev/full: every write fails with a real ENOSPC
    mkdirSync(join(dir, 'downloads'), { recursive: true })
    symlinkSync('/dev/full', join(dir, 'downloads', 'aaaa-1111.part'))
    const err = await downloadFile(deps(), 'aaaa-1111', [rows('aaaa-1111')], options()).catch(
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(DownloadError)
    expect((err as Error).message).toMatch(/no space left on device/)
    expect((err as Error).message).not.toMatch(/truncated/)
    expect(server.requests).toHaveLength(1)
    expect(getSourceFile(db, 'aaaa-1111', dir)).toBeNull()
  })

  test('an answer from a stale replica is refused with `stale` set and never kept', async () => {
    server.stale('aaaa-1111', 1, 'file')
    const err = await downloadFile(deps(), 'aaaa-1111', [rows('aaaa-1111')], options()).catch(
      (e: unknown) => e,
    )
    expect(err).toMatchObject({
      stale: true,
      message: expect.stringMatching(/out-of-date replica/),
    })
    expect(server.requests).toHaveLength(1) // a stale answer waits for untilFresh's delay
    expect(getSourceFile(db, 'aaaa-1111', dir)).toBeNull()
    const r = await downloadFile(deps(), 'aaaa-1111', [rows('aaaa-1111')], options())
    expect(r.status).toBe('changed')
  })

  test('the vintage is X-SODA2-Truth-Last-Modified, else Last-Modified', async () => {
    const r = await downloadFile(deps(), 'aaaa-1111', [rows('aaaa-1111')], options())
    if (r.status === 'not_found') throw new Error('not found')
    expect(r.vintage).toBe(new Date(r.lastModified ?? '').toISOString())
    server.truth('bbbb-2222', 'Tue, 10 Nov 2026 10:18:00 GMT')
    const t = await downloadFile(deps(), 'bbbb-2222', [rows('bbbb-2222')], options())
    expect(t).toMatchObject({ vintage: '2026-11-10T10:18:00.000Z' })
  })

  test('the kept copy is stored relative to the data directory', async () => {
    await downloadFile(deps(), 'aaaa-1111', [rows('aaaa-1111')], options())
    const raw = db.prepare(`SELECT path FROM source_files WHERE file_id = 'aaaa-1111'`).get()
    expect(raw).toEqual({ path: 'downloads/aaaa-1111.csv' })
    expect(getSourceFile(db, 'aaaa-1111', dir)?.path).toBe(join(dir, 'downloads', 'aaaa-1111.csv'))
  })
})
