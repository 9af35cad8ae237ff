import { FormatError, type ReadCsvOptions } from './csv.ts'
import type { ParseJob, ParseMessage } from './parse-worker.ts'
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

/**
 * Reads a CSV file in a worker thread, running an exported row parser there, and yields parsed
 * rows here; rejected rows are reported through `onReject` (with line numbers). Batches flow
 * with backpressure, so memory stays flat on files of any size.
 */
export async function* parseInWorker<T>(
  path: string,
  csv: Omit<ReadCsvOptions, 'signal'>,
  parser: RowParserRef,
  onReject: (line: number, reason: string) => void,
  signal?: AbortSignal,
  onTimings?: (timings: Record<string, number>) => void,
): AsyncGenerator<ParsedRow<T>[]> {
  const job: ParseJob = {
    path,
    csv: {
      header: csv.header,
      columns: [...csv.columns],
      headerFirstField: csv.headerFirstField?.source,
    },
    module: parser.module,
    exportName: parser.exportName,
  }
  // a large young generation: millions of short-lived field strings die in cheap scavenges
  const worker = startWorker(ENTRY, {
    workerData: job,
    resourceLimits: { maxYoungGenerationSizeMb: 96 },
  })
  const queue: ParseMessage[] = []
  let wake: (() => void) | null = null
  const state: { exited: Error | null } = { exited: null }
  const notify = () => {
    const w = wake
    wake = null
    w?.()
  }
  worker.on('message', (m: ParseMessage) => {
    queue.push(m)
    notify()
  })
  worker.on('error', (err) => {
    state.exited = err
    notify()
  })
  worker.on('exit', (code) => {
    state.exited ??= code === 0 ? null : new Error(`parse worker exited with code ${code}`)
    notify()
  })
  try {
    for (;;) {
      signal?.throwIfAborted()
      const m = queue.shift()
      if (!m) {
        if (state.exited) throw state.exited
        await new Promise<void>((r) => (wake = r))
        continue
      }
      if (m.kind === 'done') {
        onTimings?.(m.timings)
        return
      }
      if (m.kind === 'error')
        throw m.name === 'FormatError' ? new FormatError(m.message) : new Error(m.message)
      for (const [line, reason] of m.rejects) onReject(line, reason)
      const out: ParsedRow<T>[] = m.lines.map((line, i) => ({ line, row: m.rows[i] as T }))
      worker.postMessage('ack')
      yield out
    }
  } finally {
    await worker.terminate()
  }
}
