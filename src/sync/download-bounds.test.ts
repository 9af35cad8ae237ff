/**
 * Every download ends in bounded time, and compressed answers are judged by what they decode to:
 * a trickle with no Content-Length and no earlier copy, the budget across retries, and gzip and
 * deflate files served precompressed (as nginx `gzip_static` does) by a local server.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deflateSync, gzipSync } from 'node:zlib'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { fixedClock } from '../clock.ts'
import { openAppDb } from '../db/app-db.ts'
import type { Sqlite } from '../db/open.ts'
import { silentLogger } from '../log.ts'
import { startFmcsaServer, type FmcsaServer } from '../testing/fmcsa-server.ts'
import {
  BYTES_PER_ROW_BOUND,
  downloadFile,
  getSourceFile,
  type DownloadOptions,
} from './download.ts'
import { sourceUrl } from './sources.ts'

let dir: string
let db: Sqlite
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cvk-dlb-'))
  db = openAppDb(join(dir, 'app.db')).sqlite
})
afterEach(() => {
  db.close()
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
  signal: AbortSignal.timeout(20_000),
  dataDir: dir,
  dir: join(dir, 'downloads'),
  timeoutMs: 400,
  retries: 0,
  retryBaseMs: 1,
  appToken: null,
  maxTotalMs: 60_000,
  ...over,
})

describe('a trickle without Content-Length and without an earlier copy', () => {
  let server: FmcsaServer
  beforeEach(async () => {
    server = await startFmcsaServer({ files: {} })
    // 4,001 rows; the drip never stalls and would take minutes
    server.set('tttt-1111', `A\n${'1\n'.repeat(4_000)}`)
    server.fail('tttt-1111', { kind: 'drip', bytes: 10, everyMs: 20, chunked: true })
  })
  afterEach(() => server.close())
  const url = () => [
    { id: 'tttt-1111', form: 'rows' as const, url: sourceUrl(server.url, 'tttt-1111', 'rows') },
  ]

  test('is cut at the deadline of the portal row count times the bytes-per-row bound at the minimum rate', async () => {
    let asked = 0
    const started = Date.now()
    const err = await downloadFile(
      deps(),
      'tttt-1111',
      url(),
      options({
        // 2 rows × 1 KiB at 4 KiB/s: 400 + 500 ms
        expectedRows: async () => (++asked, 2),
        minRateBytesPerSec: 4 * 1024,
      }),
    ).catch((e: unknown) => e)
    expect(asked).toBe(1)
    expect((err as Error).message).toMatch(/download deadline of 1 s exceeded/)
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(2 * BYTES_PER_ROW_BOUND).toBe(2048)
    expect(getSourceFile(db, 'tttt-1111', dir)).toBeNull()
  })

  test('with no row count either, the dataset ceiling bounds it; retries share one budget', async () => {
    const started = Date.now()
    const err = await downloadFile(
      deps(),
      'tttt-1111',
      url(),
      options({ retries: 3, maxTotalMs: 1_500, minRateBytesPerSec: 1 }),
    ).catch((e: unknown) => e)
    const took = Date.now() - started
    // one attempt takes the whole budget: no retry starts a trickle again
    expect((err as Error).message).toMatch(/download deadline of 2 s exceeded|time budget/)
    expect(took).toBeLessThan(2_500)
    expect(server.requests.filter((r) => r.id === 'tttt-1111')).toHaveLength(1)
  })
})

/** A server of precompressed files: `.gz`/`.zz` bodies with or without Content-Length. */
function precompressed(
  csv: string,
): Promise<{ url: string; close: () => Promise<void>; server: Server }> {
  const gz = gzipSync(csv)
  const zz = deflateSync(csv)
  const server = createServer((req, res) => {
    const [, enc, length, cut] =
      /^\/(gzip|deflate)\/(len|chunked)(\/cut|\/midline)?/.exec(req.url ?? '') ?? []
    let body = enc === 'gzip' ? gz : zz
    if (cut === '/midline')
      body = enc === 'gzip' ? gzipSync(csv.slice(0, -3)) : deflateSync(csv.slice(0, -3))
    const headers: Record<string, string> = {
      'content-type': 'text/csv',
      'content-encoding': enc ?? '',
    }
    if (length === 'len') headers['content-length'] = String(body.length)
    res.writeHead(200, headers)
    if (cut === '/cut') {
      res.write(body.subarray(0, Math.floor(body.length / 2)))
      setTimeout(() => res.socket?.destroy(), 20)
      return
    }
    res.end(body)
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      resolve({
        url: `http://127.0.0.1:${port}`,
        server,
        close: () => new Promise<void>((r) => server.close(() => r())),
      })
    }),
  )
}

describe('gzip and deflate answers (precompressed files)', () => {
  const csv = `DOCKET_NUMBER,USDOT_NUMBER\n${Array.from({ length: 2_000 }, (_, i) => `MC${i},${i}`).join('\n')}\n`
  let srv: Awaited<ReturnType<typeof precompressed>>
  beforeEach(async () => {
    srv = await precompressed(csv)
  })
  afterEach(() => srv.close())
  const get = (path: string, id = 'gzip-0001') =>
    downloadFile(deps(), id, [{ id, form: 'rows' as const, url: `${srv.url}${path}` }], options())

  test.each(['/gzip/len', '/gzip/chunked', '/deflate/len', '/deflate/chunked'])(
    '%s is kept decoded, its size the decoded size',
    async (path) => {
      const r = await get(path)
      expect(r.status).toBe('changed')
      if (r.status === 'not_found') return
      expect(r.bytes).toBe(Buffer.byteLength(csv))
      expect(readFileSync(r.path, 'utf8')).toBe(csv)
    },
  )

  test.each(['/gzip/len/cut', '/deflate/len/cut'])(
    '%s (transfer cut short) is refused as truncated',
    async (path) => {
      await expect(get(path)).rejects.toThrow(/truncated body/)
    },
  )

  test.each(['/gzip/chunked/midline', '/gzip/len/midline'])(
    '%s (decodes to a body ending mid-line) is refused',
    async (path) => {
      await expect(get(path)).rejects.toThrow(/ends mid-line/)
    },
  )
})
