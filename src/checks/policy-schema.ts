/**
 * The vetting policy language (version 1): a named list of rules over record fields. Each rule
 * tests one field (or any/all of a few) and yields `pass`, or its `otherwise` result (`review` or
 * `fail`) with a reason; a field that is absent from the record or null yields the rule's `missing`
 * result (default `review`), never an error. docs/checks.md documents the language and the
 * bundled default rule by rule.
 */
import { z } from 'zod'

export const POLICY_LANGUAGE = 1

export const Outcome = z.enum(['pass', 'review', 'fail'])
export type Outcome = z.infer<typeof Outcome>

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()])

export const OPS = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'not_in',
  'is_true',
  'is_false',
  'is_null',
  'present',
  'contains',
  'days_since_gte',
  'days_since_lte',
] as const
export type Op = (typeof OPS)[number]

const NUMERIC: readonly Op[] = ['gt', 'gte', 'lt', 'lte', 'days_since_gte', 'days_since_lte']
const LIST: readonly Op[] = ['in', 'not_in']
const NO_VALUE: readonly Op[] = ['is_true', 'is_false', 'is_null', 'present']

/** A dotted path into the evaluated document: the record's blocks and `contact_check`. */
const FieldPath = z
  .string()
  .regex(
    /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$/,
    'a dotted field path such as insurance.bipd_on_file',
  )

export const Condition = z
  .strictObject({
    field: FieldPath,
    op: z.enum(OPS),
    value: z.union([Scalar, z.array(Scalar)]).optional(),
  })
  .superRefine((c, ctx) => {
    const issue = (message: string) => ctx.addIssue({ code: 'custom', message, path: ['value'] })
    if (NO_VALUE.includes(c.op)) {
      if (c.value !== undefined) issue(`op ${c.op} takes no value`)
    } else if (NUMERIC.includes(c.op)) {
      if (typeof c.value !== 'number') issue(`op ${c.op} needs a number value`)
    } else if (LIST.includes(c.op)) {
      if (!Array.isArray(c.value)) issue(`op ${c.op} needs a list value`)
    } else if (c.value === undefined || Array.isArray(c.value)) {
      issue(`op ${c.op} needs a single value`)
    }
  })
export type Condition = z.infer<typeof Condition>

/** One condition, or any/all of up to 10. */
export const Test = z.union([
  Condition,
  z.strictObject({ any: z.array(Condition).min(1).max(10) }),
  z.strictObject({ all: z.array(Condition).min(1).max(10) }),
])
export type Test = z.infer<typeof Test>

export const Rule = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'lower-case letters, digits and _'),
  description: z.string().min(1).max(500),
  /** preconditions (all must hold); otherwise the rule does not apply and passes */
  when: z.array(Condition).max(10).optional(),
  require: Test,
  otherwise: z.enum(['review', 'fail']),
  /** the result when the required field is absent or null */
  missing: Outcome.default('review'),
  /** `missing: pass` must be acknowledged: a company then passes with the field not on file */
  missing_pass_acknowledged: z.literal(true).optional(),
  /** the reason given when the rule does not pass (a generated one otherwise) */
  reason: z.string().max(500).optional(),
})
export type Rule = z.infer<typeof Rule>

export const PolicyDocument = z
  .strictObject({
    policy_language: z.literal(POLICY_LANGUAGE),
    name: z.string().min(1).max(200),
    description: z.string().max(2000).optional(),
    /** the appliance's freshness rule: the oldest data accepted, by dataset schedule (3 and 45 days by default) */
    data_max_age_days: z
      .strictObject({
        daily: z.number().int().min(1).max(365).optional(),
        monthly: z.number().int().min(1).max(730).optional(),
      })
      .optional(),
    rules: z.array(Rule).min(1).max(100),
  })
  .superRefine((p, ctx) => {
    const seen = new Set<string>()
    p.rules.forEach((r, i) => {
      if (seen.has(r.id))
        ctx.addIssue({
          code: 'custom',
          message: `duplicate rule id ${r.id}`,
          path: ['rules', i, 'id'],
        })
      seen.add(r.id)
    })
  })
export type PolicyDocument = z.infer<typeof PolicyDocument>

/** Version of the bundled default below; bump it whenever a rule changes. */
export const BUNDLED_POLICY_VERSION = 3

const contactGiven = (kind: 'phone' | 'email'): Condition[] => [
  { field: `contact_check.${kind}`, op: 'present' },
]

