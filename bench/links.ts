/**
 * The link index (docs/identity.md): its size, and the time to read and judge one company's links.
 *
 *   npx tsx bench/links.ts DATA_DIR [SAMPLES]
 *
 * DATA_DIR is a data directory with a live census (and, for VIN links, an equipment dataset):
 * one the bench's census import left, or a server's. Prints the pairs and shared values per kind
 * (suppressed ones apart), the index's size on disk, then times `carrierLinks` (what
 * GET /v1/carrier/{dot}/links runs: link index, VINs, events, the history's inactive dates) for
 * random USDOT numbers, linked ones first, and prints the percentiles as JSON on stdout.
 */
import { isAbsolute, join } from 'node:path'
import Database from 'better-sqlite3'
import { openActive, type ActiveDataset, type DataView } from '../src/db/datasets.ts'
import type { DatasetName } from '../src/db/names.ts'
import { openSqlite } from '../src/db/open.ts'
import { carrierLinks } from '../src/identity/links.ts'
import { linkIndexFacts } from './link-facts.ts'

function activeFiles(dataDir: string): Map<DatasetName, string> {
  const app = new Database(join(dataDir, 'app.db'), { readonly: true })
  try {
    const rows = app
      .prepare(
        "SELECT dataset, path FROM dataset_versions WHERE channel = 'live' AND status = 'active'",
      )
      .all() as { dataset: DatasetName; path: string }[]
    return new Map(
      rows.map((r) => [r.dataset, isAbsolute(r.path) ? r.path : join(dataDir, r.path)]),
    )
  } finally {
    app.close()
  }
}

const [dataDir, samplesArg = '2000'] = process.argv.slice(2)
if (!dataDir) throw new Error('usage: tsx bench/links.ts DATA_DIR [SAMPLES]')
const files = activeFiles(dataDir)
const censusPath = files.get('census')
if (!censusPath) throw new Error(`no live census in ${dataDir}`)
const raw = new Database(censusPath, { readonly: true })
const facts = linkIndexFacts(raw)
const dots = (
  raw
    .prepare(
      `SELECT dot_number AS d FROM (SELECT DISTINCT dot_number FROM company_links)
       ORDER BY random() LIMIT ?`,
    )
    .all(Number(samplesArg)) as { d: number }[]
).map((r) => r.d)
raw.close()
const open = new Map<DatasetName, ActiveDataset>()
for (const [name, path] of files) open.set(name, openActive(name, 'live', 0, path, null, null))
const view: DataView = { source: 'mirror', get: (n) => open.get(n) ?? null, versionKey: 'bench' }
const appDb = openSqlite(join(dataDir, 'app.db'), 'readonly')
const times: number[] = []
let links = 0
for (const dot of dots) {
  const t = process.hrtime.bigint()
  links += carrierLinks(appDb, view, dot)?.links.length ?? 0
  times.push(Number(process.hrtime.bigint() - t) / 1e6)
}
times.sort((a, b) => a - b)
const pct = (p: number) => Number((times[Math.floor((times.length - 1) * p)] ?? 0).toFixed(2))
console.log(
  JSON.stringify(
    {
      ...facts,
      sampled: dots.length,
      meanLinks: dots.length ? Number((links / dots.length).toFixed(1)) : 0,
      msP50: pct(0.5),
      msP99: pct(0.99),
      msMax: pct(1),
    },
    null,
    2,
  ),
)
