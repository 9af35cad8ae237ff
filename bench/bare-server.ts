/**
 * Baseline for the lookup bench (issue 17): a bare node:http server that reads the same companies
 * row from the same dataset file per request and answers a prebuilt body of the same size as the
 * API's record, with no auth, metering, record assembly or JSON serialisation.
 *
 *   tsx bench/bare-server.ts DATASET_FILE PORT [BODY_BYTES] [HEADERS_JSON]
 *
 * HEADERS_JSON: response headers to answer besides content-type (the bench passes the API's own,
 * so the load generator parses as many per answer as it does for the API).
 */
import { createServer } from 'node:http'
import Database from 'better-sqlite3'

const [dbPath, port, bytes, headersJson] = process.argv.slice(2)
if (!dbPath || !port)
  throw new Error('usage: bare-server DATASET_FILE PORT [BODY_BYTES] [HEADERS_JSON]')
const extra = JSON.parse(headersJson ?? '{}') as Record<string, string>
const db = new Database(dbPath, { readonly: true })
db.pragma('mmap_size = 268435456')
const stmt = db.prepare('SELECT * FROM companies WHERE dot_number = ?')
const size = Number(bytes ?? 12_000)
const body = Buffer.from(JSON.stringify({ pad: 'x'.repeat(Math.max(0, size - 10)) }))
const missing = Buffer.from('{"status":404}')
createServer((req, res) => {
  const dot = Number(/^\/v1\/carrier\/(\d{1,8})$/.exec(req.url ?? '')?.[1])
  const row: unknown = dot ? stmt.get(dot) : undefined
  res.writeHead(row ? 200 : 404, { ...extra, 'content-type': 'application/json' })
  res.end(row ? body : missing)
}).listen(Number(port), '127.0.0.1', () => process.stdout.write(`ready ${body.length}\n`))
