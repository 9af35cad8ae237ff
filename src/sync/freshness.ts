/**
 * The freshness gate of the mirror (issue 12 item 6, issue 16 items 3–4; docs/data.md "Freshness
 * gate"): a download is activated only when it is complete and current.
 *
 * - Answers flagged `X-SODA2-Data-Out-Of-Date: true` (the file, or the count) came from a stale
 *   portal replica: retried within the run after SYNC_STALE_DELAY_MS, SYNC_STALE_RETRIES times;
 *   failing that the run fails and the next scheduled run tries again.
 * - Every file of a build has its row count (records read, accepted or rejected) compared with the
 *   portal's own `count(*)`; any difference refuses the version, however small.
 * - A near-empty out-of-service-orders file is suspect, not "no orders".
 * - A sync checks free disk space for its expected size before it starts.
 * - Downloads share a pool of SYNC_PARALLEL_DOWNLOADS connections; a whole mirror's duration is
 *   stored with each of its runs (`lastMirror`).
 */
import { existsSync, readFileSync } from 'node:fs'
import { statfs } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import pLimit from 'p-limit'
import type { Config } from '../config.ts'
import type { BuildStats, DatasetName } from '../db/names.ts'
import type { Sqlite } from '../db/open.ts'
import type { VersionRow } from '../db/versions.ts'
import { VerifyError } from '../ingest/build.ts'
import type { DatasetSpec } from '../ingest/types.ts'
import type { Logger } from '../log.ts'
import { OOS_FILE_ID } from '../safety/oos.ts'
import { backoffMs, DownloadError, isOutOfDate } from './download.ts'
import { activatedRunStats, newestMirrorStats, storeMirrorStats } from './runs.ts'

/** SODA's own row count of a dataset: `/resource/<id>.json?$select=count(*)`. */
export const countUrl = (baseUrl: string, id: string) =>
  `${baseUrl.replace(/\/+$/, '')}/resource/${id}.json?$select=count(*)`

export interface CountDeps {
  fetch: typeof globalThis.fetch
  random: () => number
  log: Logger
}

export interface CountOptions {
  signal: AbortSignal
  baseUrl: string
  appToken: string | null
  timeoutMs: number
  retries: number
  retryBaseMs?: number
}

/** A portal count: a number, or null when the portal has none for the id (404). */
export type PortalCount = { count: number | null; stale: boolean }

/** Reads the count answer: `[{"count":"4512353"}]` (any single numeric field is accepted). */
export function parseCount(body: unknown): number | null {
  const first = Array.isArray(body) ? (body[0] as unknown) : null
  if (!first || typeof first !== 'object') return null
  const values = Object.values(first as Record<string, unknown>)
  const v = values.length === 1 ? values[0] : (first as Record<string, unknown>).count
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN
  return Number.isSafeInteger(n) && n >= 0 ? n : null
}

/** Asks the portal for its row count of `id`; network errors and 5xx are retried with backoff. */
export async function portalCount(
  deps: CountDeps,
  id: string,
  opts: CountOptions,
): Promise<PortalCount> {
  const url = countUrl(opts.baseUrl, id)
  const headers: Record<string, string> = { accept: 'application/json' }
  if (opts.appToken) headers['x-app-token'] = opts.appToken
  for (let i = 0; ; i++) {
    try {
      const signal = AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)])
      const res = await deps.fetch(url, { headers, signal })
      if (res.status === 404) {
        await res.body?.cancel().catch(() => undefined)
        return { count: null, stale: false }
      }
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined)
        throw new DownloadError(
          `${url}: HTTP ${res.status}`,
          res.status === 429 || res.status >= 500,
        )
      }
      const stale = isOutOfDate(res.headers)
      const count = parseCount(await res.json().catch(() => null))
      if (count === null) throw new DownloadError(`${url}: not a row count`, true)
      return { count, stale }
    } catch (err) {
      opts.signal.throwIfAborted()
      const retryable = !(err instanceof DownloadError) || err.retryable
      if (!retryable || i >= opts.retries)
        throw err instanceof DownloadError
          ? err
          : new DownloadError(`${url}: ${(err as Error).message}`, true)
      await sleep(backoffMs(i, opts.retryBaseMs ?? 2_000, deps.random), undefined, {
        signal: opts.signal,
      })
    }
  }
}

