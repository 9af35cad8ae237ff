/**
 * Rule results in words, for people: what the check found (amounts, insurer, policy numbers,
 * dates, addresses) and what the policy required, without field paths. One formatter used by the
 * HTML page, the PDF report and the console's check page, so all three say the same.
 */
import type { RuleResult } from './evaluate.ts'
import type { Condition, Rule, Test } from './policy-schema.ts'
import type { CheckDocument } from './schema.ts'

/** Names of the fields the bundled policy and common policies read. */
const LABEL: Record<string, string> = {
  'identity.usdot_status': 'USDOT status',
  'identity.out_of_service': 'out-of-service order',
  'authority.common_authority': 'common carrier authority',
  'authority.contract_authority': 'contract carrier authority',
  'authority.broker_authority': 'broker authority',
  'authority.allowed_to_operate': 'allowed to operate',
  'authority.pending_suspension': 'suspension or revocation order due',
  'authority.revocation_pending': 'revocation pending',
  'authority.granted_date': 'operating authority granted',
  'insurance.bipd_on_file': 'liability (BIPD) cover on file',
  'insurance.cargo_on_file': 'cargo cover on file',
  'insurance.bond_on_file': 'bond on file',
  'insurance.pending_cancellation': 'insurance cancellation pending',
  'safety.safety_rating': 'safety rating',
  'safety.driver_inspections': 'driver inspections',
  'safety.driver_oos_rate': 'driver out-of-service rate',
  'safety.vehicle_inspections': 'vehicle inspections',
  'safety.vehicle_oos_rate': 'vehicle out-of-service rate',
  'trust.trust_score': 'Trust Score',
  'contact_check.phone': 'a phone number',
  'contact_check.email': 'an e-mail address',
  'contact_check.phone.matches_on_file': "the phone given is FMCSA's number",
  'contact_check.phone.other_companies_revoked_or_oos':
    'other companies with that phone that are revoked or out of service',
  'contact_check.email.matches_on_file': "the e-mail given is FMCSA's address",
  'contact_check.email.same_domain': "the e-mail given is at FMCSA's domain",
  'contact_check.email.lookalike_domain': "the e-mail's domain imitates the registered one",
  'contact_check.email.other_companies_revoked_or_oos':
    'other companies with that e-mail that are revoked or out of service',
  source: 'data source',
}

/** A field in words: its label, else its last part with spaces (never the dotted path). */
function fieldInWords(path: string): string {
  const known = LABEL[path]
  if (known) return known
  const last = path.split('.').slice(1).join(' ') || path
  return last.replaceAll('_', ' ').replace(/\boos\b/g, 'out-of-service')
}

const money = (n: number) => `$${Math.round(n).toLocaleString('en-US')}`

/** A date as "November 15, 2026". */
export const dateInWords = (iso: string): string =>
  new Date(`${iso.slice(0, 10)}T00:00:00Z`).toLocaleDateString('en-US', {
    timeZone: 'UTC',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
  })

const CODES: Record<string, string> = { A: 'active', I: 'inactive', N: 'none', Y: 'yes' }

/** A value found in words, by what the field holds. */
function valueInWords(path: string, v: unknown): string {
  if (v === null || v === undefined)
    return path.startsWith('contact_check') ? 'none given' : 'none on file'
  if (typeof v === 'boolean') return v ? 'yes' : 'no'
  if (typeof v === 'number') {
    if (/(_on_file|_required|amount|coverage)$/.test(path)) return money(v)
    if (/_rate$/.test(path)) return `${Number(v.toFixed(1))}%`
    return v.toLocaleString('en-US')
  }
  if (typeof v === 'string') {
    if (/^\d{4}-\d{2}-\d{2}($|T)/.test(v)) return dateInWords(v)
    if (/authority$|allowed_to_operate$/.test(path)) return CODES[v] ?? v
    return v
  }
  if (typeof v === 'object' && 'effective_date' in v) {
    const o = v as { effective_date?: unknown; reason?: unknown }
    return `yes${typeof o.effective_date === 'string' ? `, effective ${dateInWords(o.effective_date)}` : ''}${typeof o.reason === 'string' ? ` (${o.reason})` : ''}`
  }
  return JSON.stringify(v)
}

const OPS: Record<Condition['op'], string> = {
  eq: '',
  ne: 'not',
  gt: 'above',
  gte: 'at least',
  lt: 'below',
  lte: 'at most',
  in: 'one of',
  not_in: 'none of',
  is_true: 'yes',
  is_false: 'no',
  is_null: 'none',
  present: 'given',
  contains: 'containing',
  days_since_gte: 'at least',
  days_since_lte: 'at most',
}

/** One condition in words: "liability (BIPD) cover on file at least $750,000". */
function conditionInWords(c: Condition): string {
  const name = fieldInWords(c.field)
  if (c.op === 'present')
    return `${name} is ${c.field.startsWith('contact_check') ? 'given' : 'on file'}`
  if (c.value === undefined) return `${name}: ${OPS[c.op]}`
  if (c.op === 'days_since_gte' || c.op === 'days_since_lte')
    return `${name} ${OPS[c.op]} ${String(c.value)} days before the check`
  const value = Array.isArray(c.value)
    ? c.value.map((x) => valueInWords(c.field, x)).join(', ')
    : valueInWords(c.field, c.value)
  return `${name} ${OPS[c.op] ? `${OPS[c.op]} ` : ''}${value}`.replace(/ {2,}/g, ' ')
}

const testInWords = (t: Test): string =>
  'any' in t
    ? t.any.map(conditionInWords).join(' or ')
    : 'all' in t
      ? t.all.map(conditionInWords).join(' and ')
      : conditionInWords(t)

