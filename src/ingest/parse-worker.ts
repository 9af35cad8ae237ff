/**
 * Worker thread: reads byte ranges of a CSV file and runs a row parser over them, posting batches
 * of parsed rows to the building thread. Parsing and normalising on other cores while SQLite
 * inserts on one multiplies import speed (see parallel.ts).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { threadCpuSeconds } from './cpu.ts'
import { readCsvBatches, type ByteRange, type ReadCsvOptions } from './csv.ts'
import { yieldToRequests } from './worker-module.ts'

export interface ParseJob {
  path: string
  csv: Omit<ReadCsvOptions, 'signal' | 'headerFirstField'> & { headerFirstField?: string }
  /** file URL of the module exporting the row parser */
  module: string
  /** export name: (fields: string[]) => unknown[] | string (a string is a reject reason) */
  exportName: string
  /** the ranges this worker reads, in order, each with its index in the file's list of ranges */
  ranges: (ByteRange & { index: number })[]
  /** the file's newline (fileNewline) */
  newline: string
}

/**
 * Messages from the worker, tagged with the range they belong to. `lines` are record numbers
 * within the range (1-based; the header of range 0 not counted).
 */
export type ParseMessage =
  | { kind: 'batch'; range: number; lines: number[]; rows: unknown[]; rejects: [number, string][] }
  /** the range is read: `records` rows and rejects, the last one ending at byte `end` */
  | { kind: 'range'; range: number; records: number; end: number; timings: Record<string, number> }
  | { kind: 'error'; range: number; message: string; name: string }

// small batches, few in flight. A batch's rows stay reachable until it is posted, and 2,000 of
// them outlived the parse worker's young generation (promoted, then collected by full
// collections); 500 die young, but every young collection still copies the rows of the batch
// being filled, and 200 halve that work. On the building side every batch in flight is alive
// until it is inserted: with 32 in flight (16,000 rows) the building thread promoted two thirds
// of what it allocated; with 4, which the building thread inserts as they come (build.ts), the
// rows die young on both sides, so a load is faster and its peak memory lower.
const BATCH = 200
const MAX_IN_FLIGHT = 4

async function run(job: ParseJob, port: NonNullable<typeof parentPort>): Promise<void> {
  yieldToRequests()
  const mod = (await import(job.module)) as Record<string, unknown>
  const parse = mod[job.exportName]
  if (typeof parse !== 'function')
    throw new Error(`${job.exportName} is not exported by ${job.module}`)
  const rowParser = parse as (f: string[]) => unknown
  let inFlight = 0
  let wake: (() => void) | null = null
  port.on('message', () => {
    inFlight--
    const w = wake
    wake = null
    w?.()
  })
  const csv: ReadCsvOptions = {
    ...job.csv,
    headerFirstField: job.csv.headerFirstField ? new RegExp(job.csv.headerFirstField) : undefined,
  }
  for (const { index, ...bytes } of job.ranges) {
    let lines: number[] = []
    let rows: unknown[] = []
    let rejects: [number, string][] = []
    const flush = async () => {
      port.postMessage({ kind: 'batch', range: index, lines, rows, rejects } satisfies ParseMessage)
      inFlight++
      lines = []
      rows = []
      rejects = []
      while (inFlight >= MAX_IN_FLIGHT) await new Promise<void>((r) => (wake = r))
    }
    const elu = performance.eventLoopUtilization()
    const cpu0 = threadCpuSeconds()
    let sampled = 0
    let records = 0
    const range = { ...bytes, newline: job.newline }
    try {
      for await (const batch of readCsvBatches(job.path, csv, range)) {
        const recs = batch.records
        records = batch.line + recs.length - 1
        for (let i = 0; i < recs.length; i++) {
          // the row parser's time, sampled on one row in 16 (timing every row would cost as much)
          const t0 = (i & 15) === 0 ? performance.now() : 0
          const out = rowParser(recs[i] as string[])
          if (t0) sampled += performance.now() - t0
          if (typeof out === 'string') rejects.push([batch.line + i, out])
          else {
            lines.push(batch.line + i)
            rows.push(out)
          }
          if (rows.length + rejects.length >= BATCH) await flush()
        }
      }
      if (rows.length + rejects.length > 0) await flush()
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err))
      // the reader throws it when it reaches this range (unless the range is read again)
      port.postMessage({ kind: 'error', range: index, message: e.message, name: e.name })
      continue
    }
    const busy = performance.eventLoopUtilization(elu).active / 1000
    const normalise = (sampled * 16) / 1000
    const cpu1 = threadCpuSeconds()
    const timings: Record<string, number> = {
      'parse.busy': busy,
      'parse.csv': busy - normalise,
      'parse.rows': normalise,
    }
    if (cpu0 !== null && cpu1 !== null) timings['parse.cpu'] = cpu1 - cpu0
    port.postMessage({
      kind: 'range',
      range: index,
      records,
      end: range.end,
      timings,
    } satisfies ParseMessage)
  }
}

const port = parentPort
if (port && workerData) {
  const job = workerData as ParseJob
  run(job, port).catch((err: unknown) => {
    const e = err instanceof Error ? err : new Error(String(err))
    port.postMessage({
      kind: 'error',
      range: job.ranges[0]?.index ?? 0,
      message: e.message,
      name: e.name,
    } satisfies ParseMessage)
  })
}
