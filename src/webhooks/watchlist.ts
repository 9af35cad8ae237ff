/** Accounts' watchlists of USDOT numbers (carrier.changed monitoring). */
import type { Sqlite } from '../db/open.ts'
import { AppError } from '../errors.ts'
import { assertWebhooksAllowed } from './endpoints.ts'

/** Most USDOT numbers one account may watch. */
export const WATCHLIST_MAX_PER_ACCOUNT = 25_000

export interface InvalidLine {
  line: number
  value: string
  reason: string
}

/** Validates one USDOT number: 1–8 digits after trimming, not zero. */
export function parseDot(text: string): number | string {
  const v = text.trim()
  if (!v) return 'empty'
  if (!/^\d+$/.test(v)) return 'not a number'
  if (v.length > 8) return 'more than 8 digits'
  const n = Number(v)
  return n === 0 ? 'zero is not a USDOT number' : n
}

const unquote = (s: string) =>
  s
    .trim()
    .replace(/^"(.*)"$/s, '$1')
    .replaceAll('""', '"')

/**
 * Reads a list of USDOT numbers: one per line, or a CSV whose first column holds them. Blank
 * lines are skipped, and so is a first line that is a header (no digits in its first column).
 */
export function parseDotList(text: string): { dots: number[]; invalid: InvalidLine[] } {
  const dots = new Set<number>()
  const invalid: InvalidLine[] = []
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  lines.forEach((raw, i) => {
    if (!raw.trim()) return
    const first = unquote(raw.split(/[,;\t]/)[0] ?? '')
    if (i === 0 && !/\d/.test(first)) return // header
    const r = parseDot(first)
    if (typeof r === 'number') dots.add(r)
    else invalid.push({ line: i + 1, value: first.slice(0, 40), reason: r })
  })
  return { dots: [...dots], invalid }
}

/**
 * Adds USDOT numbers to a paid account's watchlist, idempotently and atomically (all or none
 * when the cap would be passed). The monitor snapshots a new number on its next run.
 */
export function addToWatchlist(
  db: Sqlite,
  accountId: number,
  dots: readonly number[],
  now: number,
): { added: number; alreadyWatched: number; total: number } {
  assertWebhooksAllowed(db, accountId, now)
  return db
    .transaction(() => {
      const insert = db.prepare(
        'INSERT INTO watchlist (account_id, dot_number, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      )
      let added = 0
      for (const dot of new Set(dots)) added += insert.run(accountId, dot, now).changes
      const { total } = db
        .prepare('SELECT count(*) AS total FROM watchlist WHERE account_id = ?')
        .get(accountId) as { total: number }
      if (total > WATCHLIST_MAX_PER_ACCOUNT)
        throw new AppError(
          'conflict',
          `A watchlist holds at most ${WATCHLIST_MAX_PER_ACCOUNT} USDOT numbers; this would make ${total}`,
        )
      return { added, alreadyWatched: new Set(dots).size - added, total }
    })
    .immediate()
}

/** Removes USDOT numbers; a snapshot no account watches any more is dropped with them. */
export function removeFromWatchlist(
  db: Sqlite,
  accountId: number,
  dots: readonly number[],
): { removed: number; notWatched: number } {
  return db
    .transaction(() => {
      const del = db.prepare('DELETE FROM watchlist WHERE account_id = ? AND dot_number = ?')
      const orphan = db.prepare(
        'DELETE FROM watch_snapshots WHERE dot_number = ? AND NOT EXISTS (SELECT 1 FROM watchlist WHERE dot_number = ?)',
      )
      let removed = 0
      const unique = [...new Set(dots)]
      for (const dot of unique) {
        removed += del.run(accountId, dot).changes
        orphan.run(dot, dot)
      }
      return { removed, notWatched: unique.length - removed }
    })
    .immediate()
}

export interface WatchEntry {
  dotNumber: number
  createdAt: number
  /** when the monitor last compared this USDOT (null: not yet) */
  checkedAt: number | null
}

export function listWatchlist(db: Sqlite, accountId: number): WatchEntry[] {
  return db
    .prepare(
      `SELECT w.dot_number AS dotNumber, w.created_at AS createdAt, s.updated_at AS checkedAt
       FROM watchlist w LEFT JOIN watch_snapshots s ON s.dot_number = w.dot_number
       WHERE w.account_id = ? ORDER BY w.dot_number`,
    )
    .all(accountId) as WatchEntry[]
}
