/**
 * Company Census File `az4n-8mr2` (FMCSA's census data dictionary): one row per USDOT, 147 columns.
 * Builds the `companies` table (identity, contact, fleet, rating), census dockets, the FTS5 name
 * index and the link index (links-build.ts). The row parser is row.ts, the reads read.ts.
 */
import { buildParseOptions, parseInWorker } from '../ingest/parallel.ts'
import { startSearchBuild } from './search-build.ts'
import { PairWordSample } from './search-index.ts'
import type { BuildContext, DatasetSpec } from '../ingest/types.ts'
import { CENSUS_COLUMNS } from './columns.ts'
import { COMPANY_COLUMNS, CENSUS_ROW_MODULE, censusDigest, type CensusInsert } from './row.ts'
import { buildLinkIndex } from './links-build.ts'
import { batchedInsert } from '../ingest/batched-insert.ts'

export const CENSUS_FILE_ID = 'az4n-8mr2'

const DDL = `
CREATE TABLE companies (
  dot_number INTEGER PRIMARY KEY,
  legal_name TEXT, dba_name TEXT, status_code TEXT, carrier_operation TEXT, classdef TEXT,
  add_date TEXT, mcs150_date TEXT, mcs150_mileage INTEGER, mcs150_mileage_year INTEGER,
  phone TEXT, fax TEXT, email TEXT,
  phy_street TEXT, phy_city TEXT, phy_state TEXT, phy_zip TEXT, phy_country TEXT,
  mail_street TEXT, mail_city TEXT, mail_state TEXT, mail_zip TEXT, mail_country TEXT,
  mail_undeliverable_date TEXT, undeliv_phy TEXT,
  power_units INTEGER, truck_units INTEGER, bus_units INTEGER, total_drivers INTEGER, total_cdl INTEGER,
  fleet_owned INTEGER, fleet_leased INTEGER, hm_ind TEXT,
  safety_rating TEXT, safety_rating_date TEXT, review_date TEXT, review_type TEXT,
  cargo TEXT, passenger INTEGER, prior_revoke_flag TEXT, prior_revoke_dot INTEGER,
  dockets TEXT, cell_phone TEXT, officer_1 TEXT, officer_2 TEXT,
  officer_1_key INTEGER, officer_2_key INTEGER, address_key INTEGER, digest INTEGER NOT NULL
) STRICT;
CREATE TABLE census_dockets (
  prefix TEXT NOT NULL, number INTEGER NOT NULL, dot_number INTEGER NOT NULL, status_code TEXT,
  PRIMARY KEY (prefix, number, dot_number)
) STRICT, WITHOUT ROWID;
`

/** The page cache (KiB) of the sorts after the load: also the size of the sorter's lists. */
const SORT_CACHE_KIB = 2048

/** The distinct USDOTs seen, a bit each (USDOTs are at most 99,999,999: 12.5 MB at most). */
class DistinctDots {
  private bits = new Uint8Array(1 << 20)
  size = 0

  /** adds a USDOT; false when it was there already */
  add(dot: number): boolean {
    const i = dot >>> 3
    if (i >= this.bits.length) {
      const grown = new Uint8Array(Math.max(i + 1, this.bits.length * 2))
      grown.set(this.bits)
      this.bits = grown
    }
    const bit = 1 << (dot & 7)
    const byte = this.bits[i] as number
    if ((byte & bit) !== 0) return false
    this.bits[i] = byte | bit
    this.size++
    return true
  }
}

