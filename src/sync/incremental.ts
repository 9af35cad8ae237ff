/**
 * Incremental fetch of the large daily files that carry a change date (the MCMIS
 * Vehicle Inspection File and Inspections Per Unit): only the rows changed since the newest
 * change date of the kept copy are asked for through the portal's SODA endpoint
 * (`/resource/<id>.csv?$where=change_date > '…'`, paged, since that endpoint stops silently at
 * its page size), and merged into the kept copy by the file's key (a changed row replaces the
 * kept one, a new row is added). The full export is fetched instead on the first sync, when the
 * last full copy is older than the refresh period (rows deleted upstream only leave with a full
 * copy), when the kept copy's facts are missing, and on any error of the incremental path
 * (HTTP, a stale replica, a missing column, too many changed rows).
 *
 * The facts of the incremental path sit beside the kept copy in `<id>.incremental.json`: the
 * SHA-256 of the copy they describe (a copy replaced by other means invalidates them), its newest
 * change date and when its last full export was fetched.
 */
import { createHash } from 'node:crypto'
import {
  createReadStream,
  existsSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import Papa from 'papaparse'
import { PRIVATE_FILE_MODE } from '../db/app-db.ts'
import { readCsvBatches } from '../ingest/csv.ts'
import type { DownloadDeps, DownloadOptions, DownloadOutcome, SourceFileRow } from './download.ts'
import { getSourceFile, isOutOfDate, saveSourceFile, vintageOf } from './download.ts'

/** How a file is fetched incrementally: its key column and its change-date column. */
export interface IncrementalSpec {
  /** column whose value names a row (a changed row replaces the kept row with the same key) */
  key: string
  /** column of the row's last change, `YYYYMMDD HHMM` (text order is time order) */
  changed: string
}

/** What is known of the kept copy, beside it as `<id>.incremental.json`. */
export interface IncrementalState {
  sha256: string
  /** the newest change date in the copy */
  changedUpTo: string
  /** when the last full export was fetched (ms since the epoch) */
  fullAt: number
}

export interface IncrementalOptions {
  spec: IncrementalSpec
  /** the portal's base URL (FMCSA_BASE_URL) */
  baseUrl: string
  /** a full export when the last one is this many days old or older */
  fullRefreshDays: number
  /** rows per SODA page */
  pageRows?: number
  /** more changed rows than this → the full export (bounds the keys held during a merge) */
  maxRows?: number
}

/**
 * Default rows per SODA page, and most changed rows of one fetch (only their keys are held in
 * memory; a month of either file is well under it).
 */
const PAGE_ROWS = 50_000
const MAX_ROWS = 2_000_000

const statePath = (dir: string, id: string) => join(dir, `${id}.incremental.json`)

export function readIncrementalState(dir: string, id: string): IncrementalState | null {
  try {
    const s = JSON.parse(readFileSync(statePath(dir, id), 'utf8')) as Partial<IncrementalState>
    return typeof s.sha256 === 'string' &&
      typeof s.changedUpTo === 'string' &&
      typeof s.fullAt === 'number'
      ? (s as IncrementalState)
      : null
  } catch {
    return null
  }
}

function writeState(dir: string, id: string, s: IncrementalState): void {
  const path = statePath(dir, id)
  writeFileSync(`${path}.part`, JSON.stringify(s), { mode: PRIVATE_FILE_MODE })
  renameSync(`${path}.part`, path)
}

/** Forgets the facts of a kept copy: the next fetch of the file is a full export. */
export function forgetIncremental(dir: string, id: string): void {
  rmSync(statePath(dir, id), { force: true })
}

/** The newest value of column `changed` in a kept copy (a full export), or null when none. */
export async function newestChange(path: string, changed: string): Promise<string | null> {
  let col = -1
  let newest: string | null = null
  for await (const { records } of readCsvBatches(path, { header: 'none', columns: [] })) {
    let i = 0
    if (col < 0) {
      col = (records[0] ?? []).findIndex((h) => h.trim().toUpperCase() === changed)
      if (col < 0) return null
      i = 1
    }
    for (; i < records.length; i++) {
      const v = (records[i] as string[])[col]
      if (v !== undefined && (newest === null || v > newest)) newest = v
    }
  }
  return newest
}

/** The SODA URL of one page of the rows changed after `since`. */
export function changesUrl(
  baseUrl: string,
  id: string,
  changed: string,
  since: string,
  offset: number,
  limit: number,
): string {
  const col = changed.toLowerCase()
  const q = new URLSearchParams({
    $where: `${col} > '${since.replaceAll("'", "''")}'`,
    $order: `${col},:id`,
    $limit: String(limit),
    $offset: String(offset),
  })
  return `${baseUrl.replace(/\/+$/, '')}/resource/${id}.csv?${q.toString()}`
}

/** The header of a kept copy (its first record). */
async function headerOf(path: string): Promise<string[]> {
  for await (const { records } of readCsvBatches(path, { header: 'none', columns: [] }))
    return (records[0] ?? []).map((h) => h.trim())
  throw new Error(`${path} is empty`)
}

const quote = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v)
const csvLine = (fields: readonly string[]) => `${fields.map(quote).join(',')}\n`

