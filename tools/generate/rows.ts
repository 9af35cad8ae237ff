/**
 * Row writers: one company → its records in every FMCSA format (docs/data.md), each a view of
 * the company model at the right date. Legacy L&I rows are the state at the 2026-05-14 freeze;
 * Motus rows exist only for companies with a transaction since; everything else is as of AS_OF.
 */
import type { Company } from './model.ts'
import type { Emit } from './rows-format.ts'
import { censusRecord } from './rows-census.ts'
import { legacyRows, motusRows } from './rows-licensing.ts'
import {
  crashRows,
  inspectionRows,
  mcmisRows,
  oosRows,
  resultRows,
  smsCensusRecord,
} from './rows-safety.ts'

/** Writes every record of company `c` to the files in `out`. */
export function emitCompany(c: Company, out: Emit): void {
  if (out.census) out.census(censusRecord(c))
  if (
    c.legacy &&
    (out.legacyCarrier ||
      out.legacyActPendInsur ||
      out.legacyInsHist ||
      out.legacyAuthHist ||
      out.legacyRevocation ||
      out.legacyBoc3)
  )
    legacyRows(c, out)
  if (
    c.motus &&
    (out.motusCarrier ||
      out.motusInsur ||
      out.motusInsHist ||
      out.motusAuthHist ||
      out.motusRevokeSuspend ||
      out.motusBoc3)
  )
    motusRows(c, out)
  if (out.smsCensus && c.sms) out.smsCensus(smsCensusRecord(c))
  if (out.smsInspection || out.smsViolation) inspectionRows(c, out)
  if (out.mcmisInspection || out.mcmisUnits) mcmisRows(c, out)
  crashRows(c, out)
  resultRows(c, out)
  oosRows(c, out)
}
