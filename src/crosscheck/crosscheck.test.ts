import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { CENSUS_FILE_ID } from '../census/census.ts'
import { verifyLedger } from '../checks/ledger.ts'
import { CarrierJson } from '../carriers/schema.ts'
import { createLogger } from '../log.ts'
import { carrierRow, writeCensus } from '../testing/census-fixture.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import {
  CAPTURED,
  carrierFixture,
  startFakeQcmobile,
  type FakeQcmobile,
} from '../testing/qcmobile-server.ts'
import {
  BREAKER_COOLDOWN_MS,
  BREAKER_FAILURE_THRESHOLD,
  resolveDocketViaQcmobile,
} from './crosscheck.ts'

/** In the census exactly as the regulator's capture has it. */
const VERIHA = CAPTURED.carrier
/** The regulator disagrees on power units and rating; the name differs only in punctuation. */
const ACME = 200_001
/** The regulator's fields come in their quirky forms (strings, words) but agree. */
const QUIRKY = 200_002
/** In the mirror, unknown to the regulator. */
const GHOST = 300_001
/** Spare USDOTs for tests that must not hit the cache. */
const SPARE = [400_001, 400_002, 400_003, 400_004, 400_005, 400_006, 400_007, 400_008]

let fake: FakeQcmobile
let liveDir: string
const contexts: TestContext[] = []

beforeAll(async () => {
  fake = await startFakeQcmobile({ webKey: 'secret-webkey-xyz' })
  liveDir = mkdtempSync(join(tmpdir(), 'cvk-crosscheck-'))
  writeCensus(join(liveDir, `${CENSUS_FILE_ID}.csv`), [
    carrierRow(VERIHA, {
      LEGAL_NAME: 'VERIHA TRUCKING INC',
      POWER_UNITS: '213',
      TOTAL_DRIVERS: '213',
      SAFETY_RATING: 'S',
      SAFETY_RATING_DATE: '19960425',
    }),
    carrierRow(ACME, { LEGAL_NAME: 'ACME HAULING LLC', POWER_UNITS: '20', TOTAL_DRIVERS: '22' }),
    carrierRow(QUIRKY, {
      LEGAL_NAME: 'QUIRKY FREIGHT INC',
      POWER_UNITS: '32',
      TOTAL_DRIVERS: '30',
    }),
    carrierRow(GHOST),
    ...SPARE.map((d) => carrierRow(d, { POWER_UNITS: '213', TOTAL_DRIVERS: '213' })),
  ])
  fake.carriers.set(
    ACME,
    carrierFixture(ACME, {
      legalName: 'Acme Hauling, L.L.C.',
      totalPowerUnits: 25,
      totalDrivers: 22,
      safetyRating: 'C',
      safetyRatingDate: '2024-03-01',
    }),
  )
  fake.carriers.set(
    QUIRKY,
    carrierFixture(QUIRKY, {
      legalName: 'Quirky  Freight, Inc.',
      totalPowerUnits: '32',
      totalDrivers: '30',
      safetyRating: 'Satisfactory',
      safetyRatingDate: '2006-01-03T00:00:00.000+0000',
    }),
  )
  for (const d of SPARE) {
    fake.carriers.set(
      d,
      carrierFixture(d, { legalName: `TEST CARRIER ${d} LLC`, safetyRatingDate: '2006-01-03' }),
    )
  }
})
afterEach(() => fake.reset())
afterAll(async () => {
  for (const c of contexts) c.close()
  await fake.close()
  rmSync(liveDir, { recursive: true, force: true })
})

/** An appliance on the census above, talking to the fake regulator over real HTTP. */
async function appliance(env: Record<string, string> = {}, over: { fetch?: typeof fetch } = {}) {
  const ctx = await createTestContext({
    liveDir,
    fetch: over.fetch ?? globalThis.fetch,
    env: {
      QCMOBILE_BASE_URL: fake.baseUrl,
      QCMOBILE_WEBKEY: fake.webKey,
      CROSSCHECK_MIN_INTERVAL_MS: '0',
      CROSSCHECK_TIMEOUT_MS: '2000',
      ...env,
    },
  })
  contexts.push(ctx)
  return { ctx, key: ctx.account('starter').key() }
}

/** GET /v1/carrier/{dot}: the status, the parsed body and its crosscheck block. */
async function lookup(
  app: Awaited<ReturnType<typeof appliance>>,
  dot: number,
  query = '?crosscheck=true',
) {
  const res = await app.ctx.get(`/v1/carrier/${dot}${query}`, app.key)
  const body = CarrierJson.parse(await res.json())
  return { status: res.status, body, check: body.crosscheck }
}

