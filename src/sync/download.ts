/**
 * Conditional, streaming downloads of regulator files (FMCSA-DATA.md §1.2): ETag/Last-Modified
 * so an unchanged file is not fetched again, a SHA-256 so an unchanged body is not rebuilt,
 * an inactivity timeout per read and an overall deadline sized from the expected length and a
 * minimum rate, retries with exponential backoff and jitter, and refusal of anything that is not
 * a complete CSV body (HTML page, empty, short of Content-Length, ending mid-line). An answer from
 * a stale portal replica (`X-SODA2-Data-Out-Of-Date: true`) is refused with `stale` set and never
 * kept. The newest good copy of each file is kept as `<downloads>/<id>.csv` (also a valid
 * `import --dir` folder), and its facts in app.db `source_files` (path relative to the data dir).
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { PRIVATE_DIR_MODE, resolveStoredPath, toStoredPath } from '../db/paths.ts'
import { PRIVATE_FILE_MODE } from '../db/app-db.ts'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Clock } from '../clock.ts'
import type { Sqlite } from '../db/open.ts'
import type { Logger } from '../log.ts'
import type { SourceUrl } from './sources.ts'

export class DownloadError extends Error {
  override readonly name = 'DownloadError'
  /** worth another attempt (network, 5xx, 429, stall, truncated or HTML body) */
  readonly retryable: boolean
  /** the portal answered from an out-of-date replica: retry after a delay, not at once */
  readonly stale: boolean
  constructor(message: string, retryable: boolean, opts: { stale?: boolean } = {}) {
    super(message)
    this.retryable = retryable
    this.stale = opts.stale ?? false
  }
}

/** `X-SODA2-Data-Out-Of-Date: true`: the answer came from a replica behind the truth. */
export const isOutOfDate = (headers: Headers) =>
  /^\s*true\s*$/i.test(headers.get('x-soda2-data-out-of-date') ?? '')

/** The data's own vintage: `X-SODA2-Truth-Last-Modified`, else `Last-Modified` (ISO), else null. */
export function vintageOf(headers: Headers): string | null {
  for (const h of ['x-soda2-truth-last-modified', 'last-modified']) {
    const v = headers.get(h)
    const ms = v ? Date.parse(v) : Number.NaN
    if (Number.isFinite(ms)) return new Date(ms).toISOString()
  }
  return null
}

export interface SourceFileRow {
  fileId: string
  url: string
  path: string | null
  etag: string | null
  lastModified: string | null
  sha256: string | null
  bytes: number | null
  checkedAt: number | null
  changedAt: number | null
}

/** The facts of a kept file; `path` resolved against the data directory. */
export function getSourceFile(db: Sqlite, fileId: string, dataDir: string): SourceFileRow | null {
  const row = db
    .prepare(
      `SELECT file_id AS fileId, url, path, etag, last_modified AS lastModified, sha256, bytes,
           checked_at AS checkedAt, changed_at AS changedAt FROM source_files WHERE file_id = ?`,
    )
    .get(fileId) as SourceFileRow | undefined
  if (!row) return null
  return { ...row, path: row.path === null ? null : resolveStoredPath(dataDir, row.path) }
}

/**
 * Forgets the validators (ETag, Last-Modified) of a kept file whose content was refused after the
 * download (a short row count): the next request is unconditional, so a transfer that lost rows
 * is fetched again rather than answered 304 for ever.
 */
export function forgetValidators(db: Sqlite, fileId: string): void {
  db.prepare('UPDATE source_files SET etag = NULL, last_modified = NULL WHERE file_id = ?').run(
    fileId,
  )
}

function saveSourceFile(db: Sqlite, dataDir: string, row: SourceFileRow): void {
  db.prepare(
    `INSERT INTO source_files (file_id, url, path, etag, last_modified, sha256, bytes, checked_at, changed_at)
     VALUES (@fileId, @url, @path, @etag, @lastModified, @sha256, @bytes, @checkedAt, @changedAt)
     ON CONFLICT (file_id) DO UPDATE SET url = excluded.url, path = excluded.path, etag = excluded.etag,
       last_modified = excluded.last_modified, sha256 = excluded.sha256, bytes = excluded.bytes,
       checked_at = excluded.checked_at, changed_at = excluded.changed_at`,
  ).run({ ...row, path: row.path === null ? null : toStoredPath(dataDir, row.path) })
}

