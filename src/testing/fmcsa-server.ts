/**
 * A local stand-in for data.transportation.gov on 127.0.0.1 for sync tests (and a manual
 * FMCSA_BASE_URL target): serves files in the real URL layout
 * (`/api/views/<id>/rows.csv?accessType=DOWNLOAD`, `/download/<id>/text%2Fplain`), answers
 * conditional requests with 304, answers the SODA row count (`/resource/<id>.json?$select=count(*)`)
 * and the SODA rows changed after a date (`/resource/<id>.csv?$where=col > '…'&$order&$limit&$offset`),
 * and can misbehave on demand: 404, 5xx, an HTML page with status 200, an empty body, a truncated
 * body, a chunked body that ends cleanly mid-file, a stall, a slow drip, and answers flagged
 * `X-SODA2-Data-Out-Of-Date: true` (a stale replica).
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import Papa from 'papaparse'
import type { AddressInfo, Socket } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** The licensing fixtures (legacy, Motus, census) in the real formats, named by dataset id. */
export const LICENSING_FIXTURES = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'test',
  'fixtures',
  'licensing',
  'mirror',
)

export type Failure =
  | { kind: 'not_found' }
  | { kind: 'status'; status: number }
  /** status 200 with an HTML page (the portal's maintenance page); contentType defaults to text/html */
  | { kind: 'html'; contentType?: string }
  | { kind: 'empty' }
  /** sends this share of the body (default half) with the full Content-Length, then hangs up */
  | { kind: 'truncate'; fraction?: number }
  /** sends the headers and this share of the body (default none), then nothing until closed */
  | { kind: 'stall'; fraction?: number }
  /** chunked (no Content-Length): this share of the body, then a clean end (default 0.97) */
  | { kind: 'chunked_cut'; fraction?: number }
  /** the body `bytes` at a time every `everyMs` (never stalls, never finishes quickly); chunked: no Content-Length */
  | { kind: 'drip'; bytes: number; everyMs: number; chunked?: boolean }

export interface ServedRequest {
  path: string
  id: string | null
  form: 'rows' | 'text' | 'count' | 'changes' | null
  status: number
  headers: Record<string, string | undefined>
}

export interface FmcsaServer {
  /** base URL for FMCSA_BASE_URL, e.g. http://127.0.0.1:41234 */
  readonly url: string
  readonly requests: ServedRequest[]
  /** the most file answers (rows/text) that were in flight at once */
  readonly maxConcurrent: number
  /** serves `body` for the id (both URL forms); a new body gets a new ETag and Last-Modified */
  set(id: string, body: string | Buffer, opts?: { etag?: string }): void
  remove(id: string): void
  /** makes the next `times` requests for the id fail (default: until cleared) */
  fail(id: string, failure: Failure, times?: number): void
  clear(id?: string): void
  /** served body of an id */
  body(id: string): Buffer | undefined
  /** the portal's own row count for an id (default: the records of the body); null = no answer */
  setCount(id: string, count: number | null): void
  /** the next `times` answers of `what` for the id carry X-SODA2-Data-Out-Of-Date: true */
  stale(id: string, times: number, what?: 'file' | 'count' | 'both'): void
  /** X-SODA2-Truth-Last-Modified of the id's answers (default: none) */
  truth(id: string, at: string | null): void
  close(): Promise<void>
}

interface Entry {
  body: Buffer
  etag: string
  lastModified: string
}

const HTML_PAGE =
  '<!DOCTYPE html>\n<html><head><title>FMCSA System Maintenance Page</title></head><body>Down for maintenance</body></html>\n'

const IDENT = /^[A-Za-z_][A-Za-z0-9_ ]*$/

/** Records of a CSV body, less a header row (a first row of column names), like count(*). */
export function recordCount(body: Buffer): number {
  const rows = Papa.parse<string[]>(body.toString('utf8'), { skipEmptyLines: true }).data
  const first = rows[0]
  const header = first !== undefined && first.every((f) => IDENT.test(f))
  return rows.length - (header ? 1 : 0)
}

/** Reads `<id>.csv` / `<id>.txt` files of a folder into an id → content map. */
export function filesOf(dir: string): Record<string, Buffer> {
  const out: Record<string, Buffer> = {}
  for (const name of readdirSync(dir)) {
    const m = /^([a-z0-9]{4}-[a-z0-9]{4})\.(csv|txt)$/i.exec(name)
    if (m?.[1]) out[m[1].toLowerCase()] = readFileSync(join(dir, name))
  }
  return out
}

