/**
 * Name-search latency at scale over the full census (docs/benchmarks.md).
 *
 *   npx tsx bench/generate.ts --out data/bench --census-rows 500000 --only az4n-8mr2
 *   npx tsx bench/search.ts --dir data/bench [--data /tmp/cvk-search-bench] [--per-kind 300]
 *     [--cache off|on]   (off, the default: no cache of ranked searches, every query is cold)
 *     [--kinds 'whole,prefix']   (only these kinds, with the same queries as a full run)
 *
 * Imports the census from --dir into --data (skipped when --data already has it), then times
 * GET /v1/search end to end (auth, metering, JSON) for a mix of queries: the data's most common
 * and rarest words, short prefixes and type-ahead keystrokes of real names, whole names, every
 * filter (state, country, status, entity_type) on common words, rare words and prefixes,
 * USDOT/docket lookups and the deepest page. Also prints the search index's size (dbstat).
 * Prints one line per kind and a JSON summary on stdout. Not a test: no assertion on timings.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { createApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createDeps } from '../src/compose.ts'
import { pipelineDeps } from '../src/deps.ts'
import { createAccount } from '../src/keys/accounts.ts'
import { createKey } from '../src/keys/keys.ts'
import { silentLogger } from '../src/log.ts'
import { setRankedCacheSize } from '../src/search/query.ts'
import { importDir } from '../src/sync/pipeline.ts'

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: 'data/bench' },
    data: { type: 'string', default: '/tmp/cvk-search-bench' },
    'per-kind': { type: 'string', default: '300' },
    seed: { type: 'string', default: '7' },
    /** off: every search ranks its matches from the index (the cold cost); on: as served */
    cache: { type: 'string', default: 'off' },
    /** only the kinds whose name contains one of these (comma-separated); the same queries */
    kinds: { type: 'string' },
  },
  strict: true,
})
const perKind = Number(values['per-kind'])
if (values.cache !== 'on' && values.cache !== 'off') throw new Error('--cache on|off')
if (values.cache === 'off') setRankedCacheSize(0)
let seed = Number(values.seed)
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
  return seed / 2 ** 31
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T

