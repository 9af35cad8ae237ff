/**
 * A fake FMCSA QCMobile API on 127.0.0.1 (random port) for tests. It serves the real response
 * shapes (verbatim captures from test/fixtures/qcmobile/) and has knobs for the API's bad days:
 * a bad key (404 + "Webkey not found"), the maintenance page (200 HTML), a stall past any timeout,
 * 500s and 429s. Unknown USDOTs get 200 with `content: null`, unknown dockets `content: []`.
 */
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

const FIXTURES = new URL('../../test/fixtures/qcmobile/', import.meta.url)

/** The text of a file in test/fixtures/qcmobile/. */
export const readQcFixture = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8')

/** The `carrier` object of the real `/carriers/158121` capture. */
export function baseCarrier(): Record<string, unknown> {
  const env = JSON.parse(readQcFixture('carriers_158121.json')) as {
    content: { carrier: Record<string, unknown> }
  }
  return env.content.carrier
}

/** A carrier object shaped like the capture, for another USDOT, with fields overridden. */
export function carrierFixture(
  dot: number,
  over: Record<string, unknown> = {},
): Record<string, unknown> {
  return { ...baseCarrier(), dotNumber: dot, ...over }
}

export type FakeMode =
  /** answer normally */
  | 'normal'
  /** every key is wrong: 404 `{"content":"Webkey not found"}` */
  | 'bad_key'
  /** 200 with the HTML maintenance page */
  | 'maintenance'
  /** 403 HTML, as the load balancer answers a blocked network */
  | 'blocked'
  /** hold the request for `stallMs`, then answer normally */
  | 'slow'
  /** 500 */
  | 'fail'
  /** 429 with Retry-After */
  | 'rate_limited'

export interface FakeKnobs {
  mode: FakeMode
  stallMs: number
  retryAfterSeconds: number
}

export interface FakeRequest {
  /** path below the base, e.g. `carriers/158121` */
  path: string
  webKey: string | null
}

interface RawAnswer {
  status: number
  contentType: string
  body: string
}

/** Dot numbers and dockets the verbatim captures are served under. */
export const CAPTURED = {
  /** `/carriers/158121`: VERIHA TRUCKING INC */
  carrier: 158121,
  /** `/carriers/53467/authority` */
  authority: 53467,
  /** `/carriers/44110/docket-numbers` */
  docketNumbers: 44110,
  /** `/carriers/885213/oos` (two orders) */
  oos: 885213,
  /** `/carriers/docket-number/1515`: the multi-carrier capture (USDOT 753076 and 158121) */
  docket: 1515,
} as const

export interface FakeQcmobile {
  /** e.g. `http://127.0.0.1:41234/qc/services` */
  baseUrl: string
  /** the key it accepts */
  webKey: string
  knobs: FakeKnobs
  /** every request received, in order */
  requests: FakeRequest[]
  /** carrier objects by USDOT (served as `{content: {_links, carrier}}`) */
  carriers: Map<number, Record<string, unknown>>
  /** docket number → USDOTs whose carriers `carriers/docket-number/{n}` returns */
  dockets: Map<number, number[]>
  /** verbatim answers by path; they win over `carriers` */
  raw: Map<string, RawAnswer>
  /** how many requests hit `path` */
  hits(path: string): number
  /** back to mode normal, no recorded requests (data kept) */
  reset(): void
  close(): Promise<void>
}

const retrievalDate = () => new Date().toISOString().replace('Z', '+0000')
const envelope = (content: unknown) => JSON.stringify({ content, retrievalDate: retrievalDate() })

function links(dot: number) {
  const base = `https://mobile.fmcsa.dot.gov/qc/services/carriers/${dot}`
  return {
    basics: { href: `${base}/basics` },
    'docket numbers': { href: `${base}/docket-numbers` },
    'carrier active-For-hire authority': { href: `${base}/authority` },
    self: { href: base },
  }
}

