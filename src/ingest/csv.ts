import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import Papa from 'papaparse'
import { AppError } from '../errors.ts'

export interface CsvRow {
  /** 1-based record number in the file (header = 0) */
  line: number
  fields: string[]
}

export class FormatError extends Error {
  override readonly name = 'FormatError'
}

/** Refuses files that are not CSV at all: empty, or an HTML page served with status 200. */
export async function sniffFile(path: string): Promise<void> {
  const fh = await open(path, 'r')
  try {
    const buf = Buffer.alloc(512)
    const { bytesRead } = await fh.read(buf, 0, 512, 0)
    const head = buf
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart()
    if (bytesRead === 0 || head === '') throw new FormatError('file is empty')
    if (/^<(!doctype|html|head|body|\?xml)/i.test(head))
      throw new FormatError('file is an HTML/XML page, not CSV')
  } finally {
    await fh.close()
  }
}

export interface ReadCsvOptions {
  /**
   * 'header': first record must equal `columns` (case-insensitive, trimmed);
   * 'optional-header': positional file that may start with a header row (first field matches
   * `headerFirstField`); 'none': no header.
   */
  header: 'header' | 'optional-header' | 'none'
  columns: readonly string[]
  headerFirstField?: RegExp
  signal?: AbortSignal
}

const norm = (s: string) => s.trim().toLowerCase()

/** Compares a header row with the expected columns; returns a human-readable drift description or null. */
export function headerDrift(actual: readonly string[], expected: readonly string[]): string | null {
  const a = actual.map(norm)
  const e = expected.map(norm)
  if (a.length === e.length && a.every((v, i) => v === e[i])) return null
  const missing = e.filter((c) => !a.includes(c))
  const extra = a.filter((c) => !e.includes(c))
  if (missing.length === 0 && extra.length === 0) return 'columns are in a different order'
  return [
    missing.length ? `missing ${missing.slice(0, 5).join(', ')}` : '',
    extra.length ? `unexpected ${extra.slice(0, 5).join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ')
}

const QUEUE_HIGH = 20_000
const QUEUE_LOW = 5_000

/**
 * Papaparse's stream in flowing mode (its paused-mode iterator is an order of magnitude slower),
 * with a bounded queue: the file stream pauses while the consumer is behind.
 */
async function* parseRecords(path: string): AsyncGenerator<string[]> {
  const source = createReadStream(path, { highWaterMark: 1 << 20 })
  const parser = Papa.parse(Papa.NODE_STREAM_INPUT, { skipEmptyLines: true, delimiter: ',' })
  let queue: string[][] = []
  let done = false
  const state: { failure: Error | null } = { failure: null }
  let wake: (() => void) | null = null
  const notify = () => {
    const w = wake
    wake = null
    w?.()
  }
  parser.on('data', (row: string[]) => {
    queue.push(row)
    if (queue.length >= QUEUE_HIGH && !source.isPaused()) source.pause()
    if (queue.length === 1 || queue.length >= QUEUE_HIGH) notify()
  })
  parser.on('end', () => {
    done = true
    notify()
  })
  const fail = (err: Error) => {
    state.failure = err
    notify()
  }
  parser.on('error', fail)
  source.on('error', fail)
  source.pipe(parser)
  try {
    for (;;) {
      if (queue.length > 0) {
        const batch = queue
        queue = []
        if (source.isPaused()) source.resume()
        for (let i = 0; i < batch.length; i++) {
          yield batch[i] as string[]
          if (i % QUEUE_LOW === QUEUE_LOW - 1 && source.isPaused() && queue.length < QUEUE_LOW)
            source.resume()
        }
        continue
      }
      if (state.failure) throw state.failure
      if (done) return
      await new Promise<void>((r) => (wake = r))
    }
  } finally {
    source.destroy()
    parser.destroy()
  }
}

/**
 * Streams a CSV file as arrays of fields (RFC 4180 via papaparse, which tolerates stray quotes),
 * checking the header first. Column-count mismatches are yielded as they are: the caller rejects
 * and counts them.
 */
export async function* readCsv(path: string, opts: ReadCsvOptions): AsyncGenerator<CsvRow> {
  await sniffFile(path)
  let line = 0
  let first = true
  try {
    for await (const rec of parseRecords(path)) {
      if (first) {
        first = false
        if (rec[0] !== undefined) rec[0] = rec[0].replace(/^\uFEFF/, '')
        if (opts.header === 'header') {
          const drift = headerDrift(rec, opts.columns)
          if (drift) throw new FormatError(`header does not match the expected columns: ${drift}`)
          continue
        }
        if (opts.header === 'optional-header') {
          const re = opts.headerFirstField ?? /^[A-Za-z_]+$/
          if (re.test((rec[0] ?? '').trim())) continue
        }
      }
      line++
      if (line % 4096 === 0) opts.signal?.throwIfAborted()
      yield { line, fields: rec }
    }
  } catch (err) {
    if (err instanceof FormatError || err instanceof AppError) throw err
    if (opts.signal?.aborted) throw opts.signal.reason
    throw new FormatError(`cannot read CSV near record ${line + 1}: ${(err as Error).message}`)
  }
  if (first) throw new FormatError('file is empty')
}
