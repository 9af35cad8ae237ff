import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { ROUTE_DOCS } from '../app.ts'
import { errorCodes } from '../errors.ts'
import { DotParam } from '../carriers/docket.ts'
import { CheckRequest } from '../checks/schema.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { checkJsonSchema } from '../testing/json-schema-check.ts'
import { SearchQuery } from './routes/search.ts'
import { DOCS_ASSETS } from './routes/docs.ts'
import { buildOpenApi, toOpenApiPath, type RouteDoc } from './openapi.ts'

type Json = Record<string, unknown>

let ctx: TestContext
let doc: Json
beforeAll(async () => {
  ctx = await createTestContext({ env: { PUBLIC_URL: 'https://verify.example.test' } })
  doc = (await (await ctx.get('/openapi.json')).json()) as Json
})
afterAll(() => ctx.close())

const paths = () => doc.paths as Record<string, Record<string, Json>>
const operations = () =>
  Object.entries(paths()).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method, op })),
  )

describe('GET /openapi.json', () => {
  test('OpenAPI 3.1 with info, servers from PUBLIC_URL and the bearer scheme; no key needed', async () => {
    const res = await ctx.get('/openapi.json')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(doc).toMatchObject({
      openapi: '3.1.0',
      info: { title: 'Carrier and Broker Verification API', version: expect.any(String) },
      servers: [{ url: 'https://verify.example.test' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    })
    expect((doc.info as Json).description).toMatch(/\/api\/v1/)
  })

  test('is the document built from ROUTE_DOCS', () => {
    expect(doc).toEqual(
      JSON.parse(
        JSON.stringify(
          buildOpenApi(ROUTE_DOCS, {
            publicUrl: 'https://verify.example.test',
            version: (doc.info as { version: string }).version,
          }),
        ),
      ),
    )
  })

  test('every mounted route is documented and every documented route is mounted', () => {
    const documented = new Set(ROUTE_DOCS.map((r) => `${r.method.toUpperCase()} ${r.path}`))
    // routes that only exist to answer 400 for a missing path parameter (`/v1/carrier`, `/v1/carrier/`)
    const paramParents = new Set(
      ROUTE_DOCS.filter((r) => /\/\{[^}]+\}$/.test(r.path))
        .map((r) => `${r.method.toUpperCase()} ${r.path.replace(/\/\{[^}]+\}$/, '')}`)
        .filter((k) => !documented.has(k)),
    )
    const mounted = new Set<string>()
    const alias = new Set<string>()
    for (const r of ctx.app.routes) {
      // the console (/console) is HTML for people, not part of the API description
      if (r.method === 'ALL' || r.path === '/console' || r.path.startsWith('/console/')) continue
      const path = toOpenApiPath(r.path).replace(/(.)\/$/, '$1')
      const key = `${r.method} ${path}`
      if (path.startsWith('/api/v1/')) {
        alias.add(key.replace(' /api/v1/', ' /v1/'))
        continue
      }
      if (paramParents.has(key)) continue
      mounted.add(key)
    }
    expect([...mounted].sort()).toEqual([...documented].sort())
    // /api/v1 serves exactly the /v1 routes
    const v1 = [...mounted].filter((k) => k.includes(' /v1/'))
    const aliasOnly = [...alias].filter((k) => !paramParents.has(k))
    expect(aliasOnly.sort()).toEqual(v1.sort())
  })

  test('every API operation needs the key; operational ones do not', () => {
    for (const { path, op } of operations()) {
      const security = op.security as unknown[]
      if (path.startsWith('/v1/')) expect(security, path).toEqual([{ bearer: [] }])
      else expect(security, path).toEqual([])
    }
  })

  test('operation ids are unique; error responses use the Error schema and list their codes', () => {
    const ids = operations().map(({ op }) => op.operationId)
    expect(new Set(ids).size).toBe(ids.length)
    for (const { path, op } of operations()) {
      for (const [status, res] of Object.entries(op.responses as Record<string, Json>)) {
        if (status === 'default' || Number(status) < 400 || path === '/readyz') continue
        expect(res, `${path} ${status}`).toMatchObject({
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        })
        const codes = Object.entries(errorCodes).filter(([, v]) => String(v.status) === status)
        expect(codes.some(([c]) => String(res.description).includes(`\`${c}\``))).toBe(true)
      }
    }
  })

  test('every operation documents a default error response with the Error body (500 and the rest)', () => {
    for (const { path, method, op } of operations()) {
      const fallback = (op.responses as Record<string, Json>).default
      expect(fallback, `${method} ${path} default`).toMatchObject({
        description: expect.stringContaining('`internal` (500'),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      })
    }
  })

  test('what generated clients stumbled on: bodies, media types, one USDOT schema, integers, exactly one of dot or mc', () => {
    const op = (path: string, method = 'get') => paths()[path]?.[method] as Json
    const ok = (path: string) => (op(path).responses as Record<string, Json>)['200'] as Json
    // /openapi.json is a JSON object, not a string
    expect(ok('/openapi.json').content).toEqual({
      'application/json': { schema: expect.objectContaining({ type: 'object' }) },
    })
    // /docs/{file} lists the media types it answers with
    expect(Object.keys(ok('/docs/{file}').content as Json).sort()).toEqual([
      'image/png',
      'text/css',
      'text/javascript',
    ])
    // the USDOT path parameter is one schema with one pattern (no allOf)
    for (const path of ['/v1/carrier/{dot}', '/v1/bond/{dot}']) {
      const dot = (op(path).parameters as Json[]).find((p) => p.name === 'dot')
      expect(dot?.schema, path).toEqual({ type: 'string', pattern: '^(?!0+$)[0-9]{1,8}$' })
      const pattern = new RegExp(String((dot?.schema as Json).pattern))
      for (const good of ['1', '344554', '12345678', '0001']) expect(pattern.test(good)).toBe(true)
      for (const bad of ['0', '000', '123456789', 'x1', '']) expect(pattern.test(bad)).toBe(false)
    }
    // search limit is an integer
    const limit = (op('/v1/search').parameters as Json[]).find((p) => p.name === 'limit')
    expect(limit?.schema).toEqual({ type: 'integer', minimum: 1, maximum: expect.any(Number) })
    // checks: exactly one of dot or mc, in the schema
    const schemas = (doc.components as { schemas: Record<string, Json> }).schemas
    const request = schemas.CheckRequest as { oneOf: Json[] }
    expect(request.oneOf.map((s) => s.required)).toEqual([['dot'], ['mc']])
    for (const s of request.oneOf) expect(s.additionalProperties).toBe(false)
    // a quota refusal carries the RateLimit headers, like the answers it replaces
    const refused = (op('/v1/carrier/{dot}').responses as Record<string, Json>)['429'] as Json
    expect(Object.keys(refused.headers as Json)).toEqual(
      expect.arrayContaining([
        'Retry-After',
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
      ]),
    )
  })

  test('a published schema accepts nothing its validating schema refuses', () => {
    const schemas = (doc.components as { schemas: Record<string, Json> }).schemas
    const param = (path: string, name: string) =>
      ((paths()[path]?.get?.parameters as Json[]).find((p) => p.name === name)?.schema ??
        {}) as Json
    const cases: [Json, z.ZodType, unknown[]][] = [
      [
        param('/v1/carrier/{dot}', 'dot'),
        DotParam,
        ['1', '0', '00', '007', '12345678', '123456789', '-1', '1.5', '1e3', ' 1', '١٢', 'x'],
      ],
      [
        param('/v1/search', 'limit'),
        SearchQuery.shape.limit,
        [0, 1, 7, 50, 51, 1.5, -1, 999, 1000],
      ],
      [
        schemas.CheckRequest ?? {},
        CheckRequest,
        [
          { dot: '344554' },
          { dot: 344554, reference: 'L-1', watch: true },
          { mc: 'MC-1', contact: { phone: '+1 712 439 2831' } },
          { dot: '1', mc: 'MC-1' },
          {},
          { reference: 'L-1' },
          { dot: '1', extra: 1 },
          { mc: 'MC-1', contact: { fax: '1' } },
        ],
      ],
    ]
    let accepted = 0
    for (const [published, validating, values] of cases)
      for (const value of values) {
        // query values arrive as text
        const input = validating === SearchQuery.shape.limit ? String(value) : value
        if (checkJsonSchema(published, value, doc).length > 0) continue
        accepted++
        expect(validating.safeParse(input).success, JSON.stringify(value)).toBe(true)
      }
    expect(accepted).toBeGreaterThanOrEqual(8)
  })

  test('the API routes document 401 and 402; billed ones 429, 503 and their RateLimit headers', () => {
    for (const { path, op } of operations()) {
      if (!path.startsWith('/v1/')) continue
      const responses = op.responses as Record<string, Json>
      const ok = responses['200'] ?? responses['201'] ?? responses['202'] ?? responses['204']
      expect(ok, `${path} 200, 201, 202 or 204`).toBeDefined()
      for (const s of ['401', '402']) expect(responses[s], `${path} ${s}`).toBeDefined()
      // reading stored checks (GET /v1/checks…, overrides) is documented as not billed
      if (String(op.description).includes('**Billing:** not billed')) continue
      for (const s of ['429', '503']) expect(responses[s], `${path} ${s}`).toBeDefined()
      expect(Object.keys(ok?.headers as Json)).toEqual(
        expect.arrayContaining([
          'X-Request-Id',
          'RateLimit-Limit',
          'RateLimit-Remaining',
          'RateLimit-Reset',
        ]),
      )
      expect(Object.keys(responses['429']?.headers as Json)).toContain('Retry-After')
    }
    expect(paths()['/v1/verify']?.post?.responses).toHaveProperty('413')
    expect(paths()['/v1/verify']?.post?.responses).toHaveProperty('415')
  })

  test('every $ref resolves and no embedded schema carries $schema or $id', () => {
    const refs: string[] = []
    const walk = (o: unknown, at: string) => {
      if (Array.isArray(o)) o.forEach((x, i) => walk(x, `${at}[${i}]`))
      else if (o && typeof o === 'object')
        for (const [k, v] of Object.entries(o)) {
          if (k === '$ref' && typeof v === 'string') refs.push(v)
          if (k === '$schema' || k === '$id') throw new Error(`${k} at ${at}`)
          walk(v, `${at}.${k}`)
        }
    }
    walk(doc.paths, 'paths')
    walk(doc.components, 'components')
    for (const ref of refs) {
      const target = ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<unknown>((o, k) => (o as Json | undefined)?.[k], doc)
      expect(target, ref).toBeTypeOf('object')
    }
    expect(refs.length).toBeGreaterThan(10)
  })

  test('request schemas come from the validating schemas (query, path and body)', () => {
    const search = paths()['/v1/search']?.get
    const params = (search?.parameters as Json[]).map((p) => [p.name, p.required])
    expect(params).toEqual([
      ['q', true],
      ['state', false],
      ['country', false],
      ['entity_type', false],
      ['status', false],
      ['limit', false],
      ['cursor', false],
    ])
    const schemas = (doc.components as { schemas: Record<string, Json> }).schemas
    expect(schemas.VerifyRequest).toMatchObject({ anyOf: expect.any(Array) })
    expect(JSON.stringify(schemas.VerifyRequest)).toContain('"maxItems":100')
    const broker = paths()['/v1/broker/{mc}']?.get
    expect((broker?.parameters as Json[])[0]).toMatchObject({
      name: 'mc',
      in: 'path',
      required: true,
    })
  })
})

describe('buildOpenApi guards', () => {
  const route = (over: Partial<RouteDoc>): RouteDoc => ({
    method: 'get',
    path: '/x',
    operationId: 'x',
    summary: 'x',
    description: 'x',
    tags: ['operations'],
    auth: false,
    responses: { 200: { description: 'ok' } },
    errors: [],
    ...over,
  })
  test('two schemas with one name, or one route twice, throw', () => {
    const a = z.object({ a: z.string() })
    const b = z.object({ b: z.string() })
    expect(() =>
      buildOpenApi(
        [
          route({ responses: { 200: { description: 'a', schema: a, name: 'Same' } } }),
          route({
            path: '/y',
            operationId: 'y',
            responses: { 200: { description: 'b', schema: b, name: 'Same' } },
          }),
        ],
        { publicUrl: 'http://t', version: '1' },
      ),
    ).toThrow(/named Same/)
    expect(() =>
      buildOpenApi([route({}), route({})], { publicUrl: 'http://t', version: '1' }),
    ).toThrow(/documented twice/)
  })

  test('toOpenApiPath', () => {
    expect(toOpenApiPath('/v1/carrier/:dot')).toBe('/v1/carrier/{dot}')
    expect(toOpenApiPath('/docs/:file')).toBe('/docs/{file}')
  })
})

describe('GET /docs', () => {
  test('an HTML page whose every asset is local (no CDN), with a strict CSP', async () => {
    const res = await ctx.get('/docs')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/)
    const html = await res.text()
    expect(html).not.toMatch(/https?:\/\//)
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '')
    expect(refs).toEqual(
      expect.arrayContaining([
        '/docs/swagger-ui.css',
        '/docs/swagger-ui-bundle.js',
        '/docs/init.js',
      ]),
    )
    for (const ref of refs) {
      const a = await ctx.get(ref)
      expect(a.status, ref).toBe(200)
      expect((await a.arrayBuffer()).byteLength, ref).toBeGreaterThan(0)
    }
  })

  test('assets carry their media types; the initializer points at /openapi.json, no validator', async () => {
    for (const [file, type] of Object.entries(DOCS_ASSETS))
      expect((await ctx.get(`/docs/${file}`)).headers.get('content-type'), file).toBe(type)
    const init = await (await ctx.get('/docs/init.js')).text()
    expect(init).toContain("url: '/openapi.json'")
    expect(init).toContain('validatorUrl: null')
    expect((await (await ctx.get('/docs/swagger-ui-bundle.js')).text()).length).toBeGreaterThan(
      100_000,
    )
  })

  test('anything else under /docs → 404 JSON (no file system access outside the list)', async () => {
    for (const p of [
      '/docs/package.json',
      '/docs/..%2Fpackage.json',
      '/docs/swagger-ui.js.map',
      '/docs/index.html',
    ]) {
      const res = await ctx.get(p)
      expect(res.status, p).toBe(404)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    }
  })
})
