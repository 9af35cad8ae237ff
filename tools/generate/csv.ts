/**
 * Writing CSV: RFC 4180 quoting (trivial on write) and a buffered file sink that respects stream
 * backpressure, so a multi-gigabyte file is written with flat memory.
 */
import Papa from 'papaparse'
import { once } from 'node:events'
import { createWriteStream, type WriteStream } from 'node:fs'

const NEEDS_QUOTES = /[",\r\n]/

/** Always quoted, as the legacy L&I text files do: `"MC421775"`. */
export const q = (s: string): string => `"${s.includes('"') ? s.replaceAll('"', '""') : s}"`

/** Quoted only when RFC 4180 requires it, as Socrata's rows.csv export does. */
export const qn = (s: string): string => (NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s)

/** A header line: names never need quoting. */
export const headerLine = (columns: readonly string[]) => columns.join(',')

const CHUNK_CHARS = 1 << 18

/** An output CSV file. `line()` buffers; the owner awaits `drain()` every so often. */
export class CsvSink {
  readonly path: string
  rows = 0
  private pending = ''
  private readonly stream: WriteStream
  private failure: Error | null = null

  constructor(path: string, header?: readonly string[]) {
    this.path = path
    this.stream = createWriteStream(path)
    this.stream.on('error', (err) => {
      this.failure = err
    })
    if (header) this.pending = `${headerLine(header)}\n`
  }

  /** Appends one record (already joined and quoted), without its line ending. */
  line(record: string): void {
    this.pending += `${record}\n`
    this.rows++
    if (this.pending.length >= CHUNK_CHARS) this.flush()
  }

  private flush(): void {
    if (this.pending === '') return
    this.stream.write(this.pending)
    this.pending = ''
  }

  /** Resolves once the file can take more data (backpressure). */
  async drain(): Promise<void> {
    if (this.failure) throw this.failure
    // writableNeedDrain, not write()'s return value: 'drain' may have fired while we awaited another file
    if (this.stream.writableNeedDrain) await once(this.stream, 'drain')
  }

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    this.flush()
    this.check()
    this.stream.end()
    await once(this.stream, 'close')
    this.check()
  }

  private check(): void {
    const failure = this.failure
    if (failure) throw failure
  }
}

/**
 * Parses CSV text (RFC 4180: quoted fields, doubled quotes, line breaks inside quotes) into
 * records (papaparse), for tests of the generated files.
 */
export function parseCsv(text: string): string[][] {
  const { data } = Papa.parse<string[]>(text, { delimiter: ',', skipEmptyLines: true })
  return data
}