/** SODA `/resource/<id>.csv`: the rows whose `col` is after a value, lower-case header, paged. */
function sodaChanges(
  url: string,
  entries: ReadonlyMap<string, Entry>,
): { id: string | null; status: number; body: string } {
  const u = new URL(url, 'http://127.0.0.1')
  const id = /^\/resource\/([a-z0-9]{4}-[a-z0-9]{4})\.csv$/.exec(u.pathname)?.[1] ?? null
  const where = /^(\w+) > '(.*)'$/.exec(u.searchParams.get('$where') ?? '')
  const entry = id ? entries.get(id) : undefined
  if (!entry || !where) return { id, status: entry ? 400 : 404, body: '' }
  const [head = [], ...rows] = Papa.parse<string[]>(entry.body.toString('utf8'), {
    skipEmptyLines: true,
  }).data
  const col = head.findIndex((h) => h.toLowerCase() === where[1])
  const value = (r: string[]) => r[col] ?? ''
  const picked = rows
    .filter((r) => value(r) > (where[2] ?? ''))
    .sort((a, b) => (value(a) < value(b) ? -1 : value(a) > value(b) ? 1 : 0))
  const offset = Number(u.searchParams.get('$offset') ?? 0)
  const page = picked.slice(offset, offset + Number(u.searchParams.get('$limit') ?? 1000))
  const body = Papa.unparse([head.map((h) => h.toLowerCase()), ...page], { newline: '\n' })
  return { id, status: 200, body: `${body}\n` }
}

/** Answers a SODA changes request (sodaChanges), recorded in `requests`. */
function serveChanges(
  url: string,
  res: ServerResponse,
  entries: ReadonlyMap<string, Entry>,
  requests: ServedRequest[],
  extraHeaders: (id: string, what: 'file') => Record<string, string>,
): void {
  const answer = sodaChanges(url, entries)
  requests.push({ path: url, id: answer.id, form: 'changes', status: answer.status, headers: {} })
  if (answer.status !== 200 || answer.id === null)
    return void res.writeHead(answer.status).end('{"error":true}')
  res
    .writeHead(200, {
      'content-type': 'text/csv; charset=utf-8',
      ...extraHeaders(answer.id, 'file'),
    })
    .end(answer.body)
}

