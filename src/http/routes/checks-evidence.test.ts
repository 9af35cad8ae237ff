/**
 * What a check proves beyond its verdict: who made it, on which data (versions, regulator dates,
 * file hashes, the company's imported rows), never a PASS on the sample or stale data, overrides
 * only with the permission, and sandbox checks in their own chain and list.
 */
import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { pipelineDeps } from '../../deps.ts'
import { importMirror } from '../../sync/import.ts'
import { verifyLedger } from '../../checks/ledger.ts'
import { createTestContext, type TestContext } from '../../testing/context.ts'
import { LICENSING_FIXTURES } from '../../testing/fmcsa-server.ts'

type Json = Record<string, unknown>
interface Rule {
  rule_id: string
  result: string
  reason: string
}

describe('a check on the regulator data', () => {
  let ctx: TestContext
  beforeAll(async () => {
    ctx = await createTestContext({
      liveDir: LICENSING_FIXTURES,
      sampleDir: 'data/sample',
      now: '2026-11-15T12:00:00Z',
    })
  })
  afterAll(() => ctx.close())

  const create = async (k: string, body: Json) => {
    const res = await ctx.post('/v1/checks', body, k)
    return { status: res.status, body: (await res.json()) as Json }
  }
  const rule = (body: Json, id: string) => (body['rules'] as Rule[]).find((r) => r.rule_id === id)

  test('stores the account, key, run_by, data sources with hashes and the company rows, and the crosscheck answer', async () => {
    const { account } = ctx.account('starter', { name: 'Acme Logistics' })
    const { secret: k } = await import('../../keys/keys.ts').then((m) =>
      m.createKey(
        ctx.deps.db,
        { accountId: account.id, mode: 'live', name: 'tms-integration' },
        ctx.clock().getTime(),
      ),
    )
    const { status, body } = await create(k, {
      dot: '1000001',
      run_by: 'Pat Doe',
      crosscheck: true,
    })
    expect(status).toBe(201)
    expect(body).toMatchObject({
      account_name: 'Acme Logistics',
      api_key: { mode: 'live', name: 'tms-integration' },
      run_by: { name: 'Pat Doe', verified: false, via: 'api' },
      crosscheck: { status: 'unavailable', reason: 'webkey_missing' },
    })
    const sources = body['data_sources'] as Json[]
    const census = sources.find((s) => s['dataset'] === 'census') as Json
    expect(census).toMatchObject({
      version_id: expect.any(Number),
      channel: 'live',
      regulator_date: '2026-11-15',
      rows: expect.any(Number),
      imported_at: expect.any(String),
    })
    // every source file with the SHA-256 and size computed while it was imported
    const file = (census['files'] as Json[])[0]
    const path = join(LICENSING_FIXTURES, 'az4n-8mr2.csv')
    expect(file).toMatchObject({
      id: 'az4n-8mr2',
      url: 'file:az4n-8mr2.csv',
      sha256: createHash('sha256').update(readFileSync(path)).digest('hex'),
      bytes: statSync(path).size,
    })
    const rows = census['company_rows'] as Record<string, Json[]>
    expect(Object.values(rows).flat()[0]).toMatchObject({ dot_number: 1000001 })
    // the licensing rows, keyed by docket, are read through the company's dockets (never a scan)
    const licensing = sources
      .filter((s) => s['dataset'] === 'legacy' || s['dataset'] === 'motus')
      .map((s) => s['company_rows'] as Record<string, Json[]>)
    const tables = new Set(licensing.flatMap((r) => Object.keys(r)))
    expect(tables).toContain('dot_dockets')
    expect(['policies', 'carriers', 'authorities'].some((t) => tables.has(t))).toBe(true)
    for (const r of licensing.flatMap((x) => Object.values(x).flat()))
      expect(r).toMatchObject({ dot_number: 1000001 })
    expect(rule(body, 'data_is_regulators')?.result).toBe('pass')
    expect(rule(body, 'data_fresh')?.result).toBe('pass')
  })

  test('data older than the limit is review with the dataset named', async () => {
    const k = ctx.account('starter').key()
    ctx.clock.advance(5 * 86_400_000)
    try {
      const { body } = await create(k, { dot: '1000001' })
      expect(rule(body, 'data_fresh')).toMatchObject({
        result: 'review',
        reason: expect.stringContaining('census is 5 days old (2026-11-15; limit 3)'),
      })
      expect(body['verdict']).not.toBe('pass')
    } finally {
      ctx.clock.advance(-5 * 86_400_000)
    }
  })

  test('overrides need the permission and the same mode; sandbox checks have their own chain and list', async () => {
    const { key } = ctx.account('starter')
    const plain = key()
    const allowed = key('live', ['override'])
    const sandbox = key('test', ['override'])
    const live = await create(plain, { dot: '1000001', reference: 'LIVE' })
    const id = String(live.body['check_id'])
    const body = { by: 'Anyone at all', reason: 'because' }
    const refused = await ctx.post(`/v1/checks/${id}/override`, body, plain)
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({
      code: 'forbidden',
      error: expect.stringContaining('--scope override'),
    })
    expect((await ctx.post(`/v1/checks/${id}/override`, body, sandbox)).status).toBe(403)
    const ok = await ctx.post(`/v1/checks/${id}/override`, body, allowed)
    expect(ok.status).toBe(201)
    expect(((await ok.json()) as { overrides: Json[] }).overrides[0]).toMatchObject({
      by: 'Anyone at all',
      by_verified: false,
      api_key: { mode: 'live' },
    })

    const test = await create(sandbox, { dot: '1000001', reference: 'SANDBOX' })
    expect(test.status).toBe(201)
    expect(rule(test.body, 'data_is_regulators')?.result).toBe('n/a')
    const listLive = (await (await ctx.get('/v1/checks', allowed)).json()) as {
      checks: Json[]
    }
    const listTest = (await (await ctx.get('/v1/checks', sandbox)).json()) as {
      checks: Json[]
    }
    expect(listLive.checks.map((c) => c['reference'])).toEqual(['LIVE'])
    expect(listTest.checks).toMatchObject([{ reference: 'SANDBOX', mode: 'test' }])
    const chains = ctx.deps.db
      .prepare("SELECT chain, prev_hash AS prev FROM checks WHERE reference = 'SANDBOX'")
      .get() as { chain: string; prev: string }
    expect(chains).toEqual({ chain: 'test', prev: '0'.repeat(64) })
    expect(verifyLedger(ctx.deps.db).ok).toBe(true)
  })
})

