/**
 * Worker thread building one part of the census build in a file of its own: some of the search
 * tiers (search-index.ts buildSearchPart) or the link tables (links-build.ts buildLinkPart).
 * search-build.ts starts it; ingest/parts.ts runs it.
 */
import { runPart } from '../ingest/parts.ts'
import { buildLinkPart, type LinkPartTask } from './links-build.ts'
import { buildSearchPart, type SearchPartTask } from './search-index.ts'
import type { PartJob } from '../ingest/parts.ts'

runPart((job: PartJob<SearchPartTask | LinkPartTask>, db, stop) =>
  'links' in job.task
    ? buildLinkPart(job as PartJob<LinkPartTask>, db, stop)
    : buildSearchPart(job as PartJob<SearchPartTask>, db, stop),
)
