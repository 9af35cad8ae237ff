import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { openRecords } from '../carriers/records.ts'
import { CENSUS_COLUMNS } from '../census/columns.ts'
import { identityDigest } from '../census/identity-digest.ts'
import { pipelineDeps } from '../deps.ts'
import { activeVersion, rollbackVersion } from '../db/versions.ts'
import { importDir } from '../sync/pipeline.ts'
import { carrierRow, censusLine, writeCensus } from '../testing/census-fixture.ts'
import { compareCensusFiles, hasDigests } from './compare.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import {
  changesPage,
  compareInWorker,
  contactChangedDays,
  decodeCursor,
  HELD_CHANGES_MAX,
  hasHistory,
  historySince,
  pruneHistory,
  recentChanges,
} from './history.ts'

let ctx: TestContext
let dir: string
beforeEach(async () => {
  ctx = await createTestContext({ now: '2026-12-31T12:00:00Z' }) // after every data date below
  dir = mkdtempSync(join(tmpdir(), 'cvk-history-'))
})
afterEach(() => ctx.close())

const A = 3_000_001
const B = 3_000_002
const C = 3_000_003
const D = 3_000_004
const filler = Array.from({ length: 40 }, (_, i) => carrierRow(3_100_000 + i))

const importCensus = async (rows: ReturnType<typeof carrierRow>[], asOf: string) => {
  writeCensus(join(dir, 'az4n-8mr2.csv'), [...rows, ...filler])
  const [r] = await importDir(pipelineDeps(ctx.deps), dir, {
    channel: 'live',
    trigger: 'test',
    asOf,
    signal: AbortSignal.timeout(30_000),
  })
  expect(r?.status).toBe('activated')
}
const comparisons = () =>
  ctx.deps.db
    .prepare(
      'SELECT from_version, to_version, changed, added, removed, changes FROM identity_comparisons ORDER BY id',
    )
    .all()
const v1 = [
  carrierRow(A, { COMPANY_OFFICER_1: 'JANE DOE', FAX: '7125550100' }),
  carrierRow(B, { COMPANY_OFFICER_1: 'JOHN ROE' }),
  carrierRow(C),
]
const v2 = [
  carrierRow(A, {
    COMPANY_OFFICER_1: 'JANE DOE',
    FAX: '7125550100',
    PHONE: '(305) 555-0199',
    EMAIL_ADDRESS: 'dispatch@fastfreight.example',
  }),
  carrierRow(B, { COMPANY_OFFICER_1: 'RICHARD ROE', PHY_STREET: '1 NEW RD' }),
  carrierRow(D),
]

