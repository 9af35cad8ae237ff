/**
 * Contract: every endpoint is called for real (every documented status of every operation), and
 * each answer is validated against the published OpenAPI document (its JSON Schemas, headers and
 * error codes) and against the zod schema the document was generated from.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ROUTE_DOCS } from '../app.ts'
import { pipelineDeps } from '../deps.ts'
import { equipmentDataset } from '../equipment/equipment.ts'
import { AppError } from '../errors.ts'
import { filesInDir, inputsFor, runBuild } from '../sync/pipeline.ts'
import { suspendAccount } from '../keys/accounts.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { SAFETY_FIXTURES, sampleCensusDir } from '../testing/fixture-dirs.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'
import { checkJsonSchema } from '../testing/json-schema-check.ts'
import { errorResponse } from './errors.ts'

type Json = Record<string, unknown>
const NOW = '2026-11-15T12:00:00Z'

let ctx: TestContext
let empty: TestContext
/** the sample loaded, no live census yet: a live key's misses answer 503 mirror_not_ready */
let early: TestContext
let doc: Json
/** a check made by the starter key in beforeAll (`{check}` in a call's url) */
let checkId = ''
/** an onboarding of the sandbox key's account, made in beforeAll (`{onboarding}` in a url) */
let onboardingId = ''
/** a contact verification made by the starter key in beforeAll (`{cv}` in a call's url) */
let cvId = ''
/** a blocked-list entry of the starter key's account (`{entry}` in a call's url) */
let entryId = ''
const keys: Record<
  'starter' | 'unscoped' | 'free' | 'suspended' | 'sandbox' | 'empty' | 'early',
  string
> = {
  early: '',
  starter: '',
  unscoped: '',
  free: '',
  suspended: '',
  sandbox: '',
  empty: '',
}
beforeAll(async () => {
  ctx = await createTestContext({
    liveDir: LICENSING_FIXTURES,
    sampleDir: sampleCensusDir(),
    now: NOW,
    // codes are only queued here (no mail job runs)
    env: { SMTP_URL: 'smtp://127.0.0.1:9', SMTP_FROM: 'verify@appliance.test' },
  })
  empty = await createTestContext({ now: NOW })
  early = await createTestContext({
    sampleDir: sampleCensusDir(),
    now: NOW,
    env: { SMTP_URL: 'smtp://127.0.0.1:9', SMTP_FROM: 'verify@appliance.test' },
  })
  keys.early = early.account('starter').key()
  // the equipment dataset from the SMS fixture files (one tractor under several carriers)
  const built = await runBuild(
    pipelineDeps(ctx.deps),
    equipmentDataset,
    inputsFor(equipmentDataset, filesInDir(SAFETY_FIXTURES)),
    { channel: 'live', trigger: 'test', signal: AbortSignal.timeout(30_000) },
  )
  expect(built.status).toBe('activated')
  doc = (await (await ctx.get('/openapi.json')).json()) as Json
  // overrides need a key with the override scope; every other call works with it too
  const starter = ctx.account('starter')
  keys.starter = starter.key('live', ['override'])
  keys.unscoped = starter.key()
  keys.sandbox = ctx.account('starter').key('test')
  const free = ctx.account('free')
  keys.free = free.key()
  ctx.deps.db
    .prepare("INSERT INTO usage_counters (account_id, period, used) VALUES (?, '2026-11', 250)")
    .run(free.account.id)
  const sus = ctx.account('starter')
  keys.suspended = sus.key()
  suspendAccount(ctx.deps.db, sus.account.id, 'test', ctx.clock().getTime())
  keys.empty = empty.account('starter').key()
  const created = await ctx.post(
    '/v1/checks',
    { dot: '1000002', reference: 'CONTRACT' },
    keys.starter,
  )
  checkId = ((await created.json()) as { check_id: string }).check_id
  const cv = await ctx.post(
    '/v1/contact-verifications',
    { dot: '1000002', channel: 'email' },
    keys.starter,
  )
  cvId = ((await cv.json()) as { id: string }).id
  // the address on file of 1000009 asked for no codes: 409 no_contact_email
  ctx.deps.db
    .prepare(
      "INSERT INTO mail_suppressions (email, created_at) VALUES ('ops1000009@example.com', 0)",
    )
    .run()
  const entry = await ctx.post(
    '/v1/blocklist',
    { type: 'usdot', value: '1000009', reason: 'contract' },
    keys.starter,
  )
  entryId = ((await entry.json()) as { id: string }).id
  const onboarding = await ctx.post(
    '/v1/onboarding',
    { companies: [{ dot: '9000001' }] },
    keys.sandbox,
  )
  onboardingId = ((await onboarding.json()) as { id: string }).id
})
afterAll(() => {
  ctx.close()
  empty.close()
  early.close()
})

