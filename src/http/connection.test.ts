/** Keep-alive sockets after an early answer: the next request on the socket works, or the client is told to close. */
import type { Server as HttpServer } from 'node:http'
import { connect, type Socket } from 'node:net'
import { serve, type ServerType } from '@hono/node-server'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BODY_LIMIT } from '../app.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { DRAIN_LIMIT, LINGER } from './connection.ts'

let ctx: TestContext
let server: ServerType
let port: number
let key: string
beforeAll(async () => {
  ctx = await createTestContext()
  key = ctx.account('starter').key()
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: ctx.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
  })
  port = (server.address() as { port: number }).port
})
afterAll(async () => {
  ;(server as HttpServer).closeAllConnections()
  await new Promise((r) => server.close(r))
  ctx.close()
})

/** A raw keep-alive socket that collects what the server sends. */
async function open() {
  const sock: Socket = connect(port, '127.0.0.1')
  let got = ''
  let closed = false
  let reset = false
  sock.on('data', (d: Buffer) => (got += d.toString('latin1')))
  // a write after the server closed: the test looks at `closed`, and at resets where they matter
  sock.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE') reset = true
  })
  sock.on('close', () => (closed = true))
  await new Promise((r) => sock.once('connect', r))
  const responses = () => got.split('HTTP/1.1 ').slice(1)
  const waitFor = async (what: () => boolean, ms = 5_000) => {
    const end = Date.now() + ms
    while (!what() && Date.now() < end) await new Promise((r) => setTimeout(r, 10))
    return what()
  }
  return {
    write: (s: string) => (sock.destroyed ? undefined : sock.write(s)),
    responses,
    waitForResponses: (n: number) => waitFor(() => responses().length >= n),
    waitForClose: () => waitFor(() => closed),
    isClosed: () => closed,
    resetSeen: () => reset,
    waitFor,
    destroy: () => sock.destroy(),
  }
}

const HEALTH = 'GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n'
const post = (headers: string) =>
  `POST /v1/verify HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${headers}\r\n`

