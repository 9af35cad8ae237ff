import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { openAppDb } from '../db/app-db.ts'
import type { Sqlite } from '../db/open.ts'
import { silentLogger } from '../log.ts'
import { startFmcsaServer, type FmcsaServer } from '../testing/fmcsa-server.ts'
import { downloadFile, getSourceFile, type DownloadOptions } from './download.ts'
import { changesUrl, fetchIncrementally, readIncrementalState } from './incremental.ts'
import { sourceUrl } from './sources.ts'

const ID = 'wt8s-2hbx'
const HEAD = 'CHANGE_DATE,INSPECTION_ID,INSP_UNIT_ID,INSP_UNIT_LICENSE,INSP_UNIT_VEHICLE_ID_NUMBER'
const V1 = [
  HEAD,
  '20261030 0900,7001,70011,ABC123,1XKYDPGX9NJ412345',
  '20261030 0915,7001,70012,"TR 1, A",1GRAA0621KB705555',
  '20261031 0930,7002,70021,XYZ9,3AKJHHDR2PSNA7777',
  '',
].join('\n')
// one unit corrected (70012), one inspection added (7003) the next day
const V2 = [
  HEAD,
  '20261030 0900,7001,70011,ABC123,1XKYDPGX9NJ412345',
  '20261101 0800,7001,70012,TR1A,1GRAA0621KB705555',
  '20261031 0930,7002,70021,XYZ9,3AKJHHDR2PSNA7777',
  '20261101 1000,7003,70031,NEW1,1FUJGLDR5CLBP8834',
  '',
].join('\n')

let server: FmcsaServer
let dir: string
let db: Sqlite
let now: number
let fetched: string[]
let failChanges: ((url: string) => Response | null) | null
beforeEach(async () => {
  server = await startFmcsaServer({ files: { [ID]: V1 } })
  dir = mkdtempSync(join(tmpdir(), 'cvk-inc-'))
  db = openAppDb(join(dir, 'app.db')).sqlite
  now = Date.parse('2026-11-01T12:00:00Z')
  fetched = []
  failChanges = null
})
afterEach(async () => {
  db.close()
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

/** globalThis.fetch, recorded, with the SODA answers replaced when a test says so */
const fetchFn: typeof globalThis.fetch = async (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
  fetched.push(url)
  const replaced = url.includes('/resource/') && failChanges ? failChanges(url) : null
  return replaced ?? globalThis.fetch(input, init)
}
const deps = () => ({
  db,
  fetch: fetchFn,
  clock: () => new Date(now),
  random: () => 0.5,
  log: silentLogger(),
})
const options = (): DownloadOptions => ({
  signal: AbortSignal.timeout(10_000),
  dataDir: dir,
  dir: join(dir, 'downloads'),
  timeoutMs: 2_000,
  retries: 0,
  retryBaseMs: 1,
  appToken: null,
  maxTotalMs: 60_000,
})
const sync = (pageRows = 10) =>
  fetchIncrementally(
    deps(),
    ID,
    {
      spec: { key: 'INSP_UNIT_ID', changed: 'CHANGE_DATE' },
      baseUrl: server.url,
      fullRefreshDays: 30,
      pageRows,
    },
    options(),
    () =>
      downloadFile(
        deps(),
        ID,
        [{ id: ID, form: 'rows', url: sourceUrl(server.url, ID, 'rows') }],
        options(),
      ),
  )
const kept = () => readFileSync(join(dir, 'downloads', `${ID}.csv`), 'utf8')
const records = (csv: string) => csv.trim().split('\n').slice(1).sort()
const forms = () => server.requests.map((r) => r.form)

describe('incremental fetch of a file with a change date', () => {
  test('first sync: the full export, and its newest change date is kept', async () => {
    const r = await sync()
    expect(r.status).toBe('changed')
    expect(forms()).toEqual(['rows'])
    expect(kept()).toBe(V1)
    expect(readIncrementalState(join(dir, 'downloads'), ID)).toMatchObject({
      changedUpTo: '20261031 0930',
      fullAt: now,
    })
  })

  test('next sync: only the rows changed after it, asked with $where and merged by key', async () => {
    await sync()
    server.set(ID, V2)
    now += 86_400_000
    const r = await sync(1)
    expect(r.status).toBe('changed')
    // three pages of one row: two rows, then an empty page; never the full export again
    expect(forms()).toEqual(['rows', 'changes', 'changes', 'changes'])
    const first = new URL(fetched[1] as string)
    expect(first.pathname).toBe(`/resource/${ID}.csv`)
    expect(first.searchParams.get('$where')).toBe("change_date > '20261031 0930'")
    expect(first.searchParams.get('$order')).toBe('change_date,:id')
    expect(fetched[1]).toBe(changesUrl(server.url, ID, 'CHANGE_DATE', '20261031 0930', 0, 1))
    expect(records(kept())).toEqual(records(V2))
    expect(kept().split('\n')[0]).toBe(HEAD)
    expect(readIncrementalState(join(dir, 'downloads'), ID)?.changedUpTo).toBe('20261101 1000')
    if (r.status === 'not_found') return
    expect(getSourceFile(db, ID, dir)).toMatchObject({ sha256: r.sha256, etag: null })

    // nothing changed since: unchanged, the kept copy as it was
    const again = await sync(10)
    expect(again.status).toBe('unchanged')
    expect(forms().slice(4)).toEqual(['changes'])
    expect(new URL(fetched.at(-1) as string).searchParams.get('$where')).toBe(
      "change_date > '20261101 1000'",
    )
  })

  test('an error of the SODA endpoint falls back to the full export', async () => {
    await sync()
    server.set(ID, V2)
    failChanges = () => new Response('error', { status: 500 })
    const r = await sync()
    expect(r.status).toBe('changed')
    expect(forms()).toEqual(['rows', 'rows'])
    expect(kept()).toBe(V2)
    expect(readIncrementalState(join(dir, 'downloads'), ID)?.changedUpTo).toBe('20261101 1000')
  })

  test('an answer without a column of the kept file falls back to the full export', async () => {
    await sync()
    server.set(ID, V2)
    failChanges = () =>
      new Response('"change_date","inspection_id"\n"20261101 1000","7003"\n', {
        headers: { 'content-type': 'text/csv' },
      })
    expect((await sync()).status).toBe('changed')
    expect(forms()).toEqual(['rows', 'rows'])
    expect(kept()).toBe(V2)
  })

  test('the full export again once the refresh period has passed (unconditional)', async () => {
    await sync()
    server.set(ID, V2)
    await sync()
    expect(forms()).toEqual(['rows', 'changes'])
    now += 30 * 86_400_000
    const r = await sync()
    expect(r.status).toBe('changed') // the export's row order, not the merged one
    expect(forms()).toEqual(['rows', 'changes', 'rows'])
    const last = server.requests.at(-1)
    expect(last?.headers['if-none-match']).toBeUndefined()
    expect(readIncrementalState(join(dir, 'downloads'), ID)?.fullAt).toBe(now)
  })
})
