import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { liveCensusDir } from '../testing/fixture-dirs.ts'
import { runCliCaptured } from '../testing/cli.ts'

let ctx: TestContext
beforeEach(async () => {
  ctx = await createTestContext({ liveDir: liveCensusDir() })
})
afterEach(() => ctx.close())

const cli = (argv: string[], stdin = '') => runCliCaptured(ctx, argv, stdin)

const file = (name: string, content: string) => {
  const path = join(ctx.dir, name)
  writeFileSync(path, content)
  return path
}

async function record(dot: number) {
  const res = await ctx.get(`/v1/carrier/${dot}`, ctx.account('starter').key())
  expect(res.status).toBe(200)
  return (await res.json()) as {
    reviews: {
      summary: { average: number | null; count: number }
      verified: unknown[]
      external: unknown[]
    }
    trust: { factors: { id: string; points: number }[] }
  }
}

describe('reviews add', () => {
  test('adds a verified review: the id on stdout, JSON with --json, shown in the record', async () => {
    const r = await cli([
      'reviews',
      'add',
      '--dot',
      '344554',
      '--stars',
      '5',
      '--experience',
      'payment',
      '--title',
      'Paid in 10 days',
      '--date',
      '2026-11-01',
      '--author',
      'Ops team',
    ])
    expect(r).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\n$/) })
    expect(r.stderr).toContain('Added review')
    const j = await cli([
      'reviews',
      'add',
      '--dot',
      '344554',
      '--stars',
      '4',
      '--experience',
      'delivery',
      '--json',
    ])
    expect(j.code).toBe(0)
    expect(j.json()).toMatchObject({
      dot_number: '344554',
      stars: 4,
      experience_type: 'delivery',
      date: '2026-11-15',
      source: 'cli',
    })
    const body = await record(344554)
    expect(body.reviews.summary).toEqual({ average: 4.5, count: 2 })
    expect(body.reviews.verified[1]).toEqual({
      stars: 5,
      title: 'Paid in 10 days',
      text: null,
      date: '2026-11-01',
      experience_type: 'payment',
      author: 'Ops team',
    })
  })

  test('invalid input is a usage error (exit 2) naming every problem', async () => {
    const r = await cli([
      'reviews',
      'add',
      '--dot',
      '344554',
      '--stars',
      '7',
      '--experience',
      'billing',
    ])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('stars must be a whole number from 1 to 5, got "7"')
    expect(r.stderr).toContain(
      'experience type must be one of payment, dispatch, delivery, communication, claims, other',
    )
    expect(
      (
        await cli([
          'reviews',
          'add',
          '--dot',
          '1',
          '--stars',
          '5',
          '--experience',
          'payment',
          '--bogus',
        ])
      ).code,
    ).toBe(2)
  })

  test('an unknown USDOT is refused (exit 1) unless --force', async () => {
    const r = await cli([
      'reviews',
      'add',
      '--dot',
      '4242424',
      '--stars',
      '5',
      '--experience',
      'payment',
    ])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      'USDOT 4242424 is not in the census or licensing data (--force adds it anyway)',
    )
    expect(
      (
        await cli([
          'reviews',
          'add',
          '--dot',
          '4242424',
          '--stars',
          '5',
          '--experience',
          'payment',
          '--force',
        ])
      ).code,
    ).toBe(0)
  })
})

