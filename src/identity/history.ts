/**
 * The history of every carrier's identity and contact fields, from the day of install: each
 * census activation is compared with the census the history last saw (compare.ts), and every
 * field change, new and vanished USDOT number is recorded in app.db (`identity_changes`) with the
 * data date of the version that first showed it. Which versions were compared is recorded too
 * (`identity_comparisons`). docs/identity.md describes the rules (rollbacks, gaps, retention).
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { CENSUS_FILE_ID } from '../census/census.ts'
import { identityFileFromCsv } from './census-file.ts'
import type { Sqlite } from '../db/open.ts'
import { cached } from '../db/open.ts'
import type { Channel } from '../db/names.ts'
import { resolveStoredPath } from '../db/paths.ts'
import { daysBefore, daysBetween } from '../dates.ts'
import { includesDot, sortedDots, type SortedDots } from '../db/dot-set.ts'
import type { Clock } from '../clock.ts'
import type { Logger } from '../log.ts'
import { AppError } from '../errors.ts'
import { startWorker, siblingModule } from '../ingest/worker-module.ts'
import { CONTACT_FIELDS, compareCensusFiles, hasDigests, type Comparison } from './compare.ts'

/** Default years of history kept (HISTORY_RETENTION_YEARS). */
export const HISTORY_RETENTION_YEARS = 3

export interface HistoryDeps {
  db: Sqlite
  clock: Clock
  log: Logger
  paths: { dataDir: string }
}

/** The census version just activated, as the history needs it. */
export interface CensusActivation {
  channel: Channel
  version: number
  asOf: string
  /** the version it replaced, if any */
  previous: number | null
}

export interface ComparisonRecord {
  id: number
  channel: Channel
  from_version: number | null
  to_version: number
  from_as_of: string | null
  to_as_of: string
  changed: number
  added: number
  removed: number
  changes: number
}

interface VersionFile {
  id: number
  asOf: string
  file: string
}

function versionFile(deps: HistoryDeps, id: number | null): VersionFile | null {
  if (id === null) return null
  const row = deps.db
    .prepare(`SELECT id, as_of AS asOf, path, status FROM dataset_versions WHERE id = ?`)
    .get(id) as { id: number; asOf: string | null; path: string; status: string } | undefined
  if (!row || row.status === 'deleted' || row.status === 'failed' || !row.asOf) return null
  const file = resolveStoredPath(deps.paths.dataDir, row.path)
  return existsSync(file) ? { id: row.id, asOf: row.asOf, file } : null
}

function lastComparison(db: Sqlite, channel: Channel): ComparisonRecord | null {
  return (
    (db
      .prepare(
        `SELECT id, channel, from_version, to_version, from_as_of, to_as_of, changed, added, removed, changes
         FROM identity_comparisons WHERE channel = ? ORDER BY id DESC LIMIT 1`,
      )
      .get(channel) as ComparisonRecord | undefined) ?? null
  )
}

/** Below this census file size the comparison runs in the calling thread: a thread costs more. */
const COMPARE_THREAD_MIN_BYTES = 64 << 20

/**
 * Runs the comparison in a worker thread (a large census): the main thread keeps serving
 * meanwhile.
 */
export function compareInWorker(
  nextPath: string,
  prevPath: string,
  minBytes = COMPARE_THREAD_MIN_BYTES,
): Promise<Comparison> {
  if (statSync(nextPath).size < minBytes)
    return Promise.resolve(compareCensusFiles(nextPath, prevPath))
  return new Promise((resolve, reject) => {
    const worker = startWorker(siblingModule('./compare-worker', import.meta.url), {
      workerData: { nextPath, prevPath },
    })
    let done = false
    worker.once('message', (m: { ok: true; result: Comparison } | { ok: false; error: string }) => {
      done = true
      if (m.ok) resolve(m.result)
      else reject(new Error(m.error))
    })
    worker.once('error', (err) => {
      done = true
      reject(err)
    })
    worker.once('exit', (code) => {
      if (!done) reject(new Error(`the history comparison thread exited with code ${code}`))
    })
  })
}

