/**
 * A sliding-window counter per key, in memory (one server process owns the console): sign-in
 * attempts per address and per e-mail, lookups of the console's tester per user.
 *
 * `reserve` checks and counts in one synchronous step, before any asynchronous work (a password
 * hash): a burst of parallel requests cannot all pass the check before the first one is counted.
 */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>()
  readonly limit: number
  readonly windowMs: number
  constructor(limit: number, windowMs: number) {
    this.limit = limit
    this.windowMs = windowMs
  }

  private recent(key: string, now: number): number[] {
    const list = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs)
    if (list.length) this.hits.set(key, list)
    else this.hits.delete(key)
    return list
  }

  /** Seconds until the key may try again, or 0 when it may now. */
  retryAfter(key: string, now: number): number {
    const list = this.recent(key, now)
    if (list.length < this.limit) return 0
    return Math.max(1, Math.ceil(((list[0] ?? now) + this.windowMs - now) / 1000))
  }

  hit(key: string, now: number): void {
    const list = this.recent(key, now)
    list.push(now)
    this.hits.set(key, list)
    if (this.hits.size > 100_000) this.hits.delete(this.hits.keys().next().value ?? '')
  }

  /**
   * Counts an attempt now when the key is under its limit and returns 0; otherwise counts
   * nothing and returns the seconds to wait. Synchronous: call it before awaiting anything.
   */
  reserve(key: string, now: number): number {
    const wait = this.retryAfter(key, now)
    if (wait === 0) this.hit(key, now)
    return wait
  }

  /** Gives back one attempt counted at `at` by `reserve` (an attempt that turned out not to count). */
  release(key: string, at: number): void {
    const list = this.hits.get(key)
    const i = list?.lastIndexOf(at) ?? -1
    if (!list || i < 0) return
    list.splice(i, 1)
    if (!list.length) this.hits.delete(key)
  }

  reset(key: string): void {
    this.hits.delete(key)
  }
}
