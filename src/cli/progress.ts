/**
 * Progress of long CLI work (`sync run`): one line redrawn in place when stderr is a terminal,
 * nothing otherwise (the command prints a summary at the end, and the logs carry progress).
 */
import type { SyncProgress } from '../sync/sync.ts'
import type { Io } from './io.ts'

export interface Progress {
  update(p: SyncProgress): void
  /** clears the line (call before printing the summary) */
  done(): void
}

const mb = (n: number) => `${(n / 1_048_576).toFixed(1)} MB`

/** The text of one progress line. */
export function progressLine(p: SyncProgress): string {
  if (p.phase === 'download')
    return `${p.dataset}: downloading ${p.file} ${mb(p.bytes)}${p.total ? ` of ${mb(p.total)}` : ''}`
  return `${p.dataset}: building from ${p.file}, ${p.rows.toLocaleString('en-US')} rows`
}

export function createProgress(
  io: Pick<Io, 'stderr' | 'isTTY'>,
  opts: { intervalMs?: number; now?: () => number } = {},
): Progress {
  const interval = opts.intervalMs ?? 200
  const now = opts.now ?? Date.now
  let last = -Infinity
  let shown = false
  return {
    update(p) {
      if (!io.isTTY) return
      const t = now()
      if (t - last < interval) return
      last = t
      shown = true
      io.stderr(`\r\x1b[2K${progressLine(p)}`)
    },
    done() {
      if (shown) io.stderr('\r\x1b[2K')
      shown = false
    },
  }
}
