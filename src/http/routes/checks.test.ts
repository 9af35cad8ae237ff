import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CheckCreatedJson, CheckJson, CheckListJson } from '../../checks/schema.ts'
import { setPolicy } from '../../checks/policy.ts'
import { BUNDLED_POLICY } from '../../checks/policy-schema.ts'
import { verifyLedger } from '../../checks/ledger.ts'
import { createTestContext, type TestContext } from '../../testing/context.ts'
import { sampleCensusDir } from '../../testing/fixture-dirs.ts'
import { LICENSING_FIXTURES } from '../../testing/fmcsa-server.ts'

const NOW = '2026-11-15T12:00:00Z'
type Json = Record<string, unknown>
let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext({
    liveDir: LICENSING_FIXTURES,
    sampleDir: sampleCensusDir(),
    now: NOW,
  })
})
afterAll(() => ctx.close())

const used = (accountId: number) =>
  (
    ctx.deps.db
      .prepare("SELECT used FROM usage_counters WHERE account_id = ? AND period = '2026-11'")
      .get(accountId) as { used: number } | undefined
  )?.used ?? 0

async function create(key: string, body: unknown) {
  const res = await ctx.post('/v1/checks', body, key)
  return { res, body: (await res.json()) as Json }
}

describe('POST /v1/checks', () => {
  test('a check that cannot be stored is not billed (the charge and the store are one transaction)', async () => {
    const { account, key } = ctx.account('starter')
    const k = key()
    ctx.deps.db.exec(
      "CREATE TRIGGER refuse_checks BEFORE INSERT ON checks BEGIN SELECT RAISE(ABORT, 'refused by test'); END",
    )
    try {
      const { res } = await create(k, { dot: '1000001', reference: 'LOAD-X' })
      expect(res.status).toBeGreaterThanOrEqual(500)
      expect(used(account.id)).toBe(0)
    } finally {
      ctx.deps.db.exec('DROP TRIGGER refuse_checks')
    }
    const { res } = await create(k, { dot: '1000001', reference: 'LOAD-X' })
    expect(res.status).toBe(201)
    expect(used(account.id)).toBe(1)
  })

  test('judges, stores, signs and bills one lookup; GET returns the same document', async () => {
    const { account, key } = ctx.account('starter')
    const k = key()
    const { res, body } = await create(k, { dot: '1000001', reference: 'LOAD-1' })
    expect(res.status).toBe(201)
    expect(CheckCreatedJson.safeParse(body).success).toBe(true)
    expect(res.headers.get('location')).toBe(`/v1/checks/${String(body['check_id'])}`)
    expect(res.headers.get('ratelimit-remaining')).toBe('9999')
    expect(used(account.id)).toBe(1)
    expect(body).toMatchObject({
      type: 'check',
      account_id: account.id,
      dot_number: '1000001',
      request: { dot: '1000001', mc: null, reference: 'LOAD-1', contact: null, watch: false },
      policy: { id: 'bundled@3', scope: 'bundled' },
      contact_check: null,
      overrides: [],
      watching: false,
      meta: { billed: true, quota_used: 1 },
    })
    expect(body['verdict']).toBe(body['effective_verdict'])
    // the record as served, each dataset's as-of date, the Trust Score version
    const record = body['record'] as Json
    expect(record['dot_number']).toBe('1000001')
    expect(record).not.toHaveProperty('meta')
    expect(body['data_as_of']).toMatchObject({ census: expect.any(String) })
    expect(body['trust_version']).toBe((record['trust'] as Json)['version'])
    // the record supplies authority.pending_suspension (issue 12): null = no order due
    const rules = body['rules'] as Json[]
    expect(rules.find((r) => r['rule_id'] === 'no_pending_suspension')).toMatchObject({
      result: 'pass',
      reason: 'authority.pending_suspension null (none): yes',
    })
    expect(body['signature']).toMatchObject({ algorithm: 'Ed25519', seq: expect.any(Number) })

    const got = await ctx.get(`/v1/checks/${String(body['check_id'])}`, k)
    expect(got.status).toBe(200)
    const again = (await got.json()) as Json
    expect(CheckJson.safeParse(again).success).toBe(true)
    const { meta: _m, watching: _w, ...stored } = body
    expect(again).toEqual(stored)
    expect(used(account.id)).toBe(1) // reading is not billed

    // later reads answer the same document, even after the policy changed
    setPolicy(ctx.deps.db, account.id, { ...BUNDLED_POLICY, name: 'stricter' }, Date.parse(NOW), {
      actor: 'test',
    })
    expect(await (await ctx.get(`/v1/checks/${String(body['check_id'])}`, k)).json()).toEqual(
      stored,
    )
    const next = await create(k, { dot: 1000001 })
    expect(next.body['policy']).toMatchObject({ id: `account:${account.id}@1`, scope: 'account' })
  })

  test('another account gets 404 for a check, as for one that does not exist', async () => {
    const a = ctx.account('starter').key()
    const b = ctx.account('starter').key()
    const { body } = await create(a, { dot: '1000002' })
    const other = await ctx.get(`/v1/checks/${String(body['check_id'])}`, b)
    expect(other.status).toBe(404)
    expect(await other.json()).toMatchObject({ code: 'not_found' })
    const missing = await ctx.get('/v1/checks/chk_AAAAAAAAAAAAAAAA', b)
    expect(missing.status).toBe(404)
    expect((await ctx.get('/v1/checks/nope', b)).status).toBe(400)
    const ovr = await ctx.post(
      `/v1/checks/${String(body['check_id'])}/override`,
      { by: 'x', reason: 'y' },
      b,
    )
    expect(ovr.status).toBe(404)
  })

  test('by docket; not found and invalid input are not billed', async () => {
    const { account, key } = ctx.account('starter')
    const k = key()
    const byMc = await create(k, { mc: 'MC-100002', reference: 'T-9' })
    expect(byMc.res.status).toBe(201)
    expect(byMc.body['dot_number']).toBe('1000002')
    expect(byMc.body['lookup']).toMatchObject({ query: 'MC-100002' })
    expect(used(account.id)).toBe(1)
    for (const [body, status, code] of [
      [{ dot: '99999999' }, 404, 'not_found'],
      [{ mc: 'MC-999998' }, 404, 'not_found'],
      [{ dot: 'abc' }, 400, 'invalid_dot'],
      [{ mc: '??' }, 400, 'invalid_docket'],
      [{ dot: '1', mc: 'MC-1' }, 400, 'invalid_request'],
      [{}, 400, 'invalid_request'],
      [{ dot: '1000001', extra: 1 }, 400, 'invalid_request'],
      [{ dot: '1000001', contact: { fax: '1' } }, 400, 'invalid_request'],
    ] as const) {
      const r = await create(k, body)
      expect(r.res.status, JSON.stringify(body)).toBe(status)
      expect(r.body['code']).toBe(code)
    }
    expect(used(account.id)).toBe(1)
  })

  test('contact verification: phone in E.164, e-mail by registrable domain, shared and look-alike', async () => {
    const k = ctx.account('starter').key()
    const { body } = await create(k, {
      dot: '1000001',
      contact: { phone: '(712) 439-2831', email: 'OPS1000001@example.com' },
    })
    const cc = body['contact_check'] as { phone: Json; email: Json }
    expect(cc.phone).toMatchObject({
      normalized: '+17124392831',
      valid: true,
      matches_on_file: true,
    })
    // the fixture companies share one phone number: the others are counted
    expect(cc.phone['other_companies']).toBeGreaterThan(0)
    expect(cc.email).toMatchObject({
      normalized: 'ops1000001@example.com',
      matches_on_file: true,
      same_domain: true,
      lookalike_domain: false,
    })
    const { body: fake } = await create(k, {
      dot: '1000001',
      contact: { phone: '+1 202 555 0199', email: 'dispatch@examp1e.com' },
    })
    const fc = fake['contact_check'] as { phone: Json; email: Json }
    expect(fc.phone).toMatchObject({ matches_on_file: false, other_companies: 0 })
    expect(fc.email).toMatchObject({ same_domain: false, lookalike_domain: true })
    const rules = fake['rules'] as Json[]
    expect(rules.find((r) => r['rule_id'] === 'contact_email_not_lookalike')?.['result']).toBe(
      'fail',
    )
    expect(fake['verdict']).toBe('fail')
  })

  test('watch: true adds the company to the watchlist (paid plans); Free gets 403 and is not billed', async () => {
    const paid = ctx.account('starter')
    const { body } = await create(paid.key(), { dot: '1000002', watch: true })
    expect(body['watching']).toBe(true)
    expect(
      ctx.deps.db
        .prepare('SELECT dot_number FROM watchlist WHERE account_id = ?')
        .all(paid.account.id),
    ).toEqual([{ dot_number: 1000002 }])
    const free = ctx.account('free')
    const r = await create(free.key(), { dot: '1000002', watch: true })
    expect(r.res.status).toBe(403)
    expect(used(free.account.id)).toBe(0)
    const sandbox = await create(paid.key('test'), { dot: '9000001', watch: true })
    expect(sandbox.res.status).toBe(400)
  })

  test('sandbox keys check the sample, unbilled', async () => {
    const { account, key } = ctx.account('starter')
    const r = await create(key('test'), { dot: '9000001' })
    expect(r.res.status).toBe(201)
    expect(r.body).toMatchObject({
      source: 'sample',
      api_key: { mode: 'test' },
      meta: { billed: false },
    })
    expect(used(account.id)).toBe(0)
  })
})