/**
 * Records what changed with a census activation. The baseline is the version the history last
 * saw (the newer side of the channel's last comparison) when its file is still there, else the
 * version active before; with neither (the first census, or a gap) the activation starts a new
 * baseline and nothing is recorded as changed. A version already compared records nothing again.
 * A rollback activates nothing new and is not compared: the next census is compared with the
 * newest data the history saw, so no change is recorded twice and a reversal shows as a change.
 */
export async function recordCensusHistory(
  deps: HistoryDeps,
  activation: CensusActivation,
  compare: (nextPath: string, prevPath: string) => Promise<Comparison> = compareInWorker,
): Promise<ComparisonRecord | null> {
  const { channel } = activation
  const last = lastComparison(deps.db, channel)
  if (last?.to_version === activation.version) return null
  const next = versionFile(deps, activation.version)
  if (!next) return null
  const base =
    (last && last.to_version !== activation.version ? versionFile(deps, last.to_version) : null) ??
    (activation.previous !== activation.version ? versionFile(deps, activation.previous) : null)
  if (!base && channel === 'sample') {
    const bundled = await recordBundledPrevious(deps, activation, next)
    if (bundled) return bundled
  }
  const started = Date.now()
  let result: Comparison | null = null
  if (base && hasDigests(base.file) && hasDigests(next.file))
    result = await compare(next.file, base.file)
  const seconds = (Date.now() - started) / 1000
  const now = deps.clock().getTime()
  const record = deps.db
    .transaction((): ComparisonRecord => {
      const info = deps.db
        .prepare(
          `INSERT INTO identity_comparisons (channel, from_version, to_version, from_as_of, to_as_of,
           changed, added, removed, changes, seconds, compared_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          channel,
          result ? (base?.id ?? null) : null,
          next.id,
          result ? (base?.asOf ?? null) : null,
          activation.asOf,
          result?.changed ?? 0,
          result?.added ?? 0,
          result?.removed ?? 0,
          result?.changes.length ?? 0,
          seconds,
          now,
        )
      const id = Number(info.lastInsertRowid)
      if (result) {
        const insert = deps.db.prepare(
          `INSERT INTO identity_changes (channel, dot_number, field, from_value, to_value, seen_at, comparison_id)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        for (const c of result.changes)
          insert.run(channel, c.dot, c.field, c.from, c.to, activation.asOf, id)
      }
      return {
        id,
        channel,
        from_version: result ? (base?.id ?? null) : null,
        to_version: next.id,
        from_as_of: result ? (base?.asOf ?? null) : null,
        to_as_of: activation.asOf,
        changed: result?.changed ?? 0,
        added: result?.added ?? 0,
        removed: result?.removed ?? 0,
        changes: result?.changes.length ?? 0,
      }
    })
    .immediate()
  deps.log.info(
    { channel, from: record.from_version, to: record.to_version, changes: record.changes, seconds },
    record.from_version === null ? 'identity history baseline' : 'identity history compared',
  )
  return record
}

/** The bundled sample's previous census is dated this many days before the sample. */
export const SAMPLE_PREVIOUS_DAYS = 14
/** and the sample's census stands for the one of this many days before it too */
export const SAMPLE_SEEN_DAYS = 7

/**
 * The sample's first history: the bundled census of two weeks before (`previous/az4n-8mr2.csv`
 * beside the sample's census) compared with the sample. The sample census stands for last
 * week's census as well as today's, so its changes are seen a week before the sample's date: a
 * contact changed last week is in the history from the first start. Null when no such file.
 */
