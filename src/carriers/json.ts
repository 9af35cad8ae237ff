import type { DataView } from '../db/datasets.ts'
import { DATASET_NAMES } from '../db/names.ts'
import { usageMeta } from '../keys/billing.ts'
import type { Usage } from '../keys/usage.ts'
import { importedAtOf, type CompanyRecord } from './record.ts'
import type { CarrierJson, MetaJson } from './schema.ts'
import type { CrosscheckJson } from '../crosscheck/schema.ts'

export interface MetaInput {
  usage: Usage | null
  requestId: string
  source: 'mirror' | 'sample' | 'live'
}

/** An answer's meta block: its call's usage (keys/billing.ts), source, data dates and request. */
export function toMetaJson(
  r: Pick<CompanyRecord, 'dataAsOf' | 'importedAt'>,
  m: MetaInput,
): MetaJson {
  const usage = usageMeta(m.usage)
  return {
    quota_used: usage.quota_used,
    quota_limit: usage.quota_limit,
    plan: usage.plan,
    source: m.source,
    data_as_of: r.dataAsOf,
    imported_at: r.importedAt,
    billed: usage.billed,
    request_id: m.requestId,
  }
}

/**
 * The record as the API returns it: identity keys at the top level (as in the reference's
 * example) and again in `identity`, every block present, null where nothing is on file.
 */
export function toCarrierJson(
  r: CompanyRecord,
  m: MetaInput,
  crosscheck?: CrosscheckJson,
): CarrierJson {
  return {
    dot_number: r.dot_number,
    mc_number: r.mc_number,
    legal_name: r.legal_name,
    dba_name: r.dba_name,
    entity_type: r.entity_type,
    identity: r.identity,
    contact: r.contact,
    authority: r.authority,
    insurance: r.insurance,
    fleet: r.fleet,
    safety: r.safety,
    equipment: r.equipment,
    trust: r.trust,
    reviews: r.reviews,
    ...(crosscheck ? { crosscheck } : {}),
    meta: toMetaJson(r, m),
  }
}

/**
 * The keys of a record JSON whose values come from the datasets alone (the record cache shares
 * them), in toCarrierJson's order.
 */
const DATA_KEYS = [
  'dot_number',
  'mc_number',
  'legal_name',
  'dba_name',
  'entity_type',
  'identity',
  'contact',
  'authority',
  'insurance',
  'fleet',
  'safety',
  'equipment',
] as const satisfies readonly (keyof CarrierJson)[]
type DataBlocks = Pick<CarrierJson, (typeof DATA_KEYS)[number]>
/** The data blocks of a record's dataset part too (its identity block without the history's fields). */
type DataBlocksLike = Omit<DataBlocks, 'identity'> & { identity: object }

interface DataText {
  blocks: DataBlocks
  /** the blocks serialised, without the enclosing braces */
  text: string
}

/** Serialised data blocks per `identity` object: a cached record's blocks are written once. */
const dataTexts = new WeakMap<object, DataText>()
/** Serialised Trust Scores: a cached record's score is one object while its inputs hold. */
const trustTexts = new WeakMap<object, string>()

const blocksOf = (r: DataBlocksLike) =>
  Object.fromEntries(DATA_KEYS.map((k) => [k, r[k]])) as DataBlocks

/** The memo of a record's data blocks, written again unless every block is the same object. */
function dataText(json: DataBlocks): DataText {
  const memo = dataTexts.get(json.identity)
  if (memo && DATA_KEYS.every((k) => memo.blocks[k] === json[k])) return memo
  const blocks = blocksOf(json)
  const fresh = { blocks, text: JSON.stringify(blocks).slice(1, -1) }
  dataTexts.set(json.identity, fresh)
  return fresh
}

/**
 * A record's data blocks and the rest of it as one JSON text whose start is the blocks' text as
 * `carrierJsonText` writes it: `{blocks,rest}`. Returns it with the length of the blocks' part.
 */
