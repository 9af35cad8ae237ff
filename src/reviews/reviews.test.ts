import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { emptyReviews } from '../carriers/blocks.ts'
import { ReviewsJson } from './schema.ts'
import { openAppDb } from '../db/app-db.ts'
import type { Sqlite } from '../db/open.ts'
import {
  addReview,
  externalInput,
  getReviewsBlock,
  issuesText,
  listReviews,
  RECORD_REVIEWS_LIMIT,
  removeExternalReviews,
  removeReview,
  reviewedDots,
  reviewInput,
  setExternalReviews,
} from './reviews.ts'

const TODAY = '2026-11-15'
const NOW = Date.parse('2026-11-15T12:00:00Z')
const at = { now: NOW, today: TODAY }
let db: Sqlite

beforeEach(() => {
  db = openAppDb(':memory:').sqlite
})
afterEach(() => db.close())

const add = (over: Record<string, unknown>) =>
  addReview(
    db,
    reviewInput(TODAY).parse({ dot: 1234567, stars: 5, experience_type: 'payment', ...over }),
    at,
  )

describe('the record block', () => {
  test('no reviews: the empty block', () => {
    expect(getReviewsBlock(db, 1234567)).toEqual(emptyReviews())
  })

  test('newest verified reviews first, a summary over all, external aggregates by source', () => {
    add({ stars: 5, date: '2026-01-01', title: 'Paid in 7 days', author: 'J. Doe' })
    add({ stars: 4, date: '2026-03-01', experience_type: 'dispatch', text: 'Clear loads' })
    add({ stars: 4, date: '2026-02-01' })
    add({ dot: 7654321, stars: 1 })
    setExternalReviews(
      db,
      externalInput(TODAY).parse({
        dot: 1234567,
        source: 'Google',
        rating: 4.4,
        total: 87,
        latest_date: '2026-11-01',
        latest_text: 'Great',
      }),
      NOW,
    )
    setExternalReviews(
      db,
      externalInput(TODAY).parse({ dot: 1234567, source: 'Carrier411', rating: 3.9, total: 12 }),
      NOW,
    )
    const block = getReviewsBlock(db, 1234567)
    expect(() => ReviewsJson.parse(block)).not.toThrow()
    expect(block.summary).toEqual({ average: 4.33, count: 3 })
    expect(block.verified.map((r) => r.date)).toEqual(['2026-03-01', '2026-02-01', '2026-01-01'])
    expect(block.verified[2]).toEqual({
      stars: 5,
      title: 'Paid in 7 days',
      text: null,
      date: '2026-01-01',
      experience_type: 'payment',
      author: 'J. Doe',
    })
    expect(block.external).toEqual([
      { source: 'Carrier411', overall_rating: 3.9, total_reviews: 12, latest_review: null },
      {
        source: 'Google',
        overall_rating: 4.4,
        total_reviews: 87,
        latest_review: { date: '2026-11-01', text: 'Great' },
      },
    ])
  })

  test(`at most ${RECORD_REVIEWS_LIMIT} reviews are listed; the summary counts all`, () => {
    for (let i = 1; i <= 25; i++)
      add({ stars: (i % 5) + 1, date: `2026-01-${String(i).padStart(2, '0')}` })
    const block = getReviewsBlock(db, 1234567)
    expect(block.verified).toHaveLength(RECORD_REVIEWS_LIMIT)
    expect(block.verified[0]?.date).toBe('2026-01-25')
    expect(block.summary).toEqual({ average: 3, count: 25 })
  })

  test('an external aggregate is replaced, not duplicated, and can be removed', () => {
    const input = (rating: number, total: number) =>
      externalInput(TODAY).parse({ dot: 1, source: 'Google', rating, total })
    setExternalReviews(db, input(4, 10), NOW)
    expect(setExternalReviews(db, input(4.5, 11), NOW + 1)).toMatchObject({
      overallRating: 4.5,
      totalReviews: 11,
      updatedAt: NOW + 1,
    })
    expect(getReviewsBlock(db, 1).external).toHaveLength(1)
    expect(removeExternalReviews(db, 1, 'Google')?.source).toBe('Google')
    expect(removeExternalReviews(db, 1, 'Google')).toBeNull()
    expect(getReviewsBlock(db, 1).external).toEqual([])
  })

  test('a review can be removed by id', () => {
    const r = add({})
    expect(listReviews(db, 1234567)).toHaveLength(1)
    expect(removeReview(db, r.id)?.id).toBe(r.id)
    expect(removeReview(db, r.id)).toBeNull()
    expect(getReviewsBlock(db, 1234567).summary.count).toBe(0)
  })
})

