/** app.db tables: reviews and external review links (reviews/). */
import { sql } from 'drizzle-orm'
import {
  check,
  index,
  integer,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core'
import { ts } from './columns.ts'

export const reviews = sqliteTable(
  'reviews',
  {
    id: integer().primaryKey(),
    dotNumber: integer().notNull(),
    stars: integer().notNull(),
    title: text(),
    body: text(),
    reviewDate: text().notNull(),
    experienceType: text().notNull(),
    author: text(),
    verified: integer({ mode: 'boolean' }).notNull().default(true),
    source: text().notNull(),
    externalId: text(),
    createdAt: ts().notNull(),
  },
  (t) => [
    index('reviews_dot').on(t.dotNumber),
    uniqueIndex('reviews_external').on(t.source, t.externalId),
    check('reviews_stars', sql`${t.stars} BETWEEN 1 AND 5`),
  ],
)

export const externalReviews = sqliteTable(
  'external_reviews',
  {
    id: integer().primaryKey(),
    dotNumber: integer().notNull(),
    source: text().notNull(),
    overallRating: real(),
    totalReviews: integer().notNull(),
    latestReviewDate: text(),
    latestReviewText: text(),
    updatedAt: ts().notNull(),
  },
  (t) => [uniqueIndex('external_reviews_source').on(t.dotNumber, t.source)],
)