export interface DownloadDeps {
  db: Sqlite
  fetch: typeof globalThis.fetch
  clock: Clock
  random: () => number
  log: Logger
}

export interface DownloadOptions {
  signal: AbortSignal
  /** the data directory (stored paths are relative to it) */
  dataDir: string
  /** folder of the kept copies (config.paths.downloads) */
  dir: string
  /** no response headers or no body bytes for this long → the attempt fails (stall) */
  timeoutMs: number
  /**
   * the overall deadline of one attempt is timeoutMs + expected length / this rate (bytes per
   * second); the expected length is Content-Length, else the last copy's size, else 2 GiB
   */
  minRateBytesPerSec?: number
  /** keeps the run's lease alive while a long body streams; false = the lease is lost, stop */
  renew?: () => boolean
  /** how often `renew` is called during a body (default 30 s) */
  renewEveryMs?: number
  /** extra attempts after the first */
  retries: number
  /** first backoff delay; doubles per attempt, ±50% jitter, capped at a minute */
  retryBaseMs?: number
  /** Socrata app token: sent as X-App-Token only when set (a blank header gets 403) */
  appToken: string | null
  onProgress?: (p: { file: string; bytes: number; total: number | null }) => void
}

interface Fetched {
  fileId: string
  url: string
  path: string
  sha256: string
  bytes: number
  etag: string | null
  lastModified: string | null
  /** X-SODA2-Truth-Last-Modified or Last-Modified of the answer (ISO), when present */
  vintage: string | null
}

export type DownloadOutcome =
  | ({ status: 'changed' | 'unchanged' } & Fetched)
  /** 404 at every URL: for a daily diff, "not published yet" */
  | { status: 'not_found'; fileId: string; url: string }

/** The delay before retry `attempt` (0-based): base × 2^attempt × [0.5, 1.5), at most 60 s. */
export const backoffMs = (attempt: number, baseMs: number, random: () => number) =>
  Math.round(Math.min(60_000, baseMs * 2 ** attempt) * (0.5 + random()))

const HTML_START = /^\s*<(!doctype|html|head|body|\?xml)/i

/**
 * Fetches one file into `<dir>/<fileId>.csv` unless it is unchanged (304, or the same SHA-256).
 * Tries the fallback URLs (in order) when the primary answers 404. Throws DownloadError when
 * every attempt failed; the kept copy and its source_files row are then left as they were.
 */
export async function downloadFile(
  deps: DownloadDeps,
  fileId: string,
  urls: readonly SourceUrl[],
  opts: DownloadOptions,
): Promise<DownloadOutcome> {
  mkdirSync(opts.dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  const prev = getSourceFile(deps.db, fileId, opts.dataDir)
  const kept = prev?.path && prev.sha256 && existsSync(prev.path) ? prev : null
  let lastUrl = urls[0]?.url ?? ''
  for (const u of urls) {
    lastUrl = u.url
    // conditional headers only apply to the URL the kept copy came from
    const cond = kept && kept.url === u.url ? kept : null
    const res = await withRetries(deps, opts, u.url, () =>
      fetchOnce(deps, fileId, u.url, cond, prev?.bytes ?? null, opts),
    )
    if (res === 'not_found') continue
    const now = deps.clock().getTime()
    if (res.kind === 'not_modified') {
      if (!cond) throw new DownloadError(`${u.url}: 304 without a conditional request`, false)
      saveSourceFile(deps.db, opts.dataDir, { ...cond, checkedAt: now })
      return { status: 'unchanged', ...outcomeOf(cond), vintage: res.vintage }
    }
    if (kept && kept.sha256 === res.sha256) {
      rmSync(res.path, { force: true })
      const row = {
        ...kept,
        url: u.url,
        etag: res.etag,
        lastModified: res.lastModified,
        checkedAt: now,
      }
      saveSourceFile(deps.db, opts.dataDir, row)
      return { status: 'unchanged', ...outcomeOf(row), vintage: res.vintage }
    }
    const path = join(opts.dir, `${fileId}.csv`)
    renameSync(res.path, path)
    saveSourceFile(deps.db, opts.dataDir, {
      fileId,
      url: u.url,
      path,
      etag: res.etag,
      lastModified: res.lastModified,
      sha256: res.sha256,
      bytes: res.bytes,
      checkedAt: now,
      changedAt: now,
    })
    deps.log.info({ file: fileId, url: u.url, bytes: res.bytes }, 'downloaded a new copy')
    const { kind: _kind, ...fetched } = res
    return { status: 'changed', ...fetched, path }
  }
  return { status: 'not_found', fileId, url: lastUrl }
}

function outcomeOf(row: SourceFileRow): Omit<Fetched, 'vintage'> {
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

async function withRetries<T>(
  deps: DownloadDeps,
  opts: DownloadOptions,
  url: string,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt()
    } catch (err) {
      opts.signal.throwIfAborted()
      const retryable = !(err instanceof DownloadError) || err.retryable
      if (!retryable || i >= opts.retries) throw asDownloadError(err, url)
      if (isNoSpace(err)) throw asDownloadError(err, url)
      const delay = backoffMs(i, opts.retryBaseMs ?? 2_000, deps.random)
      deps.log.warn(
        { url, attempt: i + 1, delay_ms: delay, error: (err as Error).message },
        'download failed; retrying',
      )
      await sleep(delay, undefined, { signal: opts.signal })
    }
  }
}

