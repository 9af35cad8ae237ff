import { describe, expect, test } from 'vitest'
import { DATASETS } from './datasets.ts'
import { listSources, sourceUrl } from './sources.ts'

describe('sources as data', () => {
  test('the two URL forms of the portal, under any base URL', () => {
    expect(sourceUrl('https://data.transportation.gov', 'az4n-8mr2', 'rows')).toBe(
      'https://data.transportation.gov/api/views/az4n-8mr2/rows.csv?accessType=DOWNLOAD',
    )
    expect(sourceUrl('http://mirror.local:8080/fmcsa/', 'u4i8-4m26', 'text')).toBe(
      'http://mirror.local:8080/fmcsa/download/u4i8-4m26/text%2Fplain',
    )
  })

  test('every file of every dataset is listed once, with its schedule and role', () => {
    const all = listSources('https://data.transportation.gov')
    expect(all.length).toBe(DATASETS.reduce((n, d) => n + d.files.length, 0))
    expect(new Set(all.map((s) => `${s.dataset}:${s.id}`)).size).toBe(all.length)
    // a file feeds two datasets only when the equipment dataset reads an SMS file again (a mirror
    // run downloads it once)
    const twice = all.filter((s, i) => all.findIndex((o) => o.id === s.id) !== i)
    expect(twice.map((s) => [s.dataset, s.id])).toEqual([
      ['equipment', 'rbkj-cgst'],
      ['equipment', '4wxs-vbns'],
    ])
    for (const s of all) expect(s.role).not.toBe('')
    const byId = Object.fromEntries(
      all.filter((s) => s.dataset !== 'equipment').map((s) => [s.id, s]),
    )
    expect(byId['az4n-8mr2']).toMatchObject({
      dataset: 'census',
      schedule: 'daily',
      kind: 'full',
      required: true,
    })
    expect(byId['6eyk-hxee']).toMatchObject({ dataset: 'legacy', schedule: 'legacy', kind: 'awh' })
    expect(byId['6eyk-hxee']?.fallbacks).toEqual([
      {
        id: 'u4i8-4m26',
        form: 'text',
        url: 'https://data.transportation.gov/download/u4i8-4m26/text%2Fplain',
      },
    ])
    expect(byId['inys-ebih']).toMatchObject({ dataset: 'motus', kind: 'awh', required: true })
    // a diff has no fallback: its 404 means "not published yet"
    expect(byId['nakq-58th']).toMatchObject({ kind: 'diff', required: false, fallbacks: [] })
    expect(byId['2emp-mxtb']?.required).toBe(false)
  })
})
