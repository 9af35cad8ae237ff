import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { createLogger } from '../log.ts'
import {
  CAPTURED,
  carrierFixture,
  startFakeQcmobile,
  type FakeQcmobile,
} from '../testing/qcmobile-server.ts'
import {
  classify,
  createQcmobileClient,
  RegulatorCarrier,
  type QcmobileClientOptions,
} from './qcmobile.ts'

let fake: FakeQcmobile
const logLines: string[] = []
const log = createLogger('debug', { write: (s: string) => void logLines.push(s) })

const client = (over: Partial<QcmobileClientOptions> = {}) =>
  createQcmobileClient({
    fetch: globalThis.fetch,
    baseUrl: fake.baseUrl,
    webKey: fake.webKey,
    log,
    ...over,
  })
const signal = () => AbortSignal.timeout(5_000)

beforeAll(async () => {
  fake = await startFakeQcmobile({ webKey: 'secret-webkey-123' })
})
afterEach(() => fake.reset())
afterAll(() => fake.close())

describe('carriers/{dot}', () => {
  test('the real capture → normalised carrier (dollars, letters, dates)', async () => {
    const r = await client().carrier(CAPTURED.carrier, signal())
    expect(r.ok).toBe(true)
    if (!r.ok || !r.value) throw new Error('expected a carrier')
    expect(r.value).toMatchObject({
      dotNumber: 158121,
      legalName: 'VERIHA TRUCKING INC',
      dbaName: null,
      statusCode: 'A',
      allowedToOperate: 'Y',
      commonAuthorityStatus: 'A',
      brokerAuthorityStatus: 'N',
      bipdOnFile: 1_000_000,
      bipdRequired: 750_000,
      cargoOnFile: 0,
      safetyRating: 'S',
      safetyRatingDate: '1996-04-25',
      oosDate: null,
      totalPowerUnits: 213,
      crashTotal: 15,
    })
    expect(r.value.driverOosRate).toBeCloseTo(1.1583, 4)
    // the key went as the webKey query parameter
    expect(fake.requests).toEqual([{ path: 'carriers/158121', webKey: 'secret-webkey-123' }])
  })

  test('unknown USDOT (200, content null) → ok with null', async () => {
    const r = await client().carrier(99_999_999, signal())
    expect(r).toEqual({ ok: true, value: null })
  })

  test('quirks: numeric strings, word ratings and statuses, "NN%" rates, allowToOperate', async () => {
    fake.carriers.set(
      424242,
      carrierFixture(424242, {
        dotNumber: '424242',
        totalPowerUnits: '12',
        totalDrivers: ' 14 ',
        safetyRating: 'Conditional',
        statusCode: 'ACTIVE',
        commonAuthorityStatus: 'INACTIVE',
        allowedToOperate: undefined,
        allowToOperate: 'N',
        vehicleOosRate: '13.7%',
        bipdInsuranceOnFile: 750,
        dbaName: '',
        legalName: 'ACME\u200B HAULING',
      }),
    )
    const r = await client().carrier(424242, signal())
    if (!r.ok || !r.value) throw new Error('expected a carrier')
    expect(r.value).toMatchObject({
      dotNumber: 424242,
      totalPowerUnits: 12,
      totalDrivers: 14,
      safetyRating: 'C',
      statusCode: 'A',
      commonAuthorityStatus: 'I',
      allowedToOperate: 'N',
      vehicleOosRate: 13.7,
      bipdOnFile: 750_000,
      dbaName: null,
      legalName: 'ACME HAULING',
    })
  })

  test('a field of the wrong type is null, not a failed parse', () => {
    const c = RegulatorCarrier.parse({ dotNumber: 5, totalPowerUnits: { x: 1 }, legalName: ['?'] })
    expect(c).toMatchObject({ dotNumber: 5, totalPowerUnits: null, legalName: null })
  })
})

describe('sub-resources (real captures)', () => {
  test('authority → letters and the docket', async () => {
    const r = await client().authority(CAPTURED.authority, signal())
    expect(r).toEqual({
      ok: true,
      value: [
        {
          dotNumber: 53467,
          docket: 'MC-138328',
          commonAuthorityStatus: 'A',
          contractAuthorityStatus: 'A',
          brokerAuthorityStatus: 'A',
          authorizedForBroker: true,
          authorizedForProperty: true,
          authorizedForPassenger: false,
          authorizedForHouseholdGoods: false,
        },
      ],
    })
  })

  test('docket-numbers', async () => {
    const r = await client().docketNumbers(CAPTURED.docketNumbers, signal())
    expect(r).toEqual({
      ok: true,
      value: [{ dotNumber: 44110, prefix: 'MC', number: 1515, display: 'MC-1515' }],
    })
  })

  test('oos → the orders', async () => {
    const r = await client().oos(CAPTURED.oos, signal())
    if (!r.ok) throw new Error('expected orders')
    expect(r.value).toHaveLength(2)
    expect(r.value[0]).toEqual({
      oosDate: '2004-06-04',
      reason: 'NOP',
      description: '90 day failure to pay fine',
    })
  })

  test('docket-number/{n} → every carrier holding it; unknown docket → []', async () => {
    const r = await client().carriersByDocket(CAPTURED.docket, signal())
    if (!r.ok) throw new Error('expected carriers')
    expect(r.value.map((c) => c.dotNumber)).toEqual([753076, 158121])
    expect(await client().carriersByDocket(7_654_321, signal())).toEqual({ ok: true, value: [] })
  })

  test('no orders / no authority → []', async () => {
    expect(await client().oos(1, signal())).toEqual({ ok: true, value: [] })
  })
})

