/** One page of GET /v1/search: find companies, bill the call when the page has any, shape it. */
import { z } from 'zod'
import { toMetaJson, viewDates } from '../carriers/json.ts'
import { awaitingMirror, mirrorStateMessage } from '../carriers/mirror-state.ts'
import { chargeCall } from '../keys/billing.ts'
import { MetaJson } from '../carriers/schema.ts'
import { isoDate } from '../clock.ts'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { EntityType } from '../fields.ts'
import type { Caller } from '../keys/keys.ts'
import { peekUsage, type Usage } from '../keys/usage.ts'
import {
  CompanySummaryJson,
  decodeCursor,
  DEFAULT_LIMIT,
  encodeCursor,
  searchCompanies,
  searchFingerprint,
} from './query.ts'

export const SearchResponse = z.object({
  results: z.array(CompanySummaryJson),
  next_cursor: z
    .string()
    .nullable()
    .meta({ description: 'pass as `cursor` for the next page; null on the last page' }),
  meta: MetaJson.extend({
    notice: z.string().optional().meta({
      description:
        "on a live key's page answered from the sample while the regulator's data is not mirrored yet: the companies searched for may exist",
    }),
  }),
})
export type SearchResponse = z.infer<typeof SearchResponse>

/** A validated search request (the route's query string). */
export interface SearchRequest {
  q: string
  state?: string | undefined
  country?: 'US' | 'CA' | 'MX' | undefined
  entity_type?: EntityType | undefined
  status?: 'active' | 'inactive' | undefined
  limit?: number | undefined
  cursor?: string | undefined
}

/**
 * One page of results in the caller's view; billed one call when it holds at least one result.
 * Throws 503 dataset_unavailable without a census, 400 for a stale cursor, 429 past a cap.
 */
export function searchPage(
  deps: Deps,
  caller: Caller,
  query: SearchRequest,
  requestId: string,
): { body: SearchResponse; usage: Usage; at: Date } {
  const view = deps.datasets.view(caller.mode)
  const census = view.get('census')
  if (!census) throw new AppError('dataset_unavailable')
  const at = deps.clock()
  const filters = {
    q: query.q,
    state: query.state,
    country: query.country,
    entity_type: query.entity_type,
    status: query.status,
  }
  const fingerprint = searchFingerprint(filters)
  const offset = query.cursor ? decodeCursor(query.cursor, census.versionId, fingerprint) : 0
  const limit = query.limit ?? DEFAULT_LIMIT
  const page = searchCompanies(view, { ...filters, limit, offset, today: isoDate(at) })
  const usage =
    page.results.length > 0 ? chargeCall(deps, caller, at) : peekUsage(deps.db, caller, at)
  const body: SearchResponse = {
    results: page.results,
    next_cursor:
      page.nextOffset === null
        ? null
        : encodeCursor(census.versionId, page.nextOffset, fingerprint),
    meta: {
      ...toMetaJson(viewDates(view), { usage, requestId, source: view.source }),
      ...(awaitingMirror(view, caller)
        ? { notice: `Only the sample was searched: ${mirrorStateMessage(deps, view)}` }
        : {}),
    },
  }
  return { body, usage, at }
}
