/** The JSON of onboarding requests and answers (published in the OpenAPI document). */
import { z } from 'zod'
import { MAX_ROWS } from './parse.ts'

const Reference = z
  .string()
  .max(200)
  .nullish()
  .meta({ description: 'your reference, kept on the check' })

export const OnboardingRequest = z
  .strictObject({
    companies: z
      .array(
        z.union([
          z.strictObject({
            dot: z
              .union([z.string().max(20), z.number().int()])
              .meta({ description: 'USDOT number' }),
            reference: Reference,
          }),
          z.strictObject({
            mc: z.string().max(40).meta({ description: 'MC/FF/MX docket, e.g. MC-123456' }),
            reference: Reference,
          }),
        ]),
      )
      .max(MAX_ROWS)
      .meta({ description: `1 to ${MAX_ROWS} companies, each by \`dot\` or by \`mc\`` }),
  })
  .meta({ description: 'A list of companies to check, each by `dot` or `mc`, with a reference.' })

export const RejectedRowJson = z.object({
  row: z
    .number()
    .int()
    .meta({ description: 'the row in the file (header included) or the item index + 1' }),
  input: z.string(),
  reason: z.string(),
})

const Verdict = z.enum(['pass', 'review', 'fail'])

export const OnboardingJson = z.object({
  id: z.string(),
  status: z.enum(['draft', 'queued', 'running', 'done', 'failed']),
  mode: z.enum(['live', 'test']),
  file_name: z.string().nullable(),
  rows: z.number().int().meta({ description: 'companies accepted for checking' }),
  rejected: z.array(RejectedRowJson).meta({ description: 'rows that could not be read, and why' }),
  progress: z.object({
    processed: z.number().int(),
    total: z.number().int(),
    checked: z.number().int(),
    not_found: z.number().int(),
    errors: z.number().int(),
    pass: z.number().int(),
    review: z.number().int(),
    fail: z.number().int(),
  }),
  error: z.string().nullable().meta({ description: 'why a failed onboarding stopped' }),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
})

export const OnboardingRowJson = z.object({
  row: z.number().int(),
  input: z.string().meta({ description: 'the USDOT number or docket as read' }),
  kind: z.enum(['dot', 'mc']),
  reference: z.string().nullable(),
  status: z.enum(['pending', 'checked', 'not_found', 'error']),
  check_id: z.string().nullable().meta({ description: 'the stored check (GET /v1/checks/{id})' }),
  verdict: Verdict.nullable(),
  reasons: z.array(z.string()).meta({ description: 'the reasons of the rules that did not pass' }),
  message: z.string().nullable().meta({ description: 'why a row was not checked' }),
})

export const OnboardingResultJson = OnboardingJson.extend({
  results: z.array(OnboardingRowJson),
})
