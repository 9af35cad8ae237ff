import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CENSUS_FILE_ID } from '../census/census.ts'
import { pipelineDeps } from '../deps.ts'
import { importDir } from '../sync/pipeline.ts'
import { carrierRow, writeCensus, type CensusFields } from '../testing/census-fixture.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { deliverDue } from './deliver.ts'
import { addEndpoint } from './endpoints.ts'
import { diffFacts, runWatchMonitor, watchOnActivation, type WatchFacts } from './monitor.ts'
import { startReceiver, type Receiver } from '../testing/webhook-receiver.ts'
import { addToWatchlist } from './watchlist.ts'
import { carrierRecord } from '../testing/trust.ts'
import { factsOf } from './monitor.ts'

let rx: Receiver
let ctx: TestContext
let root: string

const WATCHED = 1_000_001
const census = (dir: string, over: Record<number, CensusFields> = {}) => {
  mkdirSync(dir, { recursive: true })
  writeCensus(
    join(dir, `${CENSUS_FILE_ID}.csv`),
    Array.from({ length: 10 }, (_, i) => carrierRow(1_000_001 + i, over[1_000_001 + i] ?? {})),
  )
  return dir
}

beforeAll(async () => {
  rx = await startReceiver()
  root = mkdtempSync(join(tmpdir(), 'cvk-watch-'))
  ctx = await createTestContext({
    liveDir: census(join(root, 'v1')),
    fetch: globalThis.fetch,
    now: new Date().toISOString(),
  })
})
afterAll(async () => {
  ctx.close()
  rmSync(root, { recursive: true, force: true })
  await rx.close()
})

const carrierEvents = () =>
  ctx.deps.db
    .prepare(
      "SELECT account_id AS accountId, data FROM webhook_events WHERE type = 'carrier.changed' ORDER BY created_at, rowid",
    )
    .all() as { accountId: number; data: string }[]

describe('carrier.changed', () => {
  it('reports a watched carrier changed by a sync, once, with previous and current values', async () => {
    const now = () => ctx.clock().getTime()
    const a = ctx.account('starter').account
    const b = ctx.account('professional').account
    const { secret } = await addEndpoint(
      ctx.deps,
      { accountId: a.id, url: rx.url, events: ['carrier.changed'] },
      now(),
    )
    addToWatchlist(ctx.deps.db, a.id, [WATCHED, 1_000_002, 99_999_999], now())
    addToWatchlist(ctx.deps.db, b.id, [WATCHED], now())

    // first sight: snapshots only
    expect(runWatchMonitor(ctx.deps)).toMatchObject({
      status: 'done',
      checked: 3,
      firstSeen: 3,
      events: 0,
    })
    expect(runWatchMonitor(ctx.deps)).toMatchObject({ status: 'done', checked: 0 })
    expect(carrierEvents()).toHaveLength(0)

    const results = await importDir(
      { ...pipelineDeps(ctx.deps), onActivated: watchOnActivation(ctx.deps) },
      census(join(root, 'v2'), {
        [WATCHED]: {
          STATUS_CODE: 'I',
          SAFETY_RATING: 'C',
          SAFETY_RATING_DATE: '20261101',
          PHONE: '5155550000',
          EMAIL_ADDRESS: 'dispatch@new-owner.example',
          COMPANY_OFFICER_1: 'JANE ROE',
        },
      }),
      { channel: 'live', trigger: 'test', signal: AbortSignal.timeout(30_000) },
    )
    expect(results.map((r) => r.status)).toEqual(['activated'])

    // the activation itself compared the watchlists (onActivated → runWatchMonitor): nothing left
    expect(runWatchMonitor(ctx.deps)).toMatchObject({ status: 'done', checked: 0 })
    const events = carrierEvents() // one per watching account
    expect(events.map((e) => e.accountId)).toEqual([a.id, b.id])
    const data = JSON.parse(events[0]?.data ?? '{}') as {
      dot_number: string
      changes: { field: string; previous: unknown; current: unknown }[]
    }
    expect(data.dot_number).toBe(String(WATCHED))
    expect(data.changes).toEqual(
      expect.arrayContaining([
        { field: 'identity.usdot_status', previous: 'active', current: 'inactive' },
        { field: 'authority.status', previous: 'ACTIVE', current: 'INACTIVE' },
        { field: 'safety.safety_rating', previous: 'Satisfactory', current: 'Conditional' },
        { field: 'safety.safety_rating_date', previous: '2006-01-03', current: '2026-11-01' },
        // identity: the phone, e-mail and officer rewritten
        { field: 'contact.phone', previous: '+17124392831', current: '+15155550000' },
        {
          field: 'contact.email',
          previous: 'ops1000001@example.com',
          current: 'dispatch@new-owner.example',
        },
        { field: 'officers', previous: null, current: 'JANE ROE' },
      ]),
    )
    expect(data.changes.map((c) => c.field)).not.toContain('identity.links.predecessors')
    expect(data.changes.map((c) => c.field)).not.toContain('insurance.bipd_on_file')

    // the same versions again: nothing new
    expect(runWatchMonitor(ctx.deps)).toMatchObject({ checked: 0, events: 0 })
    expect(carrierEvents()).toHaveLength(2)

    // account a's endpoint receives its event, signed
    rx.reset()
    await deliverDue(ctx.deps)
    expect(rx.received).toHaveLength(1)
    const req = rx.received[0]
    if (!req) throw new Error('no request')
    expect(
      new Webhook(secret).verify(req.body, req.headers as Record<string, string>),
    ).toMatchObject({ type: 'carrier.changed', data: { dot_number: String(WATCHED) } })
  })
})

