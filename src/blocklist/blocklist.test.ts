import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { runCliCaptured } from '../testing/cli.ts'
import { addEntry, blocklistHits, listEntries, normalizeValue, removeEntry } from './blocklist.ts'
import { checkVin } from './vin.ts'

let ctx: TestContext
beforeEach(async () => {
  ctx = await createTestContext()
})
afterEach(() => ctx.close())

const NOW = Date.parse('2026-12-01T10:00:00Z')

describe('blocked-list values', () => {
  test.each([
    ['usdot', 'USDOT 0344554', '344554'],
    ['mc', 'mc-012345', 'MC12345'],
    ['mc', 'FF 77', 'FF77'],
    ['phone', '(305) 555-0199', '+13055550199'],
    ['phone', '+1 305 555 0199', '+13055550199'],
    ['email', ' Dispatch@Example.COM ', 'dispatch@example.com'],
    ['vin', '1m8gdm9axkp042788', '1M8GDM9AXKP042788'],
    ['officer', 'john  q. public, jr.', 'JOHN Q PUBLIC JR'],
    ['address', '805 Elm St., Hull, IA', '805 ELM ST HULL IA'],
  ] as const)('%s %s → %s', (type, value, stored) => {
    expect(normalizeValue(type, value)).toEqual({ value: stored })
  })

  test.each([
    ['usdot', '0'],
    ['usdot', '123456789'],
    ['mc', 'XX-12'],
    ['phone', '555-01'],
    ['email', 'dispatch@'],
    ['vin', '1M8GDM9AXKP04278'],
    ['vin', '1M8GDM9AIKP042788'],
    ['vin', '1M8GDM9A1KP042788'],
    ['officer', 'J.'],
    ['address', 'x'],
  ] as const)('%s %s is refused', (type, value) => {
    expect(normalizeValue(type, value)).toHaveProperty('error')
  })

  test('the VIN check digit is computed by the rules (an X for a remainder of 10)', () => {
    expect(checkVin('1M8GDM9AXKP042788')).toEqual({ vin: '1M8GDM9AXKP042788' })
    expect(checkVin('1M8GDM9A2KP042788')).toEqual({ error: expect.stringMatching(/should be X/) })
  })

  test('a placeholder VIN is refused by the equipment rules, though its check digit adds up', () => {
    expect(checkVin('11111111111111111')).toEqual({ error: 'a placeholder, not a VIN' })
    expect(normalizeValue('vin', '11111111111111111')).toHaveProperty('error')
  })
})

