import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { pipelineDeps } from '../deps.ts'
import { importDir, type RunResult } from '../sync/pipeline.ts'
import type { DatasetName } from '../db/names.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'
import { PARSE_WORKER_MIN_BYTES } from '../ingest/parallel.ts'

let ctx: TestContext
let dir: string
beforeEach(async () => {
  ctx = await createTestContext({ now: '2026-11-15T12:00:00Z' })
  dir = mkdtempSync(join(tmpdir(), 'cvk-lic-'))
  for (const name of readdirSync(LICENSING_FIXTURES))
    copyFileSync(join(LICENSING_FIXTURES, name), join(dir, name))
})
afterEach(() => {
  ctx.close()
  rmSync(dir, { recursive: true, force: true })
})

const fixture = (name: string) => readFileSync(join(LICENSING_FIXTURES, name), 'utf8')
const put = (name: string, text: string) => writeFileSync(join(dir, name), text)

async function build(name: DatasetName): Promise<RunResult> {
  const [r] = await importDir(pipelineDeps(ctx.deps), dir, {
    channel: 'live',
    trigger: 'test',
    signal: AbortSignal.timeout(30_000),
    only: [name],
  })
  if (!r) throw new Error('nothing imported')
  return r
}
const db = (name: DatasetName) => {
  const ds = ctx.deps.datasets.get(name, 'live')
  if (!ds) throw new Error(`${name} is not active`)
  return ds.db
}