describe('diffFacts', () => {
  const facts = (values: WatchFacts['values'], datasets: WatchFacts['datasets'] = ['census']) => ({
    found: true,
    datasets,
    values,
  })

  it('does not report values that appear because their dataset was first loaded', () => {
    expect(
      diffFacts(
        facts({ 'insurance.bipd_on_file': null, 'safety.safety_rating': 'Satisfactory' }),
        facts({ 'insurance.bipd_on_file': 750_000, 'safety.safety_rating': 'Satisfactory' }, [
          'census',
          'motus',
        ]),
      ),
    ).toEqual([])
  })

  it('reports insurance, bond and OOS changes between two loaded versions', () => {
    const both = ['census', 'motus', 'oos'] as WatchFacts['datasets']
    expect(
      diffFacts(
        facts(
          {
            'insurance.bipd_on_file': 750_000,
            'insurance.bond_on_file': 75_000,
            'insurance.pending_cancellation': false,
            'identity.out_of_service': false,
          },
          both,
        ),
        facts(
          {
            'insurance.bipd_on_file': 1_000_000,
            'insurance.bond_on_file': null,
            'insurance.pending_cancellation': true,
            'identity.out_of_service': true,
          },
          both,
        ),
      ),
    ).toEqual([
      { field: 'insurance.bipd_on_file', previous: 750_000, current: 1_000_000 },
      { field: 'insurance.bond_on_file', previous: 75_000, current: null },
      { field: 'insurance.pending_cancellation', previous: false, current: true },
      { field: 'identity.out_of_service', previous: false, current: true },
    ])
  })

  it('ignores fields an older snapshot did not have, and reports a record that disappears', () => {
    expect(
      diffFacts(facts({}), {
        found: false,
        datasets: ['census'],
        values: { 'safety.safety_rating': null },
      }),
    ).toEqual([{ field: 'found', previous: true, current: false }])
  })
})

describe('roadside identity on the watchlist', () => {
  const withRoadside = (mismatches: number, sharedVins: number) =>
    carrierRecord((r) => {
      r.equipment.vins_seen_under_other_carriers = sharedVins
      const names = [{ name: 'ACME TRUCKING', inspections: 3, last_seen: '2026-10-12' }]
      if (mismatches > 0)
        names.push({
          name: 'FAST LANE LOGISTICS',
          inspections: mismatches,
          last_seen: '2026-10-30',
        })
      r.equipment.roadside = {
        inspections: 3 + mismatches,
        names_seen: names,
        name_mismatches: mismatches,
        last_seen_on_road: '2026-10-30',
      }
    })
  const facts = (mismatches: number, sharedVins: number) =>
    factsOf(withRoadside(mismatches, sharedVins), ctx.deps.datasets.view('live'))

  it('raises a change when name mismatches or VINs under other carriers grow, with the new facts', () => {
    const changes = diffFacts(facts(0, 1), facts(2, 3))
    expect(changes).toEqual([
      {
        field: 'equipment.roadside.name_mismatches',
        previous: 0,
        current: 2,
        detail: {
          names: [{ name: 'FAST LANE LOGISTICS', inspections: 2, last_seen: '2026-10-30' }],
        },
      },
      {
        field: 'equipment.vins_seen_under_other_carriers',
        previous: 1,
        current: 3,
        detail: {
          power_units_seen: 9,
          trailers_seen: 4,
          window: { from: '2024-11-01', to: '2026-10-31' },
        },
      },
    ])
  })

  it('says nothing when they fall (sightings leave the window) or stay', () => {
    expect(diffFacts(facts(2, 3), facts(1, 0))).toEqual([])
    expect(diffFacts(facts(2, 3), facts(2, 3))).toEqual([])
  })

  it('a watched carrier whose roadside facts grow between two runs gets carrier.changed', () => {
    const prev = facts(0, 0)
    const cur = facts(1, 0)
    // as runWatchMonitor compares them: the snapshot as stored, then the current facts
    const changes = diffFacts(JSON.parse(JSON.stringify(prev)) as WatchFacts, cur)
    expect(changes.map((c) => c.field)).toEqual(['equipment.roadside.name_mismatches'])
  })
})
