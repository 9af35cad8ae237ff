/**
 * Driver-qualification violations from the SMS Input Violation file (`8mt8-2mdr`): the codes of
 * each family in every written form, and the 24-month counts read back from a real build.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixedClock } from '../clock.ts'
import { openAppDb } from '../db/app-db.ts'
import { DatasetRegistry, type ActiveDataset } from '../db/datasets.ts'
import { silentLogger } from '../log.ts'
import { filesInDir, inputsFor, runBuild } from '../sync/pipeline.ts'
import { DQ_FAMILIES, dqFamily } from './rows.ts'
import { driverQualification, VIOLATION_FILE_ID, violationsDataset } from './violations.ts'

const HEADER =
  'Unique_ID,Insp_Date,DOT_Number,Viol_Code,BASIC_Desc,OOS_Indicator,OOS_Weight,Severity_Weight,Time_Weight,Total_Severity_Wght,Section_Desc,Group_Desc,Viol_Unit'
const row = (id: number, date: string, dot: number, code: string, oos = 'false') =>
  `${id},${date},${dot},${code},Driver Fitness,${oos},0,8,3,24,"x","y",D`

const ROWS = [
  row(1, '12-MAR-26', 3000001, '383.23(a)(2)', 'true'),
  row(2, '14-AUG-26', 3000001, '38323A2-LCDLN'),
  row(2, '14-AUG-26', 3000001, '38323A2-LCDLN'), // the same violation twice: once
  row(3, '01-JUL-26', 3000001, '391.11(b)(5)'),
  row(4, '10-AUG-24', 3000001, '383.23(a)(2)'), // before the 24 months
  row(5, '01-JUN-26', 3000001, '383.51A'),
  row(6, '02-JUN-26', 3000001, '391.15(a)'),
  row(7, '03-JUN-26', 3000001, '383.91(a)'),
  row(8, '04-JUN-26', 3000001, '391.41(a)'),
  row(9, '05-JUN-26', 3000001, '39145B'),
  row(10, '06-JUN-26', 3000001, '39111B2-Z'),
  row(11, '07-JUN-26', 3000001, '39111B2', 'true'),
  row(12, '08-JUN-26', 3000001, '395.8(a)'),
  row(13, '09-JUN-26', 3000002, '396.17(c)'),
]

let dir = ''
let ds: ActiveDataset
let close = () => {}
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cvk-dq-'))
  const files = join(dir, 'files')
  mkdirSync(files)
  writeFileSync(join(files, `${VIOLATION_FILE_ID}.csv`), `${[HEADER, ...ROWS].join('\n')}\n`)
  const app = openAppDb(join(dir, 'app.db'))
  const log = silentLogger()
  const registry = new DatasetRegistry(app.sqlite, log, dir)
  const deps = {
    db: app.sqlite,
    datasets: registry,
    log,
    clock: fixedClock('2026-09-10T12:00:00Z'),
    paths: { dataDir: dir },
  }
  const r = await runBuild(
    deps,
    violationsDataset,
    inputsFor(violationsDataset, filesInDir(files)),
    { channel: 'live', trigger: 'test', asOf: '2026-09-10', signal: AbortSignal.timeout(60_000) },
  )
  expect(r.status).toBe('activated')
  if (r.status === 'activated')
    expect(r.stats.notes['violations.driver_qualification']).toBe(ROWS.length - 2)
  registry.reconcile()
  const got = registry.get('violations', 'live')
  if (!got) throw new Error('no violations dataset')
  ds = got
  close = () => {
    registry.close()
    app.sqlite.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
afterAll(() => close())

describe('driver-qualification violations', () => {
  it('matches each family on its CFR section, in every written form', () => {
    const family = (c: string | undefined) => DQ_FAMILIES[dqFamily(c)] ?? null
    for (const c of ['383.23(a)(2)', '38323A2', '38323A2-LCDLN', ' 383.23a2 ', '391.11(b)(5)'])
      expect([c, family(c)]).toEqual([c, 'no_valid_cdl'])
    for (const c of ['383.51(a)', '38351A-DSQ', '391.15(a)'])
      expect([c, family(c)]).toEqual([c, 'disqualified_or_suspended'])
    expect(family('383.91(a)')).toBe('wrong_class')
    for (const c of ['391.41(a)', '39141A-NOMC', '391.43(h)', '391.45(b)'])
      expect([c, family(c)]).toEqual([c, 'medical'])
    for (const c of ['39111B2', '391.11(b)(2)', '39111B2-Z'])
      expect([c, family(c)]).toEqual([c, 'english_proficiency'])
    for (const c of ['383.23(a)(1)', '38323A21', '391.11(b)(1)', '3914', '395.8(a)', '', undefined])
      expect([c, family(c)]).toEqual([c, null])
  })

  it('counts each family over 24 months, a repeated violation once', () => {
    expect(driverQualification(ds, 3000001, '2026-09-10')).toEqual({
      no_valid_cdl: 3,
      disqualified_or_suspended: 2,
      wrong_class: 1,
      medical: 2,
      english_proficiency: 2,
      window_months: 24,
    })
  })

  it('zeros for a carrier with none; nothing after today counted', () => {
    const zero = {
      no_valid_cdl: 0,
      disqualified_or_suspended: 0,
      wrong_class: 0,
      medical: 0,
      english_proficiency: 0,
      window_months: 24,
    }
    expect(driverQualification(ds, 3000002, '2026-09-10')).toEqual(zero)
    // the day before the first 2026 citation: only the one of 2024-08-10 is in its window
    expect(driverQualification(ds, 3000001, '2026-03-11')).toEqual({ ...zero, no_valid_cdl: 1 })
  })
})