describe('on demand (the default mode)', () => {
  let app: Awaited<ReturnType<typeof appliance>>
  beforeAll(async () => {
    app = await appliance()
  })

  test('match: the regulator agrees → status match, meta.source live', async () => {
    const { status, body, check } = await lookup(app, VERIHA)
    expect(status).toBe(200)
    expect(check).toEqual({
      status: 'match',
      checked_at: '2026-11-15T12:00:00.000Z',
      reason: null,
      cached: false,
      differences: [],
    })
    expect(body.meta.source).toBe('live')
    expect(fake.hits(`carriers/${VERIHA}`)).toBe(1)
  })

  test('quirky but equal values (numeric strings, word rating, punctuation) → match', async () => {
    const { check } = await lookup(app, QUIRKY)
    expect(check).toMatchObject({ status: 'match', differences: [] })
  })

  test('mismatch: each difference with both values, in the record units', async () => {
    const { body, check } = await lookup(app, ACME)
    expect(check?.status).toBe('mismatch')
    expect(check?.differences).toEqual([
      { field: 'fleet.power_units', mirror: 20, regulator: 25 },
      { field: 'safety.safety_rating', mirror: 'Satisfactory', regulator: 'Conditional' },
      { field: 'safety.safety_rating_date', mirror: '2006-01-03', regulator: '2024-03-01' },
    ])
    expect(body.meta.source).toBe('live')
    // the record itself is the mirror's: the cross-check reports, it does not overwrite
    expect(body.fleet.power_units).toBe(20)
  })

  test('unknown USDOT at the regulator → mismatch on "exists", with the reason', async () => {
    const { status, body, check } = await lookup(app, GHOST)
    expect(status).toBe(200)
    expect(check).toMatchObject({
      status: 'mismatch',
      reason: 'not_found_at_regulator',
      differences: [{ field: 'exists', mirror: true, regulator: false }],
    })
    expect(body.meta.source).toBe('live')
  })

  test('without ?crosscheck=true nothing is asked and there is no crosscheck key', async () => {
    const { body, check } = await lookup(app, SPARE[0] ?? 0, '')
    expect(check).toBeUndefined()
    expect('crosscheck' in body).toBe(false)
    expect(body.meta.source).toBe('mirror')
    expect(fake.requests).toHaveLength(0)
  })

  test('cache hit: the answer is reused with its original checked_at until it expires', async () => {
    const dot = SPARE[1] ?? 0
    const first = await lookup(app, dot)
    expect(first.check).toMatchObject({ status: 'match', cached: false })
    app.ctx.clock.advance(60_000)
    const second = await lookup(app, dot)
    expect(second.check).toMatchObject({
      status: 'match',
      cached: true,
      checked_at: first.check?.checked_at,
    })
    expect(second.body.meta.source).toBe('live')
    expect(fake.hits(`carriers/${dot}`)).toBe(1)
    app.ctx.clock.advance(900_000) // past CROSSCHECK_CACHE_SECONDS (900)
    const third = await lookup(app, dot)
    expect(third.check).toMatchObject({ status: 'match', cached: false })
    expect(third.check?.checked_at).not.toBe(first.check?.checked_at)
    expect(fake.hits(`carriers/${dot}`)).toBe(2)
  })

  test('bad key (404 "Webkey not found") → unavailable webkey_rejected, not "not found"', async () => {
    fake.knobs.mode = 'bad_key'
    const { status, body, check } = await lookup(app, SPARE[2] ?? 0)
    expect(status).toBe(200)
    expect(check).toEqual({
      status: 'unavailable',
      checked_at: null,
      reason: 'webkey_rejected',
      cached: false,
      differences: [],
    })
    expect(body.meta.source).toBe('mirror')
  })

  test('maintenance page (200 HTML) → unavailable maintenance', async () => {
    fake.knobs.mode = 'maintenance'
    const { status, check } = await lookup(app, SPARE[3] ?? 0)
    expect(status).toBe(200)
    expect(check).toMatchObject({ status: 'unavailable', reason: 'maintenance' })
  })

  test('the lookup is billed once, with or without a cross-check', async () => {
    const before = (await lookup(app, VERIHA, '')).body.meta.quota_used ?? 0
    const after = (await lookup(app, VERIHA)).body.meta.quota_used ?? 0
    expect(after).toBe(before + 1)
  })

  test('bad ?crosscheck value → 400', async () => {
    const res = await app.ctx.get(`/v1/carrier/${VERIHA}?crosscheck=maybe`, app.key)
    expect(res.status).toBe(400)
  })
})

