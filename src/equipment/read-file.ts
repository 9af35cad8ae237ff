/** Reads one input file of the equipment dataset through a row parser of rows.ts. */
import { statSync } from 'node:fs'
import { readCsv } from '../ingest/csv.ts'
import { parseInWorker, PARSE_WORKER_MIN_BYTES } from '../ingest/parallel.ts'
import type { BuildContext } from '../ingest/types.ts'
import { siblingModule } from '../ingest/worker-module.ts'
import { EQUIPMENT_PARSERS, type EquipmentParser } from './rows.ts'

const ROWS_MODULE = siblingModule('./rows', import.meta.url)

export type RowOf<P extends EquipmentParser> = Exclude<
  ReturnType<ReturnType<(typeof EQUIPMENT_PARSERS)[P]>>,
  string | null
>

/**
 * The parsed rows of file `id`, in batches (a parse worker for a large file). Rejected rows are
 * counted and sampled on `ctx`; a missing column throws a FormatError before any row.
 */
export async function* rowBatches<P extends EquipmentParser>(
  ctx: BuildContext,
  id: string,
  path: string,
  parser: P,
): AsyncGenerator<readonly RowOf<P>[]> {
  if (statSync(path).size >= PARSE_WORKER_MIN_BYTES) {
    const batches = parseInWorker<RowOf<P> | null>(
      path,
      { header: 'none', columns: [] },
      { module: ROWS_MODULE, exportName: parser },
      (line, reason) => ctx.reject(id, line - 1, reason),
      // the parsers read the header row first: one worker reads the whole file
      { signal: ctx.signal, workers: 1, rangeBytes: Number.MAX_SAFE_INTEGER },
    )
    for await (const batch of batches) {
      const rows: RowOf<P>[] = []
      for (const r of batch) if (r.row !== null) rows.push(r.row)
      yield rows
    }
    return
  }
  const parse = EQUIPMENT_PARSERS[parser]() as (fields: string[]) => RowOf<P> | string | null
  let rows: RowOf<P>[] = []
  for await (const r of readCsv(path, { header: 'none', columns: [], signal: ctx.signal })) {
    const out = parse(r.fields)
    if (typeof out === 'string') ctx.reject(id, r.line - 1, out)
    else if (out !== null) rows.push(out)
    if (rows.length >= 10_000) {
      yield rows
      rows = []
    }
  }
  if (rows.length) yield rows
}

/** A file's batches and what to do with each of its rows. */
export interface Feed<T> {
  batches: AsyncIterable<readonly T[]>
  row: (r: T) => void
}

/** A feed with its row type erased: batches of thunks that handle one row each. */
export const feed = <T>(f: Feed<T>): AsyncIterable<readonly (() => void)[]> => ({
  async *[Symbol.asyncIterator]() {
    for await (const batch of f.batches) yield batch.map((r) => () => f.row(r))
  },
})

/**
 * The batches of several feeds as they come, whichever is ready first: their parse workers run
 * at the same time (one core each) while this thread inserts what any of them sent. When one
 * fails or the consumer stops, the others are stopped too (their workers end).
 */
export async function* interleave(
  feeds: readonly AsyncIterable<readonly (() => void)[]>[],
): AsyncGenerator<readonly (() => void)[]> {
  const its = feeds.map((f) => f[Symbol.asyncIterator]())
  const next = (i: number) =>
    (its[i] as AsyncIterator<readonly (() => void)[]>).next().then((r) => ({ i, r }))
  const pending = new Map(its.map((_, i) => [i, next(i)]))
  try {
    while (pending.size > 0) {
      const { i, r } = await Promise.race(pending.values())
      if (r.done) {
        pending.delete(i)
        continue
      }
      pending.set(i, next(i))
      yield r.value
    }
  } finally {
    // a feed still pending is stopped: its generator's cleanup ends its worker
    await Promise.allSettled([...pending.keys()].map(async (i) => its[i]?.return?.()))
  }
}
