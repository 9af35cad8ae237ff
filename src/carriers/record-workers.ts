/**
 * Worker threads that assemble records for lookups and batches: the dataset part (record.ts
 * `recordData`), or the whole record as its answer text (answer.ts `answerRecord`). A lookup
 * whose record is not cached spends most of its time in synchronous SQLite reads of several
 * dataset files (from the disk when the host has reclaimed their pages); in a worker those reads
 * leave the main thread free for authentication, metering and the response, they overlap each
 * other, and they use the machine's other cores.
 *
 * Each worker opens its own read-only connections to the files of the view the request names: the
 * main thread sends a view's files (paths, version ids, dates) the first time it sends a worker a
 * request in that view, and the worker then closes the files of the view it replaced; after a
 * dataset swap the pool also hands every worker the views now served (`follow`). A worker
 * that fails or dies never fails a lookup: the record is then assembled on the main thread, which
 * also reproduces any error the data itself causes.
 */
import type { Worker } from 'node:worker_threads'
import type { DataView } from '../db/datasets.ts'
import { DATASET_NAMES, type Channel, type DatasetName } from '../db/names.ts'
import { siblingModule, startWorker } from '../ingest/worker-module.ts'
import type { Logger } from '../log.ts'
import { includesDot } from '../db/dot-set.ts'
import type { NationalAverages } from '../safety/national-averages.ts'
import { parseDataBlocksFirst } from './json.ts'
import { PendingReplies } from './pending-replies.ts'
import { answerRecord, type RecordAnswer } from './answer.ts'
import { carrierLinksText } from '../identity/links.ts'
import { recordData, type RecordData, type RecordDataDeps } from './record.ts'
import type { RecordPort } from './records.ts'

const ENTRY = siblingModule('./record-worker', import.meta.url)

/**
 * Page cache of a worker's connection to the census (KiB). The interior B-tree pages of its
 * lookup indexes (about 5 MB at full scale) mostly fit; the rest comes from the OS page cache,
 * shared by every thread. Kept small: every worker has its own.
 */
const WORKER_CENSUS_CACHE_KIB = 4_096
/**
 * Page cache of a worker's connection to each other dataset file (KiB): the upper levels of their
 * indexes, smaller than the census's: six such files per worker add up in the server's RSS, and
 * a few more of their pages then come from the OS page cache.
 */
const WORKER_CACHE_KIB = 2_048

export interface DatasetRef {
  name: DatasetName
  channel: Channel
  versionId: number
  path: string
  asOf: string | null
  activatedAt: number | null
}

/** The files of a data view, as a worker opens them. */
export interface ViewRef {
  key: string
  source: DataView['source']
  datasets: DatasetRef[]
}

interface RequestBase {
  id: number
  /** the view's files, sent when this worker's previous request was in another view */
  view?: ViewRef
  viewKey: string
  dot: number
  /** a batch's read: the worker answers the single lookups waiting first (record-worker.ts) */
  batch?: true
}

/** A record's dataset part, or with `whole` its answer text. */
export interface RecordRequest extends RequestBase {
  today: string
  /** set: answer the whole record as text (answer.ts `RecordAnswer`), judged with these reasons */
  whole?: {
    dataReasons: readonly string[]
    /**
     * whether the company is on the list of reviewed USDOTs the caller read at one instant (a
     * batch); absent: the worker reads the list itself
     */
    reviewed?: boolean
    /** also answer the record's bond block as text (GET /v1/broker) */
    bond?: true
    /** the identity history's epoch the caller read (identity/history.ts `historyIndex`) */
    historyEpoch?: number
  }
}

/** A company's links as the JSON text of GET /v1/carrier/{dot}/links (identity/links.ts). */
export interface LinksRequest extends RequestBase {
  links: true
}

export type ReadRequest = RecordRequest | LinksRequest

/** What a request names besides its id and view (`ask` adds them). */
type RequestFields =
  Omit<RecordRequest, 'id' | 'view' | 'viewKey'> | Omit<LinksRequest, 'id' | 'view' | 'viewKey'>

/** The views the main thread now serves (after a dataset swap): install them, close the rest. */
export interface FollowRequest {
  follow: ViewRef[]
}

