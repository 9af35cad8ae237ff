/**
 * The OpenAPI 3.1 document of the whole API, generated from each routes module's `docs` list: the
 * same zod schemas that validate requests and shape responses, converted with z.toJSONSchema
 * (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
 */
import { z } from 'zod'
import { errorCodes, type ErrorCode } from '../errors.ts'

/** One documented parameter (path or query) with its validating schema. */
export interface ParamDoc {
  name: string
  in: 'path' | 'query'
  required: boolean
  description: string
  schema: z.ZodType
  example?: string
}

export interface ResponseDoc {
  description: string
  /** JSON body schema; give `name` to publish it under components.schemas */
  schema?: z.ZodType
  name?: string
  /** non-JSON bodies (text/html, text/plain, …) */
  contentType?: string
  /** RateLimit-* headers (authenticated, metered routes) */
  rateLimited?: boolean
}

/** What a routes module publishes about one route. */
export interface RouteDoc {
  method: 'get' | 'post' | 'delete'
  /** OpenAPI form (`/v1/carrier/{dot}`); API routes are documented under /v1 only */
  path: string
  operationId: string
  summary: string
  description: string
  tags: readonly string[]
  /** needs `Authorization: Bearer <key>` */
  auth: boolean
  /** how the call is billed, in words */
  billing?: string
  params?: readonly ParamDoc[]
  /** each key of the object becomes a query parameter */
  query?: z.ZodObject
  body?: { name: string; schema: z.ZodType; description: string; example?: unknown }
  responses: Readonly<Record<number, ResponseDoc>>
  /** error codes the route can answer with (grouped by status in the document) */
  errors: readonly ErrorCode[]
}

/** The one error body (STYLE.md §6); extras appear only with the codes that set them. */
export const ErrorJson = z
  .object({
    status: z.number().int().meta({ description: 'the HTTP status, repeated' }),
    error: z.string().meta({ description: 'a message for people' }),
    code: z.enum(Object.keys(errorCodes) as [ErrorCode, ...ErrorCode[]]),
    request_id: z.string().meta({ description: 'same as the X-Request-Id header' }),
    issues: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'validation problems (400)' }),
    quota_used: z.number().int().optional().meta({ description: 'with quota_exceeded (429)' }),
    quota_limit: z.number().int().optional(),
    plan: z.string().optional(),
  })
  .meta({ description: 'Every error: JSON with status, error, code and request_id.' })
export type ErrorJson = z.infer<typeof ErrorJson>

export interface OpenApiOptions {
  publicUrl: string
  version: string
}

type Json = Record<string, unknown>

const SCHEMA_URI = (id: string) => `#/components/schemas/${id}`

/** z.toJSONSchema output without the document-level keys an embedded schema must not carry. */
function embed(schema: Json): Json {
  const { $schema: _s, $id: _i, ...rest } = schema
  return rest
}

const inputSchema = (s: z.ZodType): Json =>
  embed(z.toJSONSchema(s, { io: 'input', unrepresentable: 'any', reused: 'inline' }))

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  400: 'Bad request',
  401: 'Unauthorized',
  402: 'Payment required',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Quota reached',
  500: 'Internal server error',
  503: 'Service unavailable',
}