describe('connections stay usable after an early answer', () => {
  test('a 413 with a Content-Length body under the drain limit: the next request on the socket works', async () => {
    const c = await open()
    const size = BODY_LIMIT + 10_000
    expect(size).toBeLessThanOrEqual(DRAIN_LIMIT)
    c.write(post(`Content-Length: ${size}\r\n`))
    c.write('x'.repeat(size))
    expect(await c.waitForResponses(1)).toBe(true)
    expect(c.responses()[0]).toMatch(/^413 /)
    c.write(HEALTH)
    expect(await c.waitForResponses(2)).toBe(true)
    expect(c.responses()[1]).toMatch(/^200 [\s\S]*\{"status":"ok"\}/)
    c.destroy()
  })

  test('a 413 on a chunked body: Connection: close, the server closes, a new socket works', async () => {
    const c = await open()
    c.write(post('Transfer-Encoding: chunked\r\n'))
    for (let i = 0; i < 10; i++) c.write(`2710\r\n${'x'.repeat(10_000)}\r\n`)
    expect(await c.waitForResponses(1)).toBe(true)
    const first = c.responses()[0] ?? ''
    expect(first).toMatch(/^413 /)
    expect(first).toMatch(/\r\nconnection: close\r\n/i)
    expect(first).toContain('"code":"payload_too_large"')
    expect(await c.waitForClose()).toBe(true)
    const d = await open()
    d.write(HEALTH)
    expect(await d.waitForResponses(1)).toBe(true)
    expect(d.responses()[0]).toMatch(/^200 /)
    d.destroy()
  })

  test('a 413 on a declared body over the drain limit: Connection: close without waiting for the body', async () => {
    const c = await open()
    c.write(post(`Content-Length: ${50 * 1024 * 1024}\r\n`))
    c.write('x'.repeat(1000)) // the client sends a little and waits
    expect(await c.waitForResponses(1)).toBe(true)
    expect(c.responses()[0]).toMatch(/^413 [\s\S]*\r\nconnection: close\r\n/i)
    expect(await c.waitForClose()).toBe(true)
  })

  test('a 415 answered before reading a small body keeps the connection usable', async () => {
    const c = await open()
    const body = '{"dot_numbers":[1]}'
    c.write(
      `POST /v1/verify HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    )
    c.write(HEALTH)
    expect(await c.waitForResponses(2)).toBe(true)
    expect(c.responses()[0]).toMatch(/^415 /)
    expect(c.responses()[1]).toMatch(/^200 /)
    expect(c.isClosed()).toBe(false)
    c.destroy()
  })
})

/**
 * An upload written to its end whatever the server answers (as fast as the server reads; the
 * answer read as it comes; the server's end of stream does not stop the writing): what came back,
 * whether the connection failed (reset, broken pipe), how much of the body was written.
 */
async function upload(opts: { chunked: boolean; size: number; key?: string; path?: string }) {
  const sock: Socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true })
  let got = ''
  let error: string | null = null
  sock.on('data', (d: Buffer) => (got += d.toString('latin1')))
  const closed = new Promise<void>((resolve) => sock.on('close', () => resolve()))
  sock.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message))
  await new Promise((r) => sock.once('connect', r))
  const auth = opts.key ? `Authorization: Bearer ${opts.key}\r\n` : ''
  const length = opts.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${opts.size}`
  sock.write(
    `POST ${opts.path ?? '/v1/verify'} HTTP/1.1\r\nHost: t\r\n${auth}Content-Type: application/json\r\n${length}\r\n\r\n`,
  )
  const piece = 'x'.repeat(64 * 1024)
  let written = 0
  while (written < opts.size && !sock.destroyed && !sock.writableEnded && error === null) {
    const data = opts.chunked ? `${piece.length.toString(16)}\r\n${piece}\r\n` : piece
    written += piece.length
    if (!sock.write(data))
      await new Promise<void>((r) => {
        sock.once('drain', r)
        sock.once('close', r)
      })
  }
  if (opts.chunked && !sock.destroyed && error === null) sock.write('0\r\n\r\n')
  if (!sock.destroyed && error === null) sock.end()
  await Promise.race([closed, new Promise((r) => setTimeout(r, 20_000))])
  sock.destroy()
  return { response: got, error, written }
}

describe('an upload over the size limit gets an answer the client can read (graceful close)', () => {
  const MB50 = 50 * 1024 * 1024
  test.each([
    ['chunked, with a key', true, true, 413],
    ['Content-Length, with a key', false, true, 413],
    ['Content-Length, without a key', false, false, 413],
    ['chunked, without a key', true, false, 413],
  ] as const)(
    '50 MB, %s: the whole answer, then a clean close, no reset',
    async (_, chunked, withKey, status) => {
      const r = await upload({ chunked, size: MB50, ...(withKey ? { key } : {}) })
      expect(r.error).toBeNull()
      expect(r.response).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
      expect(r.response).toMatch(/\r\nconnection: close\r\n/i)
      const body = r.response.slice(r.response.indexOf('\r\n\r\n') + 4)
      expect(JSON.parse(body)).toMatchObject({ status })
    },
    60_000,
  )

  test.each([
    ['chunked', true],
    ['Content-Length', false],
  ] as const)(
    '50 MB to the upload route POST /v1/onboarding (%s): its own limit, a readable 413',
    async (_, chunked) => {
      const r = await upload({ chunked, size: MB50, key, path: '/v1/onboarding' })
      expect(r.error).toBeNull()
      expect(r.response).toMatch(/^HTTP\/1\.1 413 /)
      const body = r.response.slice(r.response.indexOf('\r\n\r\n') + 4)
      expect(JSON.parse(body)).toMatchObject({
        status: 413,
        code: 'payload_too_large',
        error: expect.stringContaining('An upload must be at most') as string,
      })
    },
    60_000,
  )

  test('a body over the lingering bound is cut after the answer was sent', async () => {
    const r = await upload({ chunked: true, size: LINGER.bytes + 16 * 1024 * 1024, key })
    expect(r.response).toMatch(/^HTTP\/1\.1 413 [\s\S]*"code":"payload_too_large"/)
    // read and discarded up to the bound, then cut
    expect(r.written).toBeGreaterThan(LINGER.bytes)
    expect(r.written).toBeLessThan(LINGER.bytes + 16 * 1024 * 1024)
    expect(r.error).not.toBeNull()
  }, 60_000)
})

describe('keep-alive after an early answer never resets a following request', () => {
  test('200 sockets: an early 413, 415 or 401 with the next request written right behind it', async () => {
    const big = 'x'.repeat(BODY_LIMIT + 1)
    const small = '{"dot_numbers":[1]}'
    const early = [
      `POST /v1/verify HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n${big}`,
      `POST /v1/verify HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`,
      `POST /v1/verify HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\nContent-Type: text/plain\r\nContent-Length: ${small.length}\r\n\r\n${small}`,
      `POST /v1/verify HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${small.length}\r\n\r\n${small}`,
    ]
    let resets = 0
    let followed = 0
    for (let i = 0; i < 200; i++) {
      const c = await open()
      c.write((early[i % early.length] ?? '') + HEALTH)
      // the following request is answered, or the connection ends cleanly after the first answer
      await c.waitFor(() => c.responses().length >= 2 || c.isClosed(), 10_000)
      expect(c.responses()[0], `socket ${i}`).toMatch(/^(413|415|401) /)
      if (c.responses().length >= 2) {
        expect(c.responses()[1]).toMatch(/^200 /)
        followed++
      } else if (!c.isClosed()) throw new Error(`socket ${i}: neither answered nor closed`)
      if (c.resetSeen()) resets++
      c.destroy()
    }
    expect(resets).toBe(0)
    // a small announced body is read and discarded: its connection stays usable
    expect(followed).toBeGreaterThanOrEqual(100)
  }, 120_000)
})