describe('legacy L&I build', () => {
  test('positional files with or without a header row, and the headerless text form by its own id', async () => {
    const r = await build('legacy')
    expect(r.status).toBe('activated')
    if (r.status !== 'activated') return
    expect(r.stats.files).toMatchObject({
      '6eyk-hxee': { rows: 12, rejects: 0 }, // header row skipped
      '6sqe-dvqs': { rows: 5, rejects: 0 }, // read from nzpz-e5xn.txt (no header)
      'sa6p-acbp': { rows: 151, rejects: 0 }, // the real 2024 sample plus one row
    })
    expect(ctx.deps.datasets.get('legacy', 'live')?.asOf).toBe('2026-05-14')
  })

  test('padded USDOT, 00000000 = none, amounts in thousands ("00000" is a real zero)', async () => {
    await build('legacy')
    const rows = db('legacy')
      .prepare(
        `SELECT prefix || number AS docket, dot_number, min_cov, bipd_file, broker_stat
         FROM carriers WHERE number IN (100099, 12892, 675) ORDER BY number`,
      )
      .all()
    expect(rows).toEqual([
      // the two real rows of the legacy text sample
      {
        docket: 'MC675',
        dot_number: 124159,
        min_cov: 5_000_000,
        bipd_file: 1_500_000,
        broker_stat: 'N',
      },
      { docket: 'MC12892', dot_number: 2217388, min_cov: 0, bipd_file: 0, broker_stat: 'I' },
      { docket: 'MC100099', dot_number: null, min_cov: 0, bipd_file: 0, broker_stat: 'I' },
    ])
  })

  test('a date in an amount field rejects the row, counted and sampled (real ActPendInsur row)', async () => {
    const r = await build('legacy')
    if (r.status !== 'activated') throw new Error(JSON.stringify(r))
    expect(r.stats.files['qh9u-swkp']).toEqual({ rows: 7, rejects: 1 })
    expect(r.stats.rejectSamples).toContainEqual({
      file: 'qh9u-swkp',
      line: 8,
      reason: 'a date in an amount field (shifted columns)',
    })
  })

  test('a file of several parse ranges is parsed in a worker: every row, reject (with its line) and note as in this thread', async () => {
    const baseline = await build('legacy')
    if (baseline.status !== 'activated') throw new Error(JSON.stringify(baseline))
    const unreadableBefore = baseline.stats.notes['legacy.money_unreadable'] ?? 0
    const n = 80_000
    const shifted = new Set([7, 41_007, 79_007]) // a date in an amount field: rejected
    const narrow = 52_013 // a field short: rejected
    const lines = [fixture('qh9u-swkp.csv').split('\n')[0] as string]
    let unreadable = 0
    for (let i = 0; i < n; i++) {
      const underlying = shifted.has(i) ? '07/04/2026' : '0'
      const max = i % 1000 === 11 ? 'UNKNOWN' : '1000' // unreadable: noted, the row kept
      if (i % 1000 === 11) unreadable++
      // a quoted line break now and then (a parse range may begin inside one)
      const insurer = i % 997 === 0 ? `MUTUAL ${i}\nCASUALTY` : `INSURER ${i}`
      const fields = [
        `MC${200_000 + i}`,
        String(3_000_000 + i).padStart(8, '0'),
        '91X',
        'BIPD/Primary',
        insurer,
        `P-${i}`,
        '01/05/2020',
        underlying,
        max,
        '01/01/2020',
        '',
      ]
      lines.push((i === narrow ? fields.slice(0, 10) : fields).map((f) => `"${f}"`).join(','))
    }
    const content = `${lines.join('\n')}\n`
    expect(content.length).toBeGreaterThan(PARSE_WORKER_MIN_BYTES * 2)
    put('qh9u-swkp.csv', content)
    const r = await build('legacy')
    if (r.status !== 'activated') throw new Error(JSON.stringify(r))
    // the worker's parse phases are there (this build parses no other file in a worker)
    expect(r.stats.phases?.['parse.busy']).toBeGreaterThan(0)
    // and the steps after the load, each timed
    for (const phase of ['indexes', 'dot_dockets', 'docket_rows'])
      expect(r.stats.phases?.[phase]).toBeGreaterThan(0)
    const rejected = shifted.size + 1
    expect(r.stats.files['qh9u-swkp']).toEqual({ rows: n - rejected, rejects: rejected })
    const samples = r.stats.rejectSamples.filter((s) => s.file === 'qh9u-swkp')
    const reason = 'a date in an amount field (shifted columns)'
    expect(samples).toEqual([
      { file: 'qh9u-swkp', line: 8, reason },
      { file: 'qh9u-swkp', line: 41_008, reason },
      { file: 'qh9u-swkp', line: 52_014, reason: 'expected 11 fields, got 10' },
      { file: 'qh9u-swkp', line: 79_008, reason },
    ])
    expect(r.stats.notes['legacy.money_unreadable']).toBe(unreadableBefore + unreadable)
    const policies = db('legacy')
    expect(policies.prepare('SELECT count(*) AS n FROM policies').get()).toEqual({
      n: n - rejected,
    })
    const row = (i: number) =>
      policies
        .prepare(
          `SELECT prefix, number, dot_number, insurer, underlying, max_cov, effective_date
           FROM policies WHERE prefix = 'MC' AND number = ?`,
        )
        .get(200_000 + i)
    expect(row(n - 1)).toEqual({
      prefix: 'MC',
      number: 200_000 + n - 1,
      dot_number: 3_000_000 + n - 1,
      insurer: `INSURER ${n - 1}`,
      underlying: 0,
      max_cov: 1_000_000,
      effective_date: '2020-01-01',
    })
    // the quoted line break is one record (text fields fold whitespace)
    expect(row(997 * 60)).toMatchObject({ insurer: `MUTUAL ${997 * 60} CASUALTY` })
    expect(row(40_011)).toMatchObject({ max_cov: null, dot_number: 3_040_011 })
    expect(row(41_007)).toBeUndefined()
  }, 120_000)

  test('InsHist: an unquoted numeric field, thousands → dollars, the specific cancel method', async () => {
    await build('legacy')
    expect(
      db('legacy')
        .prepare(
          `SELECT form, min_cov, effective_date, cancel_date, method, insurer FROM ins_hist
           WHERE prefix = 'MC' AND number = 191611`,
        )
        .get(),
    ).toEqual({
      form: '91',
      min_cov: 1_000_000,
      effective_date: '1987-04-16',
      cancel_date: '1995-04-16',
      method: 'CANCEL',
      insurer: 'NATIONAL AMERICAN INSURANCE CO. OF NEW YORK',
    })
  })

  test('a file whose rows all have the wrong width fails the build; the old version stays', async () => {
    expect((await build('legacy')).status).toBe('activated')
    const before = ctx.deps.datasets.get('legacy', 'live')?.versionId
    put('sa6p-acbp.csv', '"MC1","00000001","COMMON","06/26/2024","INVOLUNTARY REVOCATION"\n')
    const r = await build('legacy')
    expect(r).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('sa6p-acbp: no valid rows'),
    })
    expect(ctx.deps.datasets.get('legacy', 'live')?.versionId).toBe(before)
  })

  test('a blank row (deletion marker) in a baseline file is rejected, never a record', async () => {
    put(
      'qh9u-swkp.csv',
      `${fixture('qh9u-swkp.csv')}"MC100001","01000001","","","","","","00000","00000","",""\n`,
    )
    const r = await build('legacy')
    if (r.status !== 'activated') throw new Error(JSON.stringify(r))
    expect(r.stats.rejectSamples.map((s) => s.reason)).toContain(
      'blank row (a deletion marker) in a baseline file',
    )
    const n = db('legacy')
      .prepare(`SELECT count(*) AS n FROM policies WHERE prefix = 'MC' AND number = 100001`)
      .get() as { n: number }
    expect(n.n).toBe(1)
  })
})