describe('identity history', () => {
  test('the first census is the baseline; the next one records each field change, new and vanished USDOTs', async () => {
    await importCensus(v1, '2026-11-20')
    expect(historySince(ctx.deps.db)).toBe('2026-11-20')
    expect(comparisons()).toEqual([expect.objectContaining({ from_version: null, changes: 0 })])
    await importCensus(v2, '2026-11-27')
    const [, second] = comparisons() as { from_version: number; to_version: number }[]
    expect(second).toMatchObject({ changed: 2, added: 1, removed: 1, changes: 6 })
    expect(second?.to_version).toBe(activeVersion(ctx.deps.db, 'census', 'live')?.id)
    // newest first: within one census, the later field of HISTORY_FIELDS first
    expect(changesPage(ctx.deps.db, A, { limit: 10 }).changes).toEqual([
      {
        field: 'email',
        from: `ops${A}@example.com`,
        to: 'dispatch@fastfreight.example',
        seen_at: '2026-11-27',
      },
      { field: 'phone', from: '+17124392831', to: '+13055550199', seen_at: '2026-11-27' },
    ])
    expect(
      changesPage(ctx.deps.db, B, { limit: 10 }).changes.map((c) => [c.field, c.from, c.to]),
    ).toEqual([
      ['officer_1', 'JOHN ROE', 'RICHARD ROE'],
      ['physical_address', '805 ELM ST, HULL, IA 51239, US', '1 NEW RD, HULL, IA 51239, US'],
    ])
    expect(changesPage(ctx.deps.db, C, { limit: 10 }).changes).toEqual([
      { field: 'usdot_number', from: String(C), to: null, seen_at: '2026-11-27' },
    ])
    expect(changesPage(ctx.deps.db, D, { limit: 10 }).changes).toEqual([
      { field: 'usdot_number', from: null, to: String(D), seen_at: '2026-11-27' },
    ])
    expect(hasHistory(ctx.deps.db, C)).toBe(true)
    expect(hasHistory(ctx.deps.db, 3_100_000)).toBe(false)
    expect(contactChangedDays(ctx.deps.db, A, '2026-12-04')).toBe(7)
    expect(contactChangedDays(ctx.deps.db, B, '2026-12-04')).toBeNull()
    expect(recentChanges(ctx.deps.db, A, '2026-12-04', 90, 1)).toHaveLength(1)
    expect(recentChanges(ctx.deps.db, A, '2027-06-01')).toEqual([])
    // over HTTP with a live key: billed one call; a vanished company still answers; unknown → 404 unbilled
    const key = ctx.account('starter').key()
    const used = () =>
      ctx.deps.db.prepare('SELECT coalesce(sum(used), 0) AS n FROM usage_counters').get()
    const res = await ctx.get(`/v1/carrier/${A}/history`, key)
    expect(res.status).toBe(200)
    expect(((await res.json()) as { changes: unknown[] }).changes).toHaveLength(2)
    expect(used()).toEqual({ n: 1 })
    expect((await ctx.get(`/v1/carrier/${C}/history`, key)).status).toBe(200)
    expect((await ctx.get('/v1/carrier/3999999/history', key)).status).toBe(404)
    expect(used()).toEqual({ n: 2 })
    // the sample channel has a history of its own
    expect(changesPage(ctx.deps.db, A, { limit: 10, channel: 'sample' }).changes).toEqual([])
  })

  /** v1 then v2 imported: the two census files */
  const twoCensusFiles = async () => {
    const file = () =>
      join(ctx.config.paths.dataDir, activeVersion(ctx.deps.db, 'census', 'live')?.path ?? '')
    await importCensus(v1, '2026-11-20')
    const first = file()
    await importCensus(v2, '2026-11-27')
    return { first, second: file() }
  }

  test('a large census is compared in a worker thread, with the same result', async () => {
    const { first, second } = await twoCensusFiles()
    const inThread = await compareInWorker(second, first)
    const inWorker = await compareInWorker(second, first, 0)
    expect(inWorker).toEqual(inThread)
    expect(inWorker.changes).toHaveLength(6)
  })

  test('a census file of format 5 or 6 (digests in a table of their own) is compared with a newer one', async () => {
    const { first, second } = await twoCensusFiles()
    // the first version as format 6 wrote it: identity_digests, no companies.digest
    const old = join(dir, 'format-6.db')
    copyFileSync(first, old)
    const db = new Database(old)
    db.exec(`CREATE TABLE identity_digests (dot_number INTEGER PRIMARY KEY, digest INTEGER NOT NULL) STRICT;
      INSERT INTO identity_digests SELECT dot_number, digest FROM companies;
      ALTER TABLE companies DROP COLUMN digest;`)
    db.close()
    expect(hasDigests(old)).toBe(true)
    const current = compareCensusFiles(second, first)
    expect(current.changes).toHaveLength(6)
    expect(compareCensusFiles(second, old)).toEqual(current)
    // and the other way round (a rollback's comparison reads the older file as the next one)
    expect(compareCensusFiles(old, second)).toEqual(compareCensusFiles(first, second))
  })

  test('pages newest first with a cursor', async () => {
    await importCensus(v1, '2026-11-20')
    await importCensus(v2, '2026-11-27')
    await importCensus(
      [carrierRow(A, { COMPANY_OFFICER_1: 'JANE DOE', PHONE: '3055550100' }), ...v2.slice(1)],
      '2026-11-28',
    )
    const first = changesPage(ctx.deps.db, A, { limit: 2 })
    expect(first.changes.map((c) => c.seen_at)).toEqual(['2026-11-28', '2026-11-28'])
    const cursor = first.next_cursor ? decodeCursor(first.next_cursor) : null
    expect(cursor).not.toBeNull()
    const second = changesPage(ctx.deps.db, A, { limit: 10, cursor })
    expect(second.next_cursor).toBeNull()
    const all = [...first.changes, ...second.changes]
    expect(all.map((c) => c.field).sort()).toEqual(['email', 'email', 'fax', 'phone', 'phone'])
    expect(new Set(all.map((c) => JSON.stringify(c))).size).toBe(5)
    expect(decodeCursor('nonsense')).toBeNull()
  })

  test('a rollback records nothing; the next census is compared with the newest data the history saw', async () => {
    await importCensus(v1, '2026-11-20')
    await importCensus(v2, '2026-11-27')
    const seen = changesPage(ctx.deps.db, A, { limit: 50 }).changes.length
    expect(rollbackVersion(ctx.deps.db, 'census', 'live', ctx.deps.clock)).not.toBeNull()
    // the same data as v2 again: compared with v2 (not the rolled-back-to v1), nothing new
    await importCensus(v2, '2026-11-28')
    expect(changesPage(ctx.deps.db, A, { limit: 50 }).changes).toHaveLength(seen)
    const last = comparisons().at(-1) as { from_version: number; changes: number }
    expect(last.changes).toBe(0)
    // back to v1's contact: the reversal is a change like any other
    await importCensus(v1, '2026-11-29')
    expect(changesPage(ctx.deps.db, A, { limit: 1 }).changes[0]).toMatchObject({
      field: expect.stringMatching(/phone|email|fax/),
      seen_at: '2026-11-29',
    })
  })

  test('retention prunes old changes; history_since moves with it', async () => {
    await importCensus(v1, '2022-11-20')
    await importCensus(v2, '2022-11-27')
    await importCensus(v1, '2026-11-27')
    expect(pruneHistory(ctx.deps.db, '2026-12-04', 3)).toBe(6)
    expect(
      changesPage(ctx.deps.db, A, { limit: 50 }).changes.every((c) => c.seen_at === '2026-11-27'),
    ).toBe(true)
    expect(historySince(ctx.deps.db)).toBe('2022-11-27')
  })

  test('a cached record keeps its history fields until the history moves, whichever connection writes it', async () => {
    await importCensus(v1, '2026-11-20')
    const identity = () => openRecords(ctx.deps, 'live').recordNow(A)?.identity
    expect(identity()).toMatchObject({
      recent_changes: [],
      contact_changed_days: null,
      history_since: '2026-11-20',
    })
    identity() // its second miss: the record cache keeps it
    const kept = identity()
    expect(identity()).toBe(kept)
    // another process (the CLI's import) records a change of A's phone, with its comparison
    const other = new Database(ctx.deps.config.paths.appDb)
    try {
      other.exec('BEGIN IMMEDIATE')
      const id = other
        .prepare(
          `INSERT INTO identity_comparisons (channel, from_version, to_version, from_as_of, to_as_of,
           changed, added, removed, changes, seconds, compared_at)
           VALUES ('live', 1, 99, '2026-11-20', '2026-12-30', 1, 0, 0, 1, 0, 0)`,
        )
        .run().lastInsertRowid
      other
        .prepare(
          `INSERT INTO identity_changes (channel, dot_number, field, from_value, to_value, seen_at,
           comparison_id) VALUES ('live', ?, 'phone', '7125550100', '3055550199', '2026-12-30', ?)`,
        )
        .run(A, id)
      other.exec('COMMIT')
      const changed = identity()
      expect(changed).not.toBe(kept)
      expect(changed).toMatchObject({
        contact_changed_days: 1,
        recent_changes: [
          { field: 'phone', from: '7125550100', to: '3055550199', seen_at: '2026-12-30' },
        ],
        history_since: '2026-11-20',
      })
      // a company the history has no change of is unchanged
      expect(openRecords(ctx.deps, 'live').recordNow(B)?.identity).toMatchObject({
        recent_changes: [],
        contact_changed_days: null,
      })
      // a history too large to list (HELD_CHANGES_MAX): each company is asked, with the same answer
      other
        .prepare(
          `INSERT INTO identity_comparisons (channel, from_version, to_version, from_as_of, to_as_of,
           changed, added, removed, changes, seconds, compared_at)
           VALUES ('live', 99, 100, '2026-12-30', '2026-12-30', 0, 0, 0, ?, 0, 0)`,
        )
        .run(HELD_CHANGES_MAX + 1)
      expect(identity()).toMatchObject({ contact_changed_days: 1, history_since: '2026-11-20' })
      expect(openRecords(ctx.deps, 'live').recordNow(B)?.identity).toMatchObject({
        recent_changes: [],
        contact_changed_days: null,
      })
      other.prepare('DELETE FROM identity_changes WHERE dot_number = ?').run(A)
      expect(identity()).toMatchObject({ recent_changes: [], contact_changed_days: null })
    } finally {
      other.close()
    }
  })

  test('a census without the officer or fax columns is refused', async () => {
    for (const drop of ['COMPANY_OFFICER_1', 'COMPANY_OFFICER_2', 'FAX']) {
      const columns = CENSUS_COLUMNS.filter((c) => c !== drop)
      const row = censusLine(carrierRow(A)).split(',')
      row.splice(CENSUS_COLUMNS.indexOf(drop), 1)
      writeFileSync(join(dir, 'az4n-8mr2.csv'), `${columns.join(',')}\n${row.join(',')}\n`)
      const [r] = await importDir(pipelineDeps(ctx.deps), dir, {
        channel: 'live',
        trigger: 'test',
        signal: AbortSignal.timeout(30_000),
      })
      expect(r?.status).toBe('failed')
      if (r?.status === 'failed') expect(r.error).toMatch(/header/)
    }
  })

  test('the sample: the bundled census of two weeks before gives a contact changed last week, over HTTP too', async () => {
    const [r] = await importDir(pipelineDeps(ctx.deps), 'data/sample', {
      channel: 'sample',
      trigger: 'test',
      asOf: '2026-11-01',
      only: ['census'],
      signal: AbortSignal.timeout(30_000),
    })
    expect(r?.status).toBe('activated')
    expect(historySince(ctx.deps.db, 'sample')).toBe('2026-10-18')
    expect(historySince(ctx.deps.db, 'live')).toBeNull()
    expect(changesPage(ctx.deps.db, 1000212, { limit: 10, channel: 'sample' }).changes).toEqual([
      {
        field: 'email',
        from: 'office@ontimetransport.example',
        to: 'dispatch@ontimetransport.example',
        seen_at: '2026-10-25',
      },
      { field: 'phone', from: '+15595792120', to: '+15595790212', seen_at: '2026-10-25' },
    ])
    expect(contactChangedDays(ctx.deps.db, 1000212, '2026-11-01', 'sample')).toBe(7)
    const key = ctx.account('starter').key('test')
    const res = await ctx.get('/v1/carrier/1000212/history?limit=1', key)
    expect(res.status).toBe(200)
    const page = (await res.json()) as {
      history_since: string
      changes: unknown[]
      next_cursor: string
    }
    expect(page).toMatchObject({ dot_number: '1000212', history_since: '2026-10-18' })
    expect(page.changes).toHaveLength(1)
    const rest = await ctx.get(`/v1/carrier/1000212/history?cursor=${page.next_cursor}`, key)
    expect(((await rest.json()) as { changes: { field: string }[] }).changes).toEqual([
      expect.objectContaining({ field: 'phone' }),
    ])
    expect((await ctx.get('/v1/carrier/1000213/history', key)).status).toBe(200)
    expect((await ctx.get('/v1/carrier/1999999/history', key)).status).toBe(404)
  })

  test('the digest tells null from empty and shifted values apart', () => {
    const base = Array.from({ length: 20 }, () => null as string | null)
    const a = identityDigest(base)
    expect(identityDigest([...base])).toBe(a)
    expect(identityDigest(['', ...base.slice(1)])).not.toBe(a)
    expect(identityDigest(['AB', 'C', ...base.slice(2)])).not.toBe(
      identityDigest(['A', 'BC', ...base.slice(2)]),
    )
    expect(Number.isSafeInteger(a)).toBe(true)
  })
})
