/**
 * Worker thread building one part of the census build in a file of its own: some of the search
 * tiers (search-index.ts buildSearchPart) or the officers' part of
 * the link index (links-build.ts buildOfficerPart).
 * search-build.ts starts it; ingest/parts.ts runs it.
 */
import { runPart } from '../ingest/parts.ts'
import { buildOfficerPart, type OfficerPartTask } from './links-build.ts'
import { buildSearchPart, type SearchPartTask } from './search-index.ts'
import type { PartJob } from '../ingest/parts.ts'

runPart((job: PartJob<SearchPartTask | OfficerPartTask>, db, stop) =>
  'officers' in job.task
    ? buildOfficerPart(job as PartJob<OfficerPartTask>, db, stop)
    : buildSearchPart(job as PartJob<SearchPartTask>, db, stop),
)
