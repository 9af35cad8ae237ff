/**
 * Verified reviews and external review aggregates stored in app.db (the record's `reviews` block).
 * Admins add them with the CLI; the record reads one aggregate per lookup, and the
 * Trust Score uses the summary. The file import (`import.ts`) validates rows with the schemas here
 * and writes through `writeKeyedReviews`.
 */
import { z } from 'zod'
import type { ReviewsJson } from './schema.ts'
import { cached, type Sqlite } from '../db/open.ts'
import { includesDot, sortedDots, type SortedDots } from '../db/dot-set.ts'
import * as N from '../ingest/normalize.ts'

export const EXPERIENCE_TYPES = [
  'payment',
  'dispatch',
  'delivery',
  'communication',
  'claims',
  'other',
] as const

/** Newest verified reviews shown in a record; the summary covers all of them. */
export const RECORD_REVIEWS_LIMIT = 20

const LIMITS = { title: 200, text: 5000, author: 100, source: 100, externalId: 200 } as const

// ---------------------------------------------------------------------------------------------
// Validation (shared by `reviews add`, `reviews import` and `reviews external set`)

const blank = (v: unknown) =>
  v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v

/** A USDOT number: digits (leading zeros and a USDOT prefix allowed) or a number, 1–99,999,999. */
export const Usdot = z.preprocess(
  blank,
  z.union([z.string(), z.number()], { error: 'USDOT number is required' }).transform((v, ctx) => {
    const n = typeof v === 'number' ? (Number.isInteger(v) ? v : null) : N.usdot(v)
    if (n === null || n < 1 || n > 99_999_999) {
      ctx.addIssue({ code: 'custom', message: `invalid USDOT number ${JSON.stringify(v)}` })
      return z.NEVER
    }
    return n
  }),
)

const Stars = z.preprocess(
  blank,
  z
    .union([z.string(), z.number()], { error: 'stars is required (a whole number from 1 to 5)' })
    .transform((v, ctx) => {
      const n = typeof v === 'number' ? v : /^\s*\d+\s*$/.test(v) ? Number(v) : NaN
      if (!Number.isInteger(n) || n < 1 || n > 5) {
        ctx.addIssue({
          code: 'custom',
          message: `stars must be a whole number from 1 to 5, got ${JSON.stringify(v)}`,
        })
        return z.NEVER
      }
      return n
    }),
)

const Experience = z.preprocess(
  (v) =>
    typeof v === 'string' ? (blank(v) === undefined ? undefined : v.trim().toLowerCase()) : v,
  z.enum(EXPERIENCE_TYPES, {
    error: (iss) =>
      iss.input === undefined
        ? `experience type is required (one of ${EXPERIENCE_TYPES.join(', ')})`
        : `experience type must be one of ${EXPERIENCE_TYPES.join(', ')}, got ${JSON.stringify(iss.input)}`,
  }),
)

const optText = (max: number, what: string) =>
  z.preprocess(
    blank,
    z
      .string({ error: `${what} must be text` })
      .transform((s) => s.trim())
      .refine((s) => s.length <= max, `${what} must be at most ${max} characters`)
      .optional(),
  )

