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

const CHUNK_BYTES = 4 << 20

/** The slice of papaparse's parser handle the chunked reader uses (its streamers use the same). */
interface PapaHandle {
  parse(
    input: string,
    baseIndex: number,
    ignoreLastRow: boolean,
  ): { data: string[][]; meta: { cursor: number } }
}
const PapaParserHandle = (
  Papa as unknown as { ParserHandle: new (config: Papa.ParseConfig) => PapaHandle }
).ParserHandle

/**
 * The file's records, a chunk at a time: papaparse's parser over 4 MB text chunks, carrying the
 * unfinished last record over to the next chunk exactly as papaparse's own streamers do (but with
 * one async step per chunk instead of a stream event per record, and UTF-8 decoded across chunk
 * boundaries). The file is read only as fast as the consumer takes the batches.
 */
async function* parseRecordBatches(path: string): AsyncGenerator<string[][]> {
  const source = createReadStream(path, { highWaterMark: CHUNK_BYTES })
  const handle = new PapaParserHandle({ skipEmptyLines: true, delimiter: ',' })
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
    partial = ''
    if (rest !== '') {
      const r = handle.parse(rest, base, false)
      if (r.data.length) yield r.data
    }
  } finally {
    source.destroy()
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
): AsyncGenerator<CsvBatch> {
  await sniffFile(path)
  let line = 0
  let first = true
  try {
    for await (let records of parseRecordBatches(path)) {
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
  if (first) throw new FormatError('file is empty')
}

/** readCsvBatches one record at a time, with its 1-based record number. */
export async function* readCsv(path: string, opts: ReadCsvOptions): AsyncGenerator<CsvRow> {
  for await (const { line, records } of readCsvBatches(path, opts))
    for (let i = 0; i < records.length; i++) yield { line: line + i, fields: records[i] as string[] }
}