mkdirSync(values.data, { recursive: true })
const config = loadConfig({
  DATA_DIR: values.data,
  SYNC_ENABLED: 'false',
  LOG_LEVEL: 'silent',
  SAMPLE_DATA_DIR: `${values.data}/no-sample`,
})
const deps = createDeps(config, { log: silentLogger() })
if (!deps.datasets.get('census', 'live')) {
  if (!existsSync(values.dir)) throw new Error(`no ${values.dir}: run bench/generate.ts first`)
  const started = performance.now()
  const results = await importDir(pipelineDeps(deps), values.dir, {
    channel: 'live',
    trigger: 'import',
    signal: AbortSignal.timeout(3_600_000),
    only: ['census'],
  })
  process.stderr.write(
    `census import: ${((performance.now() - started) / 1000).toFixed(1)} s ${JSON.stringify(results.map((r) => r.status))}\n`,
  )
}
const census = deps.datasets.get('census', 'live')
if (!census) throw new Error('census import failed')
const rows = (census.db.prepare('SELECT count(*) AS n FROM companies').get() as { n: number }).n
// the search index's share of the census file (FTS5 shadow tables, terms and prefixes)
const sizes = census.db
  .prepare(
    `SELECT sum(pgsize) AS total,
       sum(CASE WHEN name GLOB 'search_*' OR name GLOB 'companies_fts*' THEN pgsize ELSE 0 END) AS search
     FROM dbstat`,
  )
  .get() as { total: number; search: number }
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`
process.stderr.write(
  `census file ${mb(sizes.total)}, of which the search index ${mb(sizes.search)}\n`,
)

const app = createApp(deps)
const now = deps.clock().getTime()
const account = createAccount(deps.db, { name: 'bench', plan: 'scale' }, now)
const secret = createKey(deps.db, { accountId: account.id, mode: 'live' }, now).secret
const headers = { authorization: `Bearer ${secret}` }

// real names and identifiers from the data, spread over the USDOT range
const sample = census.db
  .prepare(
    `SELECT legal_name, dot_number FROM companies WHERE length(trim(legal_name)) >= 2
     AND dot_number % 97 = 0 LIMIT 20000`,
  )
  .all() as { legal_name: string; dot_number: number }[]
const dockets = census.db
  .prepare('SELECT prefix, number FROM census_dockets WHERE number % 13 = 0 LIMIT 5000')
  .all() as { prefix: string; number: number }[]
const enc = encodeURIComponent
// the data's own vocabulary: the most common indexed words, and rare ones (1–3 companies)
const common = (
  census.db
    .prepare('SELECT term FROM search_terms WHERE length(term) >= 2 ORDER BY docs DESC LIMIT 40')
    .all() as {
    term: string
  }[]
).map((r) => r.term.toUpperCase())
const rare = (
  census.db
    .prepare(
      `SELECT term FROM search_terms WHERE docs <= 3 AND length(term) >= 4
       AND term GLOB '[a-z]*' AND (unicode(substr(term, 2, 1)) * 7 + docs) % 11 = 0 LIMIT 5000`,
    )
    .all() as { term: string }[]
).map((r) => r.term.toUpperCase())
const COMMON = [
  ...new Set(['TRUCKING', 'TRANSPORT', 'LLC', 'INC', 'EXPRESS', 'LOGISTICS', ...common]),
]
const FILTERS = [
  'state=TX',
  'state=WY',
  'status=inactive',
  'status=active',
  'country=CA',
  'country=MX',
  'entity_type=carrier',
  'entity_type=private',
  'entity_type=forwarder',
  'entity_type=broker',
  'state=CA&entity_type=carrier&status=active',
]
/** 1–4 leading letters of a common word: the first keystrokes of a type-ahead box */
const shortPrefix = () => {
  const w = pick(COMMON)
  return w.slice(0, 1 + Math.floor(random() * Math.min(4, w.length)))
}

const kinds: Record<string, () => string> = {
  'common word': () => `q=${enc(pick(COMMON))}`,
  'rare word': () => `q=${enc(rare.length ? pick(rare) : 'ZQXV')}`,
  'two words (name + trade)': () => {
    const words = pick(sample).legal_name.split(/\s+/)
    return `q=${enc(`${words[0] ?? ''} ${pick(COMMON)}`)}`
  },
  'short prefix (1-4 letters)': () => {
    const p = shortPrefix()
    return `q=${enc(p.length < 2 ? `${pick(COMMON)} ${p}` : p)}`
  },
  'type-ahead keystroke': () => {
    const name = pick(sample).legal_name
    let n = 2 + Math.floor(random() * Math.max(1, Math.min(name.length, 30) - 1))
    while (name.slice(0, n).trim().length < 2 && n < name.length) n++
    return `q=${enc(name.slice(0, n))}`
  },
  'whole name': () => `q=${enc(pick(sample).legal_name.slice(0, 100))}`,
  'common word + filter': () => `q=${enc(pick(COMMON))}&${pick(FILTERS)}`,
  'rare word + filter': () => `q=${enc(rare.length ? pick(rare) : 'ZQXV')}&${pick(FILTERS)}`,
  'prefix + filter': () => {
    const p = shortPrefix()
    return `q=${enc(p.length < 2 ? `${pick(COMMON)} ${p}` : p)}&${pick(FILTERS)}`
  },
  'usdot or docket': () => {
    if (random() < 0.5) return `q=${pick(sample).dot_number}`
    const d = pick(dockets)
    return `q=${d.prefix}-${d.number}`
  },
  'no match': () => `q=${enc(`ZQX${Math.floor(random() * 1e6)}`)}`,
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}

/** CPU milliseconds of each timed request (this thread and SQLite's work in it), by kind */
const cpu: Record<string, number[]> = {}
let lastCpu = 0
async function time(qs: string): Promise<number> {
  const c = process.cpuUsage()
  const t = performance.now()
  const res = await app.request(`/v1/search?${qs}`, { headers })
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`${qs} → ${res.status}`)
  const wall = performance.now() - t
  const used = process.cpuUsage(c)
  lastCpu = (used.user + used.system) / 1000
  return wall
}

// warm the statement caches and the page cache a little, as a running server would be
for (let i = 0; i < 50; i++) await time(kinds['type-ahead keystroke']?.() ?? 'q=ab')

const summary: Record<
  string,
  {
    n: number
    p50: number
    p95: number
    p99: number
    max: number
    cpuP50?: number
    cpuP99?: number
  }
> = {}
const all: number[] = []
/** the slowest queries, printed at the end to see what bounds the tail */
const slowest: [number, string][] = []
const only = values.kinds?.split(',')
const wanted = (kind: string) => !only || only.some((k) => kind.includes(k))
for (const [kind, make] of Object.entries(kinds)) {
  const ms: number[] = []
  for (let i = 0; i < perKind; i++) {
    const qs = make()
    if (!wanted(kind)) continue // the same random queries for the kinds that are timed
    const t = await time(qs)
    ms.push(t)
    ;(cpu[kind] ??= []).push(lastCpu)
    slowest.push([t, `${kind}: ${decodeURIComponent(qs)}  (cpu ${lastCpu.toFixed(2)})`])
  }
  if (!wanted(kind)) continue
  ms.sort((a, b) => a - b)
  all.push(...ms)
  const c = (cpu[kind] ?? []).sort((a, b) => a - b)
  summary[kind] = {
    n: ms.length,
    p50: percentile(ms, 50),
    p95: percentile(ms, 95),
    p99: percentile(ms, 99),
    max: ms.at(-1) ?? NaN,
    cpuP50: percentile(c, 50),
    cpuP99: percentile(c, 99),
  }
}
// the deepest page a cursor reaches (offset 1000)
if (wanted('paging')) {
  let cursor: string | null = null
  const ms: number[] = []
  for (let page = 0; page < 21; page++) {
    const t = performance.now()
    const res = await app.request(
      `/v1/search?q=TRUCKING&limit=50${cursor ? `&cursor=${cursor}` : ''}`,
      { headers },
    )
    const body = (await res.json()) as { next_cursor: string | null }
    ms.push(performance.now() - t)
    cursor = body.next_cursor
    if (!cursor) break
  }
  ms.sort((a, b) => a - b)
  summary['paging to offset 1000 (limit 50)'] = {
    n: ms.length,
    p50: percentile(ms, 50),
    p95: percentile(ms, 95),
    p99: percentile(ms, 99),
    max: ms.at(-1) ?? NaN,
  }
}
all.sort((a, b) => a - b)
summary.overall = {
  n: all.length,
  p50: percentile(all, 50),
  p95: percentile(all, 95),
  p99: percentile(all, 99),
  max: all.at(-1) ?? NaN,
}

const f = (x: number) => x.toFixed(2).padStart(7)
process.stderr.write(
  `GET /v1/search over ${rows.toLocaleString('en-US')} census rows (ms), ranked-search cache ${values.cache}\n`,
)
process.stderr.write(
  `${'kind'.padEnd(36)}      n     p50     p95     p99     max  cpu p50 cpu p99\n`,
)
for (const [k, s] of Object.entries(summary))
  process.stderr.write(
    `${k.padEnd(36)} ${String(s.n).padStart(6)} ${f(s.p50)} ${f(s.p95)} ${f(s.p99)} ${f(s.max)}  ${s.cpuP50 === undefined ? '' : `${f(s.cpuP50)} ${f(s.cpuP99 ?? NaN)}`}\n`,
  )
process.stderr.write('slowest queries of each kind (ms):\n')
slowest.sort((a, b) => b[0] - a[0])
for (const kind of Object.keys(kinds))
  for (const [t, q] of slowest.filter(([, q]) => q.startsWith(`${kind}:`)).slice(0, 3))
    process.stderr.write(`${f(t)}  ${q}\n`)
process.stdout.write(`${JSON.stringify({ rows, sizes, summary })}\n`)
deps.close()
