import { availableParallelism } from 'node:os'
import type { Worker } from 'node:worker_threads'
import {
  FormatError,
  fileNewline,
  readCsvBatches,
  splitByteRanges,
  type ByteRange,
  type ReadCsvOptions,
} from './csv.ts'
import type { ParseJob, ParseMessage } from './parse-worker.ts'
import type { BuildContext } from './types.ts'
import { siblingModule, startWorker } from './worker-module.ts'

const ENTRY = siblingModule('./parse-worker', import.meta.url)

export interface ParsedRow<T> {
  line: number
  row: T
}

export interface RowParserRef {
  /** `import.meta.url` of the module that exports the parser */
  module: string
  /** the export's name: (fields: string[]) => T | string (a string is a reject reason) */
  exportName: string
}

export interface ParseOptions {
  signal?: AbortSignal
  /** seconds per parse phase, summed over the workers, once the file is read */
  onTimings?: (timings: Record<string, number>) => void
  /** parse workers (default: DEFAULT_PARSE_WORKERS) */
  workers?: number
  /** bytes per range a worker reads at a time (default 4 MB) */
  rangeBytes?: number
}

const DEFAULT_RANGE_BYTES = 4 << 20

/** Parse workers by default: one per core beyond the building thread's, at least 1, at most 4. */
export const DEFAULT_PARSE_WORKERS = Math.min(4, Math.max(1, availableParallelism() - 1))

/** The ParseOptions of a dataset build: its abort signal, the parse's timings as build phases. */
export const buildParseOptions = (ctx: Pick<BuildContext, 'signal' | 'phase'>): ParseOptions => ({
  signal: ctx.signal,
  onTimings: (t) => {
    for (const [k, v] of Object.entries(t)) ctx.phase(k, v)
  },
})

/**
 * Files at least this big are parsed in a worker thread (parsing there, inserting in the building
 * thread); smaller ones in the building thread, since starting a worker costs a few hundred
 * milliseconds.
 */
export const PARSE_WORKER_MIN_BYTES = 4 << 20

/** The row parser itself, for a range read again in this thread. */
async function rowParser(ref: RowParserRef): Promise<(fields: string[]) => unknown> {
  const fn = ((await import(ref.module)) as Record<string, unknown>)[ref.exportName]
  if (typeof fn !== 'function')
    throw new Error(`${ref.exportName} is not exported by ${ref.module}`)
  return fn as (fields: string[]) => unknown
}

/** One parse worker and the messages it sent, queued by range. */
class Source {
  readonly worker: Worker
  readonly queues = new Map<number, ParseMessage[]>()
  /** ranges whose results are not wanted (their start proved wrong): acknowledged and dropped */
  readonly discard = new Set<number>()
  failure: Error | null = null
  private wake: (() => void) | null = null

  constructor(job: ParseJob) {
    // a young generation for millions of short-lived field strings, and an old generation bounded
    // at 128 MB (a worker holds at most MAX_IN_FLIGHT batches): garbage is collected before it
    // costs resident memory (larger generations raised a census import's peak RSS).
    this.worker = startWorker(ENTRY, {
      workerData: job,
      resourceLimits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 128 },
    })
    this.worker.on('message', (m: ParseMessage) => {
      if (this.discard.has(m.range)) {
        if (m.kind === 'batch') this.worker.postMessage('ack')
        return
      }
      let q = this.queues.get(m.range)
      if (!q) this.queues.set(m.range, (q = []))
      q.push(m)
      this.notify()
    })
    this.worker.on('error', (err) => {
      this.failure = err
      this.notify()
    })
    this.worker.on('exit', (code) => {
      this.failure ??= new Error(`parse worker exited with code ${code}`)
      this.notify()
    })
  }

  private notify() {
    const w = this.wake
    this.wake = null
    w?.()
  }

  /** The next message of a range, waiting for it. */
  async next(range: number, signal?: AbortSignal): Promise<ParseMessage> {
    for (;;) {
      signal?.throwIfAborted()
      const m = this.queues.get(range)?.shift()
      if (m) return m
      if (this.failure) throw this.failure
      await new Promise<void>((r) => (this.wake = r))
    }
  }

  drop(range: number) {
    this.discard.add(range)
    for (const m of this.queues.get(range) ?? [])
      if (m.kind === 'batch') this.worker.postMessage('ack')
    this.queues.delete(range)
  }
}