type Who = keyof typeof keys | null
interface Call {
  /** documented path template */
  op: string
  method: 'get' | 'post' | 'delete'
  url: string
  who: Who
  status: number
  body?: unknown
  headers?: Record<string, string>
  /** the empty appliance (no datasets) */
  onEmpty?: boolean
  /** the appliance before its mirror is built (the sample only) */
  onEarly?: boolean
}

const api = (op: string, url: string, cases: [Who, number, string?][]): Call[] =>
  cases.map(([who, status, suffix]) => ({
    op,
    method: 'get',
    url: `${url}${suffix ?? ''}`,
    who,
    status,
  }))

const CALLS: Call[] = [
  {
    op: '/',
    method: 'get',
    url: '/',
    who: null,
    status: 200,
    headers: { accept: 'application/json' },
  },
  { op: '/healthz', method: 'get', url: '/healthz', who: null, status: 200 },
  { op: '/readyz', method: 'get', url: '/readyz', who: null, status: 200 },
  { op: '/readyz', method: 'get', url: '/readyz', who: null, status: 503, onEmpty: true },
  { op: '/metrics', method: 'get', url: '/metrics', who: null, status: 200 },
  { op: '/openapi.json', method: 'get', url: '/openapi.json', who: null, status: 200 },
  { op: '/docs', method: 'get', url: '/docs', who: null, status: 200 },
  { op: '/docs/{file}', method: 'get', url: '/docs/init.js', who: null, status: 200 },
  { op: '/docs/{file}', method: 'get', url: '/docs/swagger-ui.css', who: null, status: 200 },
  { op: '/docs/{file}', method: 'get', url: '/docs/secret.txt', who: null, status: 404 },

  ...api('/v1/carrier/{dot}', '/v1/carrier/1000002', [
    ['starter', 200],
    ['starter', 200, '?crosscheck=true'],
    ['sandbox', 404],
    [null, 401],
    ['suspended', 402],
    ['free', 429],
    ['starter', 400, '?crosscheck=maybe'],
  ]),
  ...api('/v1/carrier/{dot}', '/v1/carrier/', [['starter', 400, 'abc']]),
  ...api('/v1/carrier/{dot}', '/v1/carrier/99999999', [['starter', 404]]),
  ...api('/api/v1/carrier/{dot}', '/api/v1/carrier/9000001', [['sandbox', 200]]),

  ...api('/v1/carrier/{dot}/history', '/v1/carrier/', [
    ['starter', 200, '1000002/history'],
    ['starter', 200, '1000002/history?limit=5'],
    ['starter', 400, 'abc/history'],
    ['starter', 400, '1000002/history?limit=0'],
    ['starter', 400, '1000002/history?cursor=nope'],
    [null, 401, '1000002/history'],
    ['suspended', 402, '1000002/history'],
    ['starter', 404, '99999999/history'],
    ['free', 429, '1000002/history'],
  ]),
  ...api('/api/v1/carrier/{dot}/history', '/api/v1/carrier/9000001/history', [['sandbox', 200]]),
  ...api('/v1/carrier/{dot}/links', '/v1/carrier/', [
    ['starter', 200, '1000002/links'],
    ['starter', 400, 'abc/links'],
    [null, 401, '1000002/links'],
    ['suspended', 402, '1000002/links'],
    ['starter', 404, '99999999/links'],
    ['free', 429, '1000002/links'],
  ]),
  ...api('/api/v1/carrier/{dot}/links', '/api/v1/carrier/9000001/links', [['sandbox', 200]]),

  ...api('/v1/broker/{mc}', '/v1/broker/MC-100002', [
    ['starter', 200],
    ['starter', 200, '?crosscheck=true'],
    [null, 401],
    ['suspended', 402],
    ['free', 429],
    ['starter', 400, '?crosscheck=1x'],
  ]),
  ...api('/v1/broker/{mc}', '/v1/broker/', [
    ['starter', 400, 'not-a-docket'],
    ['starter', 404, 'MC-999998'],
    ['starter', 200, '1000002-B'],
    ['starter', 200, 'FF-100050'],
  ]),
  ...api('/api/v1/broker/{mc}', '/api/v1/broker/MC-1', [['sandbox', 200]]),

  ...api('/v1/bond/{dot}', '/v1/bond/', [
    ['starter', 200, '1000002'],
    ['starter', 200, '1000012'],
    ['starter', 200, '1000001'],
    ['starter', 200, '1000008'],
    ['starter', 400, 'x'],
    [null, 401, '1000002'],
    ['suspended', 402, '1000002'],
    ['starter', 404, '99999999'],
    ['free', 429, '1000002'],
  ]),

  ...api('/v1/search', '/v1/search', [
    ['starter', 200, '?q=test+carrier&limit=50'],
    ['starter', 200, '?q=MC-100002'],
    ['starter', 200, '?q=zzzzzz'],
    ['starter', 200, '?q=test&entity_type=broker&status=active&country=US&state=IA'],
    ['sandbox', 200, '?q=sample'],
    ['starter', 400, '?q=a'],
    [null, 401, '?q=test'],
    ['suspended', 402, '?q=test'],
    ['free', 429, '?q=test+carrier'],
  ]),

  ...api('/v1/equipment/{vin}', '/v1/equipment/', [
    ['starter', 200, '1fujgldr0clbp1234'],
    ['starter', 200, '1FUJ-GLDR0-CLBP1234'],
    ['starter', 404, 'UNKNOWN'],
    ['starter', 404, '1HGCM82633A004352'],
    ['starter', 400, 'X'.repeat(200)],
    ['starter', 400, '1FUJGLDR0%01CLBP1234'],
    ['starter', 400, '1FUJGLDR0CLBP12345'],
    [null, 401, '1FUJGLDR0CLBP1234'],
    ['suspended', 402, '1FUJGLDR0CLBP1234'],
    ['free', 429, '1FUJGLDR0CLBP1234'],
  ]),
  ...api('/api/v1/equipment/{vin}', '/api/v1/equipment/1FUJGLDR0CLBP1234', [['starter', 200]]),
  ...api('/v1/equipment', '/v1/equipment', [
    ['starter', 200, '?plate=p-123456&state=il'],
    ['starter', 404, '?plate=NOPE99&state=IL'],
    ['starter', 400, '?plate=P123456&state=ZZ'],
    ['starter', 400, '?plate=P123456'],
    ['starter', 400, '?plate=%00%01&state=IL'],
    [null, 401, '?plate=P123456&state=IL'],
    ['suspended', 402, '?plate=P123456&state=IL'],
    ['free', 429, '?plate=P123456&state=IL'],
  ]),
]