describe('the blocked list', () => {
  test('entries are per account, validated, unique, and matched however the value was written', async () => {
    const a = ctx.account('starter')
    const b = ctx.account('starter')
    const e1 = addEntry(
      ctx.deps.db,
      a.account.id,
      { type: 'phone', value: '305.555.0199', reason: 'double-brokered' },
      'cli',
      NOW,
    )
    expect(e1).toEqual({
      id: expect.any(String),
      type: 'phone',
      value: '+13055550199',
      reason: 'double-brokered',
      created_at: '2026-12-01T10:00:00.000Z',
      created_by: 'cli',
    })
    expect(() =>
      addEntry(
        ctx.deps.db,
        a.account.id,
        { type: 'phone', value: '+1 305 555 0199', reason: 'x' },
        'cli',
        NOW,
      ),
    ).toThrow(/already/)
    expect(() =>
      addEntry(
        ctx.deps.db,
        a.account.id,
        { type: 'email', value: 'nope', reason: 'x' },
        'cli',
        NOW,
      ),
    ).toThrow(/^value: /)
    addEntry(
      ctx.deps.db,
      a.account.id,
      { type: 'officer', value: 'Jane Doe', reason: 'x' },
      'cli',
      NOW,
    )
    addEntry(
      ctx.deps.db,
      a.account.id,
      { type: 'usdot', value: '1000002', reason: 'x' },
      'cli',
      NOW,
    )
    expect(listEntries(ctx.deps.db, b.account.id)).toEqual([])
    expect(listEntries(ctx.deps.db, a.account.id)).toHaveLength(3)

    const subject = {
      dot: 1000002,
      phones: ['3055550199', null],
      emails: ['ops@example.com'],
      officers: ['JANE  DOE'],
      vins: ['garbage'],
    }
    const hits = blocklistHits(ctx.deps.db, a.account.id, subject, 'company')
    expect(hits.map((h) => [h.type, h.value, h.via, h.dot_number]).sort()).toEqual([
      ['officer', 'JANE DOE', 'company', '1000002'],
      ['phone', '+13055550199', 'company', '1000002'],
      ['usdot', '1000002', 'company', '1000002'],
    ])
    expect(blocklistHits(ctx.deps.db, b.account.id, subject, 'company')).toEqual([])
    expect(
      blocklistHits(ctx.deps.db, a.account.id, { phones: ['+44 20 7946 0958'] }, 'contact'),
    ).toEqual([])

    expect(removeEntry(ctx.deps.db, b.account.id, Number(e1.id))).toBe(false)
    expect(removeEntry(ctx.deps.db, a.account.id, Number(e1.id))).toBe(true)
    expect(removeEntry(ctx.deps.db, a.account.id, Number(e1.id))).toBe(false)
  })

  test('the API: 201, 400 naming the field, listing, another account invisible, 204 then 404', async () => {
    const a = ctx.account('starter').key()
    const b = ctx.account('starter').key()
    const bad = await ctx.post('/v1/blocklist', { type: 'email', value: 'x@', reason: 'r' }, a)
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ status: 400, issues: [{ path: 'value' }] })
    const badType = await ctx.post('/v1/blocklist', { type: 'fax', value: '1', reason: 'r' }, a)
    expect(await badType.json()).toMatchObject({ status: 400, issues: [{ path: 'type' }] })
    const created = await ctx.post(
      '/v1/blocklist',
      { type: 'vin', value: '1m8gdm9axkp042788', reason: 'stolen trailer' },
      a,
    )
    expect(created.status).toBe(201)
    const entry = (await created.json()) as { id: string; created_by: string }
    expect(entry.created_by).toMatch(/^key:\d+$/)
    const listed = (await (await ctx.get('/v1/blocklist', a)).json()) as { entries: unknown[] }
    expect(listed.entries).toHaveLength(1)
    expect(await (await ctx.get('/v1/blocklist', b)).json()).toEqual({ entries: [] })
    const del = (key: string) =>
      ctx.app.request(`/v1/blocklist/${entry.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${key}` },
      })
    expect((await del(b)).status).toBe(404)
    expect((await del(a)).status).toBe(204)
    expect((await del(a)).status).toBe(404)
    // not billed
    const used = ctx.deps.db.prepare('SELECT coalesce(sum(used), 0) AS n FROM usage_counters').get()
    expect(used).toEqual({ n: 0 })
  })

  test('the CLI adds, lists and removes', async () => {
    const id = String(ctx.account('starter').account.id)
    const cli = (argv: string[]) => runCliCaptured(ctx, argv, '')
    const add = await cli([
      'blocklist',
      'add',
      '--account',
      id,
      '--type',
      'email',
      '--value',
      'Bad@Example.com',
      '--reason',
      'fake dispatcher',
      '--by',
      'ops',
      '--json',
    ])
    expect(add.code).toBe(0)
    const entry = JSON.parse(add.stdout) as { id: string; value: string; created_by: string }
    expect(entry).toMatchObject({ value: 'bad@example.com', created_by: 'cli:ops' })
    expect(
      (
        await cli([
          'blocklist',
          'add',
          '--account',
          id,
          '--type',
          'vin',
          '--value',
          'X',
          '--reason',
          'r',
        ])
      ).code,
    ).toBe(2)
    expect((await cli(['blocklist', 'list', '--account', id])).stdout).toMatch(/fake dispatcher/)
    expect((await cli(['blocklist', 'remove', '--account', id, entry.id])).code).toBe(0)
    expect((await cli(['blocklist', 'remove', '--account', id, entry.id])).code).toBe(1)
    expect(
      (
        await cli([
          'blocklist',
          'add',
          '--account',
          '999',
          '--type',
          'usdot',
          '--value',
          '1',
          '--reason',
          'r',
        ])
      ).code,
    ).toBe(2)
  })
})
