/**
 * A record worker thread (record-workers.ts): assembles the dataset part of records from its own
 * read-only connections to the dataset files the main thread names, one request at a time.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { openActive, type ActiveDataset, type DataView } from '../db/datasets.ts'
import { DATASET_NAMES, type DatasetName } from '../db/names.ts'
import type { NationalAverages } from '../safety/national-averages.ts'
import { dataBlocksFirst } from './json.ts'
import { openSqlite, type Sqlite } from '../db/open.ts'
import { answerRecord, type RecordAnswerDeps } from './answer.ts'
import { sortedDots } from '../db/dot-set.ts'
import type { ReviewedDots } from '../reviews/reviews.ts'
import { historyIndex } from '../identity/history.ts'
import { recordData } from './record.ts'
import { carrierLinksText } from '../identity/links.ts'
import type {
  FollowRequest,
  LinksRequest,
  ReadReply,
  ReadRequest,
  ViewRef,
} from './record-workers.ts'

const port = parentPort
if (!port) throw new Error('record-worker.ts runs in a worker thread')
const { nationalAverages, cacheKib, censusCacheKib, appDb } = workerData as {
  nationalAverages?: NationalAverages
  /** page cache (KiB) of each dataset connection but the census's */
  cacheKib: number
  /** page cache (KiB) of the census connection */
  censusCacheKib: number
  /** app.db's path, for the reviews of a whole record (`answer` requests); absent: none asked */
  appDb?: string
}
/** Page cache of the worker's app.db connection (KiB): the review tables' pages. */
const APP_DB_CACHE_KIB = 2_048
/** A read-only connection to app.db, opened on the first request for a whole record. */
let reviewsDb: Sqlite | null = null

/** A reviewed-USDOTs list naming none, and one naming only `dot` (the `reviewed` of a request). */
const UNREVIEWED: ReviewedDots = { epoch: -1, dots: sortedDots([]) }
const listing = (dot: number): ReviewedDots => ({ epoch: -1, dots: sortedDots([dot]) })

/** Open dataset connections by file and version. */
const connections = new Map<string, ActiveDataset>()
/** The views last named by the main thread, at most one per source (mirror, sample). */
const views = new Map<string, DataView>()

const connectionKey = (path: string, versionId: number) => `${versionId}|${path}`

/** Opens what a view names (reusing open files), replaces the view of its source, closes the rest. */
function install(ref: ViewRef): void {
  const byName = new Map<DatasetName, ActiveDataset>()
  for (const d of ref.datasets) {
    const key = connectionKey(d.path, d.versionId)
    let open = connections.get(key)
    if (!open) {
      const kib = d.name === 'census' ? censusCacheKib : cacheKib
      open = openActive(d.name, d.channel, d.versionId, d.path, d.asOf, d.activatedAt, kib)
      connections.set(key, open)
    }
    byName.set(d.name, open)
  }
  for (const [key, view] of views) if (view.source === ref.source) views.delete(key)
  views.set(ref.key, {
    source: ref.source,
    versionKey: ref.key,
    get: (name) => byName.get(name) ?? null,
  })
  const used = new Set<ActiveDataset>()
  for (const view of views.values())
    for (const name of DATASET_NAMES) {
      const open = view.get(name)
      if (open) used.add(open)
    }
  for (const [key, open] of connections)
    if (!used.has(open)) {
      open.db.close()
      connections.delete(key)
    }
}

function answer(req: ReadRequest): ReadReply {
  try {
    if (req.view) install(req.view)
    const view = views.get(req.viewKey)
    const census = view?.get('census')
    if (!view || !census) return { id: req.id, error: `no census in view ${req.viewKey}` }
    if ('links' in req) return linksOf(req, view)
    const data = recordData({ today: req.today, nationalAverages }, view, census, req.dot)
    if (req.whole) {
      if (!appDb) return { id: req.id, error: 'no app.db path given to the record worker' }
      reviewsDb ??= openSqlite(appDb, 'readonly', APP_DB_CACHE_KIB)
      const deps: RecordAnswerDeps = {
        db: reviewsDb,
        today: req.today,
        dataReasons: req.whole.dataReasons,
      }
      // the caller's list at its instant, as far as it concerns this company
      if (req.whole.reviewed !== undefined)
        deps.reviewed = req.whole.reviewed ? listing(req.dot) : UNREVIEWED
      if (req.whole.bond) deps.bond = true
      // the history as of the caller's epoch (or newer): read again only when it moved
      deps.history = historyIndex(reviewsDb, req.whole.historyEpoch)
      return { id: req.id, answer: data && answerRecord(deps, data) }
    }
    return { id: req.id, ...(data ? dataBlocksFirst(data) : { json: 'null', blocks: 0 }) }
  } catch (err) {
    return { id: req.id, error: err instanceof Error ? err.message : String(err) }
  }
}

/** A company's links as the answer's text (its links' inactive dates from app.db's history). */
function linksOf(req: LinksRequest, view: DataView): ReadReply {
  if (!appDb) return { id: req.id, error: 'no app.db path given to the record worker' }
  reviewsDb ??= openSqlite(appDb, 'readonly', APP_DB_CACHE_KIB)
  return { id: req.id, links: carrierLinksText(reviewsDb, view, req.dot) }
}

/**
 * Requests received and not answered yet: single lookups, then a batch's reads. While any wait,
 * each turn of the event loop answers the lookups waiting and then a batch's reads for about
 * SLICE_MS, so a lookup that arrives while a batch's hundred reads are waiting is answered within
 * about a slice, not after the hundred (about 15 ms).
 */
const lookups: ReadRequest[] = []
const batchReads: ReadRequest[] = []
let scheduled = false
/** How long a turn answers a batch's reads while lookups may be waiting (ms). */
const SLICE_MS = 1

/** Answers every request in `queue`, in order. */
const answerAll = (queue: ReadRequest[]): void => {
  for (let req = queue.shift(); req; req = queue.shift()) port.postMessage(answer(req))
}

const answerNext = (): void => {
  scheduled = false
  answerAll(lookups)
  const until = performance.now() + SLICE_MS
  for (let req = batchReads.shift(); req; req = batchReads.shift()) {
    port.postMessage(answer(req))
    if (performance.now() >= until) break
  }
  if (batchReads.length > 0) schedule()
}

const schedule = (): void => {
  if (scheduled) return
  scheduled = true
  setImmediate(answerNext)
}

/** Answers every waiting request (before a message that may close the files of their view). */
const answerWaiting = (): void => {
  answerAll(lookups)
  answerAll(batchReads)
}

port.on('message', (msg: ReadRequest | FollowRequest) => {
  if ('follow' in msg) {
    answerWaiting()
    try {
      for (const ref of msg.follow) install(ref)
    } catch {
      // a file that cannot be opened now: the next read in its view reports it
    }
    return
  }
  // a view not installed yet may replace one that waiting requests read: they are answered first,
  // and this request at once, so each request is answered in the view it was sent in
  if (msg.view && !views.has(msg.view.key)) {
    answerWaiting()
    port.postMessage(answer(msg))
    return
  }
  if (msg.batch) {
    batchReads.push(msg)
    schedule()
  } else if (scheduled) lookups.push(msg)
  else port.postMessage(answer(msg))
})