/**
 * Reads a CSV file in worker threads, running an exported row parser there, and yields parsed
 * rows here in file order; rejected rows are reported through `onReject` (with line numbers).
 *
 * The file is cut into byte ranges at newlines (splitByteRanges), dealt out to the workers in
 * turn, and read back range by range. A newline inside a quoted field is no record boundary:
 * each range reports where its last record really ended, and a range that did not start there
 * is thrown away and read again from the right place, so no record is lost or read twice.
 * Batches flow with backpressure, so memory stays flat on files of any size.
 */
export async function* parseInWorker<T>(
  path: string,
  csv: Omit<ReadCsvOptions, 'signal'>,
  parser: RowParserRef,
  onReject: (line: number, reason: string) => void,
  opts: ParseOptions = {},
): AsyncGenerator<ParsedRow<T>[]> {
  const { signal } = opts
  const ranges = await splitByteRanges(path, opts.rangeBytes ?? DEFAULT_RANGE_BYTES)
  const newline = await fileNewline(path)
  const workers = Math.max(1, Math.min(ranges.length, opts.workers ?? DEFAULT_PARSE_WORKERS))
  const job = (rs: (ByteRange & { index: number })[]): ParseJob => ({
    path,
    csv: {
      header: csv.header,
      columns: [...csv.columns],
      headerFirstField: csv.headerFirstField?.source,
    },
    module: parser.module,
    exportName: parser.exportName,
    ranges: rs,
    newline,
  })
  const indexed = ranges.map((r, index) => ({ ...r, index }))
  const sources = Array.from(
    { length: workers },
    (_, w) => new Source(job(indexed.filter((r) => r.index % workers === w))),
  )
  const timings: Record<string, number> = {}
  try {
    let expectedStart = 0
    let before = 0
    for (const r of indexed) {
      const source = sources[r.index % workers] as Source
      if (r.start !== expectedStart) {
        // the range began inside a record that its predecessor finished: read it again, here,
        // from where that record ended (rare: a quoted field holding a newline at a cut)
        source.drop(r.index)
        const range = { start: expectedStart, end: r.end, newline }
        const parse = await rowParser(parser)
        const options = { ...csv, signal }
        let records = 0
        for await (const batch of readCsvBatches(path, options, range)) {
          const out: ParsedRow<T>[] = []
          batch.records.forEach((fields, i) => {
            const row = parse(fields)
            if (typeof row === 'string') onReject(before + batch.line + i, row)
            else out.push({ line: before + batch.line + i, row: row as T })
          })
          records = batch.line + batch.records.length - 1
          yield out
        }
        before += records
        expectedStart = range.end
        continue
      }
      for (;;) {
        const m = await source.next(r.index, signal)
        if (m.kind === 'error')
          throw m.name === 'FormatError' ? new FormatError(m.message) : new Error(m.message)
        if (m.kind === 'range') {
          for (const [k, v] of Object.entries(m.timings)) timings[k] = (timings[k] ?? 0) + v
          expectedStart = m.end
          before += m.records
          break
        }
        for (const [line, reason] of m.rejects) onReject(before + line, reason)
        const out: ParsedRow<T>[] = m.lines.map((line, i) => ({
          line: before + line,
          row: m.rows[i] as T,
        }))
        source.worker.postMessage('ack')
        yield out
      }
    }
    opts.onTimings?.(timings)
  } finally {
    await Promise.all(sources.map((s) => s.worker.terminate()))
  }
}
