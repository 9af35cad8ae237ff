/**
 * The record port: the one way every caller reads a company's record or its answer text (the
 * lookup routes, batches, docket resolution, checks, the watchlist monitor, the console's lookup
 * tester). `openRecords` gives the readers of one request, sharing one instant; under them a
 * `RecordPort` assembles records, in this thread (`inProcessRecords`) or in the record worker
 * threads (record-workers.ts `RecordWorkers`), chosen once by the composition root (`Deps.records`).
 * The record cache (record-cache.ts) is a wrapper around the port (`cachedRecords`).
 */
import { isoDate } from '../clock.ts'
import type { DataView } from '../db/datasets.ts'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { KeyMode } from '../keys/keys.ts'
import { historyIndex } from '../identity/history.ts'
import { carrierLinksText } from '../identity/links.ts'
import type { Sqlite } from '../db/open.ts'
import { reviewedDots } from '../reviews/reviews.ts'
import { answerOf, answerRecord, type RecordAnswer, type RecordAnswerDeps } from './answer.ts'
import { dataReasons } from './data-check.ts'
import { cachedPerView, loadPerView, missKept, peekPerView } from './record-cache.ts'
import {
  completeRecord,
  recordData,
  type CompanyRecord,
  type RecordData,
  type RecordDataDeps,
  type RecordDeps,
} from './record.ts'

/** What reading a USDOT's dataset part needs (a batch's read waits behind single lookups). */
export type RecordReadDeps = RecordDataDeps & Pick<RecordDeps, 'batch'>

/** What reading a company's links needs: app.db (the identity history's inactive dates). */
export interface LinksReadDeps {
  db: Sqlite
}

/** Where records are assembled. Every implementation gives the same records, byte for byte. */
export interface RecordPort {
  /** the dataset part of a USDOT's record in a view, read on the calling thread */
  dataNow(view: DataView, dot: number, deps: RecordReadDeps): RecordData | null
  /** the dataset part of a USDOT's record in a view, or null when no dataset knows it */
  data(view: DataView, dot: number, deps: RecordReadDeps): Promise<RecordData | null>
  /** a USDOT's whole record (reviews and Trust Score included) as its answer text, or null */
  answer(view: DataView, dot: number, deps: RecordAnswerDeps): Promise<RecordAnswer | null>
  /**
   * GET /v1/carrier/{dot}/links: the company's judged links as the answer's JSON text
   * (identity/links.ts `carrierLinksText`), or null when the view's census does not know it
   */
  links(view: DataView, dot: number, deps: LinksReadDeps): Promise<string | null>
  /**
   * whether assembling may still be under way for other requests: billing's group commit then
   * waits a little for their charges (keys/billing.ts)
   */
  readonly busy: boolean
  /** the views now served (after a dataset swap): an implementation opens their files */
  follow(views: readonly DataView[]): void
  close(): Promise<void>
}

declare module '../deps.ts' {
  interface Ports {
    /** where records are assembled (carriers/records.ts): in process or by record workers */
    records: RecordPort
  }
}

/** The dataset part of a record read on this thread. */
function dataOnThisThread(view: DataView, dot: number, deps: RecordDataDeps): RecordData | null {
  const census = view.get('census')
  return census ? recordData(deps, view, census, dot) : null
}

/** Records assembled on the calling thread. */
export const inProcessRecords: RecordPort = {
  dataNow: dataOnThisThread,
  data: (view, dot, deps) => Promise.resolve(dataOnThisThread(view, dot, deps)),
  answer(view, dot, deps) {
    const data = dataOnThisThread(view, dot, deps)
    return Promise.resolve(data && answerRecord(deps, data))
  },
  links: (view, dot, deps) => Promise.resolve(carrierLinksText(deps.db, view, dot)),
  // every request is read on this thread: a charge always has company
  busy: true,
  follow() {},
  close: () => Promise.resolve(),
}

/** The record cache's key of a USDOT's dataset part: the day is part of it (dates move facts). */
const cacheKey = (deps: { today: string }, dot: number) => `${deps.today}|${dot}`

/**
 * `inner` with the per-view record cache (record-cache.ts) in front: the dataset part of a record
 * read twice comes from the cache; a record's answer is assembled from its cached (or soon to be
 * cached, its third miss) dataset part here, any other by `inner` whole, as text only.
 * Concurrent reads of the same record share one. `capacity` 0 keeps nothing.
 */
