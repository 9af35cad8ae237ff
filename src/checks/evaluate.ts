/**
 * Evaluates a vetting policy against a document (the record as served plus `contact_check`). Pure:
 * no I/O, `today` is passed in. A field absent from the document (a field this appliance does not
 * supply yet) or null yields the rule's `missing` result with a reason saying which; nothing throws.
 */
import { daysBetween } from '../dates.ts'
import type { Condition, Outcome, PolicyDocument, Rule, Test } from './policy-schema.ts'

/** A rule's result: `n/a` when a `when` precondition did not hold (it counts for nothing). */
export type RuleOutcome = Outcome | 'n/a'

export interface RuleResult {
  rule_id: string
  description: string
  result: RuleOutcome
  reason: string
  /** false when a `when` precondition did not hold (the result is `n/a`) */
  applicable: boolean
  /** the values the rule read, by field path (absent fields are omitted) */
  observed: Record<string, unknown>
}

export interface Evaluation {
  verdict: Outcome
  results: RuleResult[]
}

const RANK: Record<Outcome, number> = { pass: 0, review: 1, fail: 2 }

/** The worst of the results: any fail → fail, else any review → review, else pass (n/a counts for nothing). */
export const worst = (outcomes: readonly RuleOutcome[]): Outcome =>
  outcomes.reduce<Outcome>((a, b) => (b !== 'n/a' && RANK[b] > RANK[a] ? b : a), 'pass')

type Lookup = { present: true; value: unknown } | { present: false }

/** Reads a dotted path; `present: false` when some step does not exist. */
export function readField(doc: unknown, path: string): Lookup {
  let cur: unknown = doc
  for (const step of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !(step in cur))
      return { present: false }
    cur = (cur as Record<string, unknown>)[step]
  }
  return { present: true, value: cur }
}

type Judged = 'true' | 'false' | 'missing' | 'absent'

const fmt = (v: unknown): string =>
  typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v ?? null)

const OP_TEXT: Record<Condition['op'], string> = {
  eq: 'equal to',
  ne: 'not',
  gt: 'above',
  gte: 'at least',
  lt: 'below',
  lte: 'at most',
  in: 'one of',
  not_in: 'none of',
  is_true: 'true',
  is_false: 'false',
  is_null: 'null (none)',
  present: 'present',
  contains: 'containing',
  days_since_gte: 'at least',
  days_since_lte: 'at most',
}

export const describeCondition = (c: Condition): string =>
  c.value === undefined
    ? `${c.field} ${OP_TEXT[c.op]}`
    : c.op === 'days_since_gte' || c.op === 'days_since_lte'
      ? `${c.field} ${OP_TEXT[c.op]} ${fmt(c.value)} days ago`
      : `${c.field} ${OP_TEXT[c.op]} ${fmt(c.value)}`

function judge(
  c: Condition,
  doc: unknown,
  today: string,
  observed: Record<string, unknown>,
): Judged {
  const f = readField(doc, c.field)
  if (!f.present) return c.op === 'present' ? 'false' : 'absent'
  const v = f.value
  // scalars only: a whole block (a `present` test on contact_check.phone) is in the document already
  if (v === null || typeof v !== 'object') observed[c.field] = v
  if (c.op === 'present') return v === null || v === undefined ? 'false' : 'true'
  if (c.op === 'is_null') return v === null || v === undefined ? 'true' : 'false'
  if (v === null || v === undefined) return 'missing'
  const ok = (b: boolean): Judged => (b ? 'true' : 'false')
  const want = c.value
  switch (c.op) {
    case 'eq':
      return ok(v === want)
    case 'ne':
      return ok(v !== want)
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      if (typeof v !== 'number' || typeof want !== 'number') return 'missing'
      if (c.op === 'gt') return ok(v > want)
      if (c.op === 'gte') return ok(v >= want)
      if (c.op === 'lt') return ok(v < want)
      return ok(v <= want)
    }
    case 'in':
      return ok(Array.isArray(want) && want.includes(v as never))
    case 'not_in':
      return ok(Array.isArray(want) && !want.includes(v as never))
    case 'is_true':
      return ok(v === true)
    case 'is_false':
      return ok(v === false)
    case 'contains':
      return ok(
        Array.isArray(v) ? v.includes(want) : typeof v === 'string' && v.includes(String(want)),
      )
    case 'days_since_gte':
    case 'days_since_lte': {
      if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v) || typeof want !== 'number')
        return 'missing'
      const days = daysBetween(v, today)
      observed[`${c.field}#days_since`] = days
      return ok(c.op === 'days_since_gte' ? days >= want : days <= want)
    }
  }
}

function conditionsOf(t: Test): { mode: 'any' | 'all'; list: Condition[] } {
  if ('any' in t) return { mode: 'any', list: t.any }
  if ('all' in t) return { mode: 'all', list: t.all }
  return { mode: 'all', list: [t] }
}

function missingReason(c: Condition, j: Judged): string {
  return j === 'absent'
    ? `${c.field} is not in the record (this appliance version does not supply it)`
    : `${c.field} is not on file`
}

export function evaluateRule(rule: Rule, doc: unknown, today: string): RuleResult {
  const observed: Record<string, unknown> = {}
  const base = { rule_id: rule.id, description: rule.description, observed }
  for (const c of rule.when ?? []) {
    const j = judge(c, doc, today, observed)
    if (j !== 'true')
      return {
        ...base,
        result: 'n/a',
        applicable: false,
        reason: `not applicable: ${describeCondition(c)} does not hold`,
      }
  }
  const { mode, list } = conditionsOf(rule.require)
  const judged = list.map((c) => ({ c, j: judge(c, doc, today, observed) }))
  const passed =
    mode === 'any' ? judged.some((x) => x.j === 'true') : judged.every((x) => x.j === 'true')
  const wanted = list.map(describeCondition).join(mode === 'any' ? ' or ' : ' and ')
  if (passed) return { ...base, result: 'pass', applicable: true, reason: `${wanted}: yes` }
  const unknown = judged.filter((x) => x.j === 'missing' || x.j === 'absent')
  // any: nothing held and something was unknown; all: nothing failed outright and something was unknown
  const anyFalse = judged.some((x) => x.j === 'false')
  if (unknown.length > 0 && (mode === 'any' || !anyFalse)) {
    const first = unknown[0] as { c: Condition; j: Judged }
    return {
      ...base,
      result: rule.missing,
      applicable: true,
      reason: `${missingReason(first.c, first.j)}; required ${wanted}`,
    }
  }
  const seen = judged.map((x) => `${x.c.field} is ${fmt(observed[x.c.field])}`).join(', ')
  return {
    ...base,
    result: rule.otherwise,
    applicable: true,
    reason: rule.reason ?? `${seen}; required ${wanted}`,
  }
}

/** Every rule's result, in policy order, and the verdict (the worst result). */
export function evaluatePolicy(policy: PolicyDocument, doc: unknown, today: string): Evaluation {
  const results = policy.rules.map((r) => evaluateRule(r, doc, today))
  return { verdict: worst(results.map((r) => r.result)), results }
}