const verify = (
  who: Who,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): Call => ({
  op: '/v1/verify',
  method: 'post',
  url: '/v1/verify',
  who,
  status,
  body,
  ...(headers ? { headers } : {}),
})
CALLS.push(
  verify('starter', 200, {
    companies: [
      { dot: '1000002' },
      { mc: 'MC-100002' },
      { mc: 'FF-100050', crosscheck: true },
      { dot: 99999999 },
      { dot: 'x' },
      { mc: '??' },
      { nope: 1 },
      { dot: 1000002 },
    ],
  }),
  verify('starter', 200, { dot_numbers: [1000001, '1000009'] }),
  verify('sandbox', 200, { dot_numbers: [9000001] }),
  verify('starter', 400, { companies: [] }),
  verify(null, 401, { dot_numbers: [1] }),
  verify('suspended', 402, { dot_numbers: [1] }),
  verify('starter', 413, { companies: [{ mc: 'x'.repeat(70_000) }] }),
  verify('starter', 415, 'dot=1', { 'content-type': 'text/plain' }),
  verify('free', 429, { dot_numbers: [1000002] }),
)
// the empty appliance: every data route answers 503 dataset_unavailable
for (const [op, url] of [
  ['/v1/carrier/{dot}', '/v1/carrier/1000002'],
  ['/v1/broker/{mc}', '/v1/broker/MC-100002'],
  ['/v1/bond/{dot}', '/v1/bond/1000002'],
  ['/v1/carrier/{dot}/history', '/v1/carrier/1000002/history'],
  ['/v1/carrier/{dot}/links', '/v1/carrier/1000002/links'],
  ['/v1/search', '/v1/search?q=test'],
  ['/v1/equipment/{vin}', '/v1/equipment/1FUJGLDR0CLBP1234'],
  ['/v1/equipment', '/v1/equipment?plate=P123456&state=IL'],
] as const)
  CALLS.push({ op, method: 'get', url, who: 'empty', status: 503, onEmpty: true })