function seededRaw(): Map<string, RawAnswer> {
  const json = (file: string): RawAnswer => ({
    status: 200,
    contentType: 'application/json',
    body: readQcFixture(file),
  })
  return new Map([
    [`carriers/${CAPTURED.carrier}`, json('carriers_158121.json')],
    [`carriers/${CAPTURED.authority}/authority`, json('carriers_53467_authority.json')],
    [
      `carriers/${CAPTURED.docketNumbers}/docket-numbers`,
      json('carriers_44110_docket-numbers.json'),
    ],
    [`carriers/${CAPTURED.oos}/oos`, json('carriers_885213_oos.json')],
    [`carriers/docket-number/${CAPTURED.docket}`, json('carriers_docket-number_multi.json')],
  ])
}

/** Starts the fake on 127.0.0.1 with a random port. Close it in afterAll. */
export async function startFakeQcmobile(opts: { webKey?: string } = {}): Promise<FakeQcmobile> {
  const webKey = opts.webKey ?? 'test-webkey'
  const knobs: FakeKnobs = { mode: 'normal', stallMs: 10_000, retryAfterSeconds: 1 }
  const requests: FakeRequest[] = []
  const carriers = new Map<number, Record<string, unknown>>()
  const dockets = new Map<number, number[]>()
  const raw = seededRaw()
  const stalls = new Set<NodeJS.Timeout>()
  const prefix = '/qc/services/'

  function send(res: ServerResponse, status: number, contentType: string, body: string) {
    if (res.writableEnded || res.destroyed) return
    res.writeHead(status, { 'content-type': contentType })
    res.end(body)
  }
  const sendJson = (res: ServerResponse, status: number, body: string) =>
    send(res, status, 'application/json', body)

  function answer(path: string, res: ServerResponse) {
    const fixed = raw.get(path)
    if (fixed) return send(res, fixed.status, fixed.contentType, fixed.body)
    let m = /^carriers\/(\d+)$/.exec(path)
    if (m) {
      const dot = Number(m[1])
      const carrier = carriers.get(dot)
      return sendJson(res, 200, envelope(carrier ? { _links: links(dot), carrier } : null))
    }
    m = /^carriers\/docket-number\/(\d+)$/.exec(path)
    if (m) {
      const dots = dockets.get(Number(m[1])) ?? []
      const items = dots.flatMap((d) => {
        const carrier = carriers.get(d)
        return carrier ? [{ _links: links(d), carrier }] : []
      })
      return sendJson(res, 200, envelope(items))
    }
    if (/^carriers\/\d+\/(authority|docket-numbers|oos|basics|cargo-carried)$/.test(path)) {
      return sendJson(res, 200, envelope([]))
    }
    return send(res, 404, 'text/plain', '404 Not Found')
  }

  function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname
    const key = url.searchParams.get('webKey')
    requests.push({ path, webKey: key })
    if (!key) return sendJson(res, 404, envelope('Must provide Webkey'))
    if (key !== webKey || knobs.mode === 'bad_key') {
      return sendJson(res, 404, readQcFixture('error_webkey_not_found.json'))
    }
    switch (knobs.mode) {
      case 'maintenance':
        return send(res, 200, 'text/html', readQcFixture('maintenance.html'))
      case 'blocked':
        return send(res, 403, 'text/html', readQcFixture('elb_forbidden.html'))
      case 'fail':
        return send(res, 500, 'text/plain', 'Internal Server Error')
      case 'rate_limited':
        res.setHeader('retry-after', String(knobs.retryAfterSeconds))
        return sendJson(res, 429, envelope('Too Many Requests'))
      case 'slow': {
        const t = setTimeout(() => {
          stalls.delete(t)
          answer(path, res)
        }, knobs.stallMs)
        stalls.add(t)
        return
      }
      case 'normal':
        return answer(path, res)
    }
  }

  const server = createServer(handle)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo

  return {
    baseUrl: `http://127.0.0.1:${port}/qc/services`,
    webKey,
    knobs,
    requests,
    carriers,
    dockets,
    raw,
    hits: (path) => requests.filter((r) => r.path === path).length,
    reset() {
      knobs.mode = 'normal'
      requests.length = 0
    },
    close() {
      for (const t of stalls) clearTimeout(t)
      stalls.clear()
      return new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    },
  }
}
