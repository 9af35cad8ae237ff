import type { IncomingMessage } from 'node:http'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './env.ts'

/** The most of an unread request body the server still reads (and discards) to keep the connection. */
export const DRAIN_LIMIT = 256 * 1024

/**
 * An answer given before the request body was read to its end (413, 415, 401, a route that never
 * reads the body…) leaves the rest of the body in the connection, where a keep-alive client's next
 * request would be read as garbage. When that rest is small and announced by Content-Length, it is
 * read and discarded (the connection stays usable); otherwise the answer says `Connection: close`
 * and the server closes the connection after it. Only on a real socket (`c.env.incoming`, set by
 * @hono/node-server); app.request() in tests has none.
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
}
