/**
 * English-language-proficiency out-of-service violations from the SMS Input Violation file
 * (`8mt8-2mdr`): the fixture (test/fixtures/safety/README.md) through the real pipeline and the API.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CarrierJson } from '../carriers/schema.ts'
import { listSources } from '../sync/sources.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { isElpCode } from './rows.ts'
import { VIOLATION_FILE_ID } from './violations.ts'

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/safety/', import.meta.url))
const NOW = '2026-09-10T12:00:00Z'

let tmp: string
let ctx: TestContext
let noViolations: TestContext
let key: string

function copyFixtures(name: string, skip: string[] = []): string {
  const dir = join(tmp, name)
  mkdirSync(dir, { recursive: true })
  for (const f of readdirSync(FIXTURES))
    if (f.endsWith('.csv') && !skip.includes(f)) copyFileSync(join(FIXTURES, f), join(dir, f))
  return dir
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cvk-viol-'))
  ctx = await createTestContext({ now: NOW, liveDir: copyFixtures('all') })
  noViolations = await createTestContext({
    now: NOW,
    liveDir: copyFixtures('none', [`${VIOLATION_FILE_ID}.csv`]),
  })
  key = ctx.account('starter').key()
})
afterAll(() => {
  ctx.close()
  noViolations.close()
  rmSync(tmp, { recursive: true, force: true })
})

async function record(c: TestContext, dot: number, k = key) {
  const res = await c.get(`/v1/carrier/${dot}`, k)
  expect(res.status).toBe(200)
  return CarrierJson.parse(await res.json())
}

describe('ELP out-of-service violations', () => {
  test('codes under 49 CFR 391.11(b)(2) in every written form, and nothing else', () => {
    for (const c of ['39111B2', '391.11B2', '391.11(b)(2)', '39111B2-Z', ' 39111b2 '])
      expect([c, isElpCode(c)]).toEqual([c, true])
    for (const c of ['39111B1', '391111B2', '3922SLLS4', '39111', '', undefined])
      expect([c, isElpCode(c)]).toEqual([c, false])
  })

  test('the whole file is read and counted, ELP rows noted in the build stats', () => {
    const run = ctx.imports.find((r) => r.dataset === 'violations')
    expect(run).toMatchObject({ status: 'activated' })
    if (run?.status !== 'activated') return
    expect(run.stats).toMatchObject({
      rows: 10,
      rejects: 0,
      notes: {
        'violations.elp_oos': 5,
        'violations.elp_not_oos': 1,
        'violations.elp_oos_duplicate': 1,
      },
    })
  })

  test('count over 24 months and the last date, duplicates once, non-OOS Border Zone not counted', async () => {
    const r = await record(ctx, 2000001)
    expect(r.safety.elp_oos_violations).toEqual({ count_24m: 2, last_date: '2026-08-14' })
    expect(r.meta.data_as_of.violations).toBe('2026-09-10')
    expect((await record(ctx, 2000004)).safety.elp_oos_violations).toEqual({
      count_24m: 1,
      last_date: '2025-09-05',
    })
    // other OOS violations only, or no inspection in the file at all: zero, no date
    for (const dot of [2000005, 2000009])
      expect((await record(ctx, dot)).safety.elp_oos_violations).toEqual({
        count_24m: 0,
        last_date: null,
      })
  })

  test('a separate fact: no gate, no factor, no effect on the score', async () => {
    const [withViol, without] = [
      await record(ctx, 2000001),
      await record(noViolations, 2000001, noViolations.account('starter').key()),
    ]
    expect(without.safety.elp_oos_violations).toBeNull()
    expect(withViol.trust.trust_score).toBe(without.trust.trust_score)
    expect(withViol.trust.gates).toEqual(without.trust.gates)
    expect(withViol.trust.factors.map((f) => f.id)).toEqual(without.trust.factors.map((f) => f.id))
  })

  test('mirrored monthly with the SMS files, from its own Socrata id', () => {
    const s = listSources('https://data.transportation.gov').find((x) => x.id === VIOLATION_FILE_ID)
    expect(s).toMatchObject({
      dataset: 'violations',
      schedule: 'monthly',
      kind: 'full',
      primary: {
        url: 'https://data.transportation.gov/api/views/8mt8-2mdr/rows.csv?accessType=DOWNLOAD',
      },
    })
  })
})
