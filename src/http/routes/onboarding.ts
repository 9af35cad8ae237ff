/**
 * POST /v1/onboarding — a list of companies (a CSV or XLSX upload, or JSON) checked as one
 * background job; GET /v1/onboarding/{id} — its progress and every row's outcome.
 */
import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { AppError } from '../../errors.ts'
import { createOnboarding, getOnboarding, onboardingRows } from '../../onboarding/onboarding.ts'
import { MAX_FILE_BYTES, MAX_ROWS, parseFile, parseItems } from '../../onboarding/parse.ts'
import { OnboardingJson, OnboardingRequest, OnboardingResultJson } from '../../onboarding/schema.ts'
import type { AppEnv } from '../env.ts'
import type { ParamDoc, RouteDoc } from '../openapi.ts'
import { parseOr } from '../validate.ts'
import { honoPath, type Endpoint } from './endpoint.ts'
import { readJson } from './params.ts'

const OnboardingId = z.string().regex(/^onb_[A-Za-z0-9_-]{16}$/, 'an onboarding id such as onb_…')

const ID_PARAM: ParamDoc = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'the `id` returned by POST /v1/onboarding',
  schema: OnboardingId,
  example: 'onb_3q2xY0mZbq1Kd9f8',
}

const createDoc: RouteDoc = {
  method: 'post',
  path: '/v1/onboarding',
  operationId: 'createOnboarding',
  summary: 'Check a list of companies (CSV, XLSX or JSON) as one background job',
  description: `Up to ${MAX_ROWS} companies by USDOT or MC number, each with an optional reference, as JSON or as a CSV/XLSX upload (\`multipart/form-data\`, field \`file\`, at most ${MAX_FILE_BYTES} bytes; columns found by their header — \`dot\`/\`usdot\`, \`mc\`/\`docket\`, \`reference\` — or column A and B without one). Rows that cannot be read are answered in \`rejected\` and left out; the others are checked in the background exactly as POST /v1/checks would (a stored, signed check each), and \`GET /v1/onboarding/{id}\` shows the progress and results. A file with a formula, a macro-enabled workbook, a file that is not what its name says, or more than ${MAX_ROWS} rows is refused before anything is checked or billed. One onboarding per account runs at a time (409). See docs/onboarding.md.`,
  tags: ['checks'],
  auth: true,
  billing:
    'not billed itself; then one call per company found, when its check is stored (as POST /v1/checks). Rows not found or rejected and refused lists are not billed; a capped plan that reaches its quota stops the onboarding (`failed`, the rest not checked).',
  body: {
    name: 'OnboardingRequest',
    schema: OnboardingRequest,
    description:
      '`{"companies": [{"dot": "344554", "reference": "CARRIER-0042"}, {"mc": "MC-123456"}]}`',
    example: {
      companies: [{ dot: '344554', reference: 'CARRIER-0042' }, { mc: 'MC-123456' }],
    },
    upload: {
      field: 'file',
      description: 'a CSV (UTF-8) or XLSX file: one company a row',
    },
  },
  responses: {
    202: { description: 'Accepted and queued', schema: OnboardingJson, name: 'Onboarding' },
  },
  errors: [
    'invalid_request',
    'unauthorized',
    'payment_required',
    'conflict',
    'payload_too_large',
    'unsupported_media_type',
  ],
}

const getDoc: RouteDoc = {
  method: 'get',
  path: '/v1/onboarding/{id}',
  operationId: 'getOnboarding',
  summary: 'Progress and results of an onboarding',
  description:
    "The onboarding's status and counts, its rejected rows, and every accepted row with its outcome: `checked` (with `check_id`, `verdict` and the `reasons` of the rules that did not pass), `not_found`, `error` (with `message`) or `pending`. Another account's onboarding is a 404. Not billed.",
  tags: ['checks'],
  auth: true,
  billing: 'not billed.',
  params: [ID_PARAM],
  responses: {
    200: { description: 'The onboarding', schema: OnboardingResultJson, name: 'OnboardingResult' },
  },
  errors: ['invalid_request', 'unauthorized', 'payment_required', 'not_found'],
}

const EXAMPLE = '{"companies": [{"dot": "1000001", "reference": "CARRIER-1"}]}'

/** The list of a request: one uploaded file (multipart) or the JSON body. */
async function listOf(c: Context<AppEnv>) {
  const type = c.req.header('content-type') ?? ''
  if (/^multipart\/form-data/i.test(type)) {
    let body: Record<string, unknown>
    try {
      body = await c.req.parseBody()
    } catch {
      throw new AppError('invalid_request', 'The multipart body could not be read')
    }
    const file = body.file
    if (!(file instanceof File))
      throw new AppError('invalid_request', 'Send the list as a file in the form field `file`')
    const list = await parseFile(file.name, new Uint8Array(await file.arrayBuffer()))
    return { list, fileName: file.name.slice(0, 200) }
  }
  const raw = await readJson(c, EXAMPLE)
  const companies = (raw as { companies?: unknown } | null)?.companies
  if (Array.isArray(companies) && companies.length > MAX_ROWS) parseItems(companies as []) // refuses: more than MAX_ROWS
  const req = parseOr(OnboardingRequest, raw, 'invalid_request')
  return { list: parseItems(req.companies), fileName: null }
}

export const onboardingEndpoint: Endpoint = {
  docs: [createDoc, getDoc],
  routes: (deps) =>
    new Hono<AppEnv>()
      .post(honoPath(createDoc), async (c) => {
        const { list, fileName } = await listOf(c)
        const caller = c.get('caller')
        const onboarding = createOnboarding(
          deps,
          {
            accountId: caller.accountId,
            apiKeyId: caller.keyId,
            mode: caller.mode,
            by: `key ${caller.keyId}`,
          },
          list,
          { fileName, start: true },
        )
        return c.json(onboarding, 202, { location: `/v1/onboarding/${onboarding.id}` })
      })
      .get(honoPath(getDoc), (c) => {
        const id = parseOr(OnboardingId, c.req.param('id'), 'invalid_request')
        const accountId = c.get('caller').accountId
        return c.json(
          { ...getOnboarding(deps, accountId, id), results: onboardingRows(deps, accountId, id) },
          200,
        )
      }),
}