describe('timeout', () => {
  test('a stalled regulator → unavailable timeout; the lookup still answers 200', async () => {
    const app = await appliance({ CROSSCHECK_TIMEOUT_MS: '300' })
    fake.knobs.mode = 'slow'
    fake.knobs.stallMs = 20_000
    const started = performance.now()
    const { status, check } = await lookup(app, SPARE[4] ?? 0)
    expect(status).toBe(200)
    expect(check).toMatchObject({ status: 'unavailable', reason: 'timeout' })
    expect(performance.now() - started).toBeLessThan(15_000) // finished long before the stall
  })

  test('a fetch that ignores its abort signal still cannot hold the lookup', async () => {
    const hang: typeof fetch = () => new Promise<Response>(() => {})
    const app = await appliance({ CROSSCHECK_TIMEOUT_MS: '200' }, { fetch: hang })
    const { status, check } = await lookup(app, VERIHA)
    expect(status).toBe(200)
    expect(check).toMatchObject({ status: 'unavailable', reason: 'timeout' })
  })
})

describe('circuit breaker', () => {
  test('opens after repeated failures, refuses without calling, closes after a good trial', async () => {
    const app = await appliance()
    const dot = SPARE[5] ?? 0
    const path = `carriers/${dot}`
    fake.knobs.mode = 'fail'
    for (let i = 0; i < BREAKER_FAILURE_THRESHOLD; i++) {
      const { status, check } = await lookup(app, dot)
      expect(status).toBe(200)
      expect(check).toMatchObject({ status: 'unavailable', reason: 'regulator_error' })
    }
    expect(fake.hits(path)).toBe(BREAKER_FAILURE_THRESHOLD)

    // open: answered at once, the regulator is not called
    fake.knobs.mode = 'normal'
    const open = await lookup(app, dot)
    expect(open.check).toMatchObject({ status: 'unavailable', reason: 'circuit_open' })
    expect(fake.hits(path)).toBe(BREAKER_FAILURE_THRESHOLD)

    // half-open after the cool-down: a failing trial opens it again
    app.ctx.clock.advance(BREAKER_COOLDOWN_MS)
    fake.knobs.mode = 'fail'
    expect((await lookup(app, dot)).check?.reason).toBe('regulator_error')
    expect((await lookup(app, dot)).check?.reason).toBe('circuit_open')

    // a good trial closes it
    app.ctx.clock.advance(BREAKER_COOLDOWN_MS)
    fake.knobs.mode = 'normal'
    expect((await lookup(app, dot)).check?.status).toBe('match')
    expect((await lookup(app, SPARE[6] ?? 0)).check?.status).toBe('match')
  })

  test('a breaker is per appliance (per Deps), not shared', async () => {
    const a = await appliance()
    const b = await appliance()
    fake.knobs.mode = 'fail'
    for (let i = 0; i < BREAKER_FAILURE_THRESHOLD; i++) await lookup(a, VERIHA)
    expect((await lookup(a, VERIHA)).check?.reason).toBe('circuit_open')
    fake.knobs.mode = 'normal'
    expect((await lookup(b, VERIHA)).check?.status).toBe('match')
  })
})

describe('configuration', () => {
  test('no web key → unavailable webkey_missing (not an error), nothing asked', async () => {
    const app = await appliance({ QCMOBILE_WEBKEY: '' })
    const { status, body, check } = await lookup(app, VERIHA)
    expect(status).toBe(200)
    expect(check).toEqual({
      status: 'unavailable',
      checked_at: null,
      reason: 'webkey_missing',
      cached: false,
      differences: [],
    })
    expect(body.meta.source).toBe('mirror')
    expect(fake.requests).toHaveLength(0)
  })

  test('mode off: ?crosscheck=true → unavailable disabled; otherwise no block', async () => {
    const app = await appliance({ CROSSCHECK_MODE: 'off' })
    expect((await lookup(app, VERIHA)).check).toMatchObject({
      status: 'unavailable',
      reason: 'disabled',
    })
    expect((await lookup(app, VERIHA, '')).check).toBeUndefined()
    expect(fake.requests).toHaveLength(0)
  })

  test('mode always: checked without asking; ?crosscheck=false opts out', async () => {
    const app = await appliance({ CROSSCHECK_MODE: 'always' })
    expect((await lookup(app, VERIHA, '')).check?.status).toBe('match')
    expect((await lookup(app, VERIHA, '?crosscheck=false')).check).toBeUndefined()
  })

  test('sample data (sandbox keys, first start) is not cross-checked: unavailable sample_data', async () => {
    const ctx = await createTestContext({
      sampleDir: liveDir,
      fetch: globalThis.fetch,
      env: { QCMOBILE_BASE_URL: fake.baseUrl, QCMOBILE_WEBKEY: fake.webKey },
    })
    contexts.push(ctx)
    const res = await ctx.get(
      `/v1/carrier/${VERIHA}?crosscheck=true`,
      ctx.account('starter').key('test'),
    )
    const body = CarrierJson.parse(await res.json())
    expect(res.status).toBe(200)
    expect(body.crosscheck).toMatchObject({ status: 'unavailable', reason: 'sample_data' })
    expect(body.meta.source).toBe('sample')
    expect(fake.requests).toHaveLength(0)
  })

  test('the web key never reaches the log', async () => {
    const lines: string[] = []
    const log = createLogger('debug', { write: (s: string) => void lines.push(s) })
    const ctx = await createTestContext({
      liveDir,
      fetch: globalThis.fetch,
      log,
      env: {
        QCMOBILE_BASE_URL: fake.baseUrl,
        QCMOBILE_WEBKEY: fake.webKey,
        CROSSCHECK_MIN_INTERVAL_MS: '0',
      },
    })
    contexts.push(ctx)
    const key = ctx.account('starter').key()
    fake.knobs.mode = 'bad_key'
    await ctx.get(`/v1/carrier/${VERIHA}?crosscheck=true`, key)
    fake.knobs.mode = 'normal'
    await ctx.get(`/v1/carrier/${ACME}?crosscheck=true`, key)
    const all = lines.join('')
    expect(all).toContain(`carriers/${VERIHA}`)
    expect(all).not.toContain(fake.webKey)
    expect(all).not.toContain('webKey=')
  })
})

