import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { StringDecoder } from 'node:string_decoder'
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

/**
 * Text parsed at a time: 64 KB, about 150 census records. Every record of a chunk stays reachable
 * until the whole chunk is consumed; with chunks of a megabyte they outlived V8's young
 * generation and were promoted, and old-generation collections took most of a core
 * during a census import.
 */
const CHUNK_BYTES = 64 << 10
/** What fileNewline reads to guess the file's newline. */
const NEWLINE_SNIFF_BYTES = 1 << 20

/** The slice of papaparse's parser handle the chunked reader uses (its streamers use the same). */
interface PapaHandle {
  guessLineEndings(input: string, quoteChar: string): string
  parse(
    input: string,
    baseIndex: number,
    ignoreLastRow: boolean,
  ): { data: string[][]; meta: { cursor: number } }
}
const PapaParserHandle = (
  Papa as unknown as { ParserHandle: new (config: Papa.ParseConfig) => PapaHandle }
).ParserHandle

/** Bytes [start, end) of a file; `end` is where the records that start in the range end. */
export interface ByteRange {
  start: number
  end: number
}

/**
 * Splits a file into byte ranges of about `bytes` each, every one starting just after a newline
 * (or at 0). A newline inside a quoted field is not a record boundary: readers of a range own the
 * records that START in it, and say where the last of them really ended (see parseRecordBatches),
 * so the caller can check each range against its predecessor.
 */
export async function splitByteRanges(path: string, bytes: number): Promise<ByteRange[]> {
  const fh = await open(path, 'r')
  try {
    const { size } = await fh.stat()
    const starts = [0]
    const buf = Buffer.alloc(64 * 1024)
    for (let at = bytes; at < size;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, at)
      if (bytesRead === 0) break
      const nl = buf.subarray(0, bytesRead).indexOf(10)
      if (nl < 0) {
        at += bytesRead
        continue
      }
      const next = at + nl + 1
      if (next < size) starts.push(next)
      at = next + bytes
    }
    return starts.map((start, i) => ({ start, end: starts[i + 1] ?? size }))
  } finally {
    await fh.close()
  }
}

/**
 * The newline papaparse takes for the whole file (it guesses from the first chunk): the ranges of
 * a split file are parsed with it, not with a guess from their own first chunk.
 */
export async function fileNewline(path: string): Promise<string> {
  const fh = await open(path, 'r')
  try {
    const buf = Buffer.alloc(NEWLINE_SNIFF_BYTES)
    const { bytesRead } = await fh.read(buf, 0, NEWLINE_SNIFF_BYTES, 0)
    const text = new StringDecoder('utf8').write(buf.subarray(0, bytesRead))
    return new PapaParserHandle({}).guessLineEndings(text, '"')
  } finally {
    await fh.close()
  }
}

/** A record still open after this many characters past its range is refused, not buffered. */
const MAX_RECORD_OVERRUN = 16 << 20

/**
 * The file's records, a chunk at a time: papaparse's parser over 64 KB text chunks, carrying the
 * unfinished last record over to the next chunk exactly as papaparse's own streamers do (but with
 * one async step per chunk instead of a stream event per record, and UTF-8 decoded across chunk
 * boundaries). The file is read only as fast as the consumer takes the batches.
 *
 * With a `range`, only the records that start in it: a record still open at the range's end (a
 * quoted field holding a newline, or a range that starts inside one) is completed from the
 * bytes after it, a line at a time, and `range.end` is moved to where that record ended.
 */
async function* parseRecordBatches(
  path: string,
  range?: ByteRange & { newline?: string },
): AsyncGenerator<string[][]> {
  if (range && range.end <= range.start) {
    // a range whose start was moved past its end by the record before it: nothing starts in it
    range.end = range.start
    return
  }
  const source = createReadStream(path, {
    highWaterMark: CHUNK_BYTES,
    ...(range ? { start: range.start, end: range.end - 1 } : {}),
  })
  const handle = new PapaParserHandle({
    skipEmptyLines: true,
    delimiter: ',',
    ...(range?.newline ? { newline: range.newline as '\n' } : {}),
  })
  const decoder = new StringDecoder('utf8')
  let partial = ''
  let base = 0
  try {
    for await (const buf of source) {
      const text = partial + decoder.write(buf as Buffer)
      const r = handle.parse(text, base, true)
      partial = text.substring(r.meta.cursor - base)
      base = r.meta.cursor
      if (r.data.length) yield r.data
    }
    const rest = partial + decoder.end()
    if (range && rest !== '') yield* finishRecord(path, range, handle, rest, base)
    else if (rest !== '') {
      const r = handle.parse(rest, base, false)
      if (r.data.length) yield r.data
    }
  } finally {
    source.destroy()
  }
}

