/**
 * The PDF report read back as text with poppler's pdftotext (and page 1 drawn with pdftoppm):
 * the effective verdict comes first, values are in words, the hashes and the footer are there.
 * Without pdftotext the suite is skipped with a message — except in CI (CI=true), where a missing
 * tool fails.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { sampleCensusDir } from '../testing/fixture-dirs.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'
import { checkEvidence, checkReport } from './checks.ts'
import { checkPage } from './html.ts'
import { PDF_HASH_KEY } from './pdf.ts'

const available = spawnSync('pdftotext', ['-v']).status === 0
const inCi = process.env.CI === 'true'
if (!available && !inCi)
  console.warn('PDF report tests SKIPPED: no pdftotext (apt-get install poppler-utils)')

test.runIf(inCi)('CI has pdftotext for the PDF report tests', () => {
  expect(available, 'pdftotext is missing: .ci/run must install poppler-utils').toBe(true)
})

describe.runIf(available)('the check report PDF', () => {
  let ctx: TestContext
  let tmp: string
  let accountId: number
  let live: string
  let sandbox: string

  const text = (pdf: Buffer, name: string) => {
    const file = join(tmp, `${name}.pdf`)
    writeFileSync(file, pdf)
    const r = spawnSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8', timeout: 20_000 })
    expect(r.status, r.stderr).toBe(0)
    return r.stdout
  }

  beforeAll(async () => {
    ctx = await createTestContext({
      liveDir: LICENSING_FIXTURES,
      sampleDir: sampleCensusDir(),
      now: '2026-11-15T12:00:00Z',
    })
    tmp = mkdtempSync(join(tmpdir(), 'cvk-pdf-'))
    const { account, key } = ctx.account('starter', { name: 'Acme Logistics' })
    accountId = account.id
    const k = key('live', ['override'])
    const res = await ctx.post(
      '/v1/checks',
      {
        dot: '1000001',
        reference: 'LOAD-77',
        run_by: 'Dana Dispatcher',
        contact: { phone: '(712) 439-2831' },
      },
      k,
    )
    expect(res.status).toBe(201)
    live = ((await res.json()) as { check_id: string }).check_id
    const o = await ctx.post(
      `/v1/checks/${live}/override`,
      { by: 'J. Smith (compliance)', reason: 'called the insurer', verdict: 'pass' },
      k,
    )
    expect(o.status).toBe(201)
    const s = await ctx.post('/v1/checks', { dot: '9000001' }, key('test'))
    expect(s.status).toBe(201)
    sandbox = ((await s.json()) as { check_id: string }).check_id
  })
  afterAll(() => {
    ctx.close()
    rmSync(tmp, { recursive: true, force: true })
  })

  test('the effective verdict first, then the company, who, rules in words, sources, overrides, footer', () => {
    const pdf = checkReport(ctx.deps, accountId, live)
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-')
    const t = text(pdf, 'live')
    const ev = checkEvidence(ctx.deps, accountId, live)
    const docHash = createHash('sha256').update(ev.document).digest('hex')
    // the verdict is the first thing on page 1, before the company
    const first = t.indexOf('EFFECTIVE VERDICT')
    expect(first).toBeGreaterThanOrEqual(0)
    expect(t.slice(first, first + 400)).toMatch(/PASS/)
    expect(t.indexOf('overridden by J. Smith (compliance)')).toBeGreaterThan(first)
    expect(t.indexOf(ev.doc.legal_name ?? '')).toBeGreaterThan(first)
    expect(t).toContain('LOAD-77')
    // who: account, key and mode, the integration's name marked unverified
    expect(t).toContain('Acme Logistics')
    expect(t).toMatch(/Dana Dispatcher \(unverified/)
    expect(t).toMatch(/live\)/)
    // rules with values in words: amounts in dollars, dates in words, no field paths
    expect(t).toMatch(/\$\d{1,3}(,\d{3})+/)
    expect(t).toMatch(
      /(January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}, \d{4}/,
    )
    expect(t).toContain('liability (BIPD) cover on file')
    const body = t.slice(0, t.indexOf('Appendix: the policy as applied'))
    expect(body).not.toMatch(
      /insurance\.bipd_on_file|identity\.usdot_status|authority\.common_authority/,
    )
    // data sources with the regulator's date and hashes
    expect(t).toContain("regulator's date")
    for (const s of ev.doc.data_sources ?? [])
      for (const f of s.files) if (f.sha256) expect(t.replaceAll(/\s+/g, '')).toContain(f.sha256)
    // overrides with their author, the evidence block and the policy appendix
    expect(t).toContain('called the insurer')
    expect(t).toContain('This PDF is a rendering, not the evidence.')
    expect(t).toContain('Appendix: the policy as applied')
    expect(t).toContain('bipd_minimum')
    // the footer on every page: check id, document hash, key fingerprint, how to verify
    const pages = t.split('\f').filter((p) => p.trim())
    expect(pages.length).toBeGreaterThan(1)
    for (const p of pages) {
      expect(p).toContain(`Check ${live}`)
      expect(p).toContain(docHash)
      expect(p).toContain(ev.signature.fingerprint)
      expect(p).toContain('node verify.mjs')
    }
    // the metadata verify.mjs reads
    expect(pdf.toString('latin1')).toContain(`/${PDF_HASH_KEY}`)
    expect(pdf.toString('latin1')).toContain(`(${docHash})`)
    // page 1 as a picture, to look at
    const png = spawnSync('pdftoppm', [
      '-png',
      '-r',
      '80',
      '-f',
      '1',
      '-l',
      '1',
      '-singlefile',
      join(tmp, 'live.pdf'),
      join(tmp, 'page1'),
    ])
    expect(png.status).toBe(0)
    expect(existsSync(join(tmp, 'page1.png'))).toBe(true)
    if (process.env.REPORT_PNG)
      writeFileSync(process.env.REPORT_PNG, readFileSync(join(tmp, 'page1.png')))
  })

  test('stale data: a live check ten days after the data carries the banner; the HTML page says the same in words', async () => {
    const { account, key } = ctx.account('starter')
    ctx.clock.set('2026-11-25T12:00:00Z')
    try {
      const res = await ctx.post('/v1/checks', { dot: '1000001' }, key())
      expect(res.status).toBe(201)
      const id = ((await res.json()) as { check_id: string }).check_id
      const t = text(checkReport(ctx.deps, account.id, id), 'stale')
      expect(t.indexOf('Warning: stale data')).toBeGreaterThanOrEqual(0)
      expect(t.indexOf('Warning: stale data')).toBeLessThan(t.indexOf('EFFECTIVE VERDICT'))
      const html = checkPage(checkEvidence(ctx.deps, account.id, id))
      expect(html).toContain('Warning:</b> stale data')
      expect(html).toContain('Found liability (BIPD) cover on file: $')
      expect(html).not.toMatch(/<td>[^<]*insurance\.bipd_on_file/)
    } finally {
      ctx.clock.set('2026-11-15T12:00:00Z')
    }
  })

  test('a sandbox check carries the banner; an unknown or another account’s check is not found', () => {
    const t = text(checkReport(ctx.deps, accountId, sandbox), 'sandbox')
    const banner = t.indexOf('Warning: a sandbox check')
    expect(banner).toBeGreaterThanOrEqual(0)
    expect(banner).toBeLessThan(t.indexOf('EFFECTIVE VERDICT'))
    const other = ctx.account('starter').account.id
    expect(() => checkReport(ctx.deps, other, live)).toThrow(/No check/)
    expect(() => checkReport(ctx.deps, accountId, 'chk_AAAAAAAAAAAAAAAA')).toThrow(/No check/)
  })
})