/** The insurer, policy number and dates behind an insurance amount. */
function insuranceDetail(doc: CheckDocument, path: string): string {
  const ins = doc.record.insurance
  const kind = path.includes('cargo') ? /cargo/i : /bipd|bi&pd|liab|91/i
  const filings = ins.filings.filter(
    (f) => f.status !== 'cancelled' && f.status !== 'replaced' && kind.test(`${f.type} ${f.form}`),
  )
  const parts = filings.length
    ? filings.map(
        (f) =>
          `${f.insurer ?? 'insurer not named'}${f.policy_no ? `, policy ${f.policy_no}` : ''}${f.effective_date ? `, effective ${dateInWords(f.effective_date)}` : ''}${f.max_coverage ? `, ${money(f.max_coverage)}` : ''}`,
      )
    : ins.insurer || ins.policy_no
      ? [
          `${ins.insurer ?? 'insurer not named'}${ins.policy_no ? `, policy ${ins.policy_no}` : ''}${ins.effective_date ? `, effective ${dateInWords(ins.effective_date)}` : ''}`,
        ]
      : []
  return parts.length ? ` (${parts.join('; ')})` : ''
}

/** The addresses on file, for rules on an address. */
function addressDetail(doc: CheckDocument): string {
  const a = doc.record.contact.physical_address
  if (!a) return ''
  return ` (address on file: ${[a.street, a.city, [a.state, a.zip].filter(Boolean).join(' ')].filter(Boolean).join(', ')})`
}

/** What a rule read, in words, with the detail behind an amount or an address. */
function foundInWords(r: RuleResult, doc: CheckDocument): string {
  const parts: string[] = []
  let contact = ''
  for (const [path, v] of Object.entries(r.observed)) {
    if (path.endsWith('#days_since') || path === 'source') continue
    if (path.endsWith('#days_old')) {
      parts.push(`${path.slice(0, -9)} data ${String(v)} days old`)
      continue
    }
    const days = r.observed[`${path}#days_since`]
    let text = `${fieldInWords(path)}: ${valueInWords(path, v)}`
    if (typeof days === 'number') text += ` (${days} days before the check)`
    if (path.startsWith('insurance.') && typeof v === 'number') text += insuranceDetail(doc, path)
    if (path.includes('address')) text += addressDetail(doc)
    const given = path.startsWith('contact_check.phone')
      ? doc.contact_check?.phone
      : path.startsWith('contact_check.email')
        ? doc.contact_check?.email
        : null
    if (given) contact = ` (given ${given.given}, on file ${given.on_file ?? 'none'})`
    parts.push(text)
  }
  // the contact given and the one on file, once for the rule
  return parts.length ? `${parts.join('; ')}${contact}` : ''
}

interface RuleInWords {
  rule_id: string
  description: string
  result: RuleResult['result']
  /** what was found and what was required, in sentences */
  sentence: string
}

/** One sentence per rule: what was found, what was required, and the outcome in words. */
function ruleInWords(r: RuleResult, doc: CheckDocument): RuleInWords {
  const rule: Rule | undefined = doc.policy.document.rules.find((x) => x.id === r.rule_id)
  const found = foundInWords(r, doc)
  const base = { rule_id: r.rule_id, description: r.description, result: r.result }
  if (!rule) {
    const said = cap(r.reason).replace(/\.?$/, '.')
    return { ...base, sentence: found ? `${said} Found ${found}.` : said }
  }
  const required = testInWords(rule.require)
  if (r.result === 'n/a') {
    const when = (rule.when ?? []).map(conditionInWords).join(' and ')
    const seen = Object.values(r.observed).some((v) => v !== null && v !== undefined)
    return {
      ...base,
      sentence: `Not applicable: it applies only when ${when}${seen ? `; found ${found}` : ''}.`,
    }
  }
  const head = found ? `Found ${found}.` : 'Not on file.'
  const custom = r.result !== 'pass' && rule.reason ? ` ${cap(rule.reason)}.` : ''
  return { ...base, sentence: `${head} Required: ${required}.${custom}`.replaceAll('..', '.') }
}

const cap = (s: string) => (s ? s[0]?.toUpperCase() + s.slice(1) : s)

export const rulesInWords = (doc: CheckDocument): RuleInWords[] =>
  doc.rules.map((r) => ruleInWords(r, doc))

/** Warnings a reader must see first: a sandbox check, data that was the sample or stale. */
export function warningsOf(d: CheckDocument): string[] {
  const warnings = d.rules
    .filter(
      (r) =>
        (r.rule_id === 'data_is_regulators' || r.rule_id === 'data_fresh') && r.result === 'review',
    )
    .map((r) => r.reason)
  if (d.api_key.mode === 'test')
    warnings.unshift(
      'a sandbox check, made with a test key on the bundled sample: not evidence about a real carrier',
    )
  return warnings
}

/** Who ran the check, in words (an integration's name is marked unverified). */
export function whoInWords(d: CheckDocument): string {
  const key = `API key ${d.api_key.name ? `"${d.api_key.name}" ` : ''}(id ${d.api_key.id}, ${d.api_key.mode === 'test' ? 'sandbox' : 'live'})`
  const account = `account ${d.account_name ? `"${d.account_name}" ` : ''}(id ${d.account_id})`
  const by = d.run_by
    ? d.run_by.verified
      ? `${d.run_by.name} (signed-in console user)`
      : `${d.run_by.name} (unverified: the name an integration passed)`
    : 'no person named'
  return `${by}; ${key} of ${account}`
}
