import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runOnboardings } from '../../onboarding/onboarding.ts'
import { MAX_ROWS } from '../../onboarding/parse.ts'
import { createTestContext, type TestContext } from '../../testing/context.ts'
import { LICENSING_FIXTURES } from '../../testing/fmcsa-server.ts'
import { xlsx } from '../../testing/xlsx.ts'

type Json = Record<string, unknown>
interface Result extends Json {
  status: string
  progress: Record<string, number>
  results: {
    row: number
    status: string
    check_id: string | null
    verdict: string | null
    reasons: string[]
    reference: string | null
  }[]
}
let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext({ liveDir: LICENSING_FIXTURES, now: '2026-11-15T12:00:00Z' })
})
afterAll(() => ctx.close())

const used = (accountId: number) =>
  (
    ctx.deps.db
      .prepare("SELECT used FROM usage_counters WHERE account_id = ? AND period = '2026-11'")
      .get(accountId) as { used: number } | undefined
  )?.used ?? 0

const upload = (key: string, name: string, bytes: Uint8Array | string, type = 'text/csv') => {
  const form = new FormData()
  form.append('file', new File([bytes], name, { type }))
  return ctx.app.request('/v1/onboarding', {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${key}` },
  })
}

const result = async (key: string, id: string) => {
  const res = await ctx.get(`/v1/onboarding/${id}`, key)
  expect(res.status).toBe(200)
  return (await res.json()) as Result
}

describe('POST /v1/onboarding', () => {
  test('JSON: accepted, run as a job, each company found checked and billed once like POST /v1/checks', async () => {
    const { account, key } = ctx.account('starter')
    const k = key()
    const res = await ctx.post(
      '/v1/onboarding',
      {
        companies: [
          { dot: '1000001', reference: 'C-1' },
          { mc: 'MC-100002', reference: 'C-2' },
          { dot: '99999999' },
          { dot: 'abc' },
        ],
      },
      k,
    )
    expect(res.status).toBe(202)
    const body = (await res.json()) as Json
    expect(body).toMatchObject({ status: 'queued', rows: 3, rejected: [{ row: 4, input: 'abc' }] })
    expect(res.headers.get('location')).toBe(`/v1/onboarding/${String(body.id)}`)
    expect(used(account.id)).toBe(0)

    expect(await runOnboardings(ctx.deps)).toBe(3)
    const r = await result(k, String(body.id))
    expect(r.status).toBe('done')
    expect(r.progress).toMatchObject({ processed: 3, total: 3, checked: 2, not_found: 1 })
    expect(r.results.map((x) => [x.row, x.status, x.reference])).toEqual([
      [1, 'checked', 'C-1'],
      [2, 'checked', 'C-2'],
      [3, 'not_found', null],
    ])
    expect(used(account.id)).toBe(2)
    // each row links to its stored check, as GET /v1/checks/{id} answers it
    for (const x of r.results.slice(0, 2)) {
      const check = (await (await ctx.get(`/v1/checks/${String(x.check_id)}`, k)).json()) as Json
      expect(check.verdict).toBe(x.verdict)
      expect(check.request).toMatchObject({ reference: x.reference })
    }
    // another account's onboarding is not found
    const other = await ctx.get(`/v1/onboarding/${String(body.id)}`, ctx.account('starter').key())
    expect(other.status).toBe(404)
    expect(await other.json()).toMatchObject({ code: 'not_found' })
    expect((await ctx.get('/v1/onboarding/nope', k)).status).toBe(400)
  })

  test('multipart CSV and XLSX uploads; one onboarding at a time per account (409)', async () => {
    const { key } = ctx.account('starter')
    const k = key()
    const a = await upload(k, 'list.csv', 'dot,reference\n1000001,A\nxx,B\n')
    expect(a.status).toBe(202)
    const first = (await a.json()) as Json
    expect(first).toMatchObject({
      rows: 1,
      file_name: 'list.csv',
      rejected: [{ row: 3, input: 'xx' }],
    })
    const b = await upload(k, 'b.xlsx', xlsx([['dot'], [1000002]]), 'application/octet-stream')
    expect(b.status).toBe(409)
    expect(await b.json()).toMatchObject({ code: 'conflict', status: 409 })
    await runOnboardings(ctx.deps)
    const c = await upload(k, 'b.xlsx', xlsx([['dot'], [1000002]]))
    expect(c.status).toBe(202)
    await runOnboardings(ctx.deps)
    const r = await result(k, String(((await c.json()) as Json).id))
    expect(r.results).toMatchObject([{ row: 2, status: 'checked' }])
  })

  test('formulas, macros, junk, too many rows and oversized bodies are refused before anything is billed', async () => {
    const { account, key } = ctx.account('starter')
    const k = key()
    const cases: [Response | Promise<Response>, number, string][] = [
      [upload(k, 'f.xlsx', xlsx([['dot'], [{ formula: 'A1' }]])), 400, 'formula'],
      [upload(k, 'm.xlsx', xlsx([['dot'], [1000001]], { macro: true })), 415, 'macros'],
      [upload(k, 'j.xlsx', 'not a workbook'), 415, 'not a zip'],
      [upload(k, 'j.csv', new Uint8Array(1000).fill(0)), 415, 'not text'],
      [
        upload(
          k,
          'many.csv',
          `dot\n${Array.from({ length: MAX_ROWS + 1 }, (_, i) => i + 1).join('\n')}`,
        ),
        413,
        '10001 rows',
      ],
      [
        ctx.post(
          '/v1/onboarding',
          { companies: Array.from({ length: MAX_ROWS + 1 }, (_, i) => ({ dot: i + 1 })) },
          k,
        ),
        413,
        'at most 10000',
      ],
      [upload(k, 'big.csv', new Uint8Array(6 * 1024 * 1024).fill(0x31)), 413, 'at most'],
      [ctx.post('/v1/onboarding', { companies: [] }, k), 400, 'at least one'],
      [ctx.post('/v1/onboarding', { companies: [{ dot: 'x' }] }, k), 400, 'No row could be read'],
      [ctx.post('/v1/onboarding', 'x', k, { 'content-type': 'text/plain' }), 415, 'Content-Type'],
    ]
    for (const [p, status, message] of cases) {
      const res = await p
      const body = (await res.json()) as Json
      expect({ status: res.status, body }).toMatchObject({
        status,
        body: { status, error: expect.stringContaining(message) as string },
      })
    }
    expect(used(account.id)).toBe(0)
  })

  test('a run stopped midway resumes; a row whose check was stored before a crash is not checked twice', async () => {
    const { account, key } = ctx.account('starter')
    const k = key()
    const companies = ['1000001', '1000002', '1000003', '1000008', '1000004', '1000009'].map(
      (dot, i) => ({ dot, reference: `R-${i + 1}` }),
    )
    const res = await ctx.post('/v1/onboarding', { companies }, k)
    const id = String(((await res.json()) as Json).id)
    // a shutdown after the first batch: the rest stays pending, the onboarding running
    const stop = new AbortController()
    const run = runOnboardings(ctx.deps, stop.signal)
    stop.abort()
    await run
    let r = await result(k, id)
    expect(r.status).toBe('running')
    const pending = new Set(r.results.filter((x) => x.status === 'pending').map((x) => x.row))
    const done = 6 - pending.size
    expect(done).toBeGreaterThan(0)
    expect(done).toBeLessThan(6)
    // a crash between storing row 6's check and recording it: the row stays claimed
    const stored = (await (
      await ctx.post('/v1/checks', { dot: '1000009', reference: 'R-6' }, k)
    ).json()) as Json
    ctx.deps.db
      .prepare(
        "UPDATE onboarding_rows SET status = 'claimed', claimed_at = ? WHERE onboarding_id = ? AND row = 6",
      )
      .run(ctx.clock().getTime(), id)
    const billed = used(account.id)
    await runOnboardings(ctx.deps)
    r = await result(k, id)
    expect(r.status).toBe('done')
    expect(r.results.find((x) => x.row === 6)?.check_id).toBe(stored.check_id)
    const ids = r.results.flatMap((x) => (x.check_id ? [x.check_id] : []))
    expect(new Set(ids).size).toBe(ids.length)
    // only the rows still pending (row 6 aside) were checked and billed by the second run
    const second = r.results.filter(
      (x) => pending.has(x.row) && x.row !== 6 && x.status === 'checked',
    )
    expect(used(account.id)).toBe(billed + second.length)
  })
})
