/** The record workers' table of requests awaiting a reply. */
import { expect, test } from 'vitest'
import { PendingReplies } from './pending-replies.ts'

test('each id gives back its own item once, in any order', () => {
  const p = new PendingReplies<string>(4)
  const ids = ['a', 'b', 'c'].map((x) => p.add(x))
  expect(ids).toEqual([1, 2, 3])
  expect(p.size).toBe(3)
  expect(p.take(2)).toBe('b')
  expect(p.take(2)).toBeUndefined()
  expect(p.take(3)).toBe('c')
  expect(p.take(1)).toBe('a')
  expect(p.size).toBe(0)
})

test('an id never given, or one whose slot a later id now holds, takes nothing', () => {
  const p = new PendingReplies<string>(2)
  const a = p.add('a')
  expect(p.take(a + 2)).toBeUndefined() // the same slot as `a`, another id
  expect(p.take(99)).toBeUndefined()
  expect(p.size).toBe(1)
  expect(p.take(a)).toBe('a')
})

test('more requests in flight than slots: the ring grows and keeps every item', () => {
  const p = new PendingReplies<number>(2)
  const ids: number[] = []
  for (let i = 0; i < 37; i++) ids.push(p.add(i * 10))
  expect(p.size).toBe(37)
  expect(p.capacity).toBe(64)
  // answered out of order, with more added in between
  for (const i of [36, 0, 17, 5]) expect(p.take(ids[i] ?? -1)).toBe(i * 10)
  for (let i = 37; i < 80; i++) ids.push(p.add(i * 10))
  const left = ids.map((id, i) => [id, i] as const).filter(([, i]) => ![36, 0, 17, 5].includes(i))
  for (const [id, i] of left.reverse()) expect(p.take(id)).toBe(i * 10)
  expect(p.size).toBe(0)
})

test('a long run of requests answered as they come reuses the same slots', () => {
  const p = new PendingReplies<number>(8)
  const inFlight: number[] = []
  for (let i = 0; i < 10_000; i++) {
    inFlight.push(p.add(i))
    if (inFlight.length > 5) expect(p.take(inFlight.shift() ?? 0)).toBe(i - 5)
  }
  expect(p.size).toBe(5)
  expect(p.capacity).toBe(8)
})

test('drain hands back every waiting item and leaves the table empty', () => {
  const p = new PendingReplies<string>(4)
  const a = p.add('a')
  p.add('b')
  p.add('c')
  p.take(a)
  expect(p.drain().sort()).toEqual(['b', 'c'])
  expect(p.size).toBe(0)
  expect(p.drain()).toEqual([])
  expect(p.add('d')).toBe(4)
})
