import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { openAppDb } from '../db/app-db.ts'
import type { Sqlite } from '../db/open.ts'
import {
  importReviews,
  parseCsvText,
  readReviewsFile,
  ReviewFileError,
  type ImportOptions,
} from './import.ts'
import { listReviews } from './reviews.ts'

const TODAY = '2026-11-15'
const NOW = Date.parse('2026-11-15T12:00:00Z')
let db: Sqlite

beforeEach(() => {
  db = openAppDb(':memory:').sqlite
})
afterEach(() => db.close())

const opts = (over: Partial<ImportOptions> = {}): ImportOptions => ({
  now: NOW,
  today: TODAY,
  source: 'import',
  ...over,
})

describe('reading files', () => {
  test('CSV: header by name in any order and case, quotes, commas and line breaks in fields', () => {
    const csv =
      '\uFEFFStars,USDOT,Experience,Date,Title,Text\r\n5,1234567,payment,2026-01-02,"Fast, fair","line one\r\nline two"\r\n\r\n4,7654321,delivery,2026-01-03,,"say ""hi"""\r\n'
    expect(readReviewsFile(csv, 'csv')).toEqual([
      {
        location: 'line 2',
        data: {
          stars: '5',
          dot: '1234567',
          experience_type: 'payment',
          date: '2026-01-02',
          title: 'Fast, fair',
          text: 'line one\r\nline two',
        },
      },
      {
        location: 'line 5',
        data: {
          stars: '4',
          dot: '7654321',
          experience_type: 'delivery',
          date: '2026-01-03',
          title: '',
          text: 'say "hi"',
        },
      },
    ])
  })

  test('CSV: file-level problems are one error, not per-row noise', () => {
    const err = (s: string) => {
      try {
        readReviewsFile(s, 'csv')
        return null
      } catch (e) {
        expect(e).toBeInstanceOf(ReviewFileError)
        return (e as Error).message
      }
    }
    expect(err('')).toBe('the file is empty (expected a header row and reviews)')
    expect(err('dot,stars,experiance,date\n')).toBe(
      'header: unknown column "experiance"; expected dot, stars, experience_type, title, text, date, author, id',
    )
    expect(err('dot,stars,date\n')).toBe('header: missing column experience_type')
    expect(err('dot,usdot,stars,experience,date\n')).toBe('header: column given twice: usdot')
    expect(err('dot,stars,experience,date\n1,5,payment,"2026-01-01\n')).toBe(
      'not valid CSV: a quoted field opened on line 2 is never closed',
    )
  })

  test('CSV: a blank header cell (a trailing comma) is ignored', () => {
    expect(readReviewsFile('dot,stars,experience,date,\n1,5,payment,2026-01-01,\n', 'csv')).toEqual(
      [
        {
          location: 'line 2',
          data: { dot: '1', stars: '5', experience_type: 'payment', date: '2026-01-01' },
        },
      ],
    )
  })

  test('CSV: a row with the wrong number of fields is a row error', () => {
    const rows = readReviewsFile('dot,stars,experience,date\n1,5,payment\n', 'csv')
    expect(importReviews(db, rows, opts()).failed).toEqual([
      { location: 'line 2', message: 'expected 4 fields, got 3' },
    ])
  })

  test('JSON: an array or {"reviews": [...]}, with the same field names', () => {
    const item = { dot_number: 1, stars: 5, experience_type: 'claims', date: '2026-01-01' }
    expect(readReviewsFile(JSON.stringify([item]), 'json')).toEqual([
      {
        location: 'index 0',
        data: { dot: 1, stars: 5, experience_type: 'claims', date: '2026-01-01' },
      },
    ])
    expect(
      readReviewsFile(
        JSON.stringify({ reviews: [item, 'x', { ...item, colour: 'red' }] }),
        'json',
      ).map((r) => r.data.__columns),
    ).toEqual([undefined, 'expected an object', 'unknown field "colour"'])
    expect(() => readReviewsFile('{"reviews": 1}', 'json')).toThrow(
      'JSON must be an array of reviews or {"reviews": [...]}',
    )
    expect(() => readReviewsFile('[', 'json')).toThrow(/^not valid JSON/)
  })

  test('parseCsvText keeps the start line of each record', () => {
    expect(parseCsvText('a,b\n"x\ny",z\nlast').map((r) => r.line)).toEqual([1, 2, 4])
  })
})

