/**
 * `GET /v1/carrier/{dot}` over HTTP against an existing data directory with a live census: USDOTs
 * drawn at random from `companies`, on one server, after a warm-up. Prints figures, asserts
 * nothing. The run adds an account and a key to the directory's app.db.
 * `npx tsx bench/lookup-load.ts --data-dir DIR [--duration 10] [--connections 32]
 * [--node-arg FLAG ...] [--cpu-prof PROFILE_DIR]` (--node-arg: a Node option for the server;
 * --cpu-prof: the server writes a V8 CPU profile per thread there when it stops).
 */
import { once } from 'node:events'
import { readdirSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import Database from 'better-sqlite3'
import { dataDirWith, CLOCK_TICKS, fmt, load, memOf, startApi } from './harness.ts'
import { args, connections, jitWarmup, log } from './options.ts'

const { dataDir, file: census } = dataDirWith('census')
const db = new Database(census, { readonly: true })
const dots = (
  db.prepare('SELECT dot_number FROM companies ORDER BY random() LIMIT 200000').raw().all() as [
    number,
  ][]
).map(([d]) => d)
db.close()
if (dots.length === 0) throw new Error('the census has no company')

/** User and system CPU ticks of each thread of a process, by thread id (Linux /proc). */
function threadTicks(pid: number): Map<string, { name: string; user: number; sys: number }> {
  const out = new Map<string, { name: string; user: number; sys: number }>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      out.set(tid, { name, user: Number(fields[11]), sys: Number(fields[12]) })
    } catch {
      // the thread ended meanwhile
    }
  }
  return out
}

/** The threads that used CPU between two snapshots: µs per request, user + system. */
function threadLine(
  before: ReturnType<typeof threadTicks>,
  after: ReturnType<typeof threadTicks>,
  requests: number,
): string {
  const us = (ticks: number) => Math.round((ticks / CLOCK_TICKS / requests) * 1e6)
  return [...after]
    .map(([tid, a]) => {
      const b = before.get(tid) ?? { user: 0, sys: 0 }
      return { tid, name: a.name, user: a.user - b.user, sys: a.sys - b.sys }
    })
    .filter((t) => t.user + t.sys > 0)
    .sort((x, y) => y.user + y.sys - (x.user + x.sys))
    .map((t) => `${t.name}[${t.tid}] ${us(t.user)}+${us(t.sys)}`)
    .join(', ')
}

const profile = args['cpu-prof']
const api = await startApi(dataDir, {}, [
  ...(args['node-arg'] ?? []),
  ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profile)}`] : []),
])
try {
  const paths = () => `/v1/carrier/${dots[Math.floor(Math.random() * dots.length)]}`
  await load(api.url, { paths, headers: api.auth }, Math.min(jitWarmup, 10))
  const pid = api.server.pid ?? 0
  const before = threadTicks(pid)
  const r = await load(api.url, { paths, headers: api.auth, cpuOf: api.server })
  const after = threadTicks(pid)
  log(
    `lookup GET /v1/carrier/{dot}, census USDOTs (${fmt(dots.length)} drawn, ${connections} connections): ${fmt(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors} (${r.codes}), server CPU ${r.cpuUs} µs/request (main thread ${r.mainUs}), load generator ${r.loadUs} µs/request${memOf(api.server.pid)}`,
  )
  log(`  per thread, µs/request user+system: ${threadLine(before, after, r.total)}`)
} finally {
  const exited = once(api.server, 'exit')
  api.server.kill('SIGTERM')
  await exited
  if (profile) log(`server CPU profiles in ${resolve(profile)}`)
}