describe('GET /v1/checks and overrides', () => {
  test('lists newest first with filters and a cursor; overrides keep the original verdict', async () => {
    const { key } = ctx.account('starter')
    const k = key('live', ['override'])
    const ids: string[] = []
    for (const [dot, ref] of [
      ['1000001', 'A'],
      ['1000002', 'B'],
      ['1000001', 'C'],
    ] as const) {
      ctx.clock.advance(60_000)
      ids.push(String((await create(k, { dot, reference: ref })).body['check_id']))
    }
    const all = (await (await ctx.get('/v1/checks', k)).json()) as CheckListJson
    expect(CheckListJson.safeParse(all).success).toBe(true)
    expect(all.checks.map((c) => c.check_id)).toEqual([...ids].reverse())
    expect(all.next_cursor).toBeNull()

    const page1 = (await (await ctx.get('/v1/checks?limit=2', k)).json()) as CheckListJson
    expect(page1.checks).toHaveLength(2)
    const page2 = (await (
      await ctx.get(`/v1/checks?limit=2&cursor=${page1.next_cursor ?? ''}`, k)
    ).json()) as CheckListJson
    expect(page2.checks.map((c) => c.check_id)).toEqual([ids[0]])

    const byDot = (await (await ctx.get('/v1/checks?dot=1000001', k)).json()) as CheckListJson
    expect(byDot.checks.map((c) => c.reference)).toEqual(['C', 'A'])
    const byRef = (await (await ctx.get('/v1/checks?reference=B', k)).json()) as CheckListJson
    expect(byRef.checks.map((c) => c.dot_number)).toEqual(['1000002'])
    const day = (await (
      await ctx.get('/v1/checks?from=2026-11-15&to=2026-11-15', k)
    ).json()) as CheckListJson
    expect(day.checks).toHaveLength(3)
    const none = (await (await ctx.get('/v1/checks?to=2026-11-14', k)).json()) as CheckListJson
    expect(none.checks).toHaveLength(0)
    for (const q of [
      '?dot=x',
      '?from=yesterday',
      '?limit=500',
      '?cursor=zzz',
      '?from=2026-11-16&to=2026-11-15',
      '?nope=1',
    ])
      expect((await ctx.get(`/v1/checks${q}`, k)).status, q).toBe(400)

    const id = ids[2] ?? ''
    const original = (await (await ctx.get(`/v1/checks/${id}`, k)).json()) as Json
    const ovr = await ctx.post(
      `/v1/checks/${id}/override`,
      { by: 'J. Smith (compliance)', reason: 'insurer confirmed by phone', verdict: 'pass' },
      k,
    )
    expect(ovr.status).toBe(201)
    const withOverride = (await ovr.json()) as Json
    expect(withOverride['verdict']).toBe(original['verdict'])
    expect(withOverride['effective_verdict']).toBe('pass')
    expect(withOverride['overrides']).toMatchObject([
      { type: 'override', by: 'J. Smith (compliance)', original_verdict: original['verdict'] },
    ])
    const { overrides: _o, effective_verdict: _e, ...doc } = withOverride
    const { overrides: _o2, effective_verdict: _e2, ...origDoc } = original
    expect(doc).toEqual(origDoc)
    const listed = (await (await ctx.get('/v1/checks?reference=C', k)).json()) as CheckListJson
    expect(listed.checks[0]).toMatchObject({ overrides: 1, effective_verdict: 'pass' })
    for (const bad of [
      { by: '', reason: 'x' },
      { by: 'a' },
      { by: 'a', reason: 'b', verdict: 'maybe' },
    ])
      expect((await ctx.post(`/v1/checks/${id}/override`, bad, k)).status).toBe(400)

    expect(verifyLedger(ctx.deps.db)).toMatchObject({ ok: true, first_break: null })
  })
})