async function recordBundledPrevious(
  deps: HistoryDeps,
  activation: CensusActivation,
  next: VersionFile,
): Promise<ComparisonRecord | null> {
  const row = deps.db.prepare('SELECT files FROM dataset_versions WHERE id = ?').get(next.id) as
    { files: string | null } | undefined
  const inputs = row?.files
    ? (JSON.parse(row.files) as { inputs?: Record<string, string> }).inputs
    : undefined
  const census = inputs?.[CENSUS_FILE_ID]
  if (!census) return null
  const previous = join(dirname(census), 'previous', `${CENSUS_FILE_ID}.csv`)
  if (!existsSync(previous)) return null
  const tmp = mkdtempSync(join(tmpdir(), 'cvk-history-'))
  try {
    const file = join(tmp, 'previous.db')
    await identityFileFromCsv(previous, file)
    const result = compareCensusFiles(next.file, file)
    const fromAsOf = daysBefore(activation.asOf, SAMPLE_PREVIOUS_DAYS)
    const seenAt = daysBefore(activation.asOf, SAMPLE_SEEN_DAYS)
    const now = deps.clock().getTime()
    return deps.db
      .transaction((): ComparisonRecord => {
        const insert = deps.db.prepare(
          `INSERT INTO identity_comparisons (channel, from_version, to_version, from_as_of, to_as_of,
           changed, added, removed, changes, seconds, compared_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)`,
        )
        // the bundled census has no version row: version 0
        insert.run(activation.channel, null, 0, null, fromAsOf, 0, 0, 0, 0, now)
        const id = Number(
          insert.run(
            activation.channel,
            0,
            next.id,
            fromAsOf,
            activation.asOf,
            result.changed,
            result.added,
            result.removed,
            result.changes.length,
            now,
          ).lastInsertRowid,
        )
        const change = deps.db.prepare(
          `INSERT INTO identity_changes (channel, dot_number, field, from_value, to_value, seen_at, comparison_id)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        for (const c of result.changes)
          change.run(activation.channel, c.dot, c.field, c.from, c.to, seenAt, id)
        return {
          id,
          channel: activation.channel,
          from_version: 0,
          to_version: next.id,
          from_as_of: fromAsOf,
          to_as_of: activation.asOf,
          changed: result.changed,
          added: result.added,
          removed: result.removed,
          changes: result.changes.length,
        }
      })
      .immediate()
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

/**
 * The date from which the channel's history is complete: the newest baseline's data date, or the
 * older side of the oldest comparison kept after it (retention pruned what came before). Null
 * before the first census.
 */
export function historySince(db: Sqlite, channel: Channel = 'live'): string | null {
  const base = cached(
    db,
    `SELECT id, to_as_of FROM identity_comparisons WHERE channel = ? AND from_version IS NULL
     ORDER BY id DESC LIMIT 1`,
  ).get(channel) as { id: number; to_as_of: string } | undefined
  if (!base) return null
  const oldest = cached(
    db,
    `SELECT from_as_of FROM identity_comparisons WHERE channel = ? AND id > ? ORDER BY id LIMIT 1`,
  ).get(channel, base.id) as { from_as_of: string | null } | undefined
  const after = oldest?.from_as_of ?? null
  return after !== null && after > base.to_as_of ? after : base.to_as_of
}

/** What the history says of every company of a channel, as a connection holds it. */
export interface ChannelHistory {
  /**
   * the USDOTs with any recorded change (new and vanished ones included), ascending; null when
   * the history is too large to list at once (HELD_CHANGES_MAX): every company is then asked
   */
  readonly dots: SortedDots | null
  /** `historySince` */
  readonly since: string | null
}

/**
 * The history's USDOTs are held only while it has at most this many changes: listing them is a
 * scan of the channel's changes (about a tenth of a second per million), made again after every
 * comparison or pruning by every connection that assembles records. A larger history (months of
 * daily censuses at full scale) is asked per company instead: two indexed reads.
 */
export const HELD_CHANGES_MAX = 1_000_000

/**
 * The history as a connection holds it at an epoch of `identity_history_epoch` (bumped by every
 * write to the history's tables, from any process): per channel, which USDOTs have any change and
 * the date the history runs from, read on first use. A company with no change (most of them) then
 * costs no query. `serial` names this holding (a new one per connection and epoch): what was
 * derived from it (a cached record's history fields) holds while the serial does.
 */
export interface HistoryIndex {
  readonly epoch: number
  readonly serial: number
  readonly channels: Map<Channel, ChannelHistory>
}

/** The holding each connection last read. */
const heldHistory = new WeakMap<Sqlite, HistoryIndex>()
let serials = 0

/** The history's epoch now (identity_history_epoch). */
export function historyEpoch(db: Sqlite): number {
  return cached(db, 'SELECT epoch FROM identity_history_epoch WHERE id = 1').pluck().get() as number
}

/**
 * The connection's holding of the history at `epoch` (read now when not given): the one held
 * while the epoch is unchanged, else a new, empty one. The epoch is read before the lists, so a
 * write between the two reads makes the next call read them again: a holding never claims an
 * epoch newer than itself.
 */
export function historyIndex(db: Sqlite, epoch = historyEpoch(db)): HistoryIndex {
  let held = heldHistory.get(db)
  if (held?.epoch !== epoch) {
    held = { epoch, serial: ++serials, channels: new Map() }
    heldHistory.set(db, held)
  }
  return held
}

/** The channel's part of a holding, read on first use. */
export function channelHistory(db: Sqlite, index: HistoryIndex, channel: Channel): ChannelHistory {
  let held = index.channels.get(channel)
  if (!held) {
    // the comparisons count the changes they recorded: an upper bound of the rows kept
    const changes = cached(
      db,
      'SELECT coalesce(sum(changes), 0) FROM identity_comparisons WHERE channel = ?',
    )
      .pluck()
      .get(channel) as number
    const dots =
      changes > HELD_CHANGES_MAX
        ? null
        : sortedDots(
            cached(
              db,
              'SELECT DISTINCT dot_number FROM identity_changes WHERE channel = ? ORDER BY dot_number',
            )
              .pluck()
              .all(channel) as number[],
          )
    held = { dots, since: historySince(db, channel) }
    index.channels.set(channel, held)
  }
  return held
}

/** Whether the history may have a change of `dot` (a binary search of the holding, if held). */
export const hasChanges = (held: ChannelHistory, dot: number): boolean =>
  held.dots === null || includesDot(held.dots, dot)

export interface ChangeJson {
  field: string
  from: string | null
  to: string | null
  seen_at: string
}

interface ChangeRow extends ChangeJson {
  id: number
}

const CHANGE_COLUMNS = 'id, field, from_value AS "from", to_value AS "to", seen_at'

const toJson = ({ field, from, to, seen_at }: ChangeRow): ChangeJson => ({
  field,
  from,
  to,
  seen_at,
})

/** true when the history has any row for the USDOT number (a vanished company still has one). */
export function hasHistory(db: Sqlite, dot: number, channel: Channel = 'live'): boolean {
  return (
    cached(db, 'SELECT 1 FROM identity_changes WHERE channel = ? AND dot_number = ? LIMIT 1').get(
      channel,
      dot,
    ) !== undefined
  )
}

/** A cursor names the last change of the previous page: its date and id. */
const encodeCursor = (r: ChangeRow): string =>
  Buffer.from(`${r.seen_at}|${r.id}`).toString('base64url')

export function decodeCursor(cursor: string): { seenAt: string; id: number } | null {
  const m = /^(\d{4}-\d{2}-\d{2})\|(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString())
  return m ? { seenAt: m[1] as string, id: Number(m[2]) } : null
}

/** A page of a company's changes, newest first (by date, then by the order they were recorded). */
export function changesPage(
  db: Sqlite,
  dot: number,
  opts: { limit: number; cursor?: { seenAt: string; id: number } | null; channel?: Channel },
): { changes: ChangeJson[]; next_cursor: string | null } {
  const channel = opts.channel ?? 'live'
  const after = opts.cursor ?? null
  const rows = (
    after
      ? cached(
          db,
          `SELECT ${CHANGE_COLUMNS} FROM identity_changes WHERE channel = ? AND dot_number = ?
           AND (seen_at < ? OR (seen_at = ? AND id < ?)) ORDER BY seen_at DESC, id DESC LIMIT ?`,
        ).all(channel, dot, after.seenAt, after.seenAt, after.id, opts.limit + 1)
      : cached(
          db,
          `SELECT ${CHANGE_COLUMNS} FROM identity_changes WHERE channel = ? AND dot_number = ?
           ORDER BY seen_at DESC, id DESC LIMIT ?`,
        ).all(channel, dot, opts.limit + 1)
  ) as ChangeRow[]
  const more = rows.length > opts.limit
  const page = more ? rows.slice(0, opts.limit) : rows
  const last = page.at(-1)
  return { changes: page.map(toJson), next_cursor: more && last ? encodeCursor(last) : null }
}

/** The changes seen within the last `days` days before `today`, newest first, at most `max`. */
export function recentChanges(
  db: Sqlite,
  dot: number,
  today: string,
  days = 90,
  max = 20,
  channel: Channel = 'live',
): ChangeJson[] {
  const from = daysBefore(today, days)
  return (
    cached(
      db,
      `SELECT ${CHANGE_COLUMNS} FROM identity_changes WHERE channel = ? AND dot_number = ? AND seen_at >= ?
       ORDER BY seen_at DESC, id DESC LIMIT ?`,
    ).all(channel, dot, from, max) as ChangeRow[]
  ).map(toJson)
}

/**
 * Days since the company's phone, cell phone or e-mail last changed (as of `today`); null when
 * none changed since `historySince`.
 */
export function contactChangedDays(
  db: Sqlite,
  dot: number,
  today: string,
  channel: Channel = 'live',
): number | null {
  const marks = CONTACT_FIELDS.map(() => '?').join(', ')
  const row = cached(
    db,
    `SELECT max(seen_at) AS at FROM identity_changes WHERE channel = ? AND dot_number = ? AND field IN (${marks})`,
  ).get(channel, dot, ...CONTACT_FIELDS) as { at: string | null }
  return row.at === null ? null : Math.max(0, daysBetween(row.at, today))
}

/**
 * Deletes the changes and comparisons older than `years` years before `today` (the newest
 * baseline stays: it dates the history). Returns the changes deleted.
 */
export function pruneHistory(db: Sqlite, today: string, years = HISTORY_RETENTION_YEARS): number {
  const cutoff = `${String(Number(today.slice(0, 4)) - years).padStart(4, '0')}${today.slice(4)}`
  return db
    .transaction(() => {
      const n = db.prepare('DELETE FROM identity_changes WHERE seen_at < ?').run(cutoff).changes
      db.prepare(
        `DELETE FROM identity_comparisons WHERE to_as_of < ? AND id NOT IN
         (SELECT max(id) FROM identity_comparisons WHERE from_version IS NULL GROUP BY channel)`,
      ).run(cutoff)
      return n
    })
    .immediate()
}

/**
 * The dataset run's call after a census activation: records the history (failures are logged,
 * never fail the run: the next activation compares with the version the history last saw).
 */
export async function afterCensusActivation(
  deps: HistoryDeps,
  activation: CensusActivation & { dataset: string },
): Promise<void> {
  if (activation.dataset !== 'census') return
  try {
    await recordCensusHistory(deps, activation)
  } catch (err) {
    deps.log.error({ err, version: activation.version }, 'identity history comparison failed')
  }
}

/**
 * A company's history page, or null when the USDOT number is neither in `census` (the caller's
 * view) nor in the history.
 */
export function carrierHistory(
  db: Sqlite,
  dot: number,
  inCensus: boolean,
  channel: Channel,
  q: { limit: number; cursor?: string | undefined },
): {
  dot_number: string
  history_since: string | null
  changes: ChangeJson[]
  next_cursor: string | null
} | null {
  const cursor = q.cursor === undefined ? null : decodeCursor(q.cursor)
  if (q.cursor !== undefined && !cursor)
    throw new AppError('invalid_request', 'cursor is not one this API returned')
  if (!inCensus && !hasHistory(db, dot, channel)) return null
  return {
    dot_number: String(dot),
    history_since: historySince(db, channel),
    ...changesPage(db, dot, { limit: q.limit, cursor, channel }),
  }
}
