/**
 * The OpenAPI 3.1 document of the whole API, generated from each routes module's `docs` list: the
 * same zod schemas that validate requests and shape responses, converted with z.toJSONSchema
 * (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
 */
import { z } from 'zod'
import { errorCodes, type ErrorCode } from '../errors.ts'

type Json = Record<string, unknown>

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
  /** a non-JSON text body (text/html, text/plain, …), published as a string */
  contentType?: string
  /** bodies that are not a zod schema: media type → JSON Schema (`/openapi.json`, assets) */
  content?: Readonly<Record<string, Json>>
  /** RateLimit-* headers (authenticated, metered routes; also on their 429) */
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
  body?: {
    name: string
    schema: z.ZodType
    description: string
    example?: unknown
    /** also accepted as `multipart/form-data` with one file in this field */
    upload?: { field: string; description: string }
  }
  responses: Readonly<Record<number, ResponseDoc>>
  /** error codes the route can answer with (grouped by status in the document) */
  errors: readonly ErrorCode[]
}

/** The one error body (docs/api.md, Errors); extras appear only with the codes that set them. */
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

const SCHEMA_URI = (id: string) => `#/components/schemas/${id}`

/**
 * Schemas published in place of the validating ones, where the validating schema cannot say what
 * it accepts in a form client generators understand: a path parameter checked by two patterns (one
 * message each), a query number that arrives as text, "exactly one of two fields" written as a
 * refinement. The published schema accepts nothing the validating one refuses (it may leave out
 * lenient forms, such as spaces around a USDOT number).
 */
const PUBLISHED = new WeakMap<z.ZodType, z.ZodType>()

/** Publishes `as` in the document wherever `schema` is used (parameter, query key or body). */
export function publishAs<T extends z.ZodType>(schema: T, as: z.ZodType): T {
  PUBLISHED.set(schema, as)
  return schema
}

const published = (s: z.ZodType): z.ZodType => PUBLISHED.get(s) ?? s

/** z.toJSONSchema output without the document-level keys an embedded schema must not carry. */
function embed(schema: Json): Json {
  const { $schema: _s, $id: _i, ...rest } = schema
  return rest
}

const inlineSchema = (s: z.ZodType, io: 'input' | 'output'): Json =>
  embed(z.toJSONSchema(published(s), { io, unrepresentable: 'any', reused: 'inline' }))

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

const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const
const headerRef = (name: string): Json => ({ $ref: `#/components/headers/${name}` })

/**
 * Step 1: every named schema (the Error body, named responses, request bodies) converted once into
 * components.schemas. Throws when two different schemas claim one name.
 */
function componentSchemas(routes: readonly RouteDoc[]): Record<string, Json> {
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
      if (res.schema && res.name) claim(outputs, res.name, published(res.schema))
    if (r.body) claim(inputs, r.body.name, published(r.body.schema))
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
  return schemas
}

/** Step 2: path parameters, then one query parameter per key of the route's query object. */
function parametersOf(r: RouteDoc): Json[] {
  const parameters: Json[] = (r.params ?? []).map((p) => ({
    name: p.name,
    in: p.in,
    required: p.required,
    description: p.description,
    schema: inlineSchema(p.schema, 'input'),
    ...(p.example === undefined ? {} : { example: p.example }),
  }))
  const shape: Record<string, z.ZodType> = r.query?.shape ?? {}
  for (const [name, s] of Object.entries(shape)) {
    const { description, example, ...schema } = inlineSchema(s, 'input')
    parameters.push({
      name,
      in: 'query',
      required: !s.safeParse(undefined).success,
      ...(typeof description === 'string' ? { description } : {}),
      schema,
      ...(example === undefined ? {} : { example }),
    })
  }
  return parameters
}

