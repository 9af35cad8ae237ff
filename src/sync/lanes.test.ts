import { describe, expect, it } from 'vitest'
import { BUILD_ALONE, BUILD_BESIDE, type BuildSorting } from '../ingest/build.ts'
import { BUILD_MEMORY_BUDGET, BUILD_MEMORY_MB, inLanes, type LaneJob } from './lanes.ts'

/** A job that records when it starts and ends, and finishes after `ms`. */
function job(
  name: string,
  weight: number,
  ms: number,
  log: string[],
  running: { n: number; max: number },
): LaneJob<string> {
  return {
    weight,
    memory: 1,
    run: async () => {
      log.push(`start ${name}`)
      running.n++
      running.max = Math.max(running.max, running.n)
      await new Promise((r) => setTimeout(r, ms))
      running.n--
      log.push(`end ${name}`)
      return name
    },
  }
}

describe('inLanes: dataset builds two at a time, the largest first', () => {
  it('starts the heaviest job first, then the others in their order, runs at most `lanes` at once, and answers in the jobs’ order', async () => {
    // each job ends when the test says so: the order of events is the scheduler's alone
    const started: string[] = []
    const finish = new Map<string, () => void>()
    const gated = (name: string, weight: number): LaneJob<string> => ({
      weight,
      memory: 1,
      run: async () => {
        started.push(name)
        await new Promise<void>((r) => finish.set(name, r))
        return name
      },
    })
    const tick = () => new Promise((r) => setImmediate(r))
    const all = inLanes(
      [gated('census', 2), gated('motus', 1), gated('equipment', 4), gated('legacy', 2)],
      2,
    )
    await tick()
    expect(started).toEqual(['equipment', 'census'])
    finish.get('census')?.()
    await tick()
    // the lane census freed takes the next job in the given (build) order, beside equipment
    expect(started).toEqual(['equipment', 'census', 'motus'])
    finish.get('motus')?.()
    await tick()
    expect(started).toEqual(['equipment', 'census', 'motus', 'legacy'])
    finish.get('legacy')?.()
    finish.get('equipment')?.()
    expect(await all).toEqual(['census', 'motus', 'equipment', 'legacy'])
  })

  it('runs one at a time with one lane', async () => {
    const log: string[] = []
    const running = { n: 0, max: 0 }
    await inLanes([job('a', 1, 5, log, running), job('b', 2, 5, log, running)], 1)
    expect(running.max).toBe(1)
    expect(log).toEqual(['start b', 'end b', 'start a', 'end a'])
  })

  it('takes no job after one failed, and throws its error once the running ones ended', async () => {
    const log: string[] = []
    const running = { n: 0, max: 0 }
    const failing: LaneJob<string> = {
      weight: 3,
      memory: 1,
      run: async () => {
        await new Promise((r) => setTimeout(r, 5))
        throw new Error('boom')
      },
    }
    await expect(
      inLanes([failing, job('slow', 2, 30, log, running), job('never', 1, 1, log, running)], 2),
    ).rejects.toThrow('boom')
    expect(log).toEqual(['start slow', 'end slow'])
  })

  it('has builds beside another sort without helper threads, and a build alone with them', async () => {
    const got: BuildSorting[] = []
    const job = (weight: number): LaneJob<number> => ({
      weight,
      memory: 1,
      run: (sorting) => {
        got.push(sorting)
        return Promise.resolve(weight)
      },
    })
    await inLanes([job(1), job(2), job(3)], 2)
    expect(got).toEqual([BUILD_BESIDE, BUILD_BESIDE, BUILD_BESIDE])
    expect(BUILD_BESIDE.threads).toBe(0)
    got.length = 0
    await inLanes([job(1), job(2)], 1)
    await inLanes([job(1)], 2)
    expect(got).toEqual([BUILD_ALONE, BUILD_ALONE, BUILD_ALONE])
  })

  it('starts a job only beside jobs it fits with in the memory budget, takes a later one that fits, and waits when none does', async () => {
    const started: string[] = []
    const finish = new Map<string, () => void>()
    const gated = (name: string, weight: number, memory: number): LaneJob<string> => ({
      weight,
      memory,
      run: async () => {
        started.push(name)
        await new Promise<void>((r) => finish.set(name, r))
        return name
      },
    })
    const tick = () => new Promise((r) => setImmediate(r))
    const all = inLanes(
      [
        gated('census', 2, 150),
        gated('sms', 2, 250),
        gated('oos', 1, 30),
        gated('violations', 1, 130),
        gated('equipment', 4, 170),
      ],
      2,
      320,
    )
    await tick()
    expect(started).toEqual(['equipment', 'census'])
    finish.get('census')?.()
    await tick()
    // sms (250) does not fit beside equipment (170): the lane takes oos, then violations
    expect(started).toEqual(['equipment', 'census', 'oos'])
    finish.get('oos')?.()
    await tick()
    expect(started).toEqual(['equipment', 'census', 'oos', 'violations'])
    finish.get('violations')?.()
    await tick()
    // nothing left fits beside equipment: the free lane waits, and sms starts once it ends
    expect(started).toEqual(['equipment', 'census', 'oos', 'violations'])
    finish.get('equipment')?.()
    await tick()
    expect(started).toEqual(['equipment', 'census', 'oos', 'violations', 'sms'])
    finish.get('sms')?.()
    expect(await all).toEqual(['census', 'sms', 'oos', 'violations', 'equipment'])
  })

  it('runs a job larger than the budget alone, and a failure wakes a waiting lane', async () => {
    const log: string[] = []
    const running = { n: 0, max: 0 }
    const big = (name: string, weight: number) => ({
      ...job(name, weight, 5, log, running),
      memory: 500,
    })
    await inLanes([big('a', 2), big('b', 1)], 2, 320)
    expect(running.max).toBe(1)
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b'])

    log.length = 0
    const failing: LaneJob<string> = {
      weight: 3,
      memory: 300,
      run: async () => {
        await new Promise((r) => setTimeout(r, 5))
        throw new Error('boom')
      },
    }
    await expect(inLanes([failing, big('never', 1)], 2, 320)).rejects.toThrow('boom')
    expect(log).toEqual([])
  })

  it('pairs the builds of a whole mirror as the budget says', () => {
    const fits = (a: keyof typeof BUILD_MEMORY_MB, b: keyof typeof BUILD_MEMORY_MB) =>
      BUILD_MEMORY_MB[a] + BUILD_MEMORY_MB[b] <= BUILD_MEMORY_BUDGET
    // the equipment build beside each of the other large ones
    for (const other of ['census', 'legacy', 'violations'] as const)
      expect(fits('equipment', other)).toBe(true)
    // those never beside each other, and the SMS build beside the small ones only
    expect(fits('census', 'legacy')).toBe(false)
    expect(fits('legacy', 'violations')).toBe(false)
    expect(fits('census', 'violations')).toBe(false)
    for (const other of ['census', 'legacy', 'violations', 'equipment'] as const)
      expect(fits('sms', other)).toBe(false)
    expect(fits('sms', 'motus') && fits('sms', 'oos')).toBe(true)
  })
})
