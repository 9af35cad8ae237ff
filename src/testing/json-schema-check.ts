/**
 * Validates a value against a JSON Schema (2020-12) taken from the published OpenAPI document,
 * with ajv in strict mode: an unknown keyword is an error, so a check can never pass silently.
 * `$ref`s into `#/components/...` resolve against the document itself.
 */
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

// ajv-formats is CommonJS: under ESM its function sits on `.default`
const addFormats =
  (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule

type Schema = Record<string, unknown>

function createValidator(): Ajv2020 {
  // type: [a, b] unions are legitimate JSON Schema (nullable values)
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true })
  addFormats(ajv)
  // OpenAPI keywords that are not JSON Schema validation keywords
  ajv.addVocabulary(['components', 'example'])
  return ajv
}

const ajv = createValidator()

/** Errors of `value` against `schema` (empty when valid), as `path: message` strings. */
export function checkJsonSchema(schema: Schema, value: unknown, root: Schema): string[] {
  const validate = ajv.compile({ ...schema, components: root.components })
  if (validate(value)) return []
  return (validate.errors ?? []).map((e) => `$${e.instancePath}: ${e.message ?? 'invalid'}`)
}
