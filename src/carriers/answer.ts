/**
 * A lookup's or a batch item's record as the text of its answer (issue 17): a record not cached is
 * assembled whole by a record worker, reviews and Trust Score included, and reaches the main
 * thread as text, which the main thread neither parses nor serialises again: it adds the meta
 * block (json.ts `answerText`).
 */
import type { DataView } from '../db/datasets.ts'
import { AppError } from '../errors.ts'
import { toBondJson } from './bond.ts'
import { dataReasons } from './data-check.ts'
import { recordBodyText, recordBodyTextOnce } from './json.ts'
import { missKept, peekPerView } from './record-cache.ts'
import {
  cacheKey,
  completeRecord,
  loadCompanyRecord,
  type CompanyRecord,
  type RecordData,
  type RecordDataDeps,
  type RecordDataReader,
  type RecordDeps,
} from './record.ts'

/**
 * A lookup's answer but its meta block: the record's text (json.ts `recordBodyText`) and what the
 * meta block reads of it. A record worker sends this for a record the cache does not keep, so
 * the main thread neither parses nor serialises the record.
 */
export interface RecordAnswer {
  body: string
  /** the record's `bond` block (bond.ts `toBondJson`) as JSON text, when asked (GET /v1/broker) */
  bond?: string
  dataAsOf: CompanyRecord['dataAsOf']
  source: CompanyRecord['source']
}

/** What assembling a whole record needs: its dataset part's, app.db (reviews) and the verdict. */
export type RecordAnswerDeps = RecordDataDeps &
  Pick<RecordDeps, 'db' | 'reviewed' | 'batch'> & {
    /** `dataReasons` of the view at this instant (data-check.ts) */
    dataReasons: readonly string[]
    /** also answer the record's `bond` block as text (`RecordAnswer.bond`) */
    bond?: true
  }

/** Assembles a USDOT's whole record in a view as a `RecordAnswer` (in a worker thread). */
export type RecordAnswerReader = (
  view: DataView,
  dot: number,
  deps: RecordAnswerDeps,
) => Promise<RecordAnswer | null>

/**
 * A whole record's answer from its dataset part (a record worker's part of a lookup): assembled
 * and serialised once, with no memo of its text or score (the record is not kept).
 */
export function answerRecord(deps: RecordAnswerDeps, data: RecordData): RecordAnswer {
  const r = completeRecord(deps, data, deps.dataReasons, false)
  return answerWith(r, recordBodyTextOnce(r), deps.bond === true)
}

/** The answer of an assembled record, with its bond block's text when `bond`. */
export const answerOf = (r: CompanyRecord, bond = false): RecordAnswer =>
  answerWith(r, recordBodyText(r), bond)

function answerWith(r: CompanyRecord, body: string, bond: boolean): RecordAnswer {
  const answer: RecordAnswer = { body, dataAsOf: r.dataAsOf, source: r.source }
  if (bond) answer.bond = JSON.stringify(toBondJson(r.insurance, r.authority))
  return answer
}

/**
 * A single lookup's record as its answer text (with its bond block's when `bond`). A record the
 * cache holds, or will keep (its second miss: record-cache.ts), is assembled as an object
 * (`loadCompanyRecord`); any other is assembled whole by `answer` (a record worker) and reaches
 * the main thread as text only.
 */
export async function loadRecordAnswer(
  deps: RecordDeps,
  view: DataView,
  dot: number,
  read: RecordDataReader,
  answer: RecordAnswerReader,
  bond = false,
): Promise<RecordAnswer | null> {
  if (!view.get('census')) throw new AppError('dataset_unavailable')
  const key = cacheKey(deps, dot)
  const capacity = deps.cacheEntries ?? 0
  if (peekPerView(view, key, capacity) || missKept(key, capacity)) {
    const record = await loadCompanyRecord(deps, view, dot, read)
    return record && answerOf(record, bond)
  }
  const whole: RecordAnswerDeps = {
    db: deps.db,
    today: deps.today,
    nationalAverages: deps.nationalAverages,
    dataReasons: deps.dataReasons ?? dataReasons(deps, view),
  }
  if (deps.reviewed) whole.reviewed = deps.reviewed
  if (deps.batch) whole.batch = true
  if (bond) whole.bond = true
  return answer(view, dot, whole)
}
