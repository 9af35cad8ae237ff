/** The link index end to end: census and OOS files through the real pipeline, then GET /links. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CarrierJson } from '../carriers/schema.ts'
import { addressKey, officerKey } from '../census/link-keys.ts'
import { carrierRow, writeCensus } from '../testing/census-fixture.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LinksJson } from './schema.ts'

let ctx: TestContext
let dir: string
let key: string

/** Every company gets its own phone, e-mail, fax and street unless a test shares them. */
const row = (dot: number, over: Parameters<typeof carrierRow>[1] = {}) =>
  carrierRow(dot, {
    PHONE: `515${String(dot).slice(-7)}`,
    PHY_STREET: `${dot} MAIN ST`,
    ...over,
  })

const SHARED_PHONE = Array.from({ length: 25 }, (_, i) =>
  row(4_000_100 + i, { PHONE: '8005550142' }),
)

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cvk-links-'))
  writeCensus(join(dir, 'az4n-8mr2.csv'), [
    // a carrier put out of service, and a successor added 61 days later with the same officer
    row(4_000_001, { COMPANY_OFFICER_1: 'JOHN Q PUBLICOVICH', ADD_DATE: '20180101' }),
    row(4_000_002, { COMPANY_OFFICER_1: 'john q publicovich', ADD_DATE: '20260501' }),
    // a common name alone is no link
    row(4_000_010, { COMPANY_OFFICER_1: 'JOHN SMITH' }),
    row(4_000_011, { COMPANY_OFFICER_1: 'SMITH, JOHN' }),
    // an officer key (initial and order differ) counts with a shared fax
    row(4_000_020, { COMPANY_OFFICER_1: 'ROBERT K. ZYLSTRA', FAX: '6125550101' }),
    row(4_000_021, { COMPANY_OFFICER_2: 'Zylstra, Robert Jr', FAX: '(612) 555-0101' }),
    // an e-mail shared, no event: concurrent
    row(4_000_030, { EMAIL_ADDRESS: 'ops@shared.example' }),
    row(4_000_031, { EMAIL_ADDRESS: 'OPS@shared.example' }),
    ...SHARED_PHONE,
  ])
  writeFileSync(
    join(dir, 'p2mt-9ige.csv'),
    'DOT_NUMBER,LEGAL_NAME,DBA_NAME,OOS_DATE,OOS_REASON,STATUS,RESCIND_DATE\n' +
      '4000001,TEST CARRIER 4000001 LLC,,2026-03-01,IMMINENT HAZARD,ACTIVE,\n',
  )
  ctx = await createTestContext({ liveDir: dir, sampleDir: 'data/sample' })
  key = ctx.account('starter').key()
})
afterAll(() => {
  ctx.close()
  rmSync(dir, { recursive: true, force: true })
})

async function linksOf(dot: number) {
  const res = await ctx.get(`/v1/carrier/${dot}/links`, key)
  expect(res.status).toBe(200)
  return LinksJson.parse(await res.json())
}

describe('link keys', () => {
  test('officer names meet across case, punctuation, order, suffixes and initials', () => {
    expect(officerKey('John A. Publicovich Jr.')).toBe('JOHN PUBLICOVICH')
    expect(officerKey('PUBLICOVICH, JOHN')).toBe('JOHN PUBLICOVICH')
    expect(officerKey('J. PUBLICOVICH')).toBeNull()
    expect(officerKey('JOHN SMITH')).toBe('*JOHN SMITH')
    expect(addressKey('12 North Main Street, Ste. 4', 'Hull', 'ia')).toBe(
      addressKey('12 N MAIN ST STE 4', 'HULL', 'IA'),
    )
  })
})

