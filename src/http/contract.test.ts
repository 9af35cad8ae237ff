/**
 * Contract: every endpoint is called for real (every documented status of every operation), and
 * each answer is validated against the published OpenAPI document (its JSON Schemas, headers and
 * error codes) and against the zod schema the document was generated from.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ROUTE_DOCS } from '../app.ts'
import { suspendAccount } from '../keys/accounts.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { sampleCensusDir } from '../testing/fixture-dirs.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'
import { checkJsonSchema } from '../testing/json-schema-check.ts'

type Json = Record<string, unknown>
const NOW = '2026-11-15T12:00:00Z'

let ctx: TestContext
let empty: TestContext
let doc: Json
/** a check made by the starter key in beforeAll (`{check}` in a call's url) */
let checkId = ''
/** a blocked-list entry of the starter key's account (`{entry}` in a call's url) */
let entryId = ''
const keys: Record<'starter' | 'free' | 'suspended' | 'sandbox' | 'empty', string> = {
  starter: '',
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
  })
  empty = await createTestContext({ now: NOW })
  doc = (await (await ctx.get('/openapi.json')).json()) as Json
  keys.starter = ctx.account('starter').key()
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
  const entry = await ctx.post(
    '/v1/blocklist',
    { type: 'usdot', value: '1000009', reason: 'contract' },
    keys.starter,
  )
  entryId = ((await entry.json()) as { id: string }).id
})
afterAll(() => {
  ctx.close()
  empty.close()
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
  ['/v1/search', '/v1/search?q=test'],
] as const)
  CALLS.push({ op, method: 'get', url, who: 'empty', status: 503, onEmpty: true })
CALLS.push({ ...verify('empty', 503, { dot_numbers: [1] }), onEmpty: true })

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
  post('/v1/checks/{id}/override', '/v1/checks/{check}/override', 'starter', 201, {
    by: 'QA',
    reason: 'known carrier',
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
    const app = call.onEmpty ? empty : ctx
    const key = call.who ? keys[call.who] : undefined
    const url = call.url.replace('{check}', checkId).replace('{entry}', entryId)
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
    const type = Object.keys(content)[0]
    if (!type) return
    expect(res.headers.get('content-type')?.split(';')[0]).toBe(
      type === 'text/plain'
        ? 'text/plain'
        : type === 'application/octet-stream'
          ? res.headers.get('content-type')?.split(';')[0]
          : type,
    )
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
          all.push(`${method} ${path} ${status}`)
    expect(all.filter((k) => !covered.has(k))).toEqual([])
  })
})
