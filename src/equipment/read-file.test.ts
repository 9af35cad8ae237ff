/** interleave: several files' batches as they come, every row once, a failure stopping the rest. */
import { describe, expect, it } from 'vitest'
import { feed, interleave } from './read-file.ts'

async function* batches<T>(rows: T[][], delayMs: number, failAfter = Infinity) {
  let n = 0
  for (const b of rows) {
    await new Promise((r) => setTimeout(r, delayMs))
    if (n++ >= failAfter) throw new Error('malformed file')
    yield b
  }
}

describe('interleave', () => {
  it('hands every row of every feed to its handler once, in each feed’s order', async () => {
    const a: number[] = []
    const b: string[] = []
    const all = interleave([
      feed({ batches: batches([[1, 2], [3], [4, 5]], 3), row: (r) => a.push(r) }),
      feed({ batches: batches([['x'], ['y', 'z']], 1), row: (r) => b.push(r) }),
    ])
    for await (const chunk of all) for (const thunk of chunk) thunk()
    expect(a).toEqual([1, 2, 3, 4, 5])
    expect(b).toEqual(['x', 'y', 'z'])
  })

  it('a failing feed fails the whole load and the other feed is closed', async () => {
    let closed = false
    async function* slow() {
      try {
        for (;;) {
          await new Promise((r) => setTimeout(r, 2))
          yield [1]
        }
      } finally {
        closed = true
      }
    }
    const all = interleave([
      feed({ batches: slow(), row: () => {} }),
      feed({ batches: batches([[1], [2], [3]], 5, 1), row: () => {} }),
    ])
    await expect(async () => {
      for await (const chunk of all) for (const thunk of chunk) thunk()
    }).rejects.toThrow('malformed file')
    expect(closed).toBe(true)
  })
})