/**
 * Runs `attempt` until its answer is not from a stale replica: a stale answer is retried after
 * `delayMs`, `retries` times; then a DownloadError with `stale` set says so (the run fails and the
 * next scheduled run tries again).
 */
export async function untilFresh<T>(
  what: string,
  attempt: () => Promise<T>,
  isStale: (value: T) => boolean,
  opts: { retries: number; delayMs: number; signal: AbortSignal; log: Logger },
): Promise<T> {
  for (let i = 0; ; i++) {
    let stale: boolean
    let value: T | undefined
    try {
      value = await attempt()
      stale = isStale(value)
    } catch (err) {
      if (!(err instanceof DownloadError) || !err.stale) throw err
      stale = true
    }
    if (!stale) return value as T
    if (i >= opts.retries)
      throw new DownloadError(
        `${what}: the portal answered from an out-of-date replica (X-SODA2-Data-Out-Of-Date: true) ` +
          `${i + 1} time(s); not activated, the next scheduled run tries again`,
        false,
        { stale: true },
      )
    opts.log.warn(
      { what, attempt: i + 1, delay_ms: opts.delayMs },
      'stale portal replica (X-SODA2-Data-Out-Of-Date); retrying after a delay',
    )
    await sleep(opts.delayMs, undefined, { signal: opts.signal })
  }
}

/** Per file id of a build: the portal's count, or null when the portal has none. */
export type PortalCounts = Record<string, number | null>

/**
 * Refuses a build whose files do not hold exactly the portal's row count (read = accepted +
 * rejected rows). A file without a portal count is refused too, except a frozen legacy baseline
 * (archived once; its own shrink guard still applies). `onShort` hears of each refused file (a
 * sync forgets its validators so that the next run downloads it again instead of receiving 304).
 */
export function verifyCounts(
  spec: DatasetSpec,
  stats: BuildStats,
  counts: PortalCounts,
  onRefused: (fileId: string) => void = () => undefined,
): void {
  const problems: string[] = []
  for (const [id, expected] of Object.entries(counts)) {
    const f = stats.files[id]
    const read = (f?.rows ?? 0) + (f?.rejects ?? 0)
    if (expected === null) {
      if (spec.schedule === 'legacy') continue
      problems.push(`${id}: the portal has no row count for it; not activated unverified`)
    } else if (read !== expected) {
      onRefused(id)
      problems.push(
        read < expected
          ? `${id}: ${read} rows in the export, the portal counts ${expected} (a short export is refused)`
          : `${id}: ${read} rows in the export, the portal counts ${expected} (the file changed during the sync)`,
      )
    }
  }
  if (problems.length) throw new VerifyError(problems.join('; '))
}

/**
 * The expected row counts of `import --dir` files: an optional `<file>.count` sidecar beside a
 * file (e.g. `az4n-8mr2.csv.count` holding `4512353`), written where the files were exported.
 */
export function sidecarCounts(inputs: ReadonlyMap<string, string>): PortalCounts {
  const out: PortalCounts = {}
  for (const [id, path] of inputs) {
    const side = `${path}.count`
    if (!existsSync(side)) continue
    const text = readFileSync(side, 'utf8').trim()
    if (!/^\d+$/.test(text))
      throw new Error(
        `${side}: expected the file's row count (a whole number), found "${text.slice(0, 40)}"`,
      )
    out[id] = Number(text)
  }
  return out
}

/**
 * The shrink guard per file: a required file with fewer than minRowsRatio × its rows in the
 * previous version refuses the build (a whole-dataset count would hide a halved small file).
 */