/** The body of one documented success response. */
function contentOf(res: ResponseDoc): Json {
  if (res.schema) {
    const schema = res.name ? { $ref: SCHEMA_URI(res.name) } : inlineSchema(res.schema, 'output')
    return { content: { 'application/json': { schema } } }
  }
  if (res.content)
    return {
      content: Object.fromEntries(
        Object.entries(res.content).map(([type, schema]) => [type, { schema }]),
      ),
    }
  if (res.contentType) return { content: { [res.contentType]: { schema: { type: 'string' } } } }
  return {}
}

/**
 * Step 3: the responses of one operation: its success answers, one error response per status its
 * error codes answer with (all the one Error body), and `default` for anything else (500).
 */
function responsesOf(r: RouteDoc): Record<string, Json> {
  const rateLimited = Object.values(r.responses).some((res) => res.rateLimited)
  const responses: Record<string, Json> = {}
  for (const [status, res] of Object.entries(r.responses)) {
    const headers: Json = { 'X-Request-Id': headerRef('X-Request-Id') }
    if (res.rateLimited) for (const h of RATE_LIMIT_HEADERS) headers[h] = headerRef(h)
    responses[status] = { description: res.description, headers, ...contentOf(res) }
  }
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of r.errors) {
    const status = errorCodes[code].status
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  const errorBody = { content: { 'application/json': { schema: { $ref: SCHEMA_URI('Error') } } } }
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const headers: Json = { 'X-Request-Id': headerRef('X-Request-Id') }
    if (status === 429 || status === 503) headers['Retry-After'] = headerRef('Retry-After')
    // a quota refusal says how much of the quota is used, like the answers it replaces
    if (status === 429 && rateLimited) for (const h of RATE_LIMIT_HEADERS) headers[h] = headerRef(h)
    responses[String(status)] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\` (${errorCodes[c].message})`).join('; ')}`,
      headers,
      ...errorBody,
    }
  }
  responses.default = {
    description: `Any other error, in the same body: \`internal\` (500, ${errorCodes.internal.message}), \`method_not_allowed\` (405), \`storage_unavailable\` (503) …`,
    headers: { 'X-Request-Id': headerRef('X-Request-Id') },
    ...errorBody,
  }
  return responses
}

/** Step 4: one operation object. */
function operationOf(r: RouteDoc): Json {
  const parameters = parametersOf(r)
  return {
    operationId: r.operationId,
    summary: r.summary,
    description: r.billing ? `${r.description}\n\n**Billing:** ${r.billing}` : r.description,
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
              ...(r.body.upload
                ? {
                    'multipart/form-data': {
                      schema: {
                        type: 'object',
                        required: [r.body.upload.field],
                        properties: {
                          [r.body.upload.field]: {
                            type: 'string',
                            format: 'binary',
                            description: r.body.upload.description,
                          },
                        },
                      },
                    },
                  }
                : {}),
            },
          },
        }
      : {}),
    responses: responsesOf(r),
  }
}

/** Step 5: every operation under its path. Throws when one route is documented twice. */
function pathsOf(routes: readonly RouteDoc[]): Record<string, Record<string, Json>> {
  const paths: Record<string, Record<string, Json>> = {}
  for (const r of routes) {
    const ops = (paths[r.path] ??= {})
    if (ops[r.method]) throw new Error(`${r.method.toUpperCase()} ${r.path} is documented twice`)
    ops[r.method] = operationOf(r)
  }
  return paths
}

const SECURITY_SCHEMES: Json = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key: `Authorization: Bearer cvk_live_…` (live mirror, metered) or `cvk_test_…` (sandbox: the bundled sample data, never billed).',
  },
}

const HEADERS: Json = {
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
}

/** Builds the document. Throws when two different schemas claim one component name. */
export function buildOpenApi(routes: readonly RouteDoc[], opts: OpenApiOptions): Json {
  const schemas = componentSchemas(routes)
  const paths = pathsOf(routes)
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
    components: { securitySchemes: SECURITY_SCHEMES, headers: HEADERS, schemas },
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
