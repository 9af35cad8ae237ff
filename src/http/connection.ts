import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './env.ts'

/** The most of an unread request body the server still reads (and discards) to keep the connection. */
export const DRAIN_LIMIT = 256 * 1024

/**
 * Bounds of a graceful close: after the answer, the rest of the request is read and discarded up
 * to `bytes`, for at most `ms` in all and `idleMs` without any of it arriving; then the socket is
 * destroyed.
 */
export const LINGER = { bytes: 64 * 1024 * 1024, ms: 20_000, idleMs: 5_000 }

/**
 * An answer given before the request body was read to its end (413, 415, 401, a route that never
 * reads the body…) leaves the rest of the body in the connection, where a keep-alive client's next
 * request would be read as garbage. When that rest is small and announced by Content-Length, it is
 * read and discarded (the connection stays usable); otherwise the answer says `Connection: close`
 * and the connection is closed gracefully (`lingerOnClose`). Only on a real socket
 * (`c.env.incoming`, set by @hono/node-server); app.request() in tests has none.
 */
export const closeOnUnreadBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next()
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  if (!incoming || incoming.complete || incoming.destroyed) return
  const declared = Number(incoming.headers['content-length'] ?? Number.NaN)
  const small =
    incoming.headers['transfer-encoding'] === undefined &&
    Number.isFinite(declared) &&
    declared <= DRAIN_LIMIT
  // read what is left and discard it (so closing never resets a socket with unread data)
  incoming.resume()
  if (small && !incoming.readableDidRead) return
  c.header('connection', 'close')
  lingerOnClose(incoming)
}

/**
 * Closing a connection while the client is still sending makes the kernel answer its data with a
 * reset, which can destroy the answer the client has not read yet (a 413 to a 50 MB upload was
 * seen as "connection reset", no status). So when Node's HTTP server closes this request's socket
 * after the answer (`destroySoon`), it instead ends the sending side (the client reads the whole
 * answer, then end of stream) and keeps reading and discarding the rest of the request within
 * `limits`, destroying the socket only when the client has closed, the body has ended and nothing
 * more arrives, or a bound is reached.
 */
export function lingerOnClose(incoming: IncomingMessage, limits = LINGER): void {
  const socket: Socket = incoming.socket
  let lingering = false
  socket.destroySoon = () => {
    if (lingering || socket.destroyed) return
    lingering = true
    let read = 0
    const stop = () => {
      clearTimeout(total)
      clearTimeout(idle)
      if (!socket.destroyed) socket.destroy()
    }
    const total = setTimeout(stop, limits.ms)
    const idle = setTimeout(stop, limits.idleMs)
    total.unref()
    idle.unref()
    // the answer is sent: whatever else read the body (a web stream that stops the flow when its
    // queue is full) is done with it, so the body only flows to here, where it is counted and dropped
    incoming.removeAllListeners('data')
    incoming.on('data', (chunk: Buffer) => {
      read += chunk.length
      if (read > limits.bytes) stop()
      else idle.refresh()
    })
    socket.once('close', stop)
    socket.end()
    // the HTTP parser reads the socket and hands the body to `incoming`; it stops reading while the
    // body is not consumed and starts again on the socket's 'resume'
    incoming.resume()
    socket.pause()
    socket.resume()
  }
}