describe('failures are values, never "not found"', () => {
  test('bad key: 404 + "Webkey not found" → webkey_rejected', async () => {
    const r = await client({ webKey: 'wrong' }).carrier(CAPTURED.carrier, signal())
    expect(r).toMatchObject({ ok: false, reason: 'webkey_rejected', status: 404 })
  })

  test('missing key → webkey_missing and no request', async () => {
    const r = await client({ webKey: null }).carrier(CAPTURED.carrier, signal())
    expect(r).toMatchObject({ ok: false, reason: 'webkey_missing' })
    expect(fake.requests).toHaveLength(0)
  })

  test('maintenance page with 200 → maintenance', async () => {
    fake.knobs.mode = 'maintenance'
    const r = await client().carrier(CAPTURED.carrier, signal())
    expect(r).toMatchObject({ ok: false, reason: 'maintenance', status: 200 })
  })

  test('403 HTML from the load balancer → regulator_error', async () => {
    fake.knobs.mode = 'blocked'
    expect(await client().carrier(1, signal())).toMatchObject({ reason: 'regulator_error' })
  })

  test('500 → regulator_error', async () => {
    fake.knobs.mode = 'fail'
    expect(await client().carrier(1, signal())).toMatchObject({ reason: 'regulator_error' })
  })

  test('429 → rate_limited with the Retry-After', async () => {
    fake.knobs.mode = 'rate_limited'
    fake.knobs.retryAfterSeconds = 2
    const r = await client().carrier(1, signal())
    expect(r).toMatchObject({ ok: false, reason: 'rate_limited', status: 429, retryAfterMs: 2000 })
  })

  test('a stalled answer past the signal → timeout', async () => {
    fake.knobs.mode = 'slow'
    const r = await client().carrier(CAPTURED.carrier, AbortSignal.timeout(200))
    expect(r).toMatchObject({ ok: false, reason: 'timeout' })
  })

  test('connection refused → regulator_error', async () => {
    const r = await client({ baseUrl: 'http://127.0.0.1:1/qc/services' }).carrier(1, signal())
    expect(r).toMatchObject({ ok: false, reason: 'regulator_error' })
  })
})

describe('classify (envelope table)', () => {
  const json = 'application/json'
  test.each([
    [200, '{"content":{"carrier":{"dotNumber":1}}}', { ok: true }],
    [200, '{"content":[{"carrier":{"dotNumber":1}}]}', { ok: true }],
    [200, '{"content":null}', { ok: true, content: null }],
    [200, '{"content":[]}', { ok: true, content: null }],
    [404, '{"content":null}', { ok: true, content: null }],
    [404, '{"content":"Webkey not found"}', { ok: false, reason: 'webkey_rejected' }],
    [404, '{"content":"Must provide Webkey"}', { ok: false, reason: 'webkey_rejected' }],
    [200, '{"content":"Something odd"}', { ok: false, reason: 'regulator_error' }],
    [404, '{"timestamp":"x","error":"Not Found"}', { ok: false, reason: 'regulator_error' }],
    [200, 'not json', { ok: false, reason: 'regulator_error' }],
    [503, '{"content":null}', { ok: false, reason: 'regulator_error' }],
  ] as const)('%s %s', (status, body, expected) => {
    expect(classify(status, json, body)).toMatchObject(expected)
  })

  test('HTML is never JSON, whatever the status', () => {
    const page = '<html><head><title>FMCSA System Maintenance Page</title></head></html>'
    expect(classify(200, 'text/html', page)).toMatchObject({ reason: 'maintenance' })
    expect(classify(200, '', page)).toMatchObject({ reason: 'maintenance' })
  })
})

test('logs carry the path, never the web key or the URL', () => {
  const all = logLines.join('')
  expect(all).toContain('carriers/158121')
  expect(all).not.toContain('secret-webkey-123')
  expect(all).not.toContain('webKey=')
  expect(all).not.toContain('127.0.0.1')
})
