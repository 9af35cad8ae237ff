/**
 * A lookup's or a batch item's record as the text of its answer (issue 17): a record not cached is
 * assembled whole by a record worker, reviews and Trust Score included, and reaches the main
 * thread as text, which the main thread neither parses nor serialises again: it adds the meta
 * block (json.ts `answerText`).
 */
import { toBondJson } from './bond.ts'
import { recordBodyText, recordBodyTextOnce } from './json.ts'
import {
  completeRecord,
  type CompanyRecord,
  type RecordData,
  type RecordDataDeps,
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
  importedAt: CompanyRecord['importedAt']
  source: CompanyRecord['source']
}

/** What assembling a whole record needs: its dataset part's, app.db (reviews) and the verdict. */
export type RecordAnswerDeps = RecordDataDeps &
  Pick<RecordDeps, 'db' | 'reviewed' | 'history' | 'batch'> & {
    /** `dataReasons` of the view at this instant (data-check.ts) */
    dataReasons: readonly string[]
    /** also answer the record's `bond` block as text (`RecordAnswer.bond`) */
    bond?: true
  }

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
  const answer: RecordAnswer = {
    body,
    dataAsOf: r.dataAsOf,
    importedAt: r.importedAt,
    source: r.source,
  }
  if (bond) answer.bond = JSON.stringify(toBondJson(r.insurance, r.authority))
  return answer
}