/** A calendar date `YYYY-MM-DD`, not after `today` and not before 1970. */
const pastDate = (today: string, what: string) =>
  z
    .string({ error: `${what} must be a date YYYY-MM-DD` })
    .trim()
    .refine((s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && N.date(s) === s, {
      error: (iss) => `${what} must be a valid date YYYY-MM-DD, got ${JSON.stringify(iss.input)}`,
      abort: true,
    })
    .refine((s) => s >= '1970-01-01', `${what} must not be before 1970`)
    .refine((s) => s <= today, `${what} must not be in the future (today is ${today})`)

/** One verified review as an admin enters it. `date` defaults to today when `requireDate` is off. */
export const reviewInput = (today: string, opts: { requireDate?: boolean } = {}) =>
  z.object({
    dot: Usdot,
    stars: Stars,
    experience_type: Experience,
    title: optText(LIMITS.title, 'title'),
    text: optText(LIMITS.text, 'text'),
    author: optText(LIMITS.author, 'author'),
    date: opts.requireDate
      ? z.preprocess(blank, pastDate(today, 'date').optional()).refine((d) => d !== undefined, {
          message: 'date is required (YYYY-MM-DD)',
        })
      : z.preprocess(blank, pastDate(today, 'date').optional()),
    id: optText(LIMITS.externalId, 'id'),
  })
export type ReviewInput = z.infer<ReturnType<typeof reviewInput>>

/** An external platform's aggregate for one company (`reviews external set`). */
export const externalInput = (today: string) =>
  z.object({
    dot: Usdot,
    source: z.preprocess(
      blank,
      z
        .string({ error: 'source is required' })
        .trim()
        .max(LIMITS.source, `source must be at most ${LIMITS.source} characters`),
    ),
    rating: z.preprocess(
      blank,
      z.coerce
        .number({ error: 'rating must be a number from 0 to 5' })
        .min(0, 'rating must be from 0 to 5')
        .max(5, 'rating must be from 0 to 5'),
    ),
    total: z.preprocess(
      blank,
      z.coerce
        .number({ error: 'total must be a whole number' })
        .int('total must be a whole number')
        .min(0, 'total must not be negative'),
    ),
    latest_date: z.preprocess(blank, pastDate(today, 'latest review date').optional()),
    latest_text: optText(LIMITS.text, 'latest review text'),
  })
export type ExternalInput = z.infer<ReturnType<typeof externalInput>>

/** zod issues as one line: `stars: must be …; date: …`. */
export function issuesText(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const path = i.path.map(String).join('.')
      return path && !i.message.startsWith(path.replaceAll('_', ' '))
        ? `${path}: ${i.message}`
        : i.message
    })
    .join('; ')
}

// ---------------------------------------------------------------------------------------------
// Storage

export interface StoredReview {
  id: number
  dotNumber: number
  stars: number
  title: string | null
  text: string | null
  date: string
  experienceType: string
  author: string | null
  source: string
  externalId: string | null
  createdAt: number
}

export interface ExternalAggregate {
  dotNumber: number
  source: string
  overallRating: number | null
  totalReviews: number
  latestReviewDate: string | null
  latestReviewText: string | null
  updatedAt: number
}

interface ReviewRow {
  id: number
  dot_number: number
  stars: number
  title: string | null
  body: string | null
  review_date: string
  experience_type: string
  author: string | null
  source: string
  external_id: string | null
  created_at: number
}
interface ExternalRow {
  dot_number: number
  source: string
  overall_rating: number | null
  total_reviews: number
  latest_review_date: string | null
  latest_review_text: string | null
  updated_at: number
}

const REVIEW_COLS = `id, dot_number, stars, title, body, review_date, experience_type, author,
  source, external_id, created_at`
const EXTERNAL_COLS = `dot_number, source, overall_rating, total_reviews, latest_review_date,
  latest_review_text, updated_at`

const EPOCH_SQL = 'SELECT epoch FROM reviews_epoch WHERE id = 1'

/** The module's statements, each prepared once per connection (db/open.ts `cached`). */
function stmts(db: Sqlite) {
  return {
    // one probe for the common case (no reviews at all): both counts in one statement
    get summary() {
      return cached(
        db,
        `SELECT count(*) AS n, avg(stars) AS avg,
         (SELECT count(*) FROM external_reviews WHERE dot_number = @dot) AS ext
       FROM reviews WHERE dot_number = @dot AND verified = 1`,
      )
    },
    get reviewed() {
      return cached(
        db,
        `SELECT dot_number FROM reviews WHERE verified = 1
         UNION SELECT dot_number FROM external_reviews ORDER BY dot_number`,
      ).pluck()
    },
    get newest() {
      return cached(
        db,
        `SELECT stars, title, body, review_date, experience_type, author FROM reviews
       WHERE dot_number = ? AND verified = 1 ORDER BY review_date DESC, id DESC LIMIT ?`,
      )
    },
    get external() {
      return cached(
        db,
        `SELECT source, overall_rating, total_reviews, latest_review_date, latest_review_text
       FROM external_reviews WHERE dot_number = ? ORDER BY source`,
      )
    },
    get insert() {
      return cached(
        db,
        `INSERT INTO reviews (dot_number, stars, title, body, review_date, experience_type, author,
         verified, source, external_id, created_at)
       VALUES (@dot, @stars, @title, @text, @date, @experience, @author, 1, @source, @externalId, @now)
       RETURNING ${REVIEW_COLS}`,
      )
    },
    get byExternal() {
      return cached(db, `SELECT ${REVIEW_COLS} FROM reviews WHERE source = ? AND external_id = ?`)
    },
    get update() {
      return cached(
        db,
        `UPDATE reviews SET dot_number = @dot, stars = @stars, title = @title, body = @text,
         review_date = @date, experience_type = @experience, author = @author
       WHERE id = @id`,
      )
    },
    get list() {
      return cached(
        db,
        `SELECT ${REVIEW_COLS} FROM reviews WHERE dot_number = ? ORDER BY review_date DESC, id DESC`,
      )
    },
    get remove() {
      return cached(db, `DELETE FROM reviews WHERE id = ? RETURNING ${REVIEW_COLS}`)
    },
    get upsertExternal() {
      return cached(
        db,
        `INSERT INTO external_reviews (dot_number, source, overall_rating, total_reviews,
         latest_review_date, latest_review_text, updated_at)
       VALUES (@dot, @source, @rating, @total, @latestDate, @latestText, @now)
       ON CONFLICT (dot_number, source) DO UPDATE SET overall_rating = excluded.overall_rating,
         total_reviews = excluded.total_reviews, latest_review_date = excluded.latest_review_date,
         latest_review_text = excluded.latest_review_text, updated_at = excluded.updated_at
       RETURNING ${EXTERNAL_COLS}`,
      )
    },
    get listExternal() {
      return cached(
        db,
        `SELECT ${EXTERNAL_COLS} FROM external_reviews WHERE dot_number = ? ORDER BY source`,
      )
    },
    get removeExternal() {
      return cached(
        db,
        `DELETE FROM external_reviews WHERE dot_number = ? AND source = ? RETURNING ${EXTERNAL_COLS}`,
      )
    },
  }
}

