/**
 * Conditional, streaming downloads of regulator files (docs/data.md, How a sync works): ETag/Last-Modified
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

export function saveSourceFile(db: Sqlite, dataDir: string, row: SourceFileRow): void {
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
   * second); the expected length is Content-Length, else the last copy's size, else the portal's
   * row count (expectedRows) times BYTES_PER_ROW_BOUND
   */
  minRateBytesPerSec?: number
  /** the portal's row count of the file, asked only when nothing else tells its length */
  expectedRows?: () => Promise<number | null>
  /**
   * the most time the file may take, every attempt and backoff included (the dataset's
   * SYNC_DOWNLOAD_MAX_MINUTES): no retry restarts a trickle past it
   */
  maxTotalMs: number
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
  // one budget for the file: every URL, attempt and backoff
  const until = Date.now() + opts.maxTotalMs
  for (const u of urls) {
    lastUrl = u.url
    // conditional headers only apply to the URL the kept copy came from
    const cond = kept && kept.url === u.url ? kept : null
    const res = await withRetries(deps, opts, u.url, until, () =>
      fetchOnce(deps, fileId, u.url, cond, prev?.bytes ?? null, opts, until - Date.now()),
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

/** Least time worth starting another attempt with. */
const MIN_ATTEMPT_MS = 1_000

async function withRetries<T>(
  deps: DownloadDeps,
  opts: DownloadOptions,
  url: string,
  until: number,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let i = 0; ; i++) {
    if (until - Date.now() < MIN_ATTEMPT_MS)
      throw new DownloadError(
        `${url}: the download's time budget of ${Math.round(opts.maxTotalMs / 60_000)} min is spent (SYNC_DOWNLOAD_MAX_MINUTES)`,
        false,
      )
    try {
      return await attempt()
    } catch (err) {
      opts.signal.throwIfAborted()
      const retryable = !(err instanceof DownloadError) || err.retryable
      if (!retryable || i >= opts.retries) throw asDownloadError(err, url)
      if (isNoSpace(err)) throw asDownloadError(err, url)
      const delay = backoffMs(i, opts.retryBaseMs ?? 2_000, deps.random)
      if (Date.now() + delay + MIN_ATTEMPT_MS > until) throw asDownloadError(err, url)
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

/**
 * Bytes one row of a regulator file can take, at most, for the deadline of a download whose
 * length nothing else tells: more than twice the widest file's average (the census, about 440
 * bytes a row in the real files).
 */
export const BYTES_PER_ROW_BOUND = 1024
/** how often a long download renews the run's lease */
const RENEW_EVERY_MS = 30_000

/**
 * The overall deadline of one attempt: timeoutMs plus the expected length at the minimum rate,
 * never past `ceilingMs` (what is left of the file's budget). With no expected length the
 * ceiling alone bounds it.
 */
export const deadlineMs = (
  timeoutMs: number,
  expected: number | null,
  minRate: number,
  ceilingMs: number,
) =>
  Math.round(
    Math.min(
      ceilingMs,
      expected === null ? ceilingMs : timeoutMs + (expected / Math.max(1, minRate)) * 1000,
    ),
  )

type Attempt =
  'not_found' | { kind: 'not_modified'; vintage: string | null } | ({ kind: 'body' } & Fetched)

/**
 * The two timers of an attempt: a stall (no byte for timeoutMs, re-armed by every read) and the
 * overall deadline. Either aborts the request with its reason, kept in `cutOff`.
 */
class Watchdog {
  readonly ctl = new AbortController()
  cutOff: DownloadError | null = null
  private stall: NodeJS.Timeout | undefined
  private deadline: NodeJS.Timeout | undefined
  private readonly url: string
  private readonly timeoutMs: number
  constructor(url: string, timeoutMs: number) {
    this.url = url
    this.timeoutMs = timeoutMs
  }
  stop(err: DownloadError): void {
    this.cutOff ??= err
    this.ctl.abort(err)
  }
  /** (re)starts the stall timer */
  arm(): void {
    clearTimeout(this.stall)
    this.stall = setTimeout(
      () =>
        this.stop(
          new DownloadError(`${this.url}: no data for ${this.timeoutMs} ms (stalled)`, true),
        ),
      this.timeoutMs,
    )
  }
  /** pauses the stall timer (while the attempt waits for something other than the body) */
  pause(): void {
    clearTimeout(this.stall)
  }
  limit(ms: number, bytes: () => number): void {
    this.deadline = setTimeout(
      () =>
        this.stop(
          new DownloadError(
            `${this.url}: download deadline of ${Math.round(ms / 1000)} s exceeded after ${bytes()} bytes (slower than the minimum rate)`,
            true,
          ),
        ),
      ms,
    )
  }
  clear(): void {
    clearTimeout(this.stall)
    clearTimeout(this.deadline)
  }
}

/** The request headers of an attempt: conditional when a kept copy came from this URL. */
function requestHeaders(cond: SourceFileRow | null, appToken: string | null) {
  const headers: Record<string, string> = {
    accept: 'text/csv, text/plain;q=0.9, */*;q=0.1',
    // both are decoded by fetch; a Content-Length then counts the encoded bytes (checkBody)
    'accept-encoding': 'gzip, deflate',
    'user-agent': 'carrier-verify (self-hosted FMCSA mirror)',
  }
  if (appToken) headers['x-app-token'] = appToken
  if (cond?.etag) headers['if-none-match'] = cond.etag
  if (cond?.lastModified) headers['if-modified-since'] = cond.lastModified
  return headers
}

const discard = (res: Response) => res.body?.cancel().catch(() => undefined)

/**
 * Judges the status and headers of an answer: a body to read, or 'not_found' / not modified;
 * throws DownloadError for a stale replica, an error status or an HTML page.
 */
async function judgeAnswer(
  url: string,
  res: Response,
): Promise<{ kind: 'answer'; res: Response } | Exclude<Attempt, { kind: 'body' }>> {
  const stale = isOutOfDate(res.headers)
  if (stale && (res.status === 304 || res.ok)) {
    await discard(res)
    throw new DownloadError(
      `${url}: the portal answered from an out-of-date replica (X-SODA2-Data-Out-Of-Date: true)`,
      false,
      { stale: true },
    )
  }
  if (res.status === 304) {
    await discard(res)
    return { kind: 'not_modified', vintage: vintageOf(res.headers) }
  }
  if (res.status === 404) {
    await discard(res)
    return 'not_found'
  }
  if (!res.ok) {
    await discard(res)
    const retry = res.status === 429 || res.status >= 500
    const hint = res.status === 403 ? ' (check SOCRATA_APP_TOKEN and network access)' : ''
    throw new DownloadError(`${url}: HTTP ${res.status}${hint}`, retry)
  }
  if (/text\/html/i.test(res.headers.get('content-type') ?? '')) {
    await discard(res)
    throw new DownloadError(`${url}: the server sent an HTML page instead of CSV`, true)
  }
  if (!res.body) throw new DownloadError(`${url}: empty body`, true)
  // not `instanceof Response`: the HTTP server's adapter replaces the global Response class
  return { kind: 'answer', res }
}

/** The length an answer announces: Content-Length, and whether it counts encoded (gzip) bytes. */
function announcedLength(headers: Headers): { length: number | null; encoded: boolean } {
  const raw = headers.get('content-length')
  const encoding = (headers.get('content-encoding') ?? '').trim().toLowerCase()
  return {
    length: raw !== null && /^\d+$/.test(raw) ? Number(raw) : null,
    encoded: encoding !== '' && encoding !== 'identity',
  }
}

/**
 * The length the deadline is sized from: Content-Length, else the last copy's size, else the
 * portal's row count times BYTES_PER_ROW_BOUND (asked only then), else null (the ceiling).
 */
async function expectedLength(
  announced: number | null,
  previousBytes: number | null,
  opts: DownloadOptions,
): Promise<number | null> {
  if (announced !== null) return announced
  if (previousBytes !== null) return previousBytes
  const rows = await opts.expectedRows?.().catch(() => null)
  return rows == null ? null : Math.max(1, rows) * BYTES_PER_ROW_BOUND
}

interface Streamed {
  sha256: string
  bytes: number
  /** the last byte (a complete CSV ends with a line break) */
  last: number
  /** the first bytes as text (an HTML page or a blank body) */
  head: string
}

/** Streams the (decoded) body into `part`, hashing it; renews the lease on the way. */
async function streamBody(
  url: string,
  fileId: string,
  body: ReadableStream<Uint8Array>,
  part: string,
  dog: Watchdog,
  total: number | null,
  opts: DownloadOptions,
  progress: { bytes: number },
): Promise<Streamed> {
  const hash = createHash('sha256')
  const fh = await open(part, 'w', PRIVATE_FILE_MODE)
  try {
    let head = ''
    let last = -1
    let lastReport = 0
    let lastRenew = Date.now()
    const reader = body.getReader()
    for (;;) {
      dog.arm()
      const { done, value } = await reader.read()
      if (done) break
      if (value.byteLength === 0) continue
      if (head.length < 256) {
        head += Buffer.from(value.subarray(0, 256)).toString('utf8')
        if (HTML_START.test(head.replace(/^\uFEFF/, '')))
          throw new DownloadError(`${url}: the server sent an HTML page instead of CSV`, true)
      }
      hash.update(value)
      progress.bytes += value.byteLength
      last = value[value.byteLength - 1] ?? last
      await fh.write(value)
      if (opts.onProgress && progress.bytes - lastReport >= 1 << 20) {
        lastReport = progress.bytes
        opts.onProgress({ file: fileId, bytes: progress.bytes, total })
      }
      if (opts.renew && Date.now() - lastRenew >= (opts.renewEveryMs ?? RENEW_EVERY_MS)) {
        lastRenew = Date.now()
        if (!opts.renew())
          throw new DownloadError(`${url}: the run lost its lease during the download`, false)
      }
    }
    return { sha256: hash.digest('hex'), bytes: progress.bytes, last, head }
  } finally {
    await fh.close().catch(() => undefined)
  }
}

/**
 * Refuses a body that is not a complete CSV: short of its Content-Length (which, for a gzip or
 * deflate answer, counts the encoded bytes: fetch itself fails a transfer cut short of it, and
 * the decoded size is not compared with it), empty, or ending mid-line.
 */
function checkBody(
  url: string,
  got: Streamed,
  length: { length: number | null; encoded: boolean },
): void {
  if (length.length !== null && !length.encoded && got.bytes !== length.length)
    throw new DownloadError(`${url}: truncated body (${got.bytes} of ${length.length} bytes)`, true)
  if (got.bytes === 0 || got.head.trim() === '') throw new DownloadError(`${url}: empty body`, true)
  if (got.last !== 0x0a)
    throw new DownloadError(
      `${url}: truncated body (ends mid-line after ${got.bytes} bytes, no final line break)`,
      true,
    )
}

/**
 * One HTTP attempt: 'not_found', not modified, or a complete body in `<dir>/<id>.part`. A body
 * must match its Content-Length and end with a line break; the attempt is cut off when no byte
 * arrives for timeoutMs (stall) or when the whole body takes longer than its deadline (drip),
 * which never reaches past `budgetMs`.
 */
async function fetchOnce(
  deps: DownloadDeps,
  fileId: string,
  url: string,
  cond: SourceFileRow | null,
  previousBytes: number | null,
  opts: DownloadOptions,
  budgetMs: number,
): Promise<Attempt> {
  const dog = new Watchdog(url, opts.timeoutMs)
  const onAbort = () => dog.ctl.abort(opts.signal.reason)
  opts.signal.addEventListener('abort', onAbort, { once: true })
  const part = join(opts.dir, `${fileId}.part`)
  const progress = { bytes: -1 }
  let length: ReturnType<typeof announcedLength> = { length: null, encoded: false }
  try {
    dog.arm()
    const judged = await judgeAnswer(
      url,
      await deps.fetch(url, {
        headers: requestHeaders(cond, opts.appToken),
        signal: dog.ctl.signal,
        redirect: 'follow',
      }),
    )
    if (judged === 'not_found' || judged.kind !== 'answer') return judged
    const answer = judged.res
    length = announcedLength(answer.headers)
    dog.pause()
    const expected = await expectedLength(length.length, previousBytes, opts)
    const limit = deadlineMs(
      opts.timeoutMs,
      expected,
      opts.minRateBytesPerSec ?? 100 * 1024,
      budgetMs,
    )
    dog.limit(limit, () => Math.max(progress.bytes, 0))
    progress.bytes = 0
    const total = length.encoded ? null : length.length
    const got = await streamBody(
      url,
      fileId,
      answer.body as ReadableStream<Uint8Array>,
      part,
      dog,
      total,
      opts,
      progress,
    )
    dog.clear()
    checkBody(url, got, length)
    opts.onProgress?.({ file: fileId, bytes: got.bytes, total })
    return {
      kind: 'body',
      fileId,
      url,
      path: part,
      sha256: got.sha256,
      bytes: got.bytes,
      etag: answer.headers.get('etag'),
      lastModified: answer.headers.get('last-modified'),
      vintage: vintageOf(answer.headers),
    }
  } catch (err) {
    rmSync(part, { force: true })
    throw attemptError(err, url, part, progress.bytes, length, dog, opts)
  } finally {
    dog.clear()
    opts.signal.removeEventListener('abort', onAbort)
  }
}

/** What a failed attempt throws: the watchdog's cut, the shutdown, a full disk or a cut transfer. */
function attemptError(
  err: unknown,
  url: string,
  part: string,
  bytes: number,
  length: { length: number | null; encoded: boolean },
  dog: Watchdog,
  opts: DownloadOptions,
): unknown {
  if (dog.cutOff) return dog.cutOff
  if (opts.signal.aborted) return opts.signal.reason
  if (isNoSpace(err))
    return new DownloadError(
      `${url}: no space left on device (while writing ${part} after ${Math.max(bytes, 0)} bytes)`,
      false,
    )
  if (bytes >= 0 && !(err instanceof DownloadError)) {
    // the connection ended inside the body: a truncated download
    const of =
      length.length === null ? '' : ` of ${length.length}${length.encoded ? ' encoded' : ''}`
    return new DownloadError(
      `${url}: truncated body (connection closed after ${bytes}${of} bytes)`,
      true,
    )
  }
  return err
}
