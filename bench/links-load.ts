/**
 * `GET /v1/carrier/{dot}/links` over HTTP against an existing data directory with a live census
 * built with the link index: linked USDOTs drawn at random from `company_links`, on one server,
 * after a warm-up. Prints figures, asserts nothing. The run adds an account and a key to the
 * directory's app.db.
 * `npx tsx bench/links-load.ts --data-dir DIR [--duration 10] [--connections 32]`
 */
import { once } from 'node:events'
import Database from 'better-sqlite3'
import { dataDirWith, fmt, load, memOf, startApi } from './harness.ts'
import { connections, jitWarmup, log } from './options.ts'

const { dataDir, file: census } = dataDirWith('census')
const db = new Database(census, { readonly: true })
const dots = (
  db
    .prepare('SELECT DISTINCT dot_number FROM company_links ORDER BY random() LIMIT 200000')
    .raw()
    .all() as [number][]
).map(([d]) => d)
db.close()
if (dots.length === 0) throw new Error('the census has no linked company')

const api = await startApi(dataDir)
try {
  const paths = () => `/v1/carrier/${dots[Math.floor(Math.random() * dots.length)]}/links`
  await load(api.url, { paths, headers: api.auth }, Math.min(jitWarmup, 10))
  const r = await load(api.url, { paths, headers: api.auth, cpuOf: api.server })
  log(
    `links GET /v1/carrier/{dot}/links, linked USDOTs (${fmt(dots.length)} drawn, ${connections} connections): ${fmt(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors} (${r.codes}), server CPU ${r.cpuUs} µs/request (main thread ${r.mainUs})${memOf(api.server.pid)}`,
  )
} finally {
  const exited = once(api.server, 'exit')
  api.server.kill('SIGTERM')
  await exited
}
