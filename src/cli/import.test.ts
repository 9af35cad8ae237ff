/**
 * `import --dir` into the live mirror is exactly a sync (issue 54 item 2): real-format files from
 * the generator, the bundled sample refused by content, the regulator's date required, every gate
 * of a sync applied, and old files activated but never trust_verified.
 */
import { createHash } from 'node:crypto'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { startFmcsaServer } from '../testing/fmcsa-server.ts'
import { listSources } from '../sync/sources.ts'
import { writeScaleDataset } from '../../tools/generate/dataset.ts'
import { activeVersion } from '../db/versions.ts'
import { runCliCaptured } from '../testing/cli.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'

const NOW = '2026-11-15T12:00:00Z'
let real: string
let ctx: TestContext | null = null

beforeAll(async () => {
  real = mkdtempSync(join(tmpdir(), 'cvk-import-real-'))
  await writeScaleDataset(real, { censusRows: 2000 })
}, 60_000)
afterAll(() => rmSync(real, { recursive: true, force: true }))
afterEach(() => {
  ctx?.close()
  ctx = null
})

async function setup(env: Record<string, string> = {}): Promise<TestContext> {
  ctx = await createTestContext({
    now: NOW,
    env: { SAMPLE_DATA_DIR: 'data/sample', SYNC_OOS_MIN_ROWS: '100', ...env },
  })
  return ctx
}

/** A folder holding copies of the named files of `from`. */
function folder(files: { from: string; ids: string[] }[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'cvk-import-'))
  for (const { from, ids } of files)
    for (const id of ids) copyFileSync(join(from, `${id}.csv`), join(dir, `${id}.csv`))
  return dir
}

const CENSUS = 'az4n-8mr2'
const OOS = 'p2mt-9ige'