/** The default vetting policy shipped with the appliance (docs/checks.md explains each rule). */
export const BUNDLED_POLICY: PolicyDocument = {
  policy_language: POLICY_LANGUAGE,
  name: 'carrier-verify default',
  description:
    'A for-hire motor carrier with active authority, the federal minimum liability cover on file, no out-of-service order and no adverse rating; contact details matching what FMCSA has on file.',
  rules: [
    {
      id: 'usdot_active',
      description: 'The USDOT number is active',
      require: { field: 'identity.usdot_status', op: 'eq', value: 'active' },
      otherwise: 'fail',
      missing: 'review',
    },
    {
      id: 'carrier_authority_active',
      description: 'Active common or contract carrier operating authority',
      require: {
        any: [
          { field: 'authority.common_authority', op: 'eq', value: 'A' },
          { field: 'authority.contract_authority', op: 'eq', value: 'A' },
        ],
      },
      otherwise: 'fail',
      missing: 'review',
    },
    {
      id: 'allowed_to_operate',
      description: 'FMCSA allows the company to operate',
      require: { field: 'authority.allowed_to_operate', op: 'eq', value: 'Y' },
      otherwise: 'fail',
      missing: 'review',
    },
    {
      id: 'no_out_of_service_order',
      description: 'No active out-of-service order',
      require: { field: 'identity.out_of_service', op: 'is_false' },
      otherwise: 'fail',
      missing: 'review',
    },
    {
      id: 'no_pending_suspension',
      description: 'No suspension of the authority pending',
      // an object {effective_date, reason, …} when an order is due, else null (issue 12)
      require: { field: 'authority.pending_suspension', op: 'is_null' },
      otherwise: 'fail',
      missing: 'review',
    },
    {
      id: 'no_revocation_pending',
      description: 'No revocation of the authority pending',
      require: { field: 'authority.revocation_pending', op: 'is_false' },
      otherwise: 'fail',
      missing: 'review',
    },
    {
      id: 'bipd_minimum',
      description: 'Liability (BIPD) insurance on file of at least $750,000',
      require: { field: 'insurance.bipd_on_file', op: 'gte', value: 750_000 },
      otherwise: 'fail',
      missing: 'review',
    },
    {
      id: 'insurance_not_cancelling',
      description: 'No cancellation of the insurance pending',
      require: { field: 'insurance.pending_cancellation', op: 'is_false' },
      otherwise: 'review',
      missing: 'review',
    },
    {
      id: 'cargo_minimum',
      description:
        'Cargo insurance on file of at least $100,000 where one is filed (FMCSA requires a cargo filing only from household-goods carriers)',
      require: { field: 'insurance.cargo_on_file', op: 'gte', value: 100_000 },
      otherwise: 'review',
      missing: 'pass',
      missing_pass_acknowledged: true,
    },
    {
      id: 'safety_rating_not_unsatisfactory',
      description: 'Safety rating is not Unsatisfactory (unrated passes)',
      require: { field: 'safety.safety_rating', op: 'ne', value: 'Unsatisfactory' },
      otherwise: 'fail',
      missing: 'pass',
      missing_pass_acknowledged: true,
    },
    {
      id: 'safety_rating_not_conditional',
      description: 'A Conditional safety rating needs a person to review it',
      require: { field: 'safety.safety_rating', op: 'ne', value: 'Conditional' },
      otherwise: 'review',
      missing: 'pass',
      missing_pass_acknowledged: true,
    },
    {
      id: 'authority_age',
      description: 'Operating authority granted at least 90 days ago',
      require: { field: 'authority.granted_date', op: 'days_since_gte', value: 90 },
      otherwise: 'review',
      missing: 'review',
    },
    {
      id: 'driver_oos_rate',
      description:
        'Driver out-of-service rate at most 11% (twice the national average), judged from 5 driver inspections',
      when: [{ field: 'safety.driver_inspections', op: 'gte', value: 5 }],
      require: { field: 'safety.driver_oos_rate', op: 'lte', value: 11 },
      otherwise: 'review',
      missing: 'review',
    },
    {
      id: 'vehicle_oos_rate',
      description: 'Vehicle out-of-service rate at most 40%, judged from 5 vehicle inspections',
      when: [{ field: 'safety.vehicle_inspections', op: 'gte', value: 5 }],
      require: { field: 'safety.vehicle_oos_rate', op: 'lte', value: 40 },
      otherwise: 'review',
      missing: 'review',
    },
    {
      id: 'trust_score',
      description: 'Trust Score at least 60',
      require: { field: 'trust.trust_score', op: 'gte', value: 60 },
      otherwise: 'review',
      missing: 'review',
    },
    {
      id: 'contact_phone_on_file',
      description: 'The phone number given matches the one FMCSA has on file',
      when: contactGiven('phone'),
      require: { field: 'contact_check.phone.matches_on_file', op: 'is_true' },
      otherwise: 'review',
      missing: 'review',
    },
    {
      id: 'contact_phone_not_shared_with_bad_actor',
      description:
        'The phone number given is not registered to another company that is revoked or out of service',
      when: contactGiven('phone'),
      require: { field: 'contact_check.phone.other_companies_revoked_or_oos', op: 'eq', value: 0 },
      otherwise: 'fail',
      missing: 'pass',
      missing_pass_acknowledged: true,
    },
    {
      id: 'contact_email_on_file',
      description:
        'The e-mail given is the one on file or at the same registrable domain as the one on file',
      when: contactGiven('email'),
      require: {
        any: [
          { field: 'contact_check.email.matches_on_file', op: 'is_true' },
          { field: 'contact_check.email.same_domain', op: 'is_true' },
        ],
      },
      otherwise: 'review',
      missing: 'review',
    },
    {
      id: 'contact_email_not_lookalike',
      description: "The e-mail's domain is not a look-alike of the registered one",
      when: contactGiven('email'),
      require: { field: 'contact_check.email.lookalike_domain', op: 'is_false' },
      otherwise: 'fail',
      missing: 'pass',
      missing_pass_acknowledged: true,
    },
    {
      id: 'contact_email_not_shared_with_bad_actor',
      description:
        'The e-mail given is not registered to another company that is revoked or out of service',
      when: contactGiven('email'),
      require: { field: 'contact_check.email.other_companies_revoked_or_oos', op: 'eq', value: 0 },
      otherwise: 'fail',
      missing: 'pass',
      missing_pass_acknowledged: true,
    },
    {
      id: 'equipment_not_another_carriers',
      description:
        'No unit at the dock was last seen under another carrier within 90 days and never under this one',
      // a date when such a unit exists (widely shared units excluded), else null: n/a
      when: [{ field: 'equipment_check.other_carrier_last_seen', op: 'present' }],
      require: {
        field: 'equipment_check.other_carrier_last_seen',
        op: 'days_since_gte',
        value: 91,
      },
      otherwise: 'review',
      missing: 'review',
      reason:
        'a unit at the dock was seen under another carrier in the last 90 days and never under this one: ask the carrier (a lease or a recent purchase explains it; a borrowed identity does too)',
    },
    {
      id: 'equipment_vin_valid',
      description: 'Every VIN given is a conforming one (17 characters, right check digit)',
      when: [{ field: 'equipment_check', op: 'present' }],
      require: { field: 'equipment_check.invalid_vin', op: 'eq', value: 0 },
      otherwise: 'review',
      missing: 'review',
      reason:
        'a VIN given is not a conforming one (mistyped, a placeholder, or not from the unit): read it again from the unit',
    },
    {
      id: 'drivers_hold_valid_cdl',
      description: 'No driver cited for operating without a valid CDL in the last 24 months',
      // null when the SMS Input Violation file is not loaded: n/a
      when: [{ field: 'safety.driver_qualification', op: 'present' }],
      require: { field: 'safety.driver_qualification.no_valid_cdl', op: 'eq', value: 0 },
      otherwise: 'review',
      missing: 'review',
      reason:
        'a driver of this carrier was cited for operating a CMV without a valid CDL in the last 24 months (49 CFR 383.23(a)(2), 391.11(b)(5))',
    },
    {
      id: 'not_on_blocked_list',
      description:
        "Neither the company, the contact given nor its equipment is on the account's blocked list",
      require: { field: 'blocklist_check.direct_hits', op: 'eq', value: 0 },
      otherwise: 'fail',
      missing: 'pass',
      missing_pass_acknowledged: true,
      reason: "The company, the contact given or its equipment is on the account's blocked list",
    },
    {
      id: 'no_link_on_blocked_list',
      description: "No company linked to this one is on the account's blocked list",
      require: { field: 'blocklist_check.link_hits', op: 'eq', value: 0 },
      otherwise: 'review',
      missing: 'pass',
      missing_pass_acknowledged: true,
      reason:
        "A company linked to this one (shared officer, phone, fax, e-mail, address or VIN) is on the account's blocked list",
    },
    {
      id: 'contact_not_changed_recently',
      description: 'The phone and e-mail on file did not change within the last 30 days',
      require: { field: 'identity.contact_changed_days', op: 'gt', value: 30 },
      otherwise: 'review',
      missing: 'pass',
      missing_pass_acknowledged: true,
      reason:
        'The phone or e-mail on file changed within the last 30 days: confirm the contact through a channel you already trust',
    },
  ],
}