describe('importReviews', () => {
  const csv = [
    'dot,stars,experience_type,date,title,text,author,id',
    '1234567,5,payment,2026-01-02,Paid fast,,A. Shipper,',
    '1234567,9,payment,2026-01-03,,,,',
    '7654321,4,dispatch,2027-01-01,,,,',
    '7654321,4,dispatch,2026-05-01,,,,ext-1',
    '',
  ].join('\n')

  test('all or nothing: one bad row and nothing is written, every bad row reported with its line', () => {
    const r = importReviews(db, readReviewsFile(csv, 'csv'), opts())
    expect(r).toMatchObject({ rows: 4, valid: 2, inserted: 0, written: false })
    expect(r.failed).toEqual([
      { location: 'line 3', message: 'stars must be a whole number from 1 to 5, got "9"' },
      { location: 'line 4', message: 'date must not be in the future (today is 2026-11-15)' },
    ])
    expect(listReviews(db, 1234567)).toEqual([])
  })

  test('--skip-invalid writes the valid rows; re-running never duplicates', () => {
    const rows = readReviewsFile(csv, 'csv')
    expect(importReviews(db, rows, opts({ skipInvalid: true }))).toMatchObject({
      inserted: 2,
      updated: 0,
      unchanged: 0,
      written: true,
    })
    expect(importReviews(db, rows, opts({ skipInvalid: true }))).toMatchObject({
      inserted: 0,
      unchanged: 2,
    })
    expect(listReviews(db, 1234567)).toHaveLength(1)
    expect(listReviews(db, 7654321)[0]).toMatchObject({
      source: 'import',
      externalId: 'ext-1',
      stars: 4,
    })
    // a row with an id is updated in place when it changes
    const changed = readReviewsFile(
      'dot,stars,experience_type,date,id\n7654321,2,dispatch,2026-05-01,ext-1\n',
      'csv',
    )
    expect(importReviews(db, changed, opts())).toMatchObject({ inserted: 0, updated: 1 })
    expect(listReviews(db, 7654321).map((x) => x.stars)).toEqual([2])
    // the same id from another source is another review
    expect(importReviews(db, changed, opts({ source: 'other' }))).toMatchObject({ inserted: 1 })
  })

  test('dry run validates only; the date is required; ids are unique within a file', () => {
    const good = readReviewsFile('dot,stars,experience_type,date\n1,5,payment,2026-01-01\n', 'csv')
    expect(importReviews(db, good, opts({ dryRun: true }))).toMatchObject({
      valid: 1,
      written: false,
      failed: [],
    })
    expect(listReviews(db, 1)).toEqual([])
    const noDate = readReviewsFile('dot,stars,experience_type,date\n1,5,payment,\n', 'csv')
    expect(importReviews(db, noDate, opts()).failed).toEqual([
      { location: 'line 2', message: 'date is required (YYYY-MM-DD)' },
    ])
    const dupes = readReviewsFile(
      'dot,stars,experience_type,date,id\n1,5,payment,2026-01-01,a\n2,4,payment,2026-01-01,a\n',
      'csv',
    )
    expect(importReviews(db, dupes, opts()).failed).toEqual([
      { location: 'line 3', message: 'id "a" is already used at line 2' },
    ])
  })

  test('unknown USDOT numbers are row errors when a check is given', () => {
    const rows = readReviewsFile(
      'dot,stars,experience_type,date\n1,5,payment,2026-01-01\n2,5,payment,2026-01-01\n',
      'csv',
    )
    const r = importReviews(
      db,
      rows,
      opts({ checkDot: (dot) => (dot === 2 ? 'USDOT 2 is unknown' : null) }),
    )
    expect(r.failed).toEqual([{ location: 'line 3', message: 'USDOT 2 is unknown' }])
  })
})