describe('GET /v1/carrier/{dot}/links', () => {
  test('a successor of a carrier put out of service, sharing an officer, is its predecessor', async () => {
    const succ = await linksOf(4_000_002)
    expect(succ.links).toEqual([
      {
        dot_number: '4000001',
        legal_name: 'TEST CARRIER 4000001 LLC',
        usdot_status: 'active',
        shared: ['officer'],
        relation: 'predecessor',
        event: { kind: 'out_of_service', date: '2026-03-01' },
        days_between: 61,
      },
    ])
    const pred = await linksOf(4_000_001)
    expect(pred.links[0]).toMatchObject({
      dot_number: '4000002',
      relation: 'successor',
      event: { kind: 'out_of_service', date: '2026-03-01' },
      days_between: 61,
    })
    // the record counts it, and the Trust Score weighs it
    const res = await ctx.get('/v1/carrier/4000002', key)
    const body = CarrierJson.parse(await res.json())
    expect(body.identity.links).toEqual({
      predecessors: 1,
      predecessors_revoked_or_oos: 1,
      concurrent: 0,
    })
    expect(body.trust.factors.map((f) => f.id)).toContain('linked_predecessor_revoked_or_oos')
  })

  test('a common name alone is no link; an officer key with a shared fax is', async () => {
    expect((await linksOf(4_000_010)).links).toEqual([])
    const z = await linksOf(4_000_020)
    expect(z.links.map((l) => [l.dot_number, l.shared, l.relation])).toEqual([
      ['4000021', ['officer', 'fax'], 'concurrent'],
    ])
    const e = await linksOf(4_000_030)
    expect(e.links.map((l) => [l.dot_number, l.shared, l.event])).toEqual([
      ['4000031', ['email'], null],
    ])
  })

  test('a phone shared by 25 companies is never a link, and is counted', async () => {
    const s = await linksOf(4_000_100)
    expect(s.links).toEqual([])
    expect(s.suppressed).toEqual({ phone: 1 })
  })

  test('an unknown USDOT is a 404, not billed; a known one is billed one call', async () => {
    const used = () =>
      ctx.deps.db.prepare('SELECT coalesce(sum(used), 0) AS n FROM usage_counters').get()
    const before = (used() as { n: number }).n
    const k = ctx.account('starter').key()
    expect((await ctx.get('/v1/carrier/99999999/links', k)).status).toBe(404)
    expect(used()).toEqual({ n: before })
    expect((await ctx.get('/v1/carrier/4000002/links', k)).status).toBe(200)
    expect(used()).toEqual({ n: before + 1 })
  })
})

describe('checks and the blocked list', () => {
  test('a blocked linked company makes a check review; a blocked phone of its own fails it', async () => {
    const k = ctx.account('starter').key()
    const add = await ctx.post(
      '/v1/blocklist',
      { type: 'usdot', value: '4000001', reason: 'went dark with a load' },
      k,
    )
    expect(add.status).toBe(201)
    const viaLink = await ctx.post('/v1/checks', { dot: 4000002 }, k)
    expect(viaLink.status).toBe(201)
    const linked = (await viaLink.json()) as {
      verdict: string
      blocklist_hits: unknown[]
      rules: { rule_id: string; result: string }[]
    }
    expect(linked.blocklist_hits).toEqual([
      expect.objectContaining({
        type: 'usdot',
        value: '4000001',
        via: 'link',
        dot_number: '4000001',
      }),
    ])
    expect(linked.rules.find((r) => r.rule_id === 'no_link_on_blocked_list')?.result).toBe('review')
    expect(linked.rules.find((r) => r.rule_id === 'not_on_blocked_list')?.result).toBe('pass')

    await ctx.post('/v1/blocklist', { type: 'phone', value: '515-400-0030', reason: 'x' }, k)
    const direct = await ctx.post('/v1/checks', { dot: 4000030 }, k)
    const body = (await direct.json()) as {
      verdict: string
      blocklist_hits: { via: string }[]
      rules: { rule_id: string; result: string }[]
    }
    expect(body.blocklist_hits.map((h) => h.via)).toEqual(['company'])
    expect(body.rules.find((r) => r.rule_id === 'not_on_blocked_list')?.result).toBe('fail')
    expect(body.verdict).toBe('fail')
  })
})

describe('the sample', () => {
  test('a successor of a revoked carrier sharing an officer and a VIN; a phone of 40 suppressed; a contact changed last week', async () => {
    const k = ctx.account('starter').key('test')
    const res = await ctx.get('/v1/carrier/1000252/links', k)
    expect(res.status).toBe(200)
    const body = LinksJson.parse(await res.json())
    expect(body.links[0]).toEqual({
      dot_number: '1000027',
      legal_name: 'QUICKHAUL EXPRESS INC',
      usdot_status: expect.any(String),
      shared: ['officer', 'vin'],
      relation: 'predecessor',
      event: { kind: 'revoked', date: '2025-10-15' },
      days_between: 97,
    })
    const wide = LinksJson.parse(await (await ctx.get('/v1/carrier/1000300/links', k)).json())
    expect(wide.suppressed).toMatchObject({ phone: 1 })
    expect(wide.links.map((l) => l.shared)).not.toContainEqual(['phone'])
    // the record of the contact changed last week, and the policy's rule on it
    const record = CarrierJson.parse(await (await ctx.get('/v1/carrier/1000212', k)).json())
    expect(record.identity.contact_changed_days).toBe(
      record.identity.recent_changes.length ? 7 : null,
    )
    const check = await ctx.post('/v1/checks', { dot: 1000212 }, k)
    const judged = (await check.json()) as {
      rules: { rule_id: string; result: string; observed: Record<string, unknown> }[]
    }
    const rule = judged.rules.find((r) => r.rule_id === 'contact_not_changed_recently')
    expect(rule?.observed).toHaveProperty(['identity.contact_changed_days'])
  })
})