CALLS.push({ ...verify('empty', 503, { dot_numbers: [1] }), onEmpty: true })
// before the mirror is built: a live key's misses answer 503 mirror_not_ready, the batch answers
for (const [op, url] of [
  ['/readyz', '/readyz'],
  ['/v1/carrier/{dot}', '/v1/carrier/2233445'],
  ['/v1/broker/{mc}', '/v1/broker/MC-223344'],
  ['/v1/bond/{dot}', '/v1/bond/2233445'],
  ['/v1/search', '/v1/search?q=nothing'],
] as const)
  CALLS.push({
    op,
    method: 'get',
    url,
    who: 'early',
    status: op === '/readyz' || op === '/v1/search' ? 200 : 503,
    onEarly: true,
  })
CALLS.push({ ...verify('early', 200, { dot_numbers: [9000001, 2233445] }), onEarly: true })

const post = (
  op: string,
  url: string,
  who: Who,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): Call => ({
  op,
  method: 'post',
  url,
  who,
  status,
  body,
  ...(headers ? { headers } : {}),
})
CALLS.push(
  post('/v1/checks', '/v1/checks', 'starter', 201, {
    dot: '1000001',
    reference: 'LOAD-1',
    contact: { phone: '712-439-2831', email: 'ops@examp1e.com' },
    watch: true,
  }),
  post('/v1/checks', '/v1/checks', 'starter', 201, { mc: 'MC-100002' }),
  post('/v1/checks', '/v1/checks', 'starter', 201, {
    dot: '1000001',
    equipment: [{ vin: '1FUJGLDR0CLBP1234' }, { plate: 'P123456', state: 'IL' }, { vin: 'NONE' }],
  }),
  post('/v1/checks', '/v1/checks', 'starter', 400, {
    dot: '1000001',
    equipment: Array.from({ length: 5 }, () => ({ vin: '1FUJGLDR0CLBP1234' })),
  }),
  post('/v1/checks', '/v1/checks', 'starter', 400, {
    dot: '1000001',
    equipment: [{ vin: 'A'.repeat(200) }],
  }),
  post('/v1/checks', '/v1/checks', 'sandbox', 201, { dot: 9000001 }),
  post('/v1/checks', '/v1/checks', 'starter', 400, { dot: '1000001', mc: 'MC-1' }),
  post('/v1/checks', '/v1/checks', 'starter', 400, { dot: 'x' }),
  post('/v1/checks', '/v1/checks', 'starter', 400, { mc: '??' }),
  post('/v1/checks', '/v1/checks', null, 401, { dot: '1000001' }),
  post('/v1/checks', '/v1/checks', 'suspended', 402, { dot: '1000001' }),
  post('/v1/checks', '/v1/checks', 'free', 403, { dot: '1000001', watch: true }),
  post('/v1/checks', '/v1/checks', 'starter', 404, { dot: '99999999' }),
  post('/v1/checks', '/v1/checks', 'starter', 413, { dot: '1', reference: 'x'.repeat(70_000) }),
  post('/v1/checks', '/v1/checks', 'starter', 415, 'dot=1', { 'content-type': 'text/plain' }),
  post('/v1/checks', '/v1/checks', 'free', 429, { dot: '1000001' }),
  { ...post('/v1/checks', '/v1/checks', 'empty', 503, { dot: '1000001' }), onEmpty: true },
  { ...post('/v1/checks', '/v1/checks', 'early', 503, { dot: '2233445' }), onEarly: true },
  ...api('/v1/checks', '/v1/checks', [
    ['starter', 200],
    ['starter', 200, '?dot=1000002&reference=CONTRACT&from=2026-11-01&to=2026-11-15&limit=5'],
    ['starter', 400, '?limit=0'],
    [null, 401],
    ['suspended', 402],
  ]),
  ...api('/v1/checks/{id}', '/v1/checks/', [
    ['starter', 200, '{check}'],
    ['starter', 400, 'not-an-id'],
    [null, 401, '{check}'],
    ['suspended', 402, '{check}'],
    ['free', 404, '{check}'],
  ]),
  ...api('/v1/checks/{id}/report.pdf', '/v1/checks/', [
    ['starter', 200, '{check}/report.pdf'],
    ['starter', 400, 'not-an-id/report.pdf'],
    [null, 401, '{check}/report.pdf'],
    ['suspended', 402, '{check}/report.pdf'],
    ['free', 404, '{check}/report.pdf'],
    ['starter', 404, 'chk_AAAAAAAAAAAAAAAA/report.pdf'],
  ]),
  ...api('/api/v1/checks/{id}/report.pdf', '/api/v1/checks/', [
    ['starter', 200, '{check}/report.pdf'],
  ]),
  post('/v1/checks/{id}/override', '/v1/checks/{check}/override', 'starter', 201, {
    by: 'QA',
    reason: 'known carrier',
  }),
  post('/v1/checks/{id}/override', '/v1/checks/{check}/override', 'unscoped', 403, {
    by: 'QA',
    reason: 'a key without the override scope',
  }),
  post('/v1/checks/{id}/override', '/v1/checks/not-an-id/override', 'starter', 400, {
    by: 'QA',
    reason: 'x',
  }),
  post('/v1/checks/{id}/override', '/v1/checks/{check}/override', 'starter', 400, { by: 'QA' }),
  post('/v1/checks/{id}/override', '/v1/checks/{check}/override', null, 401, {
    by: 'QA',
    reason: 'x',
  }),
  post('/v1/checks/{id}/override', '/v1/checks/{check}/override', 'suspended', 402, {
    by: 'QA',
    reason: 'x',
  }),
  post('/v1/checks/{id}/override', '/v1/checks/{check}/override', 'free', 404, {
    by: 'QA',
    reason: 'x',
  }),
  post('/v1/checks/{id}/override', '/v1/checks/{check}/override', 'starter', 413, {
    by: 'QA',
    reason: 'x'.repeat(70_000),
  }),
  post('/v1/checks/{id}/override', '/v1/checks/{check}/override', 'starter', 415, 'by=QA', {
    'content-type': 'text/plain',
  }),
  // the first onboarding of the starter account is queued (no job runs here): the next is 409
  post('/v1/onboarding', '/v1/onboarding', 'starter', 202, {
    companies: [{ dot: '1000001', reference: 'C-1' }, { mc: 'MC-100002' }],
  }),
  post('/v1/onboarding', '/v1/onboarding', 'starter', 409, { companies: [{ dot: '1000002' }] }),
  post('/v1/onboarding', '/v1/onboarding', 'starter', 400, { companies: [{ dot: 'x' }] }),
  post('/v1/onboarding', '/v1/onboarding', null, 401, { companies: [{ dot: '1000001' }] }),
  post('/v1/onboarding', '/v1/onboarding', 'suspended', 402, { companies: [{ dot: '1000001' }] }),
  post('/v1/onboarding', '/v1/onboarding', 'starter', 413, {
    companies: Array.from({ length: 10_001 }, (_, i) => ({ dot: String(i + 1) })),
  }),
  post('/v1/onboarding', '/v1/onboarding', 'starter', 415, 'dot\n1000001', {
    'content-type': 'text/csv',
  }),
  ...api('/v1/onboarding/{id}', '/v1/onboarding/', [
    ['sandbox', 200, '{onboarding}'],
    ['sandbox', 400, 'not-an-id'],
    [null, 401, '{onboarding}'],
    ['suspended', 402, '{onboarding}'],
    ['starter', 404, '{onboarding}'],
  ]),
)

