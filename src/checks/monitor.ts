/**
 * Monitoring ties in: when a watched company changes, which of the account's checks of it would
 * now get another verdict? Each recent check is judged again by the policy version it was judged
 * by (stored in the check) against the new record, with its stored contact verification. The
 * watchlist monitor (webhooks/) adds the answer to its carrier.changed event through the
 * `annotate` hook a composition root wires (serve.ts, cli/).
 */
import { isoDate } from '../clock.ts'
import { toCarrierJson } from '../carriers/json.ts'
import type { CompanyRecord } from '../carriers/record.ts'
import type { Sqlite } from '../db/open.ts'
import type { Clock } from '../clock.ts'
import { evaluatePolicy, type RuleOutcome } from './evaluate.ts'
import type { Outcome } from './policy-schema.ts'
import type { CheckDocument } from './schema.ts'

/** How many of an account's most recent checks of one company are judged again. */
export const RECHECKED = 20

export interface ChangedCheck {
  check_id: string
  reference: string | null
  created_at: string
  verdict: Outcome
  verdict_now: Outcome
  rules_changed: { rule_id: string; was: RuleOutcome; now: RuleOutcome; reason: string }[]
}

/** The account's recent checks of `dot` whose verdict differs under the new record. */
export function checksWhoseVerdictChanged(
  db: Sqlite,
  today: string,
  accountId: number,
  dot: number,
  record: CompanyRecord | null,
): ChangedCheck[] {
  const rows = db
    .prepare(
      `SELECT document FROM checks WHERE account_id = ? AND dot_number = ? AND kind = 'check'
       ORDER BY seq DESC LIMIT ?`,
    )
    .all(accountId, dot, RECHECKED) as { document: string }[]
  if (rows.length === 0) return []
  const served = record
    ? toCarrierJson(record, { usage: null, requestId: '', source: 'mirror' })
    : null
  const out: ChangedCheck[] = []
  for (const { document } of rows) {
    const doc = JSON.parse(document) as CheckDocument
    if (!served) {
      // the company is no longer in the census: nothing about it can pass any more
      if (doc.verdict !== 'fail')
        out.push({
          check_id: doc.check_id,
          reference: doc.request.reference,
          created_at: doc.created_at,
          verdict: doc.verdict,
          verdict_now: 'fail',
          rules_changed: [],
        })
      continue
    }
    const { meta: _meta, ...current } = served
    const now = evaluatePolicy(
      doc.policy.document,
      {
        ...current,
        contact_check: doc.contact_check,
        contact_verification: doc.contact_verification ?? null,
      },
      today,
    )
    if (now.verdict === doc.verdict) continue
    const was = new Map(doc.rules.map((r) => [r.rule_id, r.result]))
    out.push({
      check_id: doc.check_id,
      reference: doc.request.reference,
      created_at: doc.created_at,
      verdict: doc.verdict,
      verdict_now: now.verdict,
      rules_changed: now.results
        .filter((r) => was.get(r.rule_id) !== r.result)
        .map((r) => ({
          rule_id: r.rule_id,
          was: was.get(r.rule_id) ?? 'pass',
          now: r.result,
          reason: r.reason,
        })),
    })
  }
  return out
}

/** The watchlist monitor's `annotate` hook: adds `checks` to a carrier.changed event. */
export const checksOnChange =
  (deps: { db: Sqlite; clock: Clock }) =>
  (accountId: number, dot: number, record: CompanyRecord | null): Record<string, unknown> => ({
    checks: checksWhoseVerdictChanged(deps.db, isoDate(deps.clock()), accountId, dot, record),
  })