const toReview = (r: ReviewRow): StoredReview => ({
  id: r.id,
  dotNumber: r.dot_number,
  stars: r.stars,
  title: r.title,
  text: r.body,
  date: r.review_date,
  experienceType: r.experience_type,
  author: r.author,
  source: r.source,
  externalId: r.external_id,
  createdAt: r.created_at,
})

const toExternal = (r: ExternalRow): ExternalAggregate => ({
  dotNumber: r.dot_number,
  source: r.source,
  overallRating: r.overall_rating,
  totalReviews: r.total_reviews,
  latestReviewDate: r.latest_review_date,
  latestReviewText: r.latest_review_text,
  updatedAt: r.updated_at,
})

/** The USDOTs with any verified review or external aggregate, and the epoch they were read at. */
export interface ReviewedDots {
  readonly epoch: number
  readonly dots: SortedDots
}

/** The list each connection last read. */
const heldReviewed = new WeakMap<Sqlite, ReviewedDots>()

/**
 * The USDOTs with any verified review or external aggregate, as of now: the connection's list,
 * read again whenever `reviews_epoch` (bumped by every write to either table, from any process)
 * has moved. The epoch is read before the list, so a write between the two reads makes the next
 * call read the list again: a list never claims an epoch newer than itself. A caller that reads
 * many records at one instant (a batch) takes it once and passes it to `getReviewsBlock`.
 */
export function reviewedDots(db: Sqlite): ReviewedDots {
  // read on every lookup: the epoch's statement alone, not the module's statement set
  const epoch = cached(db, EPOCH_SQL).pluck().get() as number
  let held = heldReviewed.get(db)
  if (held?.epoch !== epoch) {
    held = { epoch, dots: sortedDots(stmts(db).reviewed.all() as number[]) }
    heldReviewed.set(db, held)
  }
  return held
}

/**
 * The record's `reviews` block: the newest verified reviews (at most RECORD_REVIEWS_LIMIT), a
 * summary over all of them, and every external aggregate. No read of the reviews for a company
 * without any (`reviewedDots`: most of them), else two or three indexed reads. `reviewed`:
 * the list as the caller took it (a batch takes it once), else it is read now.
 */