const cvCreate = (who: Who, status: number, body: unknown, headers?: Record<string, string>) =>
  post('/v1/contact-verifications', '/v1/contact-verifications', who, status, body, headers)
const cvConfirm = (
  who: Who,
  status: number,
  body: unknown,
  id = '{cv}',
  headers?: Record<string, string>,
) =>
  post(
    '/v1/contact-verifications/{id}/confirm',
    `/v1/contact-verifications/${id}/confirm`,
    who,
    status,
    body,
    headers,
  )
CALLS.push(
  cvCreate('starter', 201, { dot: '1000001', channel: 'email' }),
  cvCreate('sandbox', 201, { dot: 9000001, channel: 'email' }),
  cvCreate('starter', 400, { dot: '1000001', channel: 'sms' }),
  cvCreate('starter', 400, { dot: 'x', channel: 'email' }),
  cvCreate(null, 401, { dot: '1000001', channel: 'email' }),
  cvCreate('suspended', 402, { dot: '1000001', channel: 'email' }),
  cvCreate('starter', 404, { dot: '99999999', channel: 'email' }),
  cvCreate('starter', 409, { dot: '1000009', channel: 'email' }),
  { ...cvCreate('early', 503, { dot: '2233445', channel: 'email' }), onEarly: true },
  cvCreate('starter', 413, { dot: '1', channel: 'x'.repeat(70_000) }),
  cvCreate('starter', 415, 'dot=1', { 'content-type': 'text/plain' }),
  cvCreate('free', 429, { dot: '1000001', channel: 'email' }),
  { ...cvCreate('empty', 503, { dot: '1000001', channel: 'email' }), onEmpty: true },
  cvConfirm('starter', 200, { code: '000000' }),
  cvConfirm('starter', 400, { code: 'abc' }),
  cvConfirm('starter', 400, { code: '000000' }, 'not-an-id'),
  cvConfirm(null, 401, { code: '000000' }),
  cvConfirm('suspended', 402, { code: '000000' }),
  cvConfirm('free', 404, { code: '000000' }),
  cvConfirm('starter', 413, { code: 'x'.repeat(70_000) }),
  cvConfirm('starter', 415, 'code=1', '{cv}', { 'content-type': 'text/plain' }),
)
const del = (url: string, who: Who, status: number): Call => ({
  op: '/v1/blocklist/{id}',
  method: 'delete',
  url,
  who,
  status,
})
const ENTRY = { type: 'phone', value: '+1 305 555 0199', reason: 'double-brokered a load' }
CALLS.push(
  post('/v1/blocklist', '/v1/blocklist', 'starter', 201, ENTRY),
  post('/v1/blocklist', '/v1/blocklist', 'starter', 409, { ...ENTRY, value: '(305) 555-0199' }),
  post('/v1/blocklist', '/v1/blocklist', 'starter', 400, { ...ENTRY, type: 'vin', value: 'X' }),
  post('/v1/blocklist', '/v1/blocklist', null, 401, ENTRY),
  post('/v1/blocklist', '/v1/blocklist', 'suspended', 402, ENTRY),
  post('/v1/blocklist', '/v1/blocklist', 'starter', 413, { ...ENTRY, reason: 'x'.repeat(70_000) }),
  post('/v1/blocklist', '/v1/blocklist', 'starter', 415, 'type=phone', {
    'content-type': 'text/plain',
  }),
  ...api('/v1/blocklist', '/v1/blocklist', [
    ['starter', 200],
    [null, 401],
    ['suspended', 402],
  ]),
  del('/v1/blocklist/abc', 'starter', 400),
  del('/v1/blocklist/{entry}', null, 401),
  del('/v1/blocklist/{entry}', 'suspended', 402),
  del('/v1/blocklist/{entry}', 'free', 404),
  del('/v1/blocklist/{entry}', 'starter', 204),
)

