/** The stored check and override documents and the API shapes around them. */
import { z } from 'zod'
import { DocketLookupJson } from '../carriers/docket.ts'
import { CarrierJson, MetaJson } from '../carriers/schema.ts'
import { BlocklistHitJson } from './blocklist-check.ts'
import { ContactCheckJson } from './contact.ts'
import { EquipmentCheckJson, EquipmentRequest } from './equipment.ts'
import { Outcome, PolicyDocument } from './policy-schema.ts'

const MAX_TEXT = 200

/** POST /v1/checks body. */
export const CheckRequest = z
  .strictObject({
    dot: z.union([z.string().max(40), z.number()]).optional(),
    mc: z.string().max(40).optional(),
    reference: z
      .string()
      .trim()
      .min(1)
      .max(MAX_TEXT)
      .optional()
      .meta({ description: 'a load or tender reference of your choosing (searchable)' }),
    contact: z
      .strictObject({
        phone: z.string().max(40).optional(),
        email: z.string().max(254).optional(),
      })
      .optional()
      .meta({ description: 'the phone and/or e-mail you were given, verified against FMCSA' }),
    watch: z
      .boolean()
      .optional()
      .meta({ description: 'also add the company to the account watchlist (paid plans)' }),
    contact_verification_id: z.string().max(40).optional().meta({
      description:
        'a contact verification of this company (POST /v1/contact-verifications), stored in the document as `contact_verification`',
    }),
    crosscheck: z.boolean().optional().meta({
      description:
        "also ask FMCSA's QCMobile service now; its answer (or why it was unavailable) is stored in the signed check",
    }),
    run_by: z.string().trim().min(1).max(MAX_TEXT).optional().meta({
      description:
        'the person on whose behalf the check is made, as your integration names them (stored as unverified)',
    }),
    equipment: EquipmentRequest.optional(),
  })
  .refine((b) => (b.dot === undefined) !== (b.mc === undefined), {
    message: 'give either "dot" or "mc"',
  })
export type CheckRequest = z.infer<typeof CheckRequest>

/** A named contact verification as stored in a check (policy field `contact_verification.verified`). */
export const ContactVerificationRef = z.object({
  id: z.string(),
  channel: z.string(),
  sent_to: z.string(),
  /** the code was confirmed, for this check's company */
  verified: z.boolean(),
  verified_at: z.string().nullable(),
})
export type ContactVerificationRef = z.infer<typeof ContactVerificationRef>

export const RuleResultJson = z.object({
  rule_id: z.string(),
  description: z.string(),
  result: z.enum(['pass', 'review', 'fail', 'n/a']).meta({
    description: '`n/a` when a `when` precondition did not hold: the rule counts for nothing',
  }),
  reason: z.string(),
  applicable: z.boolean(),
  observed: z.record(z.string(), z.unknown()),
})

export const PolicyRefJson = z.object({
  id: z.string().meta({ description: '`bundled@1`, `appliance@2` or `account:12@3`' }),
  scope: z.enum(['account', 'appliance', 'bundled']),
  version: z.number().int(),
  sha256: z.string(),
  document: PolicyDocument,
})

/** The record as served, without the per-request `meta`. */
export const CheckedRecordJson = CarrierJson.omit({ meta: true })

const SourceFileJson = z.object({
  id: z.string().nullable(),
  url: z.string().nullable(),
  sha256: z.string().nullable(),
  bytes: z.number().nullable(),
  rows: z.number().nullable(),
  last_modified: z.string().nullable(),
})

export const DataSourceJson = z.object({
  dataset: z.string(),
  version_id: z.number().int(),
  channel: z.string(),
  regulator_date: z
    .string()
    .nullable()
    .meta({ description: "the date the regulator's data describes" }),
  rows: z.number().nullable(),
  files: z.array(SourceFileJson),
  imported_at: z.string().nullable().meta({ description: 'when it arrived on the appliance' }),
  activated_at: z.string().nullable(),
  company_rows: z
    .record(z.string(), z.array(z.record(z.string(), z.unknown())))
    .meta({ description: "the company's rows as imported from this dataset's files, by table" }),
})

const RunByJson = z
  .object({
    name: z.string(),
    verified: z.boolean(),
    via: z.enum(['api', 'console']),
  })
  .meta({
    description:
      'who ran it: a signed-in console user (verified), or a name an integration passed (unverified)',
  })