describe('a live key while the appliance serves the bundled sample', () => {
  let ctx: TestContext
  beforeAll(async () => {
    ctx = await createTestContext({ sampleDir: 'data/sample', now: '2026-11-15T12:00:00Z' })
  })
  afterAll(() => ctx.close())

  test('is never a PASS: data_is_regulators is review and named', async () => {
    const k = ctx.account('starter').key()
    const res = await ctx.post('/v1/checks', { dot: '1000001' }, k)
    const body = (await res.json()) as Json
    expect(res.status, JSON.stringify(body)).toBe(201)
    expect(body['source']).toBe('sample')
    expect((body['rules'] as Rule[]).find((r) => r.rule_id === 'data_is_regulators')).toMatchObject(
      {
        result: 'review',
        reason: expect.stringContaining('bundled sample'),
      },
    )
    expect(body['verdict']).not.toBe('pass')
  })
})

describe('a check on an air-gapped import --dir', () => {
  test('cites each file by SHA-256 and the date given with the import as the regulator date', async () => {
    const ctx = await createTestContext({ now: '2026-11-15T12:00:00Z' })
    try {
      const r = await importMirror(pipelineDeps(ctx.deps), LICENSING_FIXTURES, {
        asOf: '2026-11-13',
        sampleDir: null,
        oosMinRows: 1,
        trigger: 'test',
        signal: AbortSignal.timeout(60_000),
      })
      expect(r.results.every((x) => x.status === 'activated')).toBe(true)
      const k = ctx.account('starter').key()
      const res = await ctx.post('/v1/checks', { dot: '1000001' }, k)
      expect(res.status).toBe(201)
      const body = (await res.json()) as Json
      const census = (body['data_sources'] as Json[]).find((s) => s['dataset'] === 'census')
      const path = join(LICENSING_FIXTURES, 'az4n-8mr2.csv')
      expect(census).toMatchObject({ channel: 'live', regulator_date: '2026-11-13' })
      expect((census?.['files'] as Json[])[0]).toMatchObject({
        id: 'az4n-8mr2',
        sha256: createHash('sha256').update(readFileSync(path)).digest('hex'),
        bytes: statSync(path).size,
        last_modified: '2026-11-13T00:00:00.000Z',
      })
      expect(body['data_as_of']).toMatchObject({ census: '2026-11-13' })
    } finally {
      ctx.close()
    }
  })
})