describe('reviews import', () => {
  const header = 'dot,stars,experience_type,date,title,text,author,id'
  const good = [
    '344554,5,payment,2026-10-01,Quick pay,,Broker A,r1',
    '1000001,4,dispatch,2026-09-01,,"Clear, on time",,r2',
  ]
  const bad = ['344554,0,payment,2026-10-02,,,,r3', '4242424,5,payment,2026-10-03,,,,r4']

  test('all or nothing: bad rows are listed with their line, exit 1, nothing imported', async () => {
    const path = file('reviews.csv', [header, ...good, ...bad].join('\n') + '\n')
    const r = await cli(['reviews', 'import', path])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('line 4: stars must be a whole number from 1 to 5, got "0"')
    expect(r.stderr).toContain('line 5: USDOT 4242424 is not in the census or licensing data')
    expect(r.stderr).toContain('Nothing was imported')
    expect(r.stdout).toBe('4 rows: 2 valid, 2 invalid; 0 inserted, 0 updated, 0 unchanged\n')
    expect((await record(344554)).reviews.summary.count).toBe(0)
  })

  test('--skip-invalid imports the valid rows (still exit 1); a corrected re-run adds only the rest', async () => {
    const path = file('reviews.csv', [header, ...good, ...bad].join('\n') + '\n')
    const r = await cli(['reviews', 'import', path, '--skip-invalid', '--json'])
    expect(r.code).toBe(1)
    expect(r.json()).toMatchObject({
      rows: 4,
      valid: 2,
      invalid: 2,
      inserted: 2,
      imported: true,
      errors: [{ location: 'line 4' }, { location: 'line 5' }],
    })
    const fixed = file(
      'fixed.csv',
      [header, ...good, '344554,1,payment,2026-10-02,,,,r3'].join('\n') + '\n',
    )
    const again = await cli(['reviews', 'import', fixed, '--json'])
    expect(again.code).toBe(0)
    expect(again.json()).toMatchObject({ inserted: 1, unchanged: 2, invalid: 0 })
    expect((await record(344554)).reviews.summary).toEqual({ average: 3, count: 2 })
  })

  test('JSON from stdin; --dry-run writes nothing', async () => {
    const items = JSON.stringify([
      {
        dot_number: '1000002',
        stars: 5,
        experience: 'claims',
        date: '2026-08-01',
        text: 'Claim paid',
      },
    ])
    const dry = await cli(['reviews', 'import', '-', '--dry-run', '--json'], items)
    expect(dry.code).toBe(0)
    expect(dry.json()).toMatchObject({ valid: 1, imported: false, dry_run: true })
    const r = await cli(['reviews', 'import', '-', '--source', 'shipper-portal'], items)
    expect(r.code).toBe(0)
    const list = await cli(['reviews', 'list', '--dot', '1000002', '--json'])
    expect(list.json()).toMatchObject({
      summary: { average: 5, count: 1 },
      verified: [{ source: 'shipper-portal', experience_type: 'claims', text: 'Claim paid' }],
    })
  })

  test('a file that is not a review file at all is one clear error', async () => {
    const r = await cli(['reviews', 'import', file('x.csv', 'usdot,score\n1,5\n')])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/x\.csv: header: unknown column "score"/)
    expect((await cli(['reviews', 'import', join(ctx.dir, 'missing.csv')])).stderr).toContain(
      'cannot read',
    )
    expect((await cli(['reviews', 'import'])).code).toBe(2)
  })
})

describe('reviews list, remove, external', () => {
  test('external aggregates are set, replaced, listed, shown in the record and removed', async () => {
    const set = await cli([
      'reviews',
      'external',
      'set',
      '--dot',
      '344554',
      '--source',
      'Google',
      '--rating',
      '4.6',
      '--total',
      '120',
      '--latest-date',
      '2026-11-10',
      '--latest-text',
      'Reliable',
      '--json',
    ])
    expect(set.code).toBe(0)
    expect(set.json()).toMatchObject({
      source: 'Google',
      overall_rating: 4.6,
      total_reviews: 120,
      latest_review: { date: '2026-11-10', text: 'Reliable' },
    })
    expect(
      (
        await cli([
          'reviews',
          'external',
          'set',
          '--dot',
          '344554',
          '--source',
          'Google',
          '--rating',
          '4.7',
          '--total',
          '121',
        ])
      ).code,
    ).toBe(0)
    const body = await record(344554)
    expect(body.reviews.external).toEqual([
      { source: 'Google', overall_rating: 4.7, total_reviews: 121, latest_review: null },
    ])
    expect(body.trust.factors.find((f) => f.id === 'external_reviews')?.points).toBe(2)
    expect(
      (
        await cli([
          'reviews',
          'external',
          'set',
          '--dot',
          '344554',
          '--source',
          'Google',
          '--rating',
          '6',
          '--total',
          '1',
        ])
      ).code,
    ).toBe(2)
    expect(
      (await cli(['reviews', 'external', 'remove', '--dot', '344554', '--source', 'Google'])).code,
    ).toBe(0)
    expect(
      (await cli(['reviews', 'external', 'remove', '--dot', '344554', '--source', 'Google'])).code,
    ).toBe(1)
    expect((await cli(['reviews', 'external', 'frobnicate'])).code).toBe(2)
  })

  test('list shows ids; remove deletes one', async () => {
    const id = (
      await cli(['reviews', 'add', '--dot', '344554', '--stars', '3', '--experience', 'other'])
    ).stdout.trim()
    const text = await cli(['reviews', 'list', '--dot', '344554'])
    expect(text.stdout).toMatch(new RegExp(`^${id}\\s+2026-11-15\\s+3\\s+other`, 'm'))
    expect((await cli(['reviews', 'remove', id])).code).toBe(0)
    expect((await cli(['reviews', 'remove', id])).code).toBe(1)
    expect((await cli(['reviews', 'list', '--dot', '344554', '--json'])).json()).toMatchObject({
      summary: { average: null, count: 0 },
      verified: [],
    })
  })

  test('help lists the reviews commands', async () => {
    const r = await cli(['--help'])
    for (const c of [
      'reviews add',
      'reviews import',
      'reviews list',
      'reviews remove',
      'reviews external set',
    ])
      expect(r.stdout).toContain(c)
  })
})
