/** The reviews block of the record: verified reviews, their summary and external aggregates. */
import { z } from 'zod'
import { date } from '../fields.ts'

export const ReviewJson = z.object({
  stars: z.number().int().min(1).max(5),
  title: z.string().nullable(),
  text: z.string().nullable(),
  date: z.string(),
  experience_type: z.string(),
  author: z.string().nullable(),
})
export const ExternalReviewJson = z.object({
  source: z.string(),
  overall_rating: z.number().nullable(),
  total_reviews: z.number().int(),
  latest_review: z.object({ date: date, text: z.string().nullable() }).nullable(),
})
export const ReviewsJson = z.object({
  verified: z.array(ReviewJson),
  summary: z.object({ average: z.number().nullable(), count: z.number().int() }),
  external: z.array(ExternalReviewJson),
})
export type ReviewsJson = z.infer<typeof ReviewsJson>
