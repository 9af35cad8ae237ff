/**
 * `reviews import <file.csv|file.json|->`: a CSV or JSON file of verified reviews read into rows,
 * each row validated on its own (per-row errors with the line or index), the valid ones written
 * through the store. Idempotent by (source, id), or by a hash of the content without an id.
 */
import { createHash } from 'node:crypto'
import Papa from 'papaparse'
import type { Sqlite } from '../db/open.ts'
import {
  issuesText,
  reviewInput,
  writeKeyedReviews,
  type KeyedReview,
  type ReviewInput,
} from './reviews.ts'

/** Rows one import may hold (a bounded, single-transaction write). */
export const IMPORT_MAX_ROWS = 50_000

/** A file that cannot be read as a list of reviews at all (not a per-row problem). */
export class ReviewFileError extends Error {
  override readonly name = 'ReviewFileError'
}

/** One input row and where it came from: `line 7` (CSV, 1-based) or `index 3` (JSON, 0-based). */
export interface ImportRow {
  location: string
  data: Record<string, unknown>
}

const COLUMN_ALIASES: Record<string, keyof ReviewInput> = {
  dot: 'dot',
  dot_number: 'dot',
  usdot: 'dot',
  usdot_number: 'dot',
  stars: 'stars',
  rating: 'stars',
  experience: 'experience_type',
  experience_type: 'experience_type',
  title: 'title',
  text: 'text',
  body: 'text',
  review: 'text',
  date: 'date',
  review_date: 'date',
  author: 'author',
  id: 'id',
  external_id: 'id',
}
export const IMPORT_COLUMNS = [
  'dot',
  'stars',
  'experience_type',
  'title',
  'text',
  'date',
  'author',
  'id',
]

const normKey = (k: string) =>
  k
    .replace(/^\uFEFF/, '')
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_')

/** Maps a row's keys through the aliases; unknown keys are returned for the caller to report. */
function canonical(obj: Record<string, unknown>): {
  data: Record<string, unknown>
  unknown: string[]
} {
  const data: Record<string, unknown> = {}
  const unknown: string[] = []
  for (const [k, v] of Object.entries(obj)) {
    const c = COLUMN_ALIASES[normKey(k)]
    if (c) data[c] = v
    else unknown.push(k)
  }
  return { data, unknown }
}

function checkColumns(names: string[], where: string): void {
  // a blank header cell (a spreadsheet's trailing comma) is ignored with its column
  const unknown = names.filter((n) => normKey(n) !== '' && !COLUMN_ALIASES[normKey(n)])
  if (unknown.length)
    throw new ReviewFileError(
      `${where}: unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => JSON.stringify(u)).join(', ')}; expected ${IMPORT_COLUMNS.join(', ')}`,
    )
  const mapped = new Set(names.map((n) => COLUMN_ALIASES[normKey(n)]))
  const missing = (['dot', 'stars', 'experience_type', 'date'] as const).filter(
    (c) => !mapped.has(c),
  )
  if (missing.length) throw new ReviewFileError(`${where}: missing column ${missing.join(', ')}`)
  const dupes = names.filter(
    (n, i) =>
      normKey(n) !== '' &&
      names.findIndex((m) => COLUMN_ALIASES[normKey(m)] === COLUMN_ALIASES[normKey(n)]) !== i,
  )
  if (dupes.length) throw new ReviewFileError(`${where}: column given twice: ${dupes.join(', ')}`)
}

/**
 * Reads a CSV (header row required; columns by name, any order, any case) or JSON (an array of
 * objects, or `{"reviews": [...]}`) file into rows. Throws ReviewFileError for file-level problems
 * (unparseable, unknown or missing columns, too many rows); row values are checked later.
 */
export function readReviewsFile(content: string, format: 'csv' | 'json'): ImportRow[] {
  const rows = format === 'csv' ? readCsvRows(content) : readJsonRows(content)
  if (rows.length > IMPORT_MAX_ROWS)
    throw new ReviewFileError(
      `too many rows (${rows.length}); import at most ${IMPORT_MAX_ROWS} per file`,
    )
  return rows
}

/**
 * RFC 4180 records (papaparse) with the line each starts on: quoted fields may hold commas,
 * doubled quotes and line breaks; CRLF or LF; blank lines are skipped.
 */
export function parseCsvText(content: string): { line: number; fields: string[] }[] {
  const text = content.replace(/^\uFEFF/, '')
  const out: { line: number; fields: string[] }[] = []
  // line number of a character offset: count the line breaks before it, incrementally
  let scanned = 0
  let line = 1
  const lineAt = (offset: number) => {
    for (; scanned < offset; scanned++) if (text.charCodeAt(scanned) === 10) line++
    return line
  }
  let previousEnd = 0
  const state: { unterminated: number | null } = { unterminated: null }
  Papa.parse<string[]>(text, {
    delimiter: ',',
    skipEmptyLines: 'greedy',
    step: (row) => {
      // cursor is the offset just past this record; the record starts after the previous one
      let start = previousEnd
      while (start < text.length && (text[start] === '\n' || text[start] === '\r')) start++
      if (row.errors.some((e) => e.code === 'MissingQuotes')) state.unterminated ??= lineAt(start)
      out.push({ line: lineAt(start), fields: row.data })
      previousEnd = row.meta.cursor
    },
  })
  if (state.unterminated !== null)
    throw new ReviewFileError(
      `not valid CSV: a quoted field opened on line ${state.unterminated} is never closed`,
    )
  return out
}

