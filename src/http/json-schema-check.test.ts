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
  ['an undocumented key', { ...good, extra: 1 }, /undocumented key extra/],
  ['a missing key', { ...good, id: undefined }, /missing id/],
  ['a wrong type', { ...good, n: 'x' }, /expected/],
  ['a non-integer', { ...good, n: 1.5 }, /expected integer/],
  ['out of range', { ...good, n: 11 }, /maximum/],
  ['an enum miss', { ...good, kind: 'c' }, /not in/],
  ['a pattern miss', { ...good, id: 'x1' }, /does not match/],
  ['too many items', { ...good, tags: ['a', 'b', 'c'] }, /more than 2/],
  ['a union miss', { ...good, sub: { s: 2 } }, /oneOf|anyOf/],
  ['a record value', { ...good, rec: { k: 1 } }, /expected/],
])('%s is caught', (_, value, message) => {
  const v = JSON.parse(JSON.stringify(value)) as unknown
  expect(checkJsonSchema(schema, v, root).join('\n')).toMatch(message)
})

test('an unknown keyword throws instead of passing', () => {
  expect(() => checkJsonSchema({ if: {} }, 1, {})).toThrow(/unsupported/)
  expect(checkJsonSchema({ $ref: '#/nope' }, 1, {})).toEqual(['$: unresolved $ref #/nope'])
})