async function buildCensus(ctx: BuildContext): Promise<void> {
  ctx.db.exec(DDL)
  const path = ctx.inputs.get(CENSUS_FILE_ID)
  if (!path) throw new Error(`census file ${CENSUS_FILE_ID} is missing`)
  const keys = COMPANY_COLUMNS
  // positional binding: several times cheaper than 42 named parameters per row
  const insert = ctx.db.prepare(
    `INSERT OR REPLACE INTO companies (${keys.join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`,
  )
  // the dockets go in several rows to a statement (batched-insert.ts); the companies rows, 49
  // values each, one by one: batched, they made the load slower. The identity digest is the row's
  // last column, computed here: a table of its own cost this thread one more insert per company,
  // and computed by the row parser it cost the parse workers several times as much
  const censusDockets = batchedInsert(
    ctx.db,
    'INSERT OR IGNORE INTO census_dockets (prefix, number, dot_number, status_code)',
    4,
  )
  // alone, at least two parse workers: with one, on two cores, the load waited on it (its
  // 147 columns and the link keys), with the building thread idle meanwhile
  const parsed = parseInWorker<CensusInsert>(
    path,
    { header: 'header', columns: CENSUS_COLUMNS },
    { module: CENSUS_ROW_MODULE, exportName: 'censusInsertRow' },
    (line, reason) => ctx.reject(CENSUS_FILE_ID, line, reason),
    { ...buildParseOptions(ctx), workers: ctx.parseWorkers },
  )
  // the companies and the pair words' sample are counted as the rows go in (a duplicate USDOT
  // replaces its row): counting and sampling the table afterwards was one thread's work with
  // the other core idle; the sample's tokenizing now runs in the building thread during the
  // load, where it waits on the parse worker
  const dots = new DistinctDots()
  const sample = new PairWordSample()
  const legalAt = keys.indexOf('legal_name')
  const dbaAt = keys.indexOf('dba_name')
  await ctx.insertChunks(CENSUS_FILE_ID, parsed, ({ row: [values, dockets] }) => {
    const dot = values[0] as number
    values.push(censusDigest(values))
    insert.run(values)
    for (const [p, n, s] of dockets) censusDockets.add([p, n, dot, s])
    const first = dots.add(dot)
    sample.add(dot, values[legalAt] as string | null, values[dbaAt] as string | null, first)
    ctx.accept(CENSUS_FILE_ID)
  })
  ctx.db.transaction(() => censusDockets.flush())()
  const n = dots.size
  const dupes = ctx.stats.rows - n
  if (dupes > 0) ctx.note('census.duplicate_dot_replaced', dupes)
  ctx.stats.rows -= dupes
  // the index and GROUP BY sorts spill to temporary files beyond the page cache, and SQLite sizes
  // the sorter's in-memory lists by it: 2 MiB lists stay in the CPU's caches and sort faster than
  // 16 MiB ones, and keep the build's resident memory down (the inserts wanted the big cache)
  ctx.db.pragma(`cache_size = -${SORT_CACHE_KIB}`)
  ctx.db.pragma('shrink_memory')
  // the search tiers build in other threads meanwhile (at scale): search-build.ts
  const search = await startSearchBuild(ctx.db, {
    path: ctx.path,
    companies: n,
    words: ctx.timed('fts.words', () => sample.words(ctx.db)),
    signal: ctx.signal,
    phase: (name, seconds) => ctx.phase(name, seconds),
  })
  try {
    buildLinkIndex(ctx)
  } catch (err) {
    await search.abort()
    throw err
  }
  await search.finish()
}

export const censusDataset: DatasetSpec = {
  name: 'census',
  title: 'Company Census File',
  files: [
    {
      id: CENSUS_FILE_ID,
      title: 'Company Census File',
      format: 'rows',
      kind: 'full',
      required: true,
    },
  ],
  schedule: 'daily',
  // file format 2: contentless search tiers with filter tags and summary columns;
  // 3: word-pair tags and search_pair_words (census/search-index.ts);
  // 4: `sc<state>` tags of carriers, search_tag_kinds, first-word tags after leading punctuation;
  // 5: cell_phone, officer_1, officer_2 and identity_digests (the history's comparison);
  // 6: the link index (officer and address keys, link_values, company_links: links-build.ts);
  // 7: the identity digest is a column of companies (no identity_digests table);
  // 8: the officer and address keys are integers (link-keys.ts linkKeyHash)
  format: 8,
  minRowsRatio: 0.9,
  maxRejectRatio: 0.01,
  build: buildCensus,
}
