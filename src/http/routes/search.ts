/** GET /v1/search?q= — find a company by name, USDOT or docket (the query is search/page.ts). */
import { Hono } from 'hono'
import { z } from 'zod'
import { EntityType } from '../../fields.ts'
import { rateLimitHeaders } from '../../keys/billing.ts'
import { SearchResponse, searchPage } from '../../search/page.ts'
import { CANDIDATES, DEFAULT_LIMIT, FIRST_BLOCK, MAX_LIMIT } from '../../search/query.ts'
import type { AppEnv } from '../env.ts'
import { publishAs, type RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { honoPath, type Endpoint } from './endpoint.ts'

const LIMIT_TEXT = `results per page, 1–${MAX_LIMIT} (default ${DEFAULT_LIMIT})`

export const SearchQuery = z.strictObject({
  q: z
    .string({ error: 'q is required' })
    .trim()
    .min(2, 'q must be at least 2 characters')
    .max(100, 'q must be at most 100 characters')
    .meta({
      description:
        'A legal or DBA name (accent-insensitive; the last word is a prefix, for type-ahead), a USDOT number (`344554`, `USDOT 344554`), a docket (`MC-421775`, `FF-1234`) or a USDOT-suffix identifier (`1234567-B`). Bare digits are tried as a USDOT, an MC docket and a name.',
      example: 'acme truck',
    }),
  state: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'state must be a 2-letter code')
    .transform((s) => s.toUpperCase())
    .optional()
    .meta({ description: 'physical-address state or province, 2 letters (TX, ON)' }),
  country: z
    .enum(['US', 'CA', 'MX'], { error: 'country must be US, CA or MX' })
    .optional()
    .meta({ description: 'physical-address country' }),
  entity_type: EntityType.optional().meta({
    description:
      'the entity type of the summary: for name matches the one the census proves (carrier, forwarder or private; `broker` matches only exact USDOT or docket matches, whose summary comes from the record)',
  }),
  status: z
    .enum(['active', 'inactive'], { error: 'status must be active or inactive' })
    .optional()
    .meta({ description: 'USDOT status' }),
  // published as the integer it is (a query string is text; the regex makes "1e1" a 400)
  limit: publishAs(
    z
      .string()
      .regex(/^\d{1,3}$/, `limit must be a whole number from 1 to ${MAX_LIMIT}`)
      .transform(Number)
      .pipe(
        z
          .number()
          .int()
          .min(1, 'limit must be at least 1')
          .max(MAX_LIMIT, `limit must be at most ${MAX_LIMIT}`),
      )
      .optional()
      .meta({ description: LIMIT_TEXT }),
    z.int().min(1).max(MAX_LIMIT).optional().meta({ description: LIMIT_TEXT }),
  ),
  cursor: z
    .string()
    .max(200)
    .optional()
    .meta({ description: 'next_cursor of the previous page (same q and filters)' }),
})
export type SearchQuery = z.infer<typeof SearchQuery>

const doc: RouteDoc = {
  method: 'get',
  path: '/v1/search',
  operationId: 'search',
  summary: 'Find a company by name, MC or DOT',
  description: `Full-text search (SQLite FTS5) over legal and DBA names, accent- and case-insensitive, with the last word as a prefix for type-ahead; user text is always escaped, never FTS syntax. An exact USDOT or docket in \`q\` ranks that company first (\`match: dot\` / \`docket\`). Name matches (\`match: name\`) are ranked by relevance (exact name, then names starting with \`q\`, then a word starting with \`q\`; active before inactive). Work is bounded however common the words: the first pages rank the names that start with \`q\` and the first ${FIRST_BLOCK} matches in static order (active docket holders, then other active companies, then inactive ones); a page past them ranks the next matches, up to ${CANDIDATES}. Every filter (\`state\`, \`country\`, \`entity_type\`, \`status\`) is applied inside the index, so pages are full. Name-match summaries come from the census alone, precomputed when the census is built: \`docket_numbers\` and \`mc_number\` from its DOCKET columns, \`entity_type\` as the census proves it (carrier, forwarder, private or null, never broker: only licensing data shows a broker), so they can differ from the full record; exact USDOT and docket matches are summarised as their record. Fetch \`/v1/carrier/{dot}\` for the full record. Page with \`next_cursor\` (about 1,000 results deep); a cursor from before a data update is a 400.`,
  tags: ['search'],
  auth: true,
  billing: 'one call when the page has at least one result; an empty result is not billed.',
  query: SearchQuery,
  responses: {
    200: {
      description: 'One page of summaries',
      schema: SearchResponse,
      name: 'SearchResponse',
      rateLimited: true,
    },
  },
  errors: [
    'invalid_request',
    'unauthorized',
    'payment_required',
    'quota_exceeded',
    'dataset_unavailable',
    'storage_unavailable',
  ],
}

export const searchEndpoint: Endpoint = {
  docs: [doc],
  routes: (deps) =>
    new Hono<AppEnv>().get(honoPath(doc), (c) => {
      const query = parseOr(SearchQuery, c.req.query(), 'invalid_request')
      const { body, usage, at } = searchPage(deps, c.get('caller'), query, c.get('requestId'))
      return c.json(body, 200, rateLimitHeaders(usage, at))
    }),
}
