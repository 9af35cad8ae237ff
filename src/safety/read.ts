/** Reads an SMS or OOS file through one of the row parsers of rows.ts. */
import { statSync } from 'node:fs'
import { readCsv } from '../ingest/csv.ts'
import { parseInWorker, PARSE_WORKER_MIN_BYTES } from '../ingest/parallel.ts'
import { siblingModule } from '../ingest/worker-module.ts'
import type { BuildContext } from '../ingest/types.ts'
import { ROW_PARSERS, type RowParserName } from './rows.ts'

const ROWS_MODULE = siblingModule('./rows', import.meta.url)

/** The row type a parser returns. */
export type RowOf<P extends RowParserName> = Exclude<
  ReturnType<ReturnType<(typeof ROW_PARSERS)[P]>>,
  string | null
>

export interface ParsedLine<T> {
  /** 1-based record number after the header */
  line: number
  row: T
}

async function* inThisThread<T>(
  ctx: BuildContext,
  id: string,
  path: string,
  parse: (fields: string[]) => T | string | null,
): AsyncGenerator<ParsedLine<T>> {
  for await (const r of readCsv(path, { header: 'none', columns: [], signal: ctx.signal })) {
    const out = parse(r.fields)
    if (typeof out === 'string') ctx.reject(id, r.line - 1, out)
    else if (out !== null) yield { line: r.line - 1, row: out }
  }
}

async function* inWorker<T>(
  ctx: BuildContext,
  id: string,
  path: string,
  parser: RowParserName,
): AsyncGenerator<ParsedLine<T>> {
  const batches = parseInWorker<T | null>(
    path,
    { header: 'none', columns: [] },
    { module: ROWS_MODULE, exportName: parser },
    (line, reason) => ctx.reject(id, line - 1, reason),
    // one worker reading the file whole: these row parsers read the header row first and keep
    // its column positions, so no range may start without it
    { signal: ctx.signal, workers: 1, rangeBytes: Number.MAX_SAFE_INTEGER },
  )
  for await (const batch of batches)
    for (const r of batch) if (r.row !== null) yield { line: r.line - 1, row: r.row }
}

/**
 * The parsed rows of file `id`; rejected rows are counted and sampled on `ctx`, the header row is
 * checked (a missing column throws a FormatError before any row) and skipped.
 */
export function parsedRows<P extends RowParserName>(
  ctx: BuildContext,
  id: string,
  path: string,
  parser: P,
  opts: { worker?: boolean } = {},
): AsyncGenerator<ParsedLine<RowOf<P>>> {
  const worker = opts.worker ?? statSync(path).size >= PARSE_WORKER_MIN_BYTES
  if (worker) return inWorker<RowOf<P>>(ctx, id, path, parser)
  const parse = ROW_PARSERS[parser]() as (fields: string[]) => RowOf<P> | string | null
  return inThisThread(ctx, id, path, parse)
}