describe('import --dir into the mirror', () => {
  test('the bundled sample folder is refused in one line; nothing becomes mirror data', async () => {
    const c = await setup()
    const r = await runCliCaptured(c, ['import', '--dir', 'data/sample', '--as-of', '2026-11-01'])
    expect(r.code).toBe(1)
    const lines = r.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^refused: .*data\/sample holds the bundled sample files \(fictitious companies\), not the regulator's; not imported as mirror data/,
    )
    expect(activeVersion(c.deps.db, 'census', 'live')).toBeNull()
  })

  test('a folder mixing sample and real files refuses the sample ones and imports the rest', async () => {
    const c = await setup()
    const dir = folder([
      { from: real, ids: [CENSUS] },
      { from: 'data/sample', ids: [OOS] },
    ])
    const r = await runCliCaptured(c, ['import', '--dir', dir, '--as-of', '2026-11-14', '--json'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      `refused: ${OOS}.csv is a bundled sample file (fictitious companies), not the regulator’s; not imported as mirror data`,
    )
    const rows = JSON.parse(r.stdout) as { dataset: string; status: string }[]
    expect(rows.map((x) => [x.dataset, x.status])).toEqual([['census', 'activated']])
    expect(activeVersion(c.deps.db, 'oos', 'live')).toBeNull()
    rmSync(dir, { recursive: true })
  })

  test('a file of a sample file’s size but another content is not taken for the sample', async () => {
    const c = await setup()
    const dir = folder([{ from: 'data/sample', ids: [CENSUS] }])
    const path = join(dir, `${CENSUS}.csv`)
    const text = readFileSync(path, 'utf8')
    const at = text.indexOf('\n') + 1 + text.slice(text.indexOf('\n') + 1).search(/[A-Z]/)
    const changed = `${text.slice(0, at)}${text[at] === 'Q' ? 'X' : 'Q'}${text.slice(at + 1)}`
    writeFileSync(path, changed)
    expect(changed.length).toBe(text.length)
    const r = await runCliCaptured(c, ['import', '--dir', dir, '--as-of', '2026-11-14', '--json'])
    expect(r.stderr).not.toContain('refused:')
    const rows = JSON.parse(r.stdout) as { dataset: string; status: string }[]
    expect(rows.map((x) => [x.dataset, x.status])).toEqual([['census', 'activated']])
    rmSync(dir, { recursive: true })
  })

  test('a file that is not the one its .meta was written for is refused before activation', async () => {
    const c = await setup()
    const dir = folder([{ from: real, ids: [CENSUS] }])
    const path = join(dir, `${CENSUS}.csv`)
    const original = readFileSync(path, 'utf8')
    const rows = original.trim().split('\n').length - 1
    const meta = (day: string) =>
      JSON.stringify({
        last_modified: `2026-11-${day}T10:18:00Z`,
        count: rows,
        sha256: createHash('sha256').update(original).digest('hex'),
      })
    // the file the sidecar was written for is imported
    writeFileSync(`${path}.meta`, meta('13'))
    expect((await runCliCaptured(c, ['import', '--dir', dir])).code).toBe(0)
    const before = activeVersion(c.deps.db, 'census', 'live')
    expect(before?.asOf).toBe('2026-11-13')

    // changed since the download: built, then refused; the previous version stays
    writeFileSync(
      path,
      original.replace(/"?(\d{5,})"?/, (m, d: string) => m.replace(d, `${d}9`)),
    )
    writeFileSync(`${path}.meta`, meta('14'))
    let r = await runCliCaptured(c, ['import', '--dir', dir, '--json'])
    expect(r.code).toBe(1)
    let [row] = JSON.parse(r.stdout) as { status: string; error: string }[]
    expect(row).toMatchObject({
      status: 'failed',
      error: `${CENSUS}.csv: its content differs from the SHA-256 in ${CENSUS}.csv.meta (changed or cut since the download)`,
    })
    expect(activeVersion(c.deps.db, 'census', 'live')?.id).toBe(before?.id)

    // cut since the download: the build's own refusal comes second to the cause
    const lines = original.split('\n')
    writeFileSync(path, `${lines.slice(0, 1001).join('\n')}\n`)
    r = await runCliCaptured(c, ['import', '--dir', dir, '--json'])
    expect(r.code).toBe(1)
    ;[row] = JSON.parse(r.stdout) as { status: string; error: string }[]
    expect(row?.error).toMatch(
      new RegExp(
        `^${CENSUS}\\.csv: its content differs from the SHA-256 in ${CENSUS}\\.csv\\.meta .*\\(the build failed too: .*1000 rows is less than 90%`,
      ),
    )
    expect(activeVersion(c.deps.db, 'census', 'live')?.id).toBe(before?.id)
    rmSync(dir, { recursive: true })
  })

  test('files without a data date are refused unless --as-of gives it; a future --as-of is refused', async () => {
    const c = await setup()
    const dir = folder([{ from: real, ids: [CENSUS] }])
    let r = await runCliCaptured(c, ['import', '--dir', dir])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`no data date for ${CENSUS}.csv`)
    expect(r.stderr).toContain('scripts/download-fmcsa.sh')
    expect(r.stderr).toContain('--as-of YYYY-MM-DD')
    r = await runCliCaptured(c, ['import', '--dir', dir, '--as-of', '2026-11-16'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--as-of 2026-11-16 is in the future (today is 2026-11-15)')
    r = await runCliCaptured(c, ['import', '--dir', dir, '--as-of', '2026-02-30'])
    expect(r.code).toBe(2)
    expect(activeVersion(c.deps.db, 'census', 'live')).toBeNull()
    rmSync(dir, { recursive: true })
  })

  test('the data date is the regulator’s (.meta sidecar, else --as-of); the import time is kept apart', async () => {
    const c = await setup()
    const dir = folder([{ from: real, ids: [CENSUS] }])
    const rows =
      readFileSync(join(dir, `${CENSUS}.csv`), 'utf8')
        .trim()
        .split('\n').length - 1
    writeFileSync(
      join(dir, `${CENSUS}.csv.meta`),
      JSON.stringify({
        url: 'https://data.transportation.gov/api/views/az4n-8mr2/rows.csv?accessType=DOWNLOAD',
        downloaded_at: '2026-11-14T11:02:00Z',
        last_modified: '2026-11-14T10:18:00Z',
        count: rows,
      }),
    )
    const r = await runCliCaptured(c, ['import', '--dir', dir, '--as-of', '2026-10-01'])
    expect(r.code).toBe(0)
    const v = activeVersion(c.deps.db, 'census', 'live')
    expect(v).toMatchObject({
      asOf: '2026-11-14', // the sidecar's, not --as-of's and not the import day
      importedAt: Date.parse(NOW),
      confirmedAt: Date.parse('2026-11-14T10:18:00Z'),
    })
    const files = JSON.parse(v?.files ?? '{}') as {
      inputs: Record<string, { sha256: string; bytes: number; portal_count: number }>
    }
    // the file's own hash and size, taken while the build read it
    const content = readFileSync(join(dir, `${CENSUS}.csv`))
    expect(files.inputs[CENSUS]).toMatchObject({
      portal_count: rows,
      sha256: createHash('sha256').update(content).digest('hex'),
      bytes: content.length,
    })

    // a record says both: the regulator's date and when it arrived here
    const header = readFileSync(join(dir, `${CENSUS}.csv`), 'utf8').split('\n', 2)
    const column = header[0]?.split(',').indexOf('DOT_NUMBER') ?? -1
    const dot = header[1]?.split(',')[column]?.replaceAll('"', '')
    const res = await c.get(`/v1/carrier/${dot}`, c.account().key())
    expect(res.status).toBe(200)
    const { meta } = (await res.json()) as {
      meta: {
        data_as_of: Record<string, string | null>
        imported_at: Record<string, string | null>
      }
    }
    expect(meta.data_as_of.census).toBe('2026-11-14')
    expect(meta.imported_at.census).toBe(new Date(NOW).toISOString())
    expect(meta.imported_at.oos).toBeNull()
    rmSync(dir, { recursive: true })
  })

  test('the row count of a sidecar is checked like the portal count of a sync', async () => {
    const c = await setup()
    const dir = folder([{ from: real, ids: [CENSUS] }])
    writeFileSync(
      join(dir, `${CENSUS}.csv.meta`),
      JSON.stringify({ last_modified: '2026-11-14T10:18:00Z', count: 4_512_353 }),
    )
    const r = await runCliCaptured(c, ['import', '--dir', dir, '--json'])
    expect(r.code).toBe(1)
    const [row] = JSON.parse(r.stdout) as { status: string; error: string }[]
    expect(row).toMatchObject({ status: 'failed' })
    expect(row?.error).toContain('the portal counts 4512353 (a short export is refused)')
    rmSync(dir, { recursive: true })
  })

  test('the near-empty out-of-service guard applies to imported files', async () => {
    const c = await setup({ SYNC_OOS_MIN_ROWS: '10000' })
    const dir = folder([{ from: real, ids: [OOS] }])
    const r = await runCliCaptured(c, ['import', '--dir', dir, '--as-of', '2026-11-14', '--json'])
    expect(r.code).toBe(1)
    const [row] = JSON.parse(r.stdout) as { status: string; error: string }[]
    expect(row?.status).toBe('failed')
    expect(row?.error).toMatch(
      /p2mt-9ige: only \d+ out-of-service orders \(SYNC_OOS_MIN_ROWS is 10000\)/,
    )
    expect(activeVersion(c.deps.db, 'oos', 'live')).toBeNull()
    rmSync(dir, { recursive: true })
  })

  test('the shrink limit applies: a census cut in half is refused, the previous one stays', async () => {
    const c = await setup()
    const dir = folder([{ from: real, ids: [CENSUS] }])
    expect((await runCliCaptured(c, ['import', '--dir', dir, '--as-of', '2026-11-14'])).code).toBe(
      0,
    )
    const before = activeVersion(c.deps.db, 'census', 'live')
    const lines = readFileSync(join(dir, `${CENSUS}.csv`), 'utf8').split('\n')
    writeFileSync(join(dir, `${CENSUS}.csv`), `${lines.slice(0, 1001).join('\n')}\n`)
    const r = await runCliCaptured(c, ['import', '--dir', dir, '--as-of', '2026-11-15', '--json'])
    expect(r.code).toBe(1)
    const [row] = JSON.parse(r.stdout) as { status: string; error: string }[]
    expect(row?.error).toContain('1000 rows is less than 90%')
    expect(activeVersion(c.deps.db, 'census', 'live')?.id).toBe(before?.id)
    rmSync(dir, { recursive: true })
  })

  test('files older than the freshness limit are activated but never trust_verified', async () => {
    const c = await setup()
    const ids = readFileSync(join(real, `${CENSUS}.csv`), 'utf8')
      .split('\n')[1]
      ?.split(',')[3]
    const all = folder([
      {
        from: real,
        ids: [CENSUS, OOS, '6eyk-hxee', 'qh9u-swkp', '6sqe-dvqs', '9mw4-x3tu', 'sa6p-acbp'],
      },
      { from: real, ids: ['inys-ebih', 'c5y8-a4uz', '3uet-3z4i', 'yu5v-wbh6', 'wb4f-neki'] },
    ])
    const lookup = async () => {
      const { key } = c.account('starter')
      const res = await c.get(`/v1/carrier/${ids}`, key())
      expect(res.status).toBe(200)
      return ((await res.json()) as { trust: { unverified_reasons: string[] } }).trust
        .unverified_reasons
    }
    // two weeks old: activated, but stale from the files' own date, not from the import
    expect((await runCliCaptured(c, ['import', '--dir', all, '--as-of', '2026-11-01'])).code).toBe(
      0,
    )
    expect(await lookup()).toEqual(
      expect.arrayContaining(['dataset_stale:census', 'dataset_stale:motus', 'dataset_stale:oos']),
    )
    // yesterday's files: within the 72-hour limit
    expect((await runCliCaptured(c, ['import', '--dir', all, '--as-of', '2026-11-14'])).code).toBe(
      0,
    )
    expect((await lookup()).filter((r) => r.startsWith('dataset_'))).toEqual([])
    rmSync(all, { recursive: true })
  })

  test('scripts/download-fmcsa.sh writes the files and their .meta; the import takes its date and count', async () => {
    const c = await setup()
    const server = await startFmcsaServer({
      files: { [CENSUS]: readFileSync(join(real, `${CENSUS}.csv`)) },
    })
    server.truth(CENSUS, 'Sat, 14 Nov 2026 10:18:00 GMT')
    const dir = mkdtempSync(join(tmpdir(), 'cvk-download-'))
    try {
      await promisify(execFile)('bash', ['scripts/download-fmcsa.sh', dir, CENSUS], {
        env: { ...process.env, FMCSA_BASE_URL: server.url },
        timeout: 30_000,
      })
      const meta = JSON.parse(readFileSync(join(dir, `${CENSUS}.csv.meta`), 'utf8')) as Record<
        string,
        unknown
      >
      expect(meta).toMatchObject({ last_modified: '2026-11-14T10:18:00Z', count: 2000 })
      const r = await runCliCaptured(c, ['import', '--dir', dir])
      expect(r.code).toBe(0)
      expect(activeVersion(c.deps.db, 'census', 'live')?.asOf).toBe('2026-11-14')
    } finally {
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('scripts/download-fmcsa.sh knows every file the mirror reads', () => {
    const script = readFileSync('scripts/download-fmcsa.sh', 'utf8')
    const list = /ALL_IDS=\(([^)]*)\)/.exec(script)?.[1] ?? ''
    const ids = list.split(/\s+/).filter(Boolean)
    // a file read by two datasets (the SMS inspection and crash files) is downloaded once
    expect(ids.sort()).toEqual(
      [...new Set(listSources('https://example.invalid').map((s) => s.id))].sort(),
    )
  })
})