function readCsvRows(content: string): ImportRow[] {
  const [head, ...body] = parseCsvText(content)
  if (!head) throw new ReviewFileError('the file is empty (expected a header row and reviews)')
  checkColumns(head.fields, 'header')
  return body.map(({ line, fields }) => {
    const data: Record<string, unknown> = {}
    if (fields.length !== head.fields.length)
      data.__columns = `expected ${head.fields.length} fields, got ${fields.length}`
    head.fields.forEach((name, i) => {
      const c = COLUMN_ALIASES[normKey(name)]
      if (c) data[c] = fields[i]
    })
    return { location: `line ${line}`, data }
  })
}

function readJsonRows(content: string): ImportRow[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(content.replace(/^\uFEFF/, ''))
  } catch (err) {
    throw new ReviewFileError(`not valid JSON: ${err instanceof Error ? err.message : String(err)}`)
  }
  const list = Array.isArray(parsed)
    ? parsed
    : parsed !== null &&
        typeof parsed === 'object' &&
        Array.isArray((parsed as { reviews?: unknown }).reviews)
      ? (parsed as { reviews: unknown[] }).reviews
      : null
  if (!list) throw new ReviewFileError('JSON must be an array of reviews or {"reviews": [...]}')
  return list.map((item, i) => {
    const location = `index ${i}`
    if (item === null || typeof item !== 'object' || Array.isArray(item))
      return { location, data: { __columns: 'expected an object' } }
    const { data, unknown } = canonical(item as Record<string, unknown>)
    if (unknown.length)
      data.__columns = `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => JSON.stringify(u)).join(', ')}`
    return { location, data }
  })
}

export interface RowError {
  location: string
  message: string
}

export interface ImportOptions {
  now: number
  today: string
  /** namespace of the rows' ids (the platform or file they came from) */
  source: string
  /** import the valid rows even when some fail (default: nothing is written if any row fails) */
  skipInvalid?: boolean
  /** validate only */
  dryRun?: boolean
  /** returns an error message when a USDOT is unknown (checked per row), or null */
  checkDot?: (dot: number) => string | null
}

export interface ImportResult {
  rows: number
  valid: number
  inserted: number
  updated: number
  unchanged: number
  failed: RowError[]
  /** whether anything was written */
  written: boolean
}

/** Stable id of a row without one: the same review imported twice is stored once. */
export function contentId(r: ReviewInput): string {
  const key = JSON.stringify([
    r.dot,
    r.stars,
    r.date ?? null,
    r.experience_type,
    r.title ?? null,
    r.text ?? null,
    r.author ?? null,
  ])
  return `sha256:${createHash('sha256').update(key).digest('hex').slice(0, 32)}`
}

/**
 * Validates every row, then writes the valid ones in one transaction — or none when any row
 * failed, unless `skipInvalid`. Idempotent: rows are keyed by (source, id), and a row without an
 * id is keyed by a hash of its content, so re-running a corrected file never duplicates reviews.
 */
export function importReviews(
  db: Sqlite,
  rows: readonly ImportRow[],
  opts: ImportOptions,
): ImportResult {
  const schema = reviewInput(opts.today, { requireDate: true })
  const failed: RowError[] = []
  const valid: KeyedReview[] = []
  const seen = new Map<string, string>()
  for (const { location, data } of rows) {
    if (typeof data.__columns === 'string') {
      failed.push({ location, message: data.__columns })
      continue
    }
    const r = schema.safeParse(data)
    if (!r.success) {
      failed.push({ location, message: issuesText(r.error) })
      continue
    }
    const dotError = opts.checkDot?.(r.data.dot) ?? null
    if (dotError) {
      failed.push({ location, message: dotError })
      continue
    }
    const externalId = r.data.id ?? contentId(r.data)
    const first = seen.get(externalId)
    if (first && r.data.id !== undefined) {
      failed.push({
        location,
        message: `id ${JSON.stringify(r.data.id)} is already used at ${first}`,
      })
      continue
    }
    seen.set(externalId, location)
    valid.push({ row: r.data, externalId })
  }
  const result: ImportResult = {
    rows: rows.length,
    valid: valid.length,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    failed,
    written: false,
  }
  if (opts.dryRun || (failed.length > 0 && !opts.skipInvalid) || valid.length === 0) return result
  Object.assign(result, writeKeyedReviews(db, valid, opts))
  result.written = true
  return result
}

/** csv or json, from the file name or (for stdin) the first character. */
export function detectFormat(name: string, content: string): 'csv' | 'json' {
  if (/\.json$/i.test(name)) return 'json'
  if (/\.csv$/i.test(name)) return 'csv'
  return /^\uFEFF?\s*[[{]/.test(content) ? 'json' : 'csv'
}
