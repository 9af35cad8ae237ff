/**
 * Baseline for the lookup bench: a bare node:http server reading the same companies row from the
 * same dataset file, with no auth, metering or record assembly.
 */
import { createServer } from 'node:http'
import Database from 'better-sqlite3'

const [dbPath, port] = process.argv.slice(2)
if (!dbPath || !port) throw new Error('usage: bare-server DATASET_FILE PORT')
const db = new Database(dbPath, { readonly: true })
db.pragma('mmap_size = 268435456')
const stmt = db.prepare('SELECT * FROM companies WHERE dot_number = ?')
createServer((req, res) => {
  const dot = Number(/^\/v1\/carrier\/(\d{1,8})$/.exec(req.url ?? '')?.[1])
  const row = dot ? stmt.get(dot) : undefined
  res.writeHead(row ? 200 : 404, { 'content-type': 'application/json' })
  res.end(JSON.stringify(row ?? { status: 404 }))
}).listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'))
