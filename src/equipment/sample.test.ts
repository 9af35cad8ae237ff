/** The bundled sample shows every equipment answer (data/sample/README.md "Equipment"). */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixedClock } from '../clock.ts'
import { openAppDb } from '../db/app-db.ts'
import { DatasetRegistry, type ActiveDataset } from '../db/datasets.ts'
import { silentLogger } from '../log.ts'
import { filesInDir, inputsFor, runBuild } from '../sync/pipeline.ts'
import { equipmentDataset } from './equipment.ts'
import { equipmentForCarrier, sightingsOf } from './read.ts'
import { modelYear, vinStatus } from './vin.ts'

const SAMPLE = fileURLToPath(new URL('../../data/sample/', import.meta.url))
const SHARED_TRACTOR = '1XKYDPGX9NJ412345'
const LESSOR = '3AKJHHDR2PSNA7777'

let dir = ''
let ds: ActiveDataset
let close = () => {}
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cvk-equipment-sample-'))
  const app = openAppDb(join(dir, 'app.db'))
  const log = silentLogger()
  const registry = new DatasetRegistry(app.sqlite, log, dir)
  const deps = {
    db: app.sqlite,
    datasets: registry,
    log,
    clock: fixedClock('2026-11-02T12:00:00Z'),
    paths: { dataDir: dir },
  }
  const r = await runBuild(
    deps,
    equipmentDataset,
    inputsFor(equipmentDataset, filesInDir(SAMPLE)),
    {
      channel: 'sample',
      trigger: 'test',
      asOf: '2026-11-01',
      signal: AbortSignal.timeout(60_000),
    },
  )
  expect(r.status).toBe('activated')
  registry.reconcile()
  const got = registry.get('equipment', 'sample')
  if (!got) throw new Error('no sample equipment dataset')
  ds = got
  close = () => {
    registry.close()
    app.sqlite.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
afterAll(() => close())

describe('sample equipment cases', () => {
  it('one tractor under two carriers, the newest first', () => {
    expect(vinStatus(SHARED_TRACTOR)).toBe('valid')
    expect(modelYear(SHARED_TRACTOR, 2026)).toBe(2022)
    const s = sightingsOf(ds, { vin: SHARED_TRACTOR })
    expect(s?.sharedWidely).toBe(false)
    expect(s?.carriers.map((c) => c.dot).sort()).toEqual([1000001, 1000024])
    expect(equipmentForCarrier(ds, 1000024)?.vins_seen_under_other_carriers).toBe(1)
  })

  it("a lessor's tractor and plate under seven carriers: shared_widely", () => {
    const s = sightingsOf(ds, { vin: LESSOR })
    expect(s?.carriers).toHaveLength(7)
    expect(s?.sharedWidely).toBe(true)
    expect(sightingsOf(ds, { plate: 'RT40021', state: 'IN' })?.sharedWidely).toBe(true)
    expect(equipmentForCarrier(ds, 1000100)?.vins_seen_under_other_carriers).toBe(0)
  })

  it('a placeholder VIN is never stored', () => {
    expect(sightingsOf(ds, { vin: 'UNKNOWN' })).toBeNull()
  })

  it('a roadside name mismatch', () => {
    const e = equipmentForCarrier(ds, 1000024, {
      legalName: 'QUICK HAUL TRANSPORT INC',
      dbaName: null,
    })
    expect(e?.roadside.names_seen.map((n) => n.name)).toContain('ACME FREIGHT LINES')
    expect(e?.roadside.name_mismatches).toBe(1)
    // officers drop LLC: no mismatch for ACME
    const acme = equipmentForCarrier(ds, 1000001, {
      legalName: 'ACME FREIGHT LINES LLC',
      dbaName: null,
    })
    expect(acme?.roadside.name_mismatches).toBe(0)
    expect(acme?.power_units_seen).toBeGreaterThan(0)
  })
})