describe('Motus build', () => {
  test('current state from the AWH files; money units detected per value and counted', async () => {
    const r = await build('motus')
    if (r.status !== 'activated') throw new Error(JSON.stringify(r))
    expect(r.stats.files).toMatchObject({
      'inys-ebih': { rows: 15, rejects: 0 },
      'c5y8-a4uz': { rows: 13, rejects: 0 },
      'nakq-58th': { rows: 2, rejects: 0 },
    })
    expect(r.stats.notes).toMatchObject({
      'motus.money_dollars_with_cents': expect.any(Number),
      'motus.money_read_as_thousands': expect.any(Number),
      // `750.00` on a BI&PD amount (issue 12): thousands with cents, counted apart
      'motus.money_thousands_with_cents': 2,
    })
    const k = db('motus')
      .prepare(`SELECT min_cov, bipd_file FROM authorities WHERE prefix = 'MC' AND number = 100083`)
      .get()
    expect(k).toEqual({ min_cov: 750_000, bipd_file: 750_000 })
    const p = db('motus')
      .prepare(`SELECT form, ins_type, max_cov, underlying FROM policies WHERE policy_no = 'B 222'`)
      .get()
    // a bond's 0.00 underlying limit is "not published", not a fact
    expect(p).toEqual({ form: '84', ins_type: 3, max_cov: 75_000, underlying: null })
  })

  test('daily diffs become a change log; a blank row is a deletion and never a policy', async () => {
    await build('motus')
    const changes = db('motus')
      .prepare(
        `SELECT file_id, source, kind, prefix || number AS docket, dot_number, as_of FROM changes
         ORDER BY file_id, line`,
      )
      .all()
    expect(changes).toEqual([
      {
        file_id: 'nakq-58th',
        source: 'carrier',
        kind: 'changed',
        docket: 'MC100008',
        dot_number: 1000008,
        as_of: '2026-11-15',
      },
      {
        file_id: 'nakq-58th',
        source: 'carrier',
        kind: 'deleted',
        docket: 'MC100077',
        dot_number: 1000077,
        as_of: '2026-11-15',
      },
      {
        file_id: 'x96h-evps',
        source: 'insur',
        kind: 'changed',
        docket: 'MC100008',
        dot_number: 1000008,
        as_of: '2026-11-15',
      },
      {
        file_id: 'x96h-evps',
        source: 'insur',
        kind: 'deleted',
        docket: 'MC100036',
        dot_number: 1000036,
        as_of: '2026-11-15',
      },
    ])
    const blank = db('motus')
      .prepare(`SELECT count(*) AS n FROM policies WHERE prefix = 'MC' AND number = 100036`)
      .get() as { n: number }
    expect(blank.n).toBe(0)
    const record = db('motus')
      .prepare(`SELECT record FROM changes WHERE file_id = 'x96h-evps' AND kind = 'changed'`)
      .get() as { record: string }
    expect(JSON.parse(record.record)).toMatchObject({
      POLICY_NO: 'P-888',
      INS_FORM_CODE: 'BMC-91X',
    })
  })

  test('an empty diff proves nothing: noted, and the build goes on', async () => {
    put('x96h-evps.csv', '')
    const r = await build('motus')
    if (r.status !== 'activated') throw new Error(JSON.stringify(r))
    expect(r.stats.notes['motus.diff_empty']).toBe(1)
  })

  test('a diff whose header drifted is skipped and sampled; the current state still builds', async () => {
    put('nakq-58th.csv', fixture('nakq-58th.csv').replace('OP_AUTH_STATUS', 'STATUS'))
    const r = await build('motus')
    if (r.status !== 'activated') throw new Error(JSON.stringify(r))
    expect(r.stats.notes['motus.diff_unreadable']).toBe(1)
    expect(r.stats.rejectSamples[0]?.reason).toMatch(/^diff skipped: header does not match/)
  })

  test('a header that drifted fails the build with the drift in the error', async () => {
    put('c5y8-a4uz.csv', fixture('c5y8-a4uz.csv').replace('POLICY_NO', 'POLICY_NUMBER'))
    const r = await build('motus')
    expect(r).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('header does not match the expected columns'),
    })
    expect(ctx.deps.datasets.get('motus', 'live')).toBeNull()
  })

  test('a BOC-3 file with unknown columns is skipped with a note (it is optional)', async () => {
    put('6snj-ed7q.csv', 'agent,where\nX,Y\n')
    const r = await build('motus')
    if (r.status !== 'activated') throw new Error(JSON.stringify(r))
    expect(r.stats.notes['motus.boc3_unknown_header']).toBe(1)
  })

  test('a missing required file fails the build', async () => {
    rmSync(join(dir, 'yu5v-wbh6.csv'))
    const r = await build('motus')
    expect(r).toMatchObject({ status: 'failed', error: expect.stringContaining('yu5v-wbh6') })
  })
})

describe('legacy dates', () => {
  test('MM/DD/YYYY fast path agrees with the general parser', async () => {
    const { legacyDate } = await import('./tables.ts')
    const { date } = await import('../ingest/normalize.ts')
    for (const v of [
      '04/16/1987',
      '02/29/2024',
      '02/29/2023',
      '13/01/2020',
      '00/10/2020',
      '0:/01/2020',
      '1/2/2020',
      '12/31/1899',
      ' 04/16/1987',
      '04/16/1987 00:00',
      '',
      '00/00/0000',
    ])
      expect(legacyDate(v)).toBe(date(v))
  })
})