/**
 * The record's data as JSON text (`dataBlocksFirst`: faster both ways than the structured clone
 * of the object, and its blocks' text is reused for the response), or for a `whole` request the
 * whole record's answer (null: no such company), or what went wrong.
 */
export type ReadReply =
  | { id: number; json: string; blocks: number }
  | { id: number; answer: RecordAnswer | null }
  | { id: number; links: string | null }
  | { id: number; error: string }

interface Pending {
  resolve: (reply: ReadReply) => void
  reject: (err: Error) => void
}

interface Slot {
  worker: Worker
  /** by request id, which counts per worker (a ring, not a Map: pending-replies.ts) */
  pending: PendingReplies<Pending>
  /** the view key of the last request sent to this worker */
  lastKey: string | null
}

/** The dataset part of a record read on the main thread (a worker failed, or none can answer). */
function dataOnMain(view: DataView, dot: number, deps: RecordDataDeps): RecordData | null {
  const census = view.get('census')
  return census ? recordData(deps, view, census, dot) : null
}

/** What a view's files are, computed once per view object (a swap builds a new view). */
const refs = new WeakMap<DataView, ViewRef>()

function viewRef(view: DataView): ViewRef {
  let ref = refs.get(view)
  if (!ref) {
    const datasets: DatasetRef[] = []
    for (const name of DATASET_NAMES) {
      const d = view.get(name)
      if (d)
        datasets.push({
          name,
          channel: d.channel,
          versionId: d.versionId,
          path: d.path,
          asOf: d.asOf,
          activatedAt: d.activatedAt,
        })
    }
    ref = { key: JSON.stringify(datasets), source: view.source, datasets }
    refs.set(view, ref)
  }
  return ref
}

export interface RecordWorkersOptions {
  /** worker threads (at least 1) */
  size: number
  log: Logger
  nationalAverages?: NationalAverages
  /**
   * app.db's path: workers then read reviews and answer whole records (`answer`); without it
   * `answer` assembles on the main thread
   */
  appDb?: string
}

/** A pool of record worker threads: the record port's implementation off the main thread. */
export class RecordWorkers implements RecordPort {
  private readonly slots: (Slot | null)[]
  private readonly options: RecordWorkersOptions
  private closed = false

  constructor(options: RecordWorkersOptions) {
    this.options = options
    this.slots = Array.from({ length: Math.max(1, options.size) }, () => null)
    for (let i = 0; i < this.slots.length; i++) this.slots[i] = this.spawn(i)
  }

  /** The dataset part of a USDOT's record in `view`, read on the calling thread. */
  readonly dataNow: RecordPort['dataNow'] = dataOnMain

  /** The dataset part of a USDOT's record in `view`, assembled by the least busy worker. */
  readonly data: RecordPort['data'] = async (view, dot, deps) => {
    try {
      const fields: RequestFields = { dot, today: deps.today }
      if (deps.batch) fields.batch = true
      const reply = await this.ask(view, fields)
      if (!('json' in reply)) throw new Error('record worker answered without the record data')
      return reply.json === 'null'
        ? null
        : parseDataBlocksFirst<RecordData>(reply.json, reply.blocks)
    } catch (err) {
      this.failedOver(err, dot)
      return dataOnMain(view, dot, deps)
    }
  }

  /**
   * A USDOT's whole record in `view` as its answer text, assembled by the least busy worker (the
   * main thread then adds only the meta block); on the main thread when the pool was given no
   * app.db or a worker fails.
   */
  readonly answer: RecordPort['answer'] = async (view, dot, deps) => {
    if (this.options.appDb !== undefined)
      try {
        const whole: RecordRequest['whole'] = { dataReasons: deps.dataReasons }
        if (deps.reviewed) whole.reviewed = includesDot(deps.reviewed.dots, dot)
        if (deps.bond) whole.bond = true
        if (deps.history) whole.historyEpoch = deps.history.epoch
        const fields: RequestFields = { dot, today: deps.today, whole }
        if (deps.batch) fields.batch = true
        const reply = await this.ask(view, fields)
        if (!('answer' in reply)) throw new Error('record worker answered without the record')
        return reply.answer
      } catch (err) {
        this.failedOver(err, dot)
      }
    const data = dataOnMain(view, dot, deps)
    return data && answerRecord(deps, data)
  }