export function dataBlocksFirst<R extends DataBlocksLike>(r: R): { json: string; blocks: number } {
  const blocks = JSON.stringify(blocksOf(r)).slice(1, -1)
  const rest = Object.fromEntries(
    Object.entries(r).filter(([k]) => !(DATA_KEYS as readonly string[]).includes(k)),
  )
  const restText = JSON.stringify(rest).slice(1, -1)
  return { json: `{${blocks}${restText ? ',' : ''}${restText}}`, blocks: blocks.length }
}

/**
 * Parses a `dataBlocksFirst` text, remembering the blocks' text for `carrierJsonText` (a record
 * assembled in a worker thread is then serialised there only once).
 */
export function parseDataBlocksFirst<R extends DataBlocksLike>(json: string, blocks: number): R {
  const r = JSON.parse(json) as R
  dataTexts.set(r.identity, { blocks: blocksOf(r), text: json.slice(1, 1 + blocks) })
  return r
}

/**
 * `JSON.stringify(json)` for a record from toCarrierJson, with its dataset blocks (identity to
 * equipment, about 70 % of the text) serialised once per cached record instead of on every answer:
 * the blocks of a record-cache hit are the same objects, so their text is reused when every one
 * of them is. The Trust Score's text is kept per score object (getCompanyRecord reuses a cached
 * record's score while its inputs hold); reviews, cross-check and meta are serialised per call.
 */
export function carrierJsonText(json: CarrierJson): string {
  const crosscheck =
    json.crosscheck === undefined ? '' : `,"crosscheck":${JSON.stringify(json.crosscheck)}`
  return `{${recordBodyText(json)}${crosscheck},"meta":${JSON.stringify(json.meta)}}`
}

/**
 * A record's blocks as `carrierJsonText` writes them (every key but cross-check and meta, without
 * the enclosing braces), the data blocks' and the score's text kept per cached record: the body
 * of a lookup's answer (answer.ts `RecordAnswer`), to which the main thread adds the meta block.
 */
export function recordBodyText(json: Omit<CarrierJson, 'meta' | 'crosscheck'>): string {
  const data = dataText(json).text
  let trust = trustTexts.get(json.trust)
  if (trust === undefined) trustTexts.set(json.trust, (trust = JSON.stringify(json.trust)))
  return `${data},"trust":${trust},"reviews":${JSON.stringify(json.reviews)}`
}

/**
 * `recordBodyText` of a record serialised once and never again (a record worker's answer): the
 * same text, with no memo kept, since a memo per record would only add work for the collector.
 */
export function recordBodyTextOnce(json: Omit<CarrierJson, 'meta' | 'crosscheck'>): string {
  const body: Record<string, unknown> = {}
  for (const k of DATA_KEYS) body[k] = json[k]
  body.trust = json.trust
  body.reviews = json.reviews
  return JSON.stringify(body).slice(1, -1)
}

/** The JSON text of a lookup's answer from a record's `recordBodyText` and its meta block. */
export function answerText(
  body: string,
  r: Pick<CompanyRecord, 'dataAsOf' | 'importedAt'>,
  m: MetaInput,
): string {
  return `{${body},"meta":${JSON.stringify(toMetaJson(r, m))}}`
}

type ViewDates = Pick<CompanyRecord, 'dataAsOf' | 'importedAt'>

/** The data dates per view, written once (a view is rebuilt whenever a dataset changes). */
const datesByView = new WeakMap<DataView, ViewDates>()

/** The data dates of a whole view (answers that read no one record: search, equipment, batches). */
export function viewDates(view: DataView): ViewDates {
  let dates = datesByView.get(view)
  if (!dates)
    datesByView.set(
      view,
      (dates = {
        dataAsOf: Object.fromEntries(DATASET_NAMES.map((n) => [n, view.get(n)?.asOf ?? null])),
        importedAt: importedAtOf(view, DATASET_NAMES),
      }),
    )
  return dates
}