/** Completes a record left open at a range's end from the lines after it (parseRecordBatches). */
async function* finishRecord(
  path: string,
  range: ByteRange,
  handle: PapaHandle,
  unfinished: string,
  base: number,
): AsyncGenerator<string[][]> {
  const fh = await open(path, 'r')
  try {
    const buf = Buffer.alloc(64 * 1024)
    let partial = unfinished
    let dataStart = range.end // file offset of data[0]
    let data = Buffer.alloc(0)
    let eof = false
    for (;;) {
      const nl = data.indexOf(10)
      if (nl < 0) {
        if (eof) {
          // end of file inside the record: papaparse closes it there, as it does for a whole file
          const r = handle.parse(partial + data.toString('utf8'), base, false)
          range.end = dataStart + data.length
          if (r.data.length) yield r.data
          return
        }
        const { bytesRead } = await fh.read(buf, 0, buf.length, dataStart + data.length)
        if (bytesRead === 0) eof = true
        else data = Buffer.concat([data, buf.subarray(0, bytesRead)])
        continue
      }
      const text = partial + data.subarray(0, nl + 1).toString('utf8')
      data = data.subarray(nl + 1)
      dataStart += nl + 1
      const r = handle.parse(text, base, true)
      partial = text.substring(r.meta.cursor - base)
      base = r.meta.cursor
      range.end = dataStart
      if (r.data.length) yield r.data
      if (partial === '') return
      if (partial.length > MAX_RECORD_OVERRUN)
        throw new FormatError('a quoted field runs on for more than 16 MB: the file is damaged')
    }
  } finally {
    await fh.close()
  }
}

/** Consecutive records of a file: `records[i]` is record number `line + i`. */
export interface CsvBatch {
  line: number
  records: string[][]
}

/**
 * Streams a CSV file as batches of records (RFC 4180 via papaparse, which tolerates stray
 * quotes), checking the header first. Column-count mismatches are yielded as they are: the caller
 * rejects and counts them.
 */
export async function* readCsvBatches(
  path: string,
  opts: ReadCsvOptions,
  range?: ByteRange & { newline?: string },
): AsyncGenerator<CsvBatch> {
  // the file's head (sniff, header) belongs to the range that starts at 0
  const head = !range || range.start === 0
  if (head) await sniffFile(path)
  let line = 0
  let first = head
  try {
    for await (let records of parseRecordBatches(path, range)) {
      if (first) {
        first = false
        const rec = records[0] as string[]
        if (rec[0] !== undefined) rec[0] = rec[0].replace(/^\uFEFF/, '')
        if (opts.header === 'header') {
          const drift = headerDrift(rec, opts.columns)
          if (drift) throw new FormatError(`header does not match the expected columns: ${drift}`)
          records = records.slice(1)
        } else if (opts.header === 'optional-header') {
          const re = opts.headerFirstField ?? /^[A-Za-z_]+$/
          if (re.test((rec[0] ?? '').trim())) records = records.slice(1)
        }
      }
      opts.signal?.throwIfAborted()
      if (records.length === 0) continue
      yield { line: line + 1, records }
      line += records.length
    }
  } catch (err) {
    if (err instanceof FormatError || err instanceof AppError) throw err
    if (opts.signal?.aborted) throw opts.signal.reason
    throw new FormatError(`cannot read CSV near record ${line + 1}: ${(err as Error).message}`)
  }
  if (head && first) throw new FormatError('file is empty')
}

/** readCsvBatches one record at a time, with its 1-based record number. */
export async function* readCsv(path: string, opts: ReadCsvOptions): AsyncGenerator<CsvRow> {
  for await (const { line, records } of readCsvBatches(path, opts))
    for (let i = 0; i < records.length; i++)
      yield { line: line + i, fields: records[i] as string[] }
}
