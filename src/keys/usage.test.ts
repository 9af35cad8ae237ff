import { execFile } from 'node:child_process'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { setPlan } from './accounts.ts'
import { meterGrouped, usageReport } from './usage.ts'
import { verifyKey } from './keys.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { liveCensusDir, sampleCensusDir } from '../testing/fixture-dirs.ts'

let ctx: TestContext
beforeEach(async () => {
  ctx = await createTestContext({
    liveDir: liveCensusDir(),
    sampleDir: sampleCensusDir(),
    now: '2026-11-15T12:00:00Z',
  })
})
afterEach(() => ctx.close())

const meta = async (res: Response) =>
  (
    (await res.json()) as {
      meta: {
        quota_used: number
        quota_limit: number
        plan: string
        billed: boolean
        source: string
      }
    }
  ).meta
const setUsed = (accountId: number, period: string, used: number) =>
  ctx.deps.db
    .prepare(
      'INSERT INTO usage_counters (account_id, period, used) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET used = excluded.used',
    )
    .run(accountId, period, used)

describe('quota and billing', () => {
  test('each successful lookup counts one call; meta and RateLimit headers show it', async () => {
    const k = ctx.account('professional').key()
    const r1 = await ctx.get('/v1/carrier/344554', k)
    expect(await meta(r1)).toMatchObject({
      quota_used: 1,
      quota_limit: 50_000,
      plan: 'professional',
      billed: true,
      source: 'mirror',
    })
    const r2 = await ctx.get('/v1/carrier/1000001', k)
    expect((await meta(r2)).quota_used).toBe(2)
    expect(r2.headers.get('ratelimit-limit')).toBe('50000')
    expect(r2.headers.get('ratelimit-remaining')).toBe('49998')
    expect(Number(r2.headers.get('ratelimit-reset'))).toBe(
      (Date.UTC(2026, 11, 1) - Date.UTC(2026, 10, 15, 12)) / 1000,
    )
  })

  test('a 404 is not billed', async () => {
    const { account, key } = ctx.account('free')
    const k = key()
    expect((await ctx.get('/v1/carrier/99999999', k)).status).toBe(404)
    expect((await ctx.get('/v1/carrier/abc', k)).status).toBe(400)
    expect((await meta(await ctx.get('/v1/carrier/344554', k))).quota_used).toBe(1)
    expect(usageReport(ctx.deps.db, '2026-11', account.id)[0]?.used).toBe(1)
  })

  test('sandbox keys read the sample and are never billed', async () => {
    const { account, key } = ctx.account('free')
    const t = key('test')
    const res = await ctx.get('/v1/carrier/9000001', t)
    expect(res.status).toBe(200)
    const m = await meta(res)
    expect(m).toMatchObject({ source: 'sample', billed: false, quota_used: 0 })
    expect((await ctx.get('/v1/carrier/344554', t)).status).toBe(404) // live company, not in the sample
    expect((await ctx.get('/v1/carrier/9000001', key())).status).toBe(404) // sample company, not live
    expect(usageReport(ctx.deps.db, '2026-11', account.id)[0]?.used).toBe(0)
  })

  test('Free stops at 250 with 429 + Retry-After, and serves again on the 1st (UTC)', async () => {
    const { account, key } = ctx.account('free')
    const k = key()
    setUsed(account.id, '2026-11', 249)
    const last = await ctx.get('/v1/carrier/344554', k)
    expect(last.status).toBe(200)
    expect((await meta(last)).quota_used).toBe(250)
    const refused = await ctx.get('/v1/carrier/344554', k)
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBe(
      (Date.UTC(2026, 11, 1) - Date.UTC(2026, 10, 15, 12)) / 1000,
    )
    expect(refused.headers.get('ratelimit-remaining')).toBe('0')
    ctx.clock.set('2026-11-30T23:59:59Z')
    expect((await ctx.get('/v1/carrier/344554', k)).status).toBe(429)
    ctx.clock.set('2026-12-01T00:00:00Z')
    const next = await ctx.get('/v1/carrier/344554', k)
    expect(next.status).toBe(200)
    expect((await meta(next)).quota_used).toBe(1)
    const report = usageReport(ctx.deps.db, '2026-11', account.id)[0]
    expect(report).toMatchObject({ used: 250, overage_calls: 0, refused_calls: 2 })
  })

  test.each([
    ['starter', 10_000, 0.009],
    ['professional', 50_000, 0.005],
    ['scale', 200_000, 0.003],
  ] as const)(
    '%s keeps serving past %i and prices overage at $%f',
    async (plan, included, price) => {
      const { account, key } = ctx.account(plan)
      const k = key()
      setUsed(account.id, '2026-11', included - 1)
      for (let i = 0; i < 3; i++) expect((await ctx.get('/v1/carrier/344554', k)).status).toBe(200)
      const r = usageReport(ctx.deps.db, '2026-11', account.id)[0]
      expect(r).toMatchObject({ used: included + 2, included, overage_calls: 2 })
      expect(r?.overage_charge_usd).toBeCloseTo(2 * price, 10)
    },
  )

  test('enterprise uses its own included lookups and price', async () => {
    const { account, key } = ctx.account('enterprise', { included: 750_000, overageMills: 1 })
    setUsed(account.id, '2026-11', 750_000)
    const res = await ctx.get('/v1/carrier/344554', key())
    expect((await meta(res)).quota_limit).toBe(750_000)
    expect(usageReport(ctx.deps.db, '2026-11', account.id)[0]).toMatchObject({
      overage_calls: 1,
      overage_charge_usd: 0.001,
    })
  })

  test('all keys of an account share its quota', async () => {
    const { account, key } = ctx.account('free')
    setUsed(account.id, '2026-11', 249)
    expect((await ctx.get('/v1/carrier/344554', key())).status).toBe(200)
    expect((await ctx.get('/v1/carrier/344554', key())).status).toBe(429)
  })

  test('upgrading from Free lifts the cap at once', async () => {
    const { account, key } = ctx.account('free')
    const k = key()
    setUsed(account.id, '2026-11', 250)
    expect((await ctx.get('/v1/carrier/344554', k)).status).toBe(429)
    setPlan(ctx.deps.db, account.id, 'starter', 'monthly', ctx.clock().getTime())
    const res = await ctx.get('/v1/carrier/344554', k)
    expect(res.status).toBe(200)
    expect(await meta(res)).toMatchObject({ quota_used: 251, quota_limit: 10_000, plan: 'starter' })
  })

  test('the 80% alert is recorded once per account per month, on every plan', async () => {
    for (const plan of ['free', 'starter'] as const) {
      const { account, key } = ctx.account(plan)
      const k = key()
      const included = plan === 'free' ? 250 : 10_000
      setUsed(account.id, '2026-11', included * 0.8 - 2)
      for (let i = 0; i < 4; i++) expect((await ctx.get('/v1/carrier/344554', k)).status).toBe(200)
      const alerts = () =>
        ctx.deps.db
          .prepare("SELECT used FROM quota_alerts WHERE account_id = ? AND kind = 'threshold_80'")
          .all(account.id)
      expect(alerts()).toEqual([{ used: included * 0.8 }])
      ctx.clock.set('2026-12-02T00:00:00Z')
      setUsed(account.id, '2026-12', included * 0.8 - 1)
      await ctx.get('/v1/carrier/344554', k)
      await ctx.get('/v1/carrier/344554', k)
      expect(alerts()).toHaveLength(2)
      ctx.clock.set('2026-11-15T12:00:00Z')
    }
  })

  test('many parallel requests with k lookups left → exactly k succeed', async () => {
    const { account, key } = ctx.account('free')
    const k = key()
    setUsed(account.id, '2026-11', 250 - 7)
    const results = await Promise.all(
      Array.from({ length: 40 }, () => ctx.get('/v1/carrier/344554', k)),
    )
    expect(results.filter((r) => r.status === 200)).toHaveLength(7)
    expect(results.filter((r) => r.status === 429)).toHaveLength(33)
    expect(usageReport(ctx.deps.db, '2026-11', account.id)[0]?.used).toBe(250)
  })

  describe('group commit (meterGrouped)', () => {
    const callerOf = (secret: string) => {
      const v = verifyKey(ctx.deps.db, secret, ctx.clock().getTime())
      if (!v.ok) throw new Error(v.reason)
      return v.caller
    }
    const deps = () => ({ db: ctx.deps.db, log: ctx.deps.log })
    /** The month's counter as each UPDATE left it, in order (one per committed group). */
    const counterWrites = () => {
      ctx.deps.db.exec(`CREATE TEMP TABLE writes (n INTEGER);
        CREATE TEMP TRIGGER count_writes AFTER UPDATE ON usage_counters
          BEGIN INSERT INTO writes VALUES (NEW.used); END`)
      return () =>
        ctx.deps.db.prepare('SELECT n FROM temp.writes ORDER BY rowid').pluck().all() as number[]
    }
    const counter = (accountId: number) =>
      ctx.deps.db
        .prepare('SELECT used, refused FROM usage_counters WHERE account_id = ? AND period = ?')
        .get(accountId, '2026-11') as { used: number; refused: number } | undefined

    test('calls of one turn are metered in their order, each against the cap', async () => {
      const { account, key } = ctx.account('free')
      const caller = callerOf(key())
      setUsed(account.id, '2026-11', 250 - 3)
      const usages = await Promise.all(
        Array.from({ length: 6 }, () => meterGrouped(deps(), caller, 1, ctx.clock())),
      )
      expect(usages.map((u) => [u.allowed, u.billed, u.used])).toEqual([
        [true, true, 248],
        [true, true, 249],
        [true, true, 250],
        [false, false, 250],
        [false, false, 250],
        [false, false, 250],
      ])
      expect(counter(account.id)).toEqual({ used: 250, refused: 3 })
    })

    test('one turn is one transaction: a failed commit fails every call and counts none', async () => {
      const { account, key } = ctx.account('starter')
      const caller = callerOf(key())
      // the day's count fails after the month's counter is written, in the same transaction
      ctx.deps.db.exec(`CREATE TEMP TRIGGER fail_third BEFORE INSERT ON usage_daily
        BEGIN SELECT RAISE(ABORT, 'disk full'); END`)
      const results = await Promise.allSettled(
        Array.from({ length: 4 }, () => meterGrouped(deps(), caller, 1, ctx.clock())),
      )
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected'])
      expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/disk full/)
      expect(counter(account.id)).toBeUndefined()
      // the next turn is a group of its own
      ctx.deps.db.exec('DROP TRIGGER fail_third')
      const [a, b] = await Promise.all([
        meterGrouped(deps(), caller, 1, ctx.clock()),
        meterGrouped(deps(), caller, 1, ctx.clock()),
      ])
      expect([a?.used, b?.used]).toEqual([1, 2])
      expect((await meterGrouped(deps(), caller, 1, ctx.clock())).used).toBe(3)
    })

    test('while calls stream in, a group gathers the next turns too; after a pause a call commits in its turn', async () => {
      const { account, key } = ctx.account('starter')
      const caller = callerOf(key())
      const writes = counterWrites()
      // the event loop's turns and the clock, stepped by the test
      vi.useFakeTimers({ toFake: ['setTimeout', 'setImmediate', 'performance'] })
      try {
        const meter = () => meterGrouped(deps(), caller, 1, ctx.clock())
        const zeroth = meter()
        vi.advanceTimersByTime(0)
        expect((await zeroth).used).toBe(1)
        // busy (a group has just committed): a call of a later turn joins the waiting group
        const first = meter()
        vi.advanceTimersByTime(0)
        const second = meter()
        expect(writes()).toEqual([])
        vi.advanceTimersByTime(1)
        expect([(await first).used, (await second).used]).toEqual([2, 3])
        expect(writes()).toEqual([3])
        // idle: a call commits in its own turn; the next one, just after, waits for company
        vi.advanceTimersByTime(20)
        const third = meter()
        vi.advanceTimersByTime(0)
        expect((await third).used).toBe(4)
        const fourth = meter()
        vi.advanceTimersByTime(0)
        expect(writes()).toEqual([3, 4])
        vi.advanceTimersByTime(1)
        expect((await fourth).used).toBe(5)
        expect(writes()).toEqual([3, 4, 5])
      } finally {
        vi.useRealTimers()
      }
      expect(counter(account.id)?.used).toBe(5)
    })

    test('a busy group gathers only while the record workers owe answers; with none owed it commits in its turn', async () => {
      const { account, key } = ctx.account('starter')
      const caller = callerOf(key())
      const writes = counterWrites()
      const workers = { inFlight: 0 }
      vi.useFakeTimers({ toFake: ['setTimeout', 'setImmediate', 'performance'] })
      try {
        const meter = () => meterGrouped(deps(), caller, 1, ctx.clock(), workers.inFlight > 0)
        const zeroth = meter()
        vi.advanceTimersByTime(0)
        expect((await zeroth).used).toBe(1)
        // busy, but every record came from the cache: each turn's group commits in that turn
        const first = meter()
        vi.advanceTimersByTime(0)
        expect((await first).used).toBe(2)
        const second = meter()
        vi.advanceTimersByTime(0)
        expect((await second).used).toBe(3)
        expect(writes()).toEqual([2, 3])
        // busy with records owed: the group waits for the answers on their way
        workers.inFlight = 5
        const third = meter()
        vi.advanceTimersByTime(0)
        const fourth = meter()
        expect(writes()).toEqual([2, 3])
        vi.advanceTimersByTime(1)
        expect([(await third).used, (await fourth).used]).toEqual([4, 5])
        expect(writes()).toEqual([2, 3, 5])
      } finally {
        vi.useRealTimers()
      }
      expect(counter(account.id)?.used).toBe(5)
    })

    test("one account's calls of a turn: one counter write, each call its own count", async () => {
      const a = ctx.account('starter') // 10,000 included, overage billed
      const b = ctx.account('professional')
      const [ca, cb] = [callerOf(a.key()), callerOf(b.key())]
      setUsed(a.account.id, '2026-11', 7_997)
      const writes: string[] = []
      ctx.deps.db.exec(`CREATE TEMP TABLE seen (what TEXT);
        CREATE TEMP TRIGGER count_month AFTER UPDATE ON usage_counters
          BEGIN INSERT INTO seen VALUES ('month ' || NEW.account_id); END;
        CREATE TEMP TRIGGER count_day AFTER INSERT ON usage_daily
          BEGIN INSERT INTO seen VALUES ('day ' || NEW.account_id); END`)
      const usages = await Promise.all([
        meterGrouped(deps(), ca, 1, ctx.clock()),
        meterGrouped(deps(), cb, 1, ctx.clock()),
        meterGrouped(deps(), ca, 1, ctx.clock()),
        meterGrouped(deps(), ca, 2, ctx.clock()),
        meterGrouped(deps(), cb, 1, ctx.clock()),
      ])
      expect(usages.map((u) => [u.billed, u.used, u.remaining])).toEqual([
        [true, 7_998, 2_002],
        [true, 1, 49_999],
        [true, 7_999, 2_001],
        [true, 8_001, 1_999],
        [true, 2, 49_998],
      ])
      for (const r of ctx.deps.db.prepare('SELECT what FROM seen').pluck().all() as string[])
        writes.push(r)
      expect(writes.sort()).toEqual([
        `day ${a.account.id}`,
        `day ${b.account.id}`,
        `month ${a.account.id}`,
      ])
      expect(counter(a.account.id)?.used).toBe(8_001)
      const daily = ctx.deps.db
        .prepare('SELECT account_id, used FROM usage_daily ORDER BY account_id')
        .all()
      expect(daily).toEqual([
        { account_id: a.account.id, used: 4 },
        { account_id: b.account.id, used: 2 },
      ])
      // 80 % of 10,000 is 8,000: the call that passed it (8,001) raised the alert, once
      const alerts = ctx.deps.db.prepare('SELECT account_id, kind, used FROM quota_alerts').all()
      expect(alerts).toEqual([{ account_id: a.account.id, kind: 'threshold_80', used: 8_001 }])
    })

    test('a run the cap refuses as a whole is metered call by call', async () => {
      const { account, key } = ctx.account('free')
      const caller = callerOf(key())
      setUsed(account.id, '2026-11', 249)
      const usages = await Promise.all([
        meterGrouped(deps(), caller, 1, ctx.clock()),
        meterGrouped(deps(), caller, 1, ctx.clock()),
      ])
      expect(usages.map((u) => [u.allowed, u.used])).toEqual([
        [true, 250],
        [false, 250],
      ])
      expect(counter(account.id)).toEqual({ used: 250, refused: 1 })
      const kinds = ctx.deps.db
        .prepare('SELECT kind, used FROM quota_alerts WHERE account_id = ? ORDER BY kind')
        .all(account.id)
      expect(kinds).toEqual([
        { kind: 'exhausted', used: 250 },
        { kind: 'threshold_80', used: 250 },
      ])
    })

    test('a sandbox key is answered without a write', async () => {
      const { account, key } = ctx.account('free')
      const u = await meterGrouped(deps(), callerOf(key('test')), 1, ctx.clock())
      expect([u.billed, u.allowed, u.used]).toEqual([false, true, 0])
      expect(counter(account.id)).toBeUndefined()
    })
  })

  test('four processes metering one app.db at once never pass the cap', async () => {
    const { account, key } = ctx.account('free')
    const k = key()
    setUsed(account.id, '2026-11', 250 - 37)
    const run = (args: string[]) =>
      new Promise<string>((resolve, reject) =>
        execFile(process.execPath, args, (err, stdout) =>
          err ? reject(new Error(err.message)) : resolve(stdout),
        ),
      )
    const outs = await Promise.all(
      Array.from({ length: 4 }, () =>
        run([
          '--import',
          'tsx',
          'src/testing/meter-worker.ts',
          ctx.config.paths.appDb,
          k,
          '60',
          '2026-11-15T12:00:00Z',
        ]),
      ),
    )
    const allowed = outs.map((o) => Number(o.trim()))
    expect(allowed.reduce((a, b) => a + b, 0)).toBe(37)
    expect(usageReport(ctx.deps.db, '2026-11', account.id)[0]).toMatchObject({
      used: 250,
      refused_calls: 240 - 37,
    })
  }, 60_000)
})
