/**
 * Spaces calls to the regulator at least `minIntervalMs` apart (QCMobile publishes no rate limit;
 * clients space calls about 200 ms apart: `CROSSCHECK_MIN_INTERVAL_MS`). A caller reserves a slot
 * and waits for it; the wait counts against the caller's own timeout, so a slot further away
 * than that is refused instead.
 */

export interface LimiterOptions {
  minIntervalMs: number
  /** monotonic milliseconds; real time by default */
  now?: () => number
}

export class RateLimiter {
  readonly #interval: number
  readonly #now: () => number
  /** the earliest time the next call may start */
  #nextAt = -Infinity

  constructor(opts: LimiterOptions) {
    this.#interval = Math.max(0, opts.minIntervalMs)
    this.#now = opts.now ?? (() => performance.now())
  }

  /**
   * Reserves the next slot and returns how long to wait for it (ms), or null (nothing reserved)
   * when that would be longer than `maxWaitMs`.
   */
  reserve(maxWaitMs: number): number | null {
    const now = this.#now()
    const at = Math.max(now, this.#nextAt)
    const wait = at - now
    if (wait > maxWaitMs) return null
    this.#nextAt = at + this.#interval
    return wait
  }

  /** The regulator asked us to back off (429 Retry-After): no slot before `now + ms`. */
  pause(ms: number): void {
    this.#nextAt = Math.max(this.#nextAt, this.#now() + ms)
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
