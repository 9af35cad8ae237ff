/**
 * A sliding-window counter per key, in memory (one server process owns the console): sign-in
 * failures per address and per e-mail, lookups of the console's tester per user.
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

  reset(key: string): void {
    this.hits.delete(key)
  }
}
