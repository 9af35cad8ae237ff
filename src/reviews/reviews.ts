/** Verified reviews and external aggregates stored in app.db. */
import { emptyReviews } from '../carriers/blocks.ts'
import type { ReviewsJson } from '../carriers/schema.ts'
import type { Sqlite } from '../db/open.ts'

export function getReviewsBlock(_db: Sqlite, _dot: number): ReviewsJson {
  return emptyReviews()
}
