/**
 * A small JSON Schema (2020-12) checker for the subset z.toJSONSchema emits, used by the contract
 * test to validate real responses against the published OpenAPI document itself (not only the zod
 * schemas it came from). An unknown keyword is an error, so it can never pass silently.
 */

type Json = unknown
type Schema = Record<string, unknown>

const KNOWN = new Set([
  '$ref',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'items',
  'prefixItems',
  'anyOf',
  'oneOf',
  'allOf',
  'enum',
  'const',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'format',
  'description',
  'default',
  'examples',
  'example',
  'title',
  'readOnly',
])

const typeOf = (v: Json): string =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'number'
        ? Number.isInteger(v)
          ? 'integer'
          : 'number'
        : typeof v

const typeMatches = (t: string, v: Json) =>
  t === typeOf(v) || (t === 'number' && typeOf(v) === 'integer')

const equal = (a: Json, b: Json): boolean => JSON.stringify(a) === JSON.stringify(b)

/**
 * Problems of `value` against `schema` ([] when valid). `$ref`s resolve against `root`
 * (`#/components/schemas/Name`).
 */
export function checkJsonSchema(schema: Schema, value: Json, root: Schema, path = '$'): string[] {
  for (const k of Object.keys(schema))
    if (!KNOWN.has(k)) throw new Error(`unsupported JSON Schema keyword ${k} at ${path}`)
  const out: string[] = []
  const ref = schema['$ref']
  if (typeof ref === 'string') {
    const target = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], root)
    if (!target || typeof target !== 'object') return [`${path}: unresolved $ref ${ref}`]
    out.push(...checkJsonSchema(target as Schema, value, root, path))
  }
  const type = schema['type']
  if (type !== undefined) {
    const types = Array.isArray(type) ? (type as string[]) : [type as string]
    if (!types.some((t) => typeMatches(t, value)))
      return [...out, `${path}: expected ${types.join('|')}, got ${typeOf(value)}`]
  }
  if ('const' in schema && !equal(schema['const'], value))
    out.push(`${path}: expected ${JSON.stringify(schema['const'])}`)
  const en = schema['enum']
  if (Array.isArray(en) && !en.some((e) => equal(e, value)))
    out.push(`${path}: ${JSON.stringify(value)} not in ${JSON.stringify(en)}`)
  if (typeof value === 'string') {
    const pattern = schema['pattern']
    if (typeof pattern === 'string' && !new RegExp(pattern, 'u').test(value))
      out.push(`${path}: ${JSON.stringify(value)} does not match ${pattern}`)
    const min = schema['minLength']
    const max = schema['maxLength']
    if (typeof min === 'number' && [...value].length < min) out.push(`${path}: shorter than ${min}`)
    if (typeof max === 'number' && [...value].length > max) out.push(`${path}: longer than ${max}`)
  }
  if (typeof value === 'number') {
    const checks: [string, (n: number, b: number) => boolean][] = [
      ['minimum', (n, b) => n >= b],
      ['maximum', (n, b) => n <= b],
      ['exclusiveMinimum', (n, b) => n > b],
      ['exclusiveMaximum', (n, b) => n < b],
    ]
    for (const [k, ok] of checks) {
      const b = schema[k]
      if (typeof b === 'number' && !ok(value, b))
        out.push(`${path}: ${k} ${b} violated by ${value}`)
    }
  }
  if (Array.isArray(value)) {
    const minItems = schema['minItems']
    const maxItems = schema['maxItems']
    if (typeof minItems === 'number' && value.length < minItems)
      out.push(`${path}: fewer than ${minItems} items`)
    if (typeof maxItems === 'number' && value.length > maxItems)
      out.push(`${path}: more than ${maxItems} items`)
    const prefix = schema['prefixItems']
    const items = schema['items']
    value.forEach((v, i) => {
      const s = Array.isArray(prefix) && i < prefix.length ? (prefix[i] as Schema) : items
      if (s && typeof s === 'object')
        out.push(...checkJsonSchema(s as Schema, v, root, `${path}[${i}]`))
    })
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>
    const props = (schema['properties'] ?? {}) as Record<string, Schema>
    const required = (schema['required'] ?? []) as string[]
    for (const r of required) if (!(r in obj)) out.push(`${path}: missing ${r}`)
    const additional = schema['additionalProperties']
    const names = schema['propertyNames'] as Schema | undefined
    for (const [k, v] of Object.entries(obj)) {
      if (names) out.push(...checkJsonSchema(names, k, root, `${path}.${k} (name)`))
      const p = props[k]
      if (p) out.push(...checkJsonSchema(p, v, root, `${path}.${k}`))
      else if (additional === false) out.push(`${path}: undocumented key ${k}`)
      else if (additional && typeof additional === 'object')
        out.push(...checkJsonSchema(additional as Schema, v, root, `${path}.${k}`))
    }
  }
  const allOf = schema['allOf']
  if (Array.isArray(allOf))
    for (const s of allOf) out.push(...checkJsonSchema(s as Schema, value, root, path))
  const anyOf = schema['anyOf']
  if (Array.isArray(anyOf)) {
    const results = anyOf.map((s) => checkJsonSchema(s as Schema, value, root, path))
    if (!results.some((r) => r.length === 0))
      out.push(`${path}: matches none of anyOf (${results.map((r) => r[0]).join(' / ')})`)
  }
  const oneOf = schema['oneOf']
  if (Array.isArray(oneOf)) {
    const ok = oneOf.filter((s) => checkJsonSchema(s as Schema, value, root, path).length === 0)
    if (ok.length !== 1) out.push(`${path}: matches ${ok.length} of oneOf, expected exactly 1`)
  }
  return out
}