  /**
   * A company's links as the answer's JSON text, read by the least busy worker (the main thread
   * then only bills and writes it); on the main thread when the pool was given no app.db (the
   * history's inactive dates) or a worker fails.
   */
  readonly links: RecordPort['links'] = async (view, dot, deps) => {
    if (this.options.appDb !== undefined)
      try {
        const reply = await this.ask(view, { dot, links: true })
        if (!('links' in reply)) throw new Error('record worker answered without the links')
        return reply.links
      } catch (err) {
        this.failedOver(err, dot)
      }
    return carrierLinksText(deps.db, view, dot)
  }

  private failedOver(err: unknown, dot: number): void {
    this.options.log.warn({ err, dot }, 'record worker failed; assembling on the main thread')
  }

  /**
   * Hands every worker the views now served (the registry's onChange, after a swap): each opens
   * their files and closes the ones no view names any more, at once rather than at its next
   * request, so a replaced version's file (deleted by pruning) does not hold its disk space while
   * the server is idle. A read sent before this message is answered before it, in its own view.
   */
  follow(views: readonly DataView[]): void {
    const msg: FollowRequest = { follow: views.map(viewRef) }
    for (const slot of this.slots)
      if (slot) {
        slot.worker.postMessage(msg)
        // the next request names its view again (one begun before the swap may still be in the
        // old view, which the worker has just closed)
        slot.lastKey = null
      }
  }

  /** Requests sent to the workers and not answered yet. */
  get inFlight(): number {
    let n = 0
    for (const slot of this.slots) if (slot) n += slot.pending.size
    return n
  }

  /** Busy while the workers owe answers (other lookups' charges are then on their way). */
  get busy(): boolean {
    return this.inFlight > 0
  }

  /** Stops the workers; reads after this assemble on the main thread. */
  async close(): Promise<void> {
    this.closed = true
    const running = this.slots.filter((s): s is Slot => s !== null)
    this.slots.fill(null)
    await Promise.all(running.map((s) => s.worker.terminate()))
  }

  private ask(view: DataView, fields: RequestFields): Promise<ReadReply> {
    const slot = this.pick()
    if (!slot) return Promise.reject(new Error('record workers are closed'))
    const ref = viewRef(view)
    const sendView = slot.lastKey !== ref.key ? ref : undefined
    slot.lastKey = ref.key
    return new Promise<ReadReply>((resolve, reject) => {
      const id = slot.pending.add({ resolve, reject })
      const req: ReadRequest = { ...fields, id, viewKey: ref.key }
      if (sendView) req.view = sendView
      slot.worker.postMessage(req)
    })
  }

  /** The worker with the fewest requests in flight (a dead one is started again). */
  private pick(): Slot | null {
    if (this.closed) return null
    let best: Slot | null = null
    for (let i = 0; i < this.slots.length; i++) {
      const slot = (this.slots[i] ??= this.spawn(i))
      if (!best || slot.pending.size < best.pending.size) best = slot
    }
    return best
  }

  private spawn(index: number): Slot {
    const worker = startWorker(ENTRY, {
      workerData: {
        nationalAverages: this.options.nationalAverages,
        cacheKib: WORKER_CACHE_KIB,
        censusCacheKib: WORKER_CENSUS_CACHE_KIB,
        appDb: this.options.appDb,
      },
      // records are small and short-lived: a small young generation, collected before it costs
      // memory; the old one holds the open files' statements and in-memory USDOT sets, and with
      // too little room beside them it is collected whole every few dozen lookups
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 },
    })
    // an idle pool never keeps the process alive
    worker.unref()
    const slot: Slot = { worker, pending: new PendingReplies<Pending>(), lastKey: null }
    worker.on('message', (reply: ReadReply) => {
      const p = slot.pending.take(reply.id)
      if (!p) return
      if ('error' in reply) p.reject(new Error(reply.error))
      else p.resolve(reply)
    })
    const fail = (err: Error) => {
      if (this.slots[index] === slot) this.slots[index] = null
      for (const p of slot.pending.drain()) p.reject(err)
    }
    worker.on('error', (err) => {
      this.options.log.error({ err }, 'record worker crashed')
      fail(err)
    })
    worker.on('exit', (code) => fail(new Error(`record worker exited with code ${code}`)))
    return slot
  }
}