const covered = new Set<string>()

function operation(template: string, method: string): Json {
  const path = template.replace(/^\/api\/v1\//, '/v1/')
  const op = (doc.paths as Record<string, Record<string, Json>>)[path]?.[method]
  if (!op) throw new Error(`${method.toUpperCase()} ${path} is not in the document`)
  return op
}

describe('every endpoint, every documented status, validated against /openapi.json', () => {
  test.each(
    CALLS.map(
      (c) =>
        [
          `${c.method.toUpperCase()} ${c.url.slice(0, 70)} as ${c.who ?? 'anonymous'} → ${c.status}`,
          c,
        ] as const,
    ),
  )('%s', async (_, call) => {
    const app = call.onEmpty ? empty : call.onEarly ? early : ctx
    const key = call.who ? keys[call.who] : undefined
    const url = call.url
      .replace('{check}', checkId)
      .replace('{cv}', cvId)
      .replace('{entry}', entryId)
      .replace('{onboarding}', onboardingId)
    const res =
      call.method === 'get'
        ? await app.get(url, key, call.headers)
        : call.method === 'delete'
          ? await app.app.request(url, {
              method: 'DELETE',
              headers: key ? { authorization: `Bearer ${key}` } : {},
            })
          : await app.post(url, call.body, key, call.headers)
    expect(res.status).toBe(call.status)
    const op = operation(call.op, call.method)
    const documented = (op.responses as Record<string, Json>)[String(res.status)]
    expect(documented, `status ${res.status} is documented`).toBeDefined()
    covered.add(`${call.method} ${call.op.replace(/^\/api\/v1\//, '/v1/')} ${res.status}`)

    // headers: every documented one is sent
    const headers = Object.keys(documented?.headers ?? {})
    for (const h of headers) expect(res.headers.get(h), h).not.toBeNull()
    expect(res.headers.get('x-request-id')).toEqual(expect.any(String))

    // body: the documented media type, and the JSON validates against the document
    const content = (documented?.content ?? {}) as Record<string, { schema?: Json }>
    const type = res.headers.get('content-type')?.split(';')[0] ?? ''
    if (Object.keys(content).length === 0) return
    expect(Object.keys(content)).toContain(type)
    if (type !== 'application/json') return
    const text = await res.text()
    const body = JSON.parse(text) as unknown
    const schema = content[type]?.schema
    if (!schema || call.op === '/openapi.json') return
    expect(checkJsonSchema(schema, body, doc)).toEqual([])

    if (res.status >= 400 && (body as Json).code !== undefined) {
      // the error code is one this route documents for this status
      expect(String(documented?.description)).toContain(`\`${String((body as Json).code)}\``)
      expect((body as Json).request_id).toBe(res.headers.get('x-request-id'))
    }
    // and the zod schema the document came from accepts it
    const route = ROUTE_DOCS.find(
      (r) => r.method === call.method && r.path === call.op.replace(/^\/api\/v1\//, '/v1/'),
    )
    const zodSchema = route?.responses[res.status]?.schema
    if (zodSchema) expect(zodSchema.safeParse(body).success).toBe(true)
  })

  test('an unhandled error (500) answers the body every operation documents as `default`', async () => {
    const body = (await errorResponse(new AppError('internal'), 'req-1').json()) as Json
    expect(body).toMatchObject({ status: 500, code: 'internal' })
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Json>>))
      for (const [method, op] of Object.entries(ops)) {
        const fallback = (op.responses as Record<string, Json>).default?.content as Record<
          string,
          { schema: Json }
        >
        expect(
          checkJsonSchema(fallback['application/json']?.schema ?? {}, body, doc),
          `${method} ${path}`,
        ).toEqual([])
      }
  })

  test('negative control: an undocumented key or a wrong type in a real answer is caught', async () => {
    const body = (await (await ctx.get('/v1/broker/MC-100002', keys.starter)).json()) as Json
    const responses = operation('/v1/broker/{mc}', 'get').responses as Record<string, Json>
    const content = responses['200']?.content as Record<string, { schema: Json }>
    const schema = content['application/json']?.schema ?? {}
    expect(checkJsonSchema(schema, body, doc)).toEqual([])
    expect(checkJsonSchema(schema, { ...body, leaked_column: 1 }, doc)).not.toEqual([])
    expect(checkJsonSchema(schema, { ...body, dot_number: 1000002 }, doc)).not.toEqual([])
    const bond = { ...(body.bond as Json), amount: '75000' }
    expect(checkJsonSchema(schema, { ...body, bond }, doc)).not.toEqual([])
  })

  test('every documented (operation, status) pair was exercised', () => {
    const all: string[] = []
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Json>>))
      for (const [method, op] of Object.entries(ops))
        for (const status of Object.keys(op.responses as Json))
          if (status !== 'default') all.push(`${method} ${path} ${status}`)
    expect(all.filter((k) => !covered.has(k))).toEqual([])
  })
})