export function cachedRecords(inner: RecordPort, capacity: number): RecordPort {
  // one wrapper per port and capacity (openRecords asks for it on every request)
  let byCapacity = wrappers.get(inner)
  if (!byCapacity) wrappers.set(inner, (byCapacity = new Map<number, RecordPort>()))
  let wrapper = byCapacity.get(capacity)
  if (!wrapper) byCapacity.set(capacity, (wrapper = cacheInFront(inner, capacity)))
  return wrapper
}

const wrappers = new WeakMap<RecordPort, Map<number, RecordPort>>()

function cacheInFront(inner: RecordPort, capacity: number): RecordPort {
  const data: RecordPort['data'] = (view, dot, deps) =>
    loadPerView(view, cacheKey(deps, dot), capacity, () => inner.data(view, dot, deps))
  return {
    dataNow: (view, dot, deps) =>
      cachedPerView(view, cacheKey(deps, dot), capacity, () => inner.dataNow(view, dot, deps))
        .value,
    data,
    async answer(view, dot, deps) {
      const key = cacheKey(deps, dot)
      if (!peekPerView(view, key, capacity) && !missKept(key, capacity))
        return inner.answer(view, dot, deps)
      const found = await data(view, dot, deps)
      return found && answerOf(completeRecord(deps, found, deps.dataReasons), deps.bond === true)
    },
    // a company's links are not a record: never cached
    links: (view, dot, deps) => inner.links(view, dot, deps),
    get busy() {
      return inner.busy
    },
    follow: (views) => inner.follow(views),
    close: () => inner.close(),
  }
}

/** How a request reads records, every one at the same instant. */
export interface RecordReads {
  /** the caller's view at that instant (the files every record is read from) */
  readonly view: DataView
  /** the record as an object (an item named by MC number, or cross-checked) */
  readonly record: (dot: number) => Promise<CompanyRecord | null>
  /** the record read on the calling thread, for a caller that cannot wait */
  readonly recordNow: (dot: number) => CompanyRecord | null
  /** the record's answer text, with its bond block's when `bond` (GET /v1/broker) */
  readonly answer: (dot: number, bond?: boolean) => Promise<RecordAnswer | null>
}

/** What `openRecords` reads of the dependency bag. */
export type RecordsDeps = Pick<Deps, 'db' | 'datasets' | 'clock' | 'records'> & {
  config: Pick<Deps['config'], 'sync' | 'safety' | 'records'>
}

export interface OpenOptions {
  /**
   * a batch's reads: a record worker takes them after the single lookups waiting, so a batch of
   * companies never read before does not hold up other callers' lookups
   */
  batch?: boolean
  /** bypass the record cache (a sweep over many records, read once each) */
  uncached?: boolean
}

/**
 * The readers of one request (a lookup, a batch, the holders of one docket, a sweep of the
 * watchlist), sharing one instant: the clock, the view (`at`: the caller's key mode, or a view
 * the caller holds), the freshness verdict (data-check.ts), the companies with reviews and the
 * identity history's holding. Throws
 * 503 dataset_unavailable from a read when the view has no census.
 */
export function openRecords(
  deps: RecordsDeps,
  at: KeyMode | DataView,
  options: OpenOptions = {},
): RecordReads {
  const now = deps.clock()
  const view = typeof at === 'string' ? deps.datasets.view(at) : at
  const context: RecordDeps = {
    db: deps.db,
    today: isoDate(now),
    now: now.getTime(),
    maxAgeHours: deps.config.sync.maxAgeHours,
    nationalAverages: deps.config.safety.nationalAverages,
  }
  const reasons = dataReasons(context, view)
  const reviewed = reviewedDots(deps.db)
  const history = historyIndex(deps.db)
  const port = options.uncached
    ? deps.records
    : cachedRecords(deps.records, deps.config.records.cacheEntries)
  const readDeps: RecordReadDeps = { today: context.today }
  if (context.nationalAverages) readDeps.nationalAverages = context.nationalAverages
  if (options.batch) readDeps.batch = true
  const whole: RecordAnswerDeps = {
    ...readDeps,
    db: deps.db,
    dataReasons: reasons,
    reviewed,
    history,
  }
  const complete = (data: RecordData | null) =>
    data && completeRecord({ db: deps.db, today: context.today, reviewed, history }, data, reasons)
  const census = () => {
    if (!view.get('census')) throw new AppError('dataset_unavailable')
  }
  return {
    view,
    record: async (dot) => {
      census()
      return complete(await port.data(view, dot, readDeps))
    },
    recordNow: (dot) => {
      census()
      return complete(port.dataNow(view, dot, readDeps))
    },
    answer: (dot, bond = false) => {
      census()
      return port.answer(view, dot, bond ? { ...whole, bond: true } : whole)
    },
  }
}