describe('rate limiting', () => {
  test('calls are spaced; a slot beyond the timeout budget → unavailable rate_limited', async () => {
    const app = await appliance({
      CROSSCHECK_MIN_INTERVAL_MS: '60000',
      CROSSCHECK_TIMEOUT_MS: '500',
    })
    const first = await lookup(app, VERIHA)
    expect(first.check?.status).toBe('match')
    const second = await lookup(app, ACME)
    expect(second.check).toMatchObject({ status: 'unavailable', reason: 'rate_limited' })
    expect(fake.hits(`carriers/${ACME}`)).toBe(0)
  })

  test('concurrent lookups of one USDOT make one call', async () => {
    const app = await appliance()
    const dot = SPARE[7] ?? 0
    const results = await Promise.all([lookup(app, dot), lookup(app, dot), lookup(app, dot)])
    expect(results.map((r) => r.check?.status)).toEqual(['match', 'match', 'match'])
    expect(fake.hits(`carriers/${dot}`)).toBe(1)
  })
})

describe('resolveDocketViaQcmobile', () => {
  test('MC docket → the USDOTs holding it; unknown → []; FF or no key → null', async () => {
    const app = await appliance()
    expect(await resolveDocketViaQcmobile(app.ctx.deps, 'MC', CAPTURED.docket)).toEqual([
      158121, 753076,
    ])
    expect(await resolveDocketViaQcmobile(app.ctx.deps, 'MC', 7_654_321)).toEqual([])
    expect(await resolveDocketViaQcmobile(app.ctx.deps, 'FF', CAPTURED.docket)).toBeNull()
    // cached
    await resolveDocketViaQcmobile(app.ctx.deps, 'mc', CAPTURED.docket)
    expect(fake.hits(`carriers/docket-number/${CAPTURED.docket}`)).toBe(1)

    const noKey = await appliance({ QCMOBILE_WEBKEY: '' })
    expect(await resolveDocketViaQcmobile(noKey.ctx.deps, 'MC', CAPTURED.docket)).toBeNull()
  })

  test('regulator down → null (the caller falls back)', async () => {
    const app = await appliance()
    fake.knobs.mode = 'maintenance'
    expect(await resolveDocketViaQcmobile(app.ctx.deps, 'MC', 1)).toBeNull()
  })
})

describe('in a signed check (POST /v1/checks with "crosscheck": true)', () => {
  test('the QCMobile answer (match, mismatch) or why it was unavailable is in the signed document', async () => {
    const app = await appliance()
    const check = async (dot: number) => {
      const res = await app.ctx.post('/v1/checks', { dot: String(dot), crosscheck: true }, app.key)
      expect(res.status).toBe(201)
      const id = ((await res.json()) as { check_id: string }).check_id
      // read back from the stored, signed text
      const stored = (await (await app.ctx.get(`/v1/checks/${id}`, app.key)).json()) as {
        crosscheck: Record<string, unknown> | null
      }
      const row = app.ctx.deps.db.prepare('SELECT document FROM checks WHERE id = ?').get(id) as {
        document: string
      }
      expect((JSON.parse(row.document) as { crosscheck: unknown }).crosscheck).toEqual(
        stored.crosscheck,
      )
      return stored.crosscheck
    }
    expect(await check(VERIHA)).toMatchObject({ status: 'match' })
    const mismatch = await check(ACME)
    expect(mismatch).toMatchObject({ status: 'mismatch' })
    expect(JSON.stringify(mismatch)).toContain('power_units')
    fake.knobs.mode = 'maintenance'
    expect(await check(SPARE[7] ?? 0)).toMatchObject({
      status: 'unavailable',
      reason: 'maintenance',
    })
    expect(verifyLedger(app.ctx.deps.db, undefined, []).ok).toBe(true)
  })
})