/** Builds the document. Throws when two different schemas claim one component name. */
export function buildOpenApi(routes: readonly RouteDoc[], opts: OpenApiOptions): Json {
  const outputs = z.registry<{ id: string }>()
  const inputs = z.registry<{ id: string }>()
  const names = new Map<string, z.ZodType>()
  const claim = (reg: typeof outputs, name: string, schema: z.ZodType) => {
    const prev = names.get(name)
    if (prev && prev !== schema) throw new Error(`two different schemas are named ${name}`)
    const id = outputs.get(schema)?.id ?? inputs.get(schema)?.id
    if (id !== undefined && id !== name) throw new Error(`one schema is named ${id} and ${name}`)
    names.set(name, schema)
    if (!reg.has(schema)) reg.add(schema, { id: name })
  }
  claim(outputs, 'Error', ErrorJson)
  for (const r of routes) {
    for (const res of Object.values(r.responses))
      if (res.schema && res.name) claim(outputs, res.name, res.schema)
    if (r.body) claim(inputs, r.body.name, r.body.schema)
  }
  const schemas: Record<string, Json> = {}
  const convert = (reg: typeof outputs, io: 'input' | 'output') => {
    const out = z.toJSONSchema(reg, { uri: SCHEMA_URI, io, unrepresentable: 'any' }) as {
      schemas: Record<string, Json>
    }
    for (const [id, s] of Object.entries(out.schemas)) schemas[id] = embed(s)
  }
  convert(outputs, 'output')
  convert(inputs, 'input')

  const refOrInline = (s: z.ZodType, name?: string): Json =>
    name
      ? { $ref: SCHEMA_URI(name) }
      : embed(z.toJSONSchema(s, { io: 'output', unrepresentable: 'any', reused: 'inline' }))

  const paths: Record<string, Record<string, Json>> = {}
  for (const r of routes) {
    const parameters: Json[] = (r.params ?? []).map((p) => ({
      name: p.name,
      in: p.in,
      required: p.required,
      description: p.description,
      schema: inputSchema(p.schema),
      ...(p.example === undefined ? {} : { example: p.example }),
    }))
    const shape: Record<string, z.ZodType> = r.query?.shape ?? {}
    for (const [name, s] of Object.entries(shape)) {
      const { description, example, ...schema } = inputSchema(s)
      parameters.push({
        name,
        in: 'query',
        required: !s.safeParse(undefined).success,
        ...(typeof description === 'string' ? { description } : {}),
        schema,
        ...(example === undefined ? {} : { example }),
      })
    }
    const responses: Record<string, Json> = {}
    for (const [status, res] of Object.entries(r.responses)) {
      const headers: Json = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } }
      if (res.rateLimited)
        for (const h of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'])
          headers[h] = { $ref: `#/components/headers/${h}` }
      responses[status] = {
        description: res.description,
        headers,
        ...(res.schema
          ? { content: { 'application/json': { schema: refOrInline(res.schema, res.name) } } }
          : res.contentType
            ? { content: { [res.contentType]: { schema: { type: 'string' } } } }
            : {}),
      }
    }
    const byStatus = new Map<number, ErrorCode[]>()
    for (const code of r.errors) {
      const status = errorCodes[code].status
      byStatus.set(status, [...(byStatus.get(status) ?? []), code])
    }
    for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
      const headers: Json = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } }
      if (status === 429 || status === 503)
        headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' }
      responses[String(status)] = {
        description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\` (${errorCodes[c].message})`).join('; ')}`,
        headers,
        content: { 'application/json': { schema: { $ref: SCHEMA_URI('Error') } } },
      }
    }
    const description = r.billing ? `${r.description}\n\n**Billing:** ${r.billing}` : r.description
    paths[r.path] ??= {}
    const ops = paths[r.path] as Record<string, Json>
    if (ops[r.method]) throw new Error(`${r.method.toUpperCase()} ${r.path} is documented twice`)
    ops[r.method] = {
      operationId: r.operationId,
      summary: r.summary,
      description,
      tags: [...r.tags],
      security: r.auth ? [{ bearer: [] }] : [],
      ...(parameters.length ? { parameters } : {}),
      ...(r.body
        ? {
            requestBody: {
              required: true,
              description: r.body.description,
              content: {
                'application/json': {
                  schema: { $ref: SCHEMA_URI(r.body.name) },
                  ...(r.body.example === undefined ? {} : { example: r.body.example }),
                },
              },
            },
          }
        : {}),
      responses,
    }
  }

  const tags = [...new Set(routes.flatMap((r) => r.tags))].map((name) => ({
    name,
    description: TAG_TEXT[name] ?? name,
  }))
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Carrier and Broker Verification API',
      version: opts.version,
      description: INFO_TEXT,
    },
    servers: [{ url: opts.publicUrl, description: 'this appliance' }],
    tags,
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key: `Authorization: Bearer cvk_live_…` (live mirror, metered) or `cvk_test_…` (sandbox: the bundled sample data, never billed).',
        },
      },
      headers: {
        'X-Request-Id': {
          description: 'Request id; also in error bodies and the logs',
          schema: { type: 'string' },
        },
        'RateLimit-Limit': {
          description: 'monthly lookups included in the plan',
          schema: { type: 'integer' },
        },
        'RateLimit-Remaining': {
          description: 'included lookups left this month',
          schema: { type: 'integer' },
        },
        'RateLimit-Reset': {
          description: 'seconds until the quota resets (00:00 UTC on the 1st)',
          schema: { type: 'integer' },
        },
        'Retry-After': {
          description: 'seconds to wait: until the quota resets (429), before retrying (503)',
          schema: { type: 'integer' },
        },
      },
      schemas,
    },
  }
}

/** `/v1/carrier/:dot` (Hono) → `/v1/carrier/{dot}` (OpenAPI). */
export const toOpenApiPath = (honoPath: string) =>
  honoPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)(\{[^}]*\})?/g, '{$1}')

const TAG_TEXT: Record<string, string> = {
  companies: 'Verification records by USDOT number, docket or batch',
  search: 'Find a company by name, USDOT or docket',
  blocklist: "The account's own blocked identifiers (docs/identity.md)",
  checks: 'Stored, signed checks of a company against your vetting policy (docs/checks.md)',
  operations: 'Liveness, readiness, metrics and this reference (no key)',
}

const INFO_TEXT = `Verification data for US, Canadian and Mexican carriers, brokers and freight forwarders, served from a local mirror of FMCSA's public files.

Every \`/v1/...\` path is also served under \`/api/v1/...\` (same handlers, same answers); only the \`/v1\` form is listed here. Operational routes (\`/healthz\`, \`/readyz\`, \`/metrics\`, \`/openapi.json\`, \`/docs\`) need no key.

**Errors** are JSON \`{status, error, code, request_id}\`. **Billing:** a successful lookup counts as one call against the account's monthly quota; a 404 is not billed; the Free plan stops at its quota with 429 and \`Retry-After\`, paid plans continue and bill overage. Authenticated answers carry \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\` for the monthly quota.`
