import { existsSync } from 'node:fs'
import type { Logger } from '../log.ts'
import type { Sqlite } from './open.ts'
import { cached, CENSUS_CACHE_KIB, DATASET_CACHE_KIB, openSqlite } from './open.ts'
import { DATASET_NAMES, type Channel, type DatasetName } from './names.ts'
import { listActiveVersions } from './versions.ts'
import { resolveStoredPath } from './paths.ts'
import type Database from 'better-sqlite3'

/** One open, read-only dataset version with its prepared statements. */
export interface ActiveDataset {
  readonly name: DatasetName
  readonly channel: Channel
  readonly versionId: number
  readonly asOf: string | null
  readonly activatedAt: number | null
  /**
   * when the regulator last vouched for the data (ms): a download's activation, an imported
   * file's own date; null where unknown (then its activation counts)
   */
  readonly confirmedAt: number | null
  /** the file, absolute */
  readonly path: string
  readonly db: Sqlite
  /** A statement prepared once per connection (a swap replaces the cache with the connection). */
  stmt(sql: string): Database.Statement
}

/** Which datasets a request reads: the live mirror, or the bundled sample (sandbox keys, first start). */
export interface DataView {
  readonly source: 'mirror' | 'sample'
  get(name: DatasetName): ActiveDataset | null
  /** a key that changes whenever any dataset of the view changes (for caches) */
  readonly versionKey: string
}

/**
 * Page cache (KiB) by dataset: the census's is larger, for name search; `others` for the rest.
 */
const cacheKibWith =
  (others: number) =>
  (name: DatasetName): number =>
    name === 'census' ? CENSUS_CACHE_KIB : others

/** A dataset connection's page cache (KiB) by default. */
const defaultCacheKib = cacheKibWith(DATASET_CACHE_KIB)

/** The names of a dataset file's tables and indexes (a file never changes once activated). */
const schemaNames = new WeakMap<ActiveDataset, ReadonlySet<string>>()

/** Whether a dataset file has a table or index of this name (read once per open version). */
export function hasSchemaObject(ds: ActiveDataset, name: string): boolean {
  let names = schemaNames.get(ds)
  if (!names) {
    names = new Set(ds.stmt('SELECT name FROM sqlite_master').pluck().all() as string[])
    schemaNames.set(ds, names)
  }
  return names.has(name)
}

/** Opens one dataset version read-only (its own connection and statement cache). */
export function openActive(
  name: DatasetName,
  channel: Channel,
  versionId: number,
  path: string,
  asOf: string | null,
  activatedAt: number | null,
  cacheKib = defaultCacheKib(name),
  confirmedAt: number | null = null,
): ActiveDataset {
  const db = openSqlite(path, 'readonly', cacheKib)
  // A dataset file is written once, by its build, before it is activated (ingest/build.ts), and
  // never again. By default every read transaction takes and drops a POSIX shared lock and looks
  // for a hot journal: several fcntl and stat calls per lookup, a reader's largest kernel cost.
  // In EXCLUSIVE locking mode the connection takes its
  // shared lock on its first read and keeps it: other readers (threads, the CLI) are not blocked,
  // and no process ever writes the file (README "Decisions").
  db.pragma('locking_mode = EXCLUSIVE')
  return {
    name,
    channel,
    versionId,
    asOf,
    activatedAt,
    confirmedAt,
    path,
    db,
    stmt: (sql) => cached(db, sql),
  }
}

/**
 * Holds the open read-only connection of every active dataset version. `reconcile()` follows
 * app.db (the truth), so a version activated by another process (the CLI) goes live here too.
 * Queries are synchronous, so swapping a connection between two requests is safe.
 */
export class DatasetRegistry {
  private readonly open = new Map<string, ActiveDataset>()
  /** active versions whose file is missing (`channel:dataset` → version id) */
  private readonly missing = new Map<string, number>()
  private readonly appDb: Sqlite
  private readonly log: Logger
  /** stored paths are relative to it */
  private readonly dataDir: string
  private generation = 0
  private readonly views = new Map<'live' | 'test', { generation: number; view: DataView }>()
  private readonly listeners: (() => void)[] = []
  /** each connection's page cache (KiB) by dataset (`setCacheKib` sets it) */
  private cacheKib: (name: DatasetName) => number = defaultCacheKib

  constructor(appDb: Sqlite, log: Logger, dataDir: string) {
    this.appDb = appDb
    this.log = log
    this.dataDir = dataDir
  }

