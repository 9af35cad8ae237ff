/** Keep-alive sockets after an early answer: the next request on the socket works, or the client is told to close. */
import type { Server as HttpServer } from 'node:http'
import { connect, type Socket } from 'node:net'
import { serve, type ServerType } from '@hono/node-server'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BODY_LIMIT } from '../app.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { DRAIN_LIMIT } from './connection.ts'

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
  sock.on('data', (d: Buffer) => (got += d.toString('latin1')))
  sock.on('error', () => undefined) // a write after the server closed: the test looks at `closed`
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