export function getReviewsBlock(
  db: Sqlite,
  dot: number,
  reviewed: ReviewedDots = reviewedDots(db),
): ReviewsJson {
  if (!includesDot(reviewed.dots, dot))
    return { verified: [], summary: { average: null, count: 0 }, external: [] }
  const s = stmts(db)
  const sum = s.summary.get({ dot }) as { n: number; avg: number | null; ext: number }
  const verified =
    sum.n === 0
      ? []
      : (
          s.newest.all(dot, RECORD_REVIEWS_LIMIT) as Pick<
            ReviewRow,
            'stars' | 'title' | 'body' | 'review_date' | 'experience_type' | 'author'
          >[]
        ).map((r) => ({
          stars: r.stars,
          title: r.title,
          text: r.body,
          date: r.review_date,
          experience_type: r.experience_type,
          author: r.author,
        }))
  const external = (
    (sum.ext === 0 ? [] : s.external.all(dot)) as Omit<ExternalRow, 'dot_number' | 'updated_at'>[]
  ).map((r) => ({
    source: r.source,
    overall_rating: r.overall_rating,
    total_reviews: r.total_reviews,
    latest_review:
      r.latest_review_date === null && r.latest_review_text === null
        ? null
        : { date: r.latest_review_date, text: r.latest_review_text },
  }))
  return {
    verified,
    summary: {
      average: sum.n === 0 || sum.avg === null ? null : Math.round(sum.avg * 100) / 100,
      count: sum.n,
    },
    external,
  }
}

const bind = (r: ReviewInput, today: string) => ({
  dot: r.dot,
  stars: r.stars,
  title: r.title ?? null,
  text: r.text ?? null,
  date: r.date ?? today,
  experience: r.experience_type,
  author: r.author ?? null,
})

/** Stores one verified review entered by an admin (source `cli`). */
export function addReview(
  db: Sqlite,
  input: ReviewInput,
  at: { now: number; today: string },
  source = 'cli',
): StoredReview {
  const row = stmts(db).insert.get({
    ...bind(input, at.today),
    source,
    externalId: input.id ?? null,
    now: at.now,
  }) as ReviewRow
  return toReview(row)
}

/** All reviews of a company, newest first (with ids, for `reviews remove`). */
export function listReviews(db: Sqlite, dot: number): StoredReview[] {
  return (stmts(db).list.all(dot) as ReviewRow[]).map(toReview)
}

/** Deletes one review; returns it, or null when there is no such id. */
export function removeReview(db: Sqlite, id: number): StoredReview | null {
  const row = stmts(db).remove.get(id) as ReviewRow | undefined
  return row ? toReview(row) : null
}

/** Creates or replaces the aggregate of one external source for a company (idempotent). */
export function setExternalReviews(
  db: Sqlite,
  input: ExternalInput,
  now: number,
): ExternalAggregate {
  const row = stmts(db).upsertExternal.get({
    dot: input.dot,
    source: input.source,
    rating: input.rating,
    total: input.total,
    latestDate: input.latest_date ?? null,
    latestText: input.latest_text ?? null,
    now,
  }) as ExternalRow
  return toExternal(row)
}

export function listExternalReviews(db: Sqlite, dot: number): ExternalAggregate[] {
  return (stmts(db).listExternal.all(dot) as ExternalRow[]).map(toExternal)
}

export function removeExternalReviews(
  db: Sqlite,
  dot: number,
  source: string,
): ExternalAggregate | null {
  const row = stmts(db).removeExternal.get(dot, source) as ExternalRow | undefined
  return row ? toExternal(row) : null
}

/** A review keyed by (source, external id): the unit `reviews import` writes. */
export interface KeyedReview {
  row: ReviewInput
  externalId: string
}

/**
 * Writes reviews keyed by (source, external id) in one transaction: a new key is inserted, a key
 * whose review changed is updated in place, an identical one is left alone.
 */
export function writeKeyedReviews(
  db: Sqlite,
  reviews: readonly KeyedReview[],
  at: { now: number; today: string; source: string },
): { inserted: number; updated: number; unchanged: number } {
  const s = stmts(db)
  const counts = { inserted: 0, updated: 0, unchanged: 0 }
  db.transaction(() => {
    for (const { row, externalId } of reviews) {
      const b = bind(row, at.today)
      const existing = s.byExternal.get(at.source, externalId) as ReviewRow | undefined
      if (!existing) {
        s.insert.run({ ...b, source: at.source, externalId, now: at.now })
        counts.inserted++
      } else if (
        existing.dot_number === b.dot &&
        existing.stars === b.stars &&
        existing.title === b.title &&
        existing.body === b.text &&
        existing.review_date === b.date &&
        existing.experience_type === b.experience &&
        existing.author === b.author
      ) {
        counts.unchanged++
      } else {
        s.update.run({ ...b, id: existing.id })
        counts.updated++
      }
    }
  }).immediate()
  return counts
}
