import { expect, test } from 'vitest'
import { z } from 'zod'
import { checkJsonSchema } from './json-schema-check.ts'

const Thing = z.object({
  id: z.string().regex(/^\d+$/),
  kind: z.enum(['a', 'b']),
  n: z.number().int().min(0).max(10).nullable(),
  tags: z.array(z.string()).max(2),
  sub: z.discriminatedUnion('s', [
    z.object({ s: z.literal(1) }),
    z.object({ s: z.literal(2), x: z.string() }),
  ]),
  rec: z.record(z.string(), z.string().nullable()),
  opt: z.boolean().optional(),
})
const { $schema: _, ...thing } = z.toJSONSchema(Thing)
const root = { components: { schemas: { Thing: thing } } }
const schema = { $ref: '#/components/schemas/Thing' }
const good = { id: '1', kind: 'a', n: null, tags: ['x'], sub: { s: 2, x: 'y' }, rec: { k: null } }

test('a valid value has no problems', () => {
  expect(checkJsonSchema(schema, good, root)).toEqual([])
  expect(Thing.parse(good)).toBeTruthy()
})

test.each([
  ['an undocumented key', { ...good, extra: 1 }, /must NOT have additional properties/],
  ['a missing key', { ...good, id: undefined }, /must have required property 'id'/],
  ['a wrong type', { ...good, n: 'x' }, /\$\/n: must be integer/],
  ['a non-integer', { ...good, n: 1.5 }, /\$\/n: must be integer/],
  ['out of range', { ...good, n: 11 }, /\$\/n: must be <= 10/],
  ['an enum miss', { ...good, kind: 'c' }, /\$\/kind: must be equal to one of the allowed values/],
  ['a pattern miss', { ...good, id: 'x1' }, /\$\/id: must match pattern/],
  [
    'too many items',
    { ...good, tags: ['a', 'b', 'c'] },
    /\$\/tags: must NOT have more than 2 items/,
  ],
  ['a union miss', { ...good, sub: { s: 2 } }, /\$\/sub: must match (exactly one|a) schema/],
  ['a record value', { ...good, rec: { k: 1 } }, /\$\/rec\/k: must be/],
])('%s is caught', (_, value, message) => {
  const v = JSON.parse(JSON.stringify(value)) as unknown
  expect(checkJsonSchema(schema, v, root).join('\n')).toMatch(message)
})

test('an unknown keyword or an unresolvable $ref throws instead of passing', () => {
  expect(() => checkJsonSchema({ frobnicate: {} }, 1, {})).toThrow(/unknown keyword/)
  expect(() => checkJsonSchema({ $ref: '#/nope' }, 1, {})).toThrow(/resolve reference/)
})
