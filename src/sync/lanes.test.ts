import { describe, expect, it } from 'vitest'
import { inLanes, type LaneJob } from './lanes.ts'

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
  it('starts the heaviest jobs first, runs at most `lanes` at once, and answers in the jobs’ order', async () => {
    const log: string[] = []
    const running = { n: 0, max: 0 }
    const jobs = [
      job('census', 2, 30, log, running),
      job('motus', 1, 5, log, running),
      job('equipment', 4, 60, log, running),
      job('legacy', 2, 10, log, running),
    ]
    const results = await inLanes(jobs, 2)
    expect(results).toEqual(['census', 'motus', 'equipment', 'legacy'])
    expect(running.max).toBe(2)
    expect(log.slice(0, 2)).toEqual(['start equipment', 'start census'])
    // the lightest starts last, beside the heaviest still running
    expect(log.indexOf('start motus')).toBeLessThan(log.indexOf('end equipment'))
    expect(log.at(-1)).toBe('end equipment')
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
})
