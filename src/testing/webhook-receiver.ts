/** A webhook receiver on 127.0.0.1 for tests: records every request and answers as told. */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
}

export interface Reply {
  status: number
  headers?: Record<string, string>
  /** answer after this many ms (for timeouts) */
  delayMs?: number
}

export async function startReceiver() {
  const received: Received[] = []
  let replies: Reply[] = []
  let fallback: Reply = { status: 200 }
  let decide: ((r: Received) => Reply | undefined) | null = null
  const timers = new Set<NodeJS.Timeout>()
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const r: Received = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      received.push(r)
      const reply = decide?.(r) ?? replies.shift() ?? fallback
      const answer = () => {
        if (res.destroyed) return
        res.writeHead(reply.status, reply.headers ?? {})
        res.end('ok')
      }
      if (reply.delayMs) {
        const t = setTimeout(() => {
          timers.delete(t)
          answer()
        }, reply.delayMs)
        timers.add(t)
      } else answer()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks/carrier-verify`,
    origin: `http://127.0.0.1:${port}`,
    received,
    /** the next answers, in order; then `always` */
    reply(...next: Reply[]) {
      replies = next
    },
    always(reply: Reply) {
      fallback = reply
      replies = []
    },
    /** decides per request (undefined: the queued answers) */
    respond(fn: (r: Received) => Reply | undefined) {
      decide = fn
    },
    reset() {
      received.length = 0
      replies = []
      fallback = { status: 200 }
      decide = null
    },
    async close() {
      for (const t of timers) clearTimeout(t)
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>
