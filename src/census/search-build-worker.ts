/**
 * Worker thread building part of the census' search tiers into a file of its own
 * (search-build.ts starts it; ingest/parts.ts runs it; buildSearchPart does the work).
 */
import { runPart } from '../ingest/parts.ts'
import { buildSearchPart } from './search-index.ts'

runPart(buildSearchPart)