const isNoSpace = (err: unknown) => (err as { code?: unknown } | null)?.code === 'ENOSPC'

function asDownloadError(err: unknown, url: string): DownloadError {
  if (err instanceof DownloadError) return err
  if (isNoSpace(err)) return new DownloadError(`${url}: no space left on device`, false)
  const e = err as Error & { cause?: { code?: string; message?: string } }
  const detail = e.cause?.code ?? e.cause?.message ?? e.message
  return new DownloadError(`${url}: ${detail}`, true)
}

/** Assumed length when neither Content-Length nor an earlier copy tells (the census is ~1.7 GB). */
const UNKNOWN_LENGTH = 2 * 1024 ** 3
/** how often a long download renews the run's lease */
const RENEW_EVERY_MS = 30_000

/** The overall deadline of one attempt: timeoutMs plus the expected length at the minimum rate. */
export const deadlineMs = (timeoutMs: number, expected: number | null, minRate: number) =>
  Math.round(timeoutMs + ((expected ?? UNKNOWN_LENGTH) / Math.max(1, minRate)) * 1000)

type Attempt =
  'not_found' | { kind: 'not_modified'; vintage: string | null } | ({ kind: 'body' } & Fetched)

/**
 * One HTTP attempt: 'not_found', not modified, or a complete body in `<dir>/<id>.part`. A body
 * must match its Content-Length and end with a line break; the attempt is cut off when no byte
 * arrives for timeoutMs (stall) or when the whole body takes longer than its deadline (drip).
 */