export function verifyFileRows(
  db: Sqlite,
  spec: DatasetSpec,
  stats: BuildStats,
  previous: VersionRow | null,
): void {
  if (!previous) return
  const stats0 = activatedRunStats(db, previous.id)
  const before = stats0 ? (JSON.parse(stats0) as Partial<BuildStats>).files : undefined
  if (!before) return
  for (const f of spec.files) {
    // optional files (BOC-3, the diffs) may come and go without refusing the dataset
    if (!f.required) continue
    const was = before[f.id]?.rows ?? 0
    const now = stats.files[f.id]?.rows ?? 0
    if (was > 0 && now < was * spec.minRowsRatio)
      throw new VerifyError(
        `${f.id}: ${now} rows is less than ${spec.minRowsRatio * 100}% of the previous version's ${was}`,
      )
  }
}

/** An empty or near-empty out-of-service-orders file is suspect (about 396k rows in 2026). */
export function verifyOosFloor(spec: DatasetSpec, stats: BuildStats, minRows: number): void {
  if (spec.name !== 'oos' || minRows <= 0) return
  const rows = stats.files[OOS_FILE_ID]?.rows ?? 0
  if (rows < minRows)
    throw new VerifyError(
      `${OOS_FILE_ID}: only ${rows} out-of-service orders (SYNC_OOS_MIN_ROWS is ${minRows}): ` +
        'an empty or near-empty export is suspect, not "no orders"; the previous version stays',
    )
}

const MB = 1024 * 1024
const mb = (n: number) => `${Math.ceil(n / MB)} MB`

/**
 * Refuses to start a sync that would fill the disk: the new downloads plus the new version file
 * need about twice the dataset's last download size, plus SYNC_MIN_FREE_MB to spare.
 */
export async function checkFreeSpace(
  db: Sqlite,
  config: Pick<Config, 'paths' | 'sync'>,
  spec: DatasetSpec,
  free: (dir: string) => Promise<number> = freeBytes,
): Promise<void> {
  const ids = spec.files.map((f) => f.id)
  const row = db
    .prepare(
      `SELECT coalesce(sum(bytes), 0) AS n FROM source_files WHERE file_id IN (${ids.map(() => '?').join(',')})`,
    )
    .get(...ids) as { n: number }
  const need = 2 * row.n + config.sync.minFreeBytes
  const have = await free(config.paths.dataDir)
  if (have < need)
    throw new Error(
      `not enough free disk space in ${config.paths.dataDir}: the ${spec.name} sync needs about ` +
        `${mb(need)} (twice its last download of ${mb(row.n)} plus SYNC_MIN_FREE_MB), ${mb(have)} free`,
    )
}

/** Bytes available to this process on the file system of `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir)
  return Number(s.bavail) * Number(s.bsize)
}

/** A pool of download slots shared by every dataset of a mirror. */
export type DownloadPool = <T>(work: () => Promise<T>) => Promise<T>

export function downloadPool(size: number): DownloadPool {
  const limit = pLimit(size)
  return (work) => limit(work)
}

/** The duration of one whole mirror (`sync run` of several datasets), stored with its runs. */
export interface MirrorStats {
  started_at: string
  finished_at: string
  seconds: number
  datasets: DatasetName[]
  /** download slots used (SYNC_PARALLEL_DOWNLOADS) */
  parallel: number
}

/** Stores the mirror's duration in the stats of each of its runs (sync_runs.stats.mirror). */
export function recordMirror(db: Sqlite, runIds: readonly number[], mirror: MirrorStats): void {
  storeMirrorStats(db, runIds, JSON.stringify(mirror))
}

/** The newest whole mirror's duration (for `sync status`), or null before the first one. */
export function lastMirror(db: Sqlite): MirrorStats | null {
  const m = newestMirrorStats(db)
  return m !== null ? (JSON.parse(m) as MirrorStats) : null
}