  /** Opens newly activated versions and closes replaced ones; returns true if anything changed. */
  reconcile(): boolean {
    let changed = false
    const wanted = new Map<string, ReturnType<typeof listActiveVersions>[number]>()
    for (const v of listActiveVersions(this.appDb)) wanted.set(`${v.channel}:${v.dataset}`, v)
    for (const key of this.missing.keys()) if (!wanted.has(key)) this.missing.delete(key)
    for (const [key, v] of wanted) {
      const cur = this.open.get(key)
      if (cur?.versionId === v.id) continue
      const file = resolveStoredPath(this.dataDir, v.path)
      if (!existsSync(file)) {
        if (this.missing.get(key) !== v.id)
          this.log.error(
            { dataset: v.dataset, channel: v.channel, version: v.id, path: file },
            'active dataset file is missing; the next sync (or the sample build at start) rebuilds it',
          )
        this.missing.set(key, v.id)
        continue
      }
      this.missing.delete(key)
      try {
        const next = openActive(
          v.dataset,
          v.channel,
          v.id,
          file,
          v.asOf,
          v.activatedAt,
          this.cacheKib(v.dataset),
          v.confirmedAt,
        )
        this.open.set(key, next)
        cur?.db.close()
        changed = true
        // a swap is news; the first open in a process (every CLI command) is not
        const line = { dataset: v.dataset, channel: v.channel, version: v.id }
        if (cur) this.log.info({ ...line, previous: cur.versionId }, 'dataset version live')
        else this.log.debug(line, 'dataset version opened')
      } catch (err) {
        this.log.error({ err, dataset: v.dataset, version: v.id }, 'cannot open dataset version')
      }
    }
    for (const [key, cur] of this.open) {
      if (!wanted.has(key)) {
        cur.db.close()
        this.open.delete(key)
        changed = true
      }
    }
    if (changed) {
      this.generation++
      for (const listener of this.listeners)
        try {
          listener()
        } catch (err) {
          this.log.error({ err }, 'a dataset swap listener failed')
        }
    }
    return changed
  }

  /**
   * Sets the page cache (KiB) of this registry's connections to the files other than the census
   * (the census keeps its own, for name search): for the connections open now and for every
   * version opened later.
   */
  setCacheKib(others: number): void {
    this.cacheKib = cacheKibWith(others)
    for (const d of this.open.values()) d.db.pragma(`cache_size = -${this.cacheKib(d.name)}`)
  }

  /**
   * Calls `listener` after every reconcile() that opened or closed a version (other readers of
   * the files follow the versions served, without waiting for a lookup).
   */
  onChange(listener: () => void): void {
    this.listeners.push(listener)
  }

  get(name: DatasetName, channel: Channel): ActiveDataset | null {
    return this.open.get(`${channel}:${name}`) ?? null
  }

  /**
   * The datasets a caller reads. Sandbox (`test`) keys read the sample channel. Live keys read the
   * mirror; until the census has a live version the whole view falls back to the sample, so real
   * and fictitious data are never mixed in one record.
   */
  view(mode: 'live' | 'test'): DataView {
    // views only change when reconcile() swaps a version: build them once per generation
    const cached = this.views.get(mode)
    if (cached && cached.generation === this.generation) return cached.view
    const view = this.buildView(mode)
    this.views.set(mode, { generation: this.generation, view })
    return view
  }

  private buildView(mode: 'live' | 'test'): DataView {
    const channel: Channel =
      mode === 'test' || this.get('census', 'live') === null ? 'sample' : 'live'
    const parts = DATASET_NAMES.map((n) => this.get(n, channel)?.versionId ?? 0).join('.')
    return {
      source: channel === 'live' ? 'mirror' : 'sample',
      get: (name) => this.get(name, channel),
      versionKey: `${channel}:${parts}`,
    }
  }

  /**
   * The datasets whose active version names a file the data directory lacks (an app.db restored
   * alone), as `channel:dataset`; they serve nothing until rebuilt.
   */
  missingFiles(): string[] {
    return [...this.missing.keys()].sort()
  }

  /** true when the live census or the sample census can answer */
  isReady(): boolean {
    return this.get('census', 'live') !== null || this.get('census', 'sample') !== null
  }

  close(): void {
    for (const d of this.open.values()) d.db.close()
    this.open.clear()
    this.generation++
  }
}