async function fetchOnce(
  deps: DownloadDeps,
  fileId: string,
  url: string,
  cond: SourceFileRow | null,
  previousBytes: number | null,
  opts: DownloadOptions,
): Promise<Attempt> {
  const ctl = new AbortController()
  let cutOff: DownloadError | null = null
  let timer: NodeJS.Timeout | undefined
  let deadline: NodeJS.Timeout | undefined
  const stop = (err: DownloadError) => {
    cutOff ??= err
    ctl.abort(err)
  }
  const arm = () => {
    clearTimeout(timer)
    timer = setTimeout(
      () => stop(new DownloadError(`${url}: no data for ${opts.timeoutMs} ms (stalled)`, true)),
      opts.timeoutMs,
    )
  }
  const onAbort = () => ctl.abort(opts.signal.reason)
  opts.signal.addEventListener('abort', onAbort, { once: true })
  const part = join(opts.dir, `${fileId}.part`)
  const headers: Record<string, string> = {
    accept: 'text/csv, text/plain;q=0.9, */*;q=0.1',
    'user-agent': 'carrier-verify (self-hosted FMCSA mirror)',
  }
  if (opts.appToken) headers['x-app-token'] = opts.appToken
  if (cond?.etag) headers['if-none-match'] = cond.etag
  if (cond?.lastModified) headers['if-modified-since'] = cond.lastModified
  let fh: Awaited<ReturnType<typeof open>> | null = null
  let bytes = -1
  let expected: number | null = null
  try {
    arm()
    const res = await deps.fetch(url, { headers, signal: ctl.signal, redirect: 'follow' })
    const stale = isOutOfDate(res.headers)
    if (stale && (res.status === 304 || res.ok)) {
      await res.body?.cancel().catch(() => undefined)
      throw new DownloadError(
        `${url}: the portal answered from an out-of-date replica (X-SODA2-Data-Out-Of-Date: true)`,
        false,
        { stale: true },
      )
    }
    if (res.status === 304) {
      await res.body?.cancel().catch(() => undefined)
      return { kind: 'not_modified', vintage: vintageOf(res.headers) }
    }
    if (res.status === 404) {
      await res.body?.cancel().catch(() => undefined)
      return 'not_found'
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined)
      const retry = res.status === 429 || res.status >= 500
      const hint = res.status === 403 ? ' (check SOCRATA_APP_TOKEN and network access)' : ''
      throw new DownloadError(`${url}: HTTP ${res.status}${hint}`, retry)
    }
    if (/text\/html/i.test(res.headers.get('content-type') ?? '')) {
      await res.body?.cancel().catch(() => undefined)
      throw new DownloadError(`${url}: the server sent an HTML page instead of CSV`, true)
    }
    if (!res.body) throw new DownloadError(`${url}: empty body`, true)
    const lengthHeader = res.headers.get('content-length')
    expected = lengthHeader !== null && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null
    const limit = deadlineMs(
      opts.timeoutMs,
      expected ?? previousBytes,
      opts.minRateBytesPerSec ?? 100 * 1024,
    )
    deadline = setTimeout(
      () =>
        stop(
          new DownloadError(
            `${url}: download deadline of ${Math.round(limit / 1000)} s exceeded after ${bytes} bytes (slower than the minimum rate)`,
            true,
          ),
        ),
      limit,
    )
    const hash = createHash('sha256')
    fh = await open(part, 'w', PRIVATE_FILE_MODE)
    bytes = 0
    let head = ''
    let last = -1
    let lastReport = 0
    let lastRenew = Date.now()
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    for (;;) {
      arm()
      const { done, value } = await reader.read()
      if (done) break
      if (value.byteLength === 0) continue
      if (head.length < 256) {
        head += Buffer.from(value.subarray(0, 256)).toString('utf8')
        if (HTML_START.test(head.replace(/^\uFEFF/, '')))
          throw new DownloadError(`${url}: the server sent an HTML page instead of CSV`, true)
      }
      hash.update(value)
      bytes += value.byteLength
      last = value[value.byteLength - 1] ?? last
      await fh.write(value)
      if (opts.onProgress && bytes - lastReport >= 1 << 20) {
        lastReport = bytes
        opts.onProgress({ file: fileId, bytes, total: expected })
      }
      if (opts.renew && Date.now() - lastRenew >= (opts.renewEveryMs ?? RENEW_EVERY_MS)) {
        lastRenew = Date.now()
        if (!opts.renew())
          throw new DownloadError(`${url}: the run lost its lease during the download`, false)
      }
    }
    clearTimeout(timer)
    clearTimeout(deadline)
    await fh.close()
    fh = null
    if (expected !== null && bytes !== expected)
      throw new DownloadError(`${url}: truncated body (${bytes} of ${expected} bytes)`, true)
    if (bytes === 0 || head.trim() === '') throw new DownloadError(`${url}: empty body`, true)
    if (last !== 0x0a)
      throw new DownloadError(
        `${url}: truncated body (ends mid-line after ${bytes} bytes, no final line break)`,
        true,
      )
    opts.onProgress?.({ file: fileId, bytes, total: expected })
    return {
      kind: 'body',
      fileId,
      url,
      path: part,
      sha256: hash.digest('hex'),
      bytes,
      etag: res.headers.get('etag'),
      lastModified: res.headers.get('last-modified'),
      vintage: vintageOf(res.headers),
    }
  } catch (err) {
    await fh?.close().catch(() => undefined)
    rmSync(part, { force: true })
    // set by a timer callback (stall or deadline): TypeScript cannot see that
    const cut = cutOff as DownloadError | null
    if (cut) throw cut
    if (opts.signal.aborted) throw opts.signal.reason
    if (isNoSpace(err))
      throw new DownloadError(
        `${url}: no space left on device (while writing ${part} after ${Math.max(bytes, 0)} bytes)`,
        false,
      )
    if (bytes >= 0 && !(err instanceof DownloadError)) {
      // the connection ended inside the body: a truncated download
      const of = expected === null ? '' : ` of ${expected}`
      throw new DownloadError(
        `${url}: truncated body (connection closed after ${bytes}${of} bytes)`,
        true,
      )
    }
    throw err
  } finally {
    clearTimeout(timer)
    clearTimeout(deadline)
    opts.signal.removeEventListener('abort', onAbort)
  }
}