interface Changes {
  /** keys of the changed rows (only the keys stay in memory; the rows go to the delta file) */
  keys: Set<string>
  newest: string
  vintage: string | null
}

/** One SODA page: the header and the rows, or throws on an answer that is not a good page. */
async function fetchPage(deps: DownloadDeps, url: string, d: DownloadOptions) {
  const headers: Record<string, string> = { accept: 'text/csv' }
  if (d.appToken) headers['x-app-token'] = d.appToken
  const res = await deps.fetch(url, {
    headers,
    signal: AbortSignal.any([d.signal, AbortSignal.timeout(d.timeoutMs)]),
  })
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`)
  if (isOutOfDate(res.headers)) throw new Error(`${url}: answered from an out-of-date replica`)
  if (/text\/html/i.test(res.headers.get('content-type') ?? ''))
    throw new Error(`${url}: an HTML page instead of CSV`)
  const parsed = Papa.parse<string[]>((await res.text()).replace(/^\uFEFF/, ''), {
    skipEmptyLines: true,
  })
  if (parsed.errors.length) throw new Error(`${url}: ${parsed.errors[0]?.message}`)
  const [head = [], ...rows] = parsed.data
  return { head: head.map((h) => h.trim().toLowerCase()), rows, vintage: vintageOf(res.headers) }
}

/**
 * Writes every row changed after `since` to `delta` (CSV lines, fields in the order of the kept
 * header). Throws on any HTTP error, a stale replica, a column of the kept header missing from
 * the answer, a key twice, or more than `maxRows` rows.
 */
async function fetchChanges(
  deps: DownloadDeps,
  id: string,
  header: readonly string[],
  since: string,
  delta: string,
  o: IncrementalOptions,
  d: DownloadOptions,
): Promise<Changes> {
  const pageRows = o.pageRows ?? PAGE_ROWS
  const maxRows = o.maxRows ?? MAX_ROWS
  const keyAt = header.indexOf(o.spec.key)
  const changedAt = header.indexOf(o.spec.changed)
  if (keyAt < 0 || changedAt < 0)
    throw new Error(`the kept copy has no ${o.spec.key} or ${o.spec.changed} column`)
  const out: Changes = { keys: new Set(), newest: since, vintage: null }
  const fh = await open(delta, 'w', PRIVATE_FILE_MODE)
  try {
    for (let offset = 0; ; offset += pageRows) {
      const url = changesUrl(o.baseUrl, id, o.spec.changed, since, offset, pageRows)
      const page = await fetchPage(deps, url, d)
      out.vintage ??= page.vintage
      const from = header.map((h) => {
        const i = page.head.indexOf(h.toLowerCase())
        if (i < 0) throw new Error(`${url}: the answer has no ${h} column`)
        return i
      })
      let text = ''
      for (const r of page.rows) {
        if (r.length !== page.head.length) throw new Error(`${url}: a row of ${r.length} fields`)
        const fields = from.map((i) => r[i] as string)
        const key = fields[keyAt] as string
        // one row per key in a consistent walk: a repeat means the file moved under the pages
        if (out.keys.has(key)) throw new Error(`${url}: ${o.spec.key} ${key} twice in the changes`)
        out.keys.add(key)
        const changed = fields[changedAt] as string
        if (changed > out.newest) out.newest = changed
        text += csvLine(fields)
      }
      await fh.write(text)
      if (out.keys.size > maxRows) throw new Error(`more than ${maxRows} changed rows`)
      d.renew?.()
      if (page.rows.length < pageRows) return out
    }
  } finally {
    await fh.close()
  }
}

/**
 * Writes the kept copy with the changed rows merged into `part`: kept rows whose key changed are
 * left out, the changed rows (`delta`) are appended. Returns the SHA-256 and size of the result.
 */
async function merge(
  kept: string,
  part: string,
  keyAt: number,
  changes: Changes,
  delta: string,
  signal: AbortSignal,
): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256')
  let bytes = 0
  const fh = await open(part, 'w', PRIVATE_FILE_MODE)
  const write = async (buf: Buffer) => {
    hash.update(buf)
    bytes += buf.length
    await fh.write(buf)
  }
  try {
    let first = true
    for await (const { records } of readCsvBatches(kept, { header: 'none', columns: [], signal })) {
      let out = ''
      for (let i = 0; i < records.length; i++) {
        const r = records[i] as string[]
        // the header row is written as it is, trimmed like the header the delta was ordered by
        if (first && i === 0) out += csvLine(r.map((h) => h.trim()))
        else if (!changes.keys.has(r[keyAt] as string)) out += csvLine(r)
      }
      first = false
      await write(Buffer.from(out))
    }
    for await (const chunk of createReadStream(delta)) await write(chunk as Buffer)
  } finally {
    await fh.close()
  }
  return { sha256: hash.digest('hex'), bytes }
}

/** Facts of a kept copy the incremental path can extend, or null (then: the full export). */
function extendable(
  deps: DownloadDeps,
  id: string,
  o: IncrementalOptions,
  d: DownloadOptions,
): { kept: SourceFileRow & { path: string }; state: IncrementalState } | null {
  const kept = getSourceFile(deps.db, id, d.dataDir)
  const state = readIncrementalState(d.dir, id)
  if (!kept?.path || !existsSync(kept.path) || !state || state.sha256 !== kept.sha256) return null
  if (deps.clock().getTime() - state.fullAt >= o.fullRefreshDays * 86_400_000) return null
  return { kept: { ...kept, path: kept.path }, state }
}

/**
 * Fetches file `id` incrementally when its kept copy allows it, else (or on any error) through
 * `full` (the full export, downloadFile); after a full export, records its newest change date.
 */
export async function fetchIncrementally(
  deps: DownloadDeps,
  id: string,
  o: IncrementalOptions,
  d: DownloadOptions,
  full: () => Promise<DownloadOutcome>,
): Promise<DownloadOutcome> {
  const base = extendable(deps, id, o, d)
  if (base) {
    const part = join(d.dir, `${id}.part`)
    const delta = join(d.dir, `${id}.delta`)
    try {
      const header = await headerOf(base.kept.path)
      const got = await fetchChanges(deps, id, header, base.state.changedUpTo, delta, o, d)
      const now = deps.clock().getTime()
      if (got.keys.size === 0) {
        saveSourceFile(deps.db, d.dataDir, { ...base.kept, checkedAt: now })
        return { status: 'unchanged', ...outcome(base.kept), vintage: got.vintage }
      }
      const keyAt = header.indexOf(o.spec.key)
      const m = await merge(base.kept.path, part, keyAt, got, delta, d.signal)
      renameSync(part, base.kept.path)
      // the validators described the export, not the merged copy: the next full is unconditional
      const row = {
        ...base.kept,
        etag: null,
        lastModified: null,
        sha256: m.sha256,
        bytes: m.bytes,
        checkedAt: now,
        changedAt: now,
      }
      saveSourceFile(deps.db, d.dataDir, row)
      writeState(d.dir, id, { ...base.state, sha256: m.sha256, changedUpTo: got.newest })
      deps.log.info(
        { file: id, rows: got.keys.size, since: base.state.changedUpTo },
        'merged the changed rows',
      )
      return { status: 'changed', ...outcome(row), vintage: got.vintage }
    } catch (err) {
      rmSync(part, { force: true })
      d.signal.throwIfAborted()
      deps.log.warn(
        { file: id, error: err instanceof Error ? err.message : String(err) },
        'incremental fetch failed; fetching the full export',
      )
    } finally {
      rmSync(delta, { force: true })
    }
  }
  forgetIncremental(d.dir, id)
  const res = await full()
  if (res.status === 'not_found') return res
  if (res.status === 'changed' || !readIncrementalState(d.dir, id)) {
    const newest = await newestChange(res.path, o.spec.changed)
    if (newest !== null)
      writeState(d.dir, id, {
        sha256: res.sha256,
        changedUpTo: newest,
        fullAt: deps.clock().getTime(),
      })
  }
  return res
}

function outcome(row: SourceFileRow) {
  return {
    fileId: row.fileId,
    url: row.url,
    path: row.path ?? '',
    sha256: row.sha256 ?? '',
    bytes: row.bytes ?? 0,
    etag: row.etag,
    lastModified: row.lastModified,
  }
}
