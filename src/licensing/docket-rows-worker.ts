/**
 * Worker thread making the upper half of a licensing build's docket documents into a file of its
 * own (docket-rows.ts starts it; ingest/parts.ts runs it).
 */
import { runPart } from '../ingest/parts.ts'
import { buildDocketRowsPart } from './docket-rows.ts'

runPart(buildDocketRowsPart)