describe('validation', () => {
  const check = (over: Record<string, unknown>) => {
    const r = reviewInput(TODAY).safeParse({
      dot: '1234567',
      stars: '4',
      experience_type: 'payment',
      ...over,
    })
    return r.success ? r.data : issuesText(r.error)
  }

  test.each([
    [{ stars: '0' }, 'stars must be a whole number from 1 to 5, got "0"'],
    [{ stars: 6 }, 'stars must be a whole number from 1 to 5, got 6'],
    [{ stars: '4.5' }, 'stars must be a whole number from 1 to 5, got "4.5"'],
    [{ stars: '' }, 'stars is required (a whole number from 1 to 5)'],
    [
      { experience_type: 'billing' },
      'experience type must be one of payment, dispatch, delivery, communication, claims, other, got "billing"',
    ],
    [
      { experience_type: undefined },
      'experience type is required (one of payment, dispatch, delivery, communication, claims, other)',
    ],
    [{ date: '2026-12-01' }, 'date must not be in the future (today is 2026-11-15)'],
    [{ date: '2026-02-30' }, 'date must be a valid date YYYY-MM-DD, got "2026-02-30"'],
    [{ date: '11/01/2026' }, 'date must be a valid date YYYY-MM-DD, got "11/01/2026"'],
    [{ dot: 'abc' }, 'dot: invalid USDOT number "abc"'],
    [{ dot: '0' }, 'dot: invalid USDOT number "0"'],
    [{ dot: '' }, 'dot: USDOT number is required'],
    [{ title: 'x'.repeat(201) }, 'title must be at most 200 characters'],
    [
      { stars: 9, date: 'soon' },
      'stars must be a whole number from 1 to 5, got 9; date must be a valid date YYYY-MM-DD, got "soon"',
    ],
  ])('%j → %s', (over, message) => {
    expect(check(over)).toBe(message)
  })

  test('normalises what it accepts', () => {
    expect(
      check({
        dot: 'USDOT 00344554',
        experience_type: ' Dispatch ',
        title: '  Good  ',
        text: '',
        author: '   ',
      }),
    ).toEqual({
      dot: 344554,
      stars: 4,
      experience_type: 'dispatch',
      title: 'Good',
      text: undefined,
      author: undefined,
      date: undefined,
      id: undefined,
    })
  })

  test('external aggregates: rating 0–5, a whole non-negative total', () => {
    const e = (over: Record<string, unknown>) => {
      const r = externalInput(TODAY).safeParse({
        dot: '1',
        source: 'Google',
        rating: '4.2',
        total: '10',
        ...over,
      })
      return r.success ? r.data : issuesText(r.error)
    }
    expect(e({})).toMatchObject({ dot: 1, source: 'Google', rating: 4.2, total: 10 })
    expect(e({ rating: '7' })).toBe('rating must be from 0 to 5')
    expect(e({ total: '-1' })).toBe('total must not be negative')
    expect(e({ total: '1.5' })).toBe('total must be a whole number')
    expect(e({ source: ' ' })).toBe('source is required')
  })
})

describe('companies without reviews are answered without reading the reviews', () => {
  test('a review or aggregate written by another process shows on the next call, a removal too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cvk-reviews-epoch-'))
    const server = openAppDb(join(dir, 'app.db')).sqlite
    // the CLI: another connection to the same file
    const cli = new Database(join(dir, 'app.db'))
    try {
      // the server has read its list of reviewed USDOTs: none
      expect(getReviewsBlock(server, 1234567)).toEqual(emptyReviews())
      const input = reviewInput(TODAY).parse({ dot: 1234567, stars: 2, experience_type: 'claims' })
      const stored = addReview(cli, input, at)
      expect(getReviewsBlock(server, 1234567).summary).toEqual({ average: 2, count: 1 })
      expect(getReviewsBlock(server, 7654321)).toEqual(emptyReviews())
      setExternalReviews(
        cli,
        externalInput(TODAY).parse({ dot: 7654321, source: 'Google', rating: 4, total: 3 }),
        NOW,
      )
      expect(getReviewsBlock(server, 7654321).external).toHaveLength(1)
      removeReview(cli, stored.id)
      expect(getReviewsBlock(server, 1234567)).toEqual(emptyReviews())
      removeExternalReviews(cli, 7654321, 'Google')
      expect(getReviewsBlock(server, 7654321)).toEqual(emptyReviews())
      // a review not verified is not in the block, and does not make one
      cli
        .prepare(
          `INSERT INTO reviews (dot_number, stars, review_date, experience_type, verified, source, created_at)
           VALUES (5550001, 1, '2026-11-01', 'claims', 0, 'cli', 0)`,
        )
        .run()
      expect(getReviewsBlock(server, 5550001)).toEqual(emptyReviews())
      cli.prepare('UPDATE reviews SET verified = 1 WHERE dot_number = 5550001').run()
      expect(getReviewsBlock(server, 5550001).summary).toEqual({ average: 1, count: 1 })
    } finally {
      cli.close()
      server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a batch reads the list once: its records show the reviews as of its start, the next call the new ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cvk-reviews-snapshot-'))
    const server = openAppDb(join(dir, 'app.db')).sqlite
    const cli = new Database(join(dir, 'app.db'))
    try {
      const review = (dot: number, stars: number) =>
        addReview(cli, reviewInput(TODAY).parse({ dot, stars, experience_type: 'claims' }), at)
      review(1234567, 4)
      const batch = reviewedDots(server)
      // written by the CLI while the batch runs
      review(7654321, 1)
      review(1234567, 2)
      expect(getReviewsBlock(server, 7654321, batch)).toEqual(emptyReviews())
      // a company the list names is read in full: its reviews as they are now
      expect(getReviewsBlock(server, 1234567, batch).summary).toEqual({ average: 3, count: 2 })
      // the next batch, or a single lookup, sees the new company
      expect(getReviewsBlock(server, 7654321, reviewedDots(server)).summary).toEqual({
        average: 1,
        count: 1,
      })
      expect(getReviewsBlock(server, 7654321).summary).toEqual({ average: 1, count: 1 })
      expect(reviewedDots(server).epoch).toBeGreaterThan(batch.epoch)
    } finally {
      cli.close()
      server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