export const CheckDocument = z.object({
  type: z.literal('check'),
  check_id: z.string(),
  created_at: z.string(),
  account_id: z.number().int(),
  account_name: z.string().optional(),
  api_key: z.object({
    id: z.number().int(),
    mode: z.enum(['live', 'test']),
    name: z.string().nullable().optional(),
  }),
  run_by: RunByJson.nullable().optional(),
  request: z.object({
    dot: z.string().nullable(),
    mc: z.string().nullable(),
    reference: z.string().nullable(),
    contact: z.object({ phone: z.string().nullable(), email: z.string().nullable() }).nullable(),
    watch: z.boolean(),
    /** the units asked about, normalised; absent in checks stored before equipment checks */
    equipment: z
      .array(z.record(z.string(), z.string()))
      .nullable()
      .optional()
      .meta({ description: 'the units asked about (normalised), null when none' }),
  }),
  dot_number: z.string(),
  legal_name: z.string().nullable(),
  verdict: Outcome,
  rules: z.array(RuleResultJson),
  policy: PolicyRefJson,
  trust_version: z.string().nullable(),
  source: z.enum(['mirror', 'live', 'sample']),
  data_as_of: z.record(z.string(), z.string().nullable()),
  contact_check: ContactCheckJson.nullable(),
  /** absent in checks stored before contact verifications existed */
  contact_verification: ContactVerificationRef.nullable().optional(),
  /** absent in checks stored before equipment checks; null when no unit was asked about */
  equipment_check: EquipmentCheckJson.nullable().optional(),
  blocklist_hits: z.array(BlocklistHitJson).optional().meta({
    description:
      "the account's blocked-list entries this check hit: the company, the contact given, its equipment or a linked company (absent in checks made before the blocked list)",
  }),
  lookup: DocketLookupJson.nullable(),
  record: CheckedRecordJson,
  data_sources: z.array(DataSourceJson).optional(),
  crosscheck: z
    .record(z.string(), z.unknown())
    .nullable()
    .optional()
    .meta({ description: "QCMobile's answer when asked for (or why it was unavailable)" }),
})
export type CheckDocument = z.infer<typeof CheckDocument>

export const OverrideRequest = z.strictObject({
  by: z.string().trim().min(1).max(MAX_TEXT).meta({ description: 'who decided' }),
  reason: z.string().trim().min(1).max(2000).meta({ description: 'why' }),
  verdict: Outcome.default('pass').meta({
    description: 'the verdict decided instead (default pass)',
  }),
})
export type OverrideRequest = z.infer<typeof OverrideRequest>

export const OverrideDocument = z.object({
  type: z.literal('override'),
  override_id: z.string(),
  check_id: z.string(),
  created_at: z.string(),
  account_id: z.number().int(),
  account_name: z.string().optional(),
  api_key: z
    .object({
      id: z.number().int(),
      mode: z.enum(['live', 'test']),
      name: z.string().nullable().optional(),
    })
    .nullable(),
  by: z.string(),
  by_verified: z
    .boolean()
    .optional()
    .meta({ description: 'true when `by` is the signed-in console user' }),
  reason: z.string(),
  verdict: Outcome,
  original_verdict: Outcome,
})
export type OverrideDocument = z.infer<typeof OverrideDocument>

export const SignatureJson = z
  .object({
    algorithm: z.literal('Ed25519'),
    key_id: z.string(),
    seq: z.number().int(),
    prev_hash: z.string(),
    hash: z
      .string()
      .meta({ description: 'sha256 hex of prev_hash + "\\n" + the stored document text' }),
    value: z.string().meta({ description: 'base64 Ed25519 signature of the 32 hash bytes' }),
  })
  .meta({ description: 'where the document sits in the account chain, and its signature' })

export const OverrideJson = OverrideDocument.extend({ signature: SignatureJson })

export const CheckJson = CheckDocument.extend({
  signature: SignatureJson,
  overrides: z
    .array(OverrideJson)
    .meta({ description: 'recorded overrides, oldest first (each its own signed document)' }),
  effective_verdict: Outcome.meta({ description: 'the latest override, else the verdict' }),
})
export type CheckJson = z.infer<typeof CheckJson>

export const CheckCreatedJson = CheckJson.extend({
  watching: z.boolean().meta({ description: 'the company is on the account watchlist' }),
  meta: MetaJson,
})

export const CheckSummaryJson = z.object({
  check_id: z.string(),
  created_at: z.string(),
  dot_number: z.string(),
  legal_name: z.string().nullable(),
  reference: z.string().nullable(),
  verdict: Outcome,
  effective_verdict: Outcome,
  overrides: z.number().int(),
  policy_id: z.string(),
  mode: z
    .enum(['live', 'test'])
    .meta({ description: '`test`: a sandbox check, in its own chain and list' }),
})

export const CheckListJson = z.object({
  checks: z.array(CheckSummaryJson),
  next_cursor: z
    .string()
    .nullable()
    .meta({ description: 'pass as `cursor` for the next page; null on the last page' }),
})
export type CheckListJson = z.infer<typeof CheckListJson>