export async function startFmcsaServer(
  opts: { dir?: string; files?: Record<string, string | Buffer>; port?: number } = {},
): Promise<FmcsaServer> {
  const entries = new Map<string, Entry>()
  const failures = new Map<string, { failure: Failure; times: number }>()
  const counts = new Map<string, number | null>()
  const stales = new Map<string, { times: number; what: 'file' | 'count' | 'both' }>()
  const truths = new Map<string, string | null>()
  /** whether this answer is flagged stale (and uses up one of the flagged answers) */
  const staleNow = (id: string, what: 'file' | 'count') => {
    const st = stales.get(id)
    if (!st || (st.what !== 'both' && st.what !== what)) return false
    if (--st.times <= 0) stales.delete(id)
    return true
  }
  const extraHeaders = (id: string, what: 'file' | 'count'): Record<string, string> => {
    const h: Record<string, string> = {}
    if (staleNow(id, what)) h['x-soda2-data-out-of-date'] = 'true'
    const t = truths.get(id)
    if (t) h['x-soda2-truth-last-modified'] = t
    return h
  }
  const requests: ServedRequest[] = []
  const sockets = new Set<Socket>()
  let clock = Date.UTC(2026, 10, 1)

  const set = (id: string, body: string | Buffer, o: { etag?: string } = {}) => {
    const buf = typeof body === 'string' ? Buffer.from(body) : body
    clock += 60_000
    entries.set(id, {
      body: buf,
      etag: `"${o.etag ?? createHash('sha1').update(buf).digest('hex')}"`,
      lastModified: new Date(clock).toUTCString(),
    })
  }
  for (const [id, body] of Object.entries(opts.dir ? filesOf(opts.dir) : {})) set(id, body)
  for (const [id, body] of Object.entries(opts.files ?? {})) set(id, body)

  const route = (url: string): { id: string; form: 'rows' | 'text' } | null => {
    let m = /^\/api\/views\/([a-z0-9]{4}-[a-z0-9]{4})\/rows\.csv\?accessType=DOWNLOAD$/.exec(url)
    if (m?.[1]) return { id: m[1], form: 'rows' }
    m = /^\/download\/([a-z0-9]{4}-[a-z0-9]{4})\/text%2Fplain$/.exec(url)
    if (m?.[1]) return { id: m[1], form: 'text' }
    return null
  }

  let inFlight = 0
  let maxConcurrent = 0
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? ''
    if (route(url)) {
      inFlight++
      maxConcurrent = Math.max(maxConcurrent, inFlight)
      res.on('close', () => inFlight--)
    }
    const cm = /^\/resource\/([a-z0-9]{4}-[a-z0-9]{4})\.json\?\$select=count\(\*\)$/.exec(
      decodeURIComponent(url),
    )
    if (cm?.[1]) {
      const id = cm[1]
      const entry = entries.get(id)
      const n = counts.has(id) ? counts.get(id) : entry ? recordCount(entry.body) : null
      const status = n === null || n === undefined ? 404 : 200
      requests.push({ path: url, id, form: 'count', status, headers: {} })
      if (status === 404)
        return res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"code":"not_found"}')
      return res
        .writeHead(200, { 'content-type': 'application/json', ...extraHeaders(id, 'count') })
        .end(JSON.stringify([{ count: String(n) }]))
    }
    if (/^\/resource\/[^/]+\.csv\?/.test(url))
      return serveChanges(url, res, entries, requests, extraHeaders)
    const r = route(url)
    const log = (status: number) =>
      requests.push({
        path: url,
        id: r?.id ?? null,
        form: r?.form ?? null,
        status,
        headers: {
          'if-none-match': req.headers['if-none-match'],
          'if-modified-since': req.headers['if-modified-since'],
          'x-app-token': req.headers['x-app-token'] as string | undefined,
        },
      })
    const token = req.headers['x-app-token']
    if (token !== undefined && String(token).trim() === '') {
      log(403)
      return res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":true}')
    }
    const entry = r ? entries.get(r.id) : undefined
    const f = r ? failures.get(r.id) : undefined
    if (r && f) {
      if (--f.times <= 0) failures.delete(r.id)
      const failure = f.failure
      switch (failure.kind) {
        case 'not_found':
          log(404)
          return res.writeHead(404, { 'content-type': 'application/json' }).end('{}')
        case 'status':
          log(failure.status)
          return res.writeHead(failure.status, { 'content-type': 'text/plain' }).end('error')
        case 'html':
          log(200)
          return res
            .writeHead(200, { 'content-type': failure.contentType ?? 'text/html; charset=utf-8' })
            .end(HTML_PAGE)
        case 'empty':
          log(200)
          return res.writeHead(200, { 'content-type': 'text/csv', 'content-length': '0' }).end()
        case 'truncate': {
          const body = entry?.body ?? Buffer.from('DOCKET_NUMBER\n')
          log(200)
          res.writeHead(200, { 'content-type': 'text/csv', 'content-length': String(body.length) })
          res.write(body.subarray(0, Math.floor(body.length * (failure.fraction ?? 0.5))))
          setTimeout(() => res.socket?.destroy(), 20)
          return
        }
        case 'stall': {
          const body = entry?.body ?? Buffer.from('DOCKET_NUMBER\n')
          log(200)
          res.writeHead(200, { 'content-type': 'text/csv', 'content-length': String(body.length) })
          const part = Math.floor(body.length * (failure.fraction ?? 0))
          if (part > 0) res.write(body.subarray(0, part))
          else res.flushHeaders()
          return
        }
        case 'chunked_cut': {
          const body = entry?.body ?? Buffer.from('DOCKET_NUMBER\n')
          log(200)
          res.writeHead(200, { 'content-type': 'text/csv' })
          return res.end(body.subarray(0, Math.floor(body.length * (failure.fraction ?? 0.97))))
        }
        case 'drip': {
          const body = entry?.body ?? Buffer.from('DOCKET_NUMBER\n')
          log(200)
          res.writeHead(
            200,
            failure.chunked
              ? { 'content-type': 'text/csv' }
              : { 'content-type': 'text/csv', 'content-length': String(body.length) },
          )
          let at = 0
          const tick = setInterval(() => {
            if (res.destroyed) return clearInterval(tick)
            res.write(body.subarray(at, at + failure.bytes))
            at += failure.bytes
            if (at >= body.length) {
              clearInterval(tick)
              res.end()
            }
          }, failure.everyMs)
          res.on('close', () => clearInterval(tick))
          return
        }
      }
    }
    if (!r || !entry) {
      log(404)
      return res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":"not_found"}')
    }
    const inm = req.headers['if-none-match']
    const ims = req.headers['if-modified-since']
    const notModified =
      inm !== undefined
        ? inm === entry.etag
        : ims !== undefined && Date.parse(ims) >= Date.parse(entry.lastModified)
    const headers = {
      etag: entry.etag,
      'last-modified': entry.lastModified,
      ...extraHeaders(r.id, 'file'),
    }
    if (notModified) {
      log(304)
      return res.writeHead(304, headers).end()
    }
    log(200)
    res.writeHead(200, {
      ...headers,
      'content-type': r.form === 'rows' ? 'text/csv; charset=utf-8' : 'text/plain; charset=utf-8',
      'content-length': String(entry.body.length),
    })
    res.end(entry.body)
  }

  const server = createServer(handle)
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get maxConcurrent() {
      return maxConcurrent
    },
    set,
    remove: (id) => void entries.delete(id),
    fail: (id, failure, times = Number.POSITIVE_INFINITY) =>
      void failures.set(id, { failure, times }),
    clear: (id) => (id ? void failures.delete(id) : failures.clear()),
    body: (id) => entries.get(id)?.body,
    setCount: (id, n) => void counts.set(id, n),
    stale: (id, times, what = 'file') =>
      void (times > 0 ? stales.set(id, { times, what }) : stales.delete(id)),
    truth: (id, at) => void truths.set(id, at),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

/**
 * Run on its own to point an appliance at local files:
 * `npx tsx src/testing/fmcsa-server.ts data/sample 8089`, then
 * `FMCSA_BASE_URL=http://127.0.0.1:8089 npm run cli -- sync run`.
 */
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = process.argv[2] ?? 'data/sample'
  void startFmcsaServer({ dir, port: Number(process.argv[3] ?? 8089) }).then((s) =>
    process.stdout.write(`serving ${dir}: FMCSA_BASE_URL=${s.url}\n`),
  )
}
