/**
 * A circuit breaker for calls to the regulator: it opens after `failureThreshold` consecutive
 * failures, lets one trial call through once `cooldownMs` has passed (half-open), closes when that
 * call succeeds and opens again for another cool-down when it fails. Time is passed in (ms).
 */

export type BreakerState = 'closed' | 'open' | 'half_open'

export interface BreakerOptions {
  failureThreshold: number
  cooldownMs: number
}

export class CircuitBreaker {
  readonly #threshold: number
  readonly #cooldownMs: number
  #failures = 0
  #openedAt: number | null = null
  #trialInFlight = false

  constructor(opts: BreakerOptions) {
    this.#threshold = Math.max(1, opts.failureThreshold)
    this.#cooldownMs = opts.cooldownMs
  }

  /** The state at `now`; an open breaker reads half-open once its cool-down is over. */
  state(now: number): BreakerState {
    if (this.#openedAt === null) return 'closed'
    return now - this.#openedAt >= this.#cooldownMs ? 'half_open' : 'open'
  }

  /**
   * May a call go out at `now`? Closed: yes. Open: no. Half-open: yes for one trial at a time.
   * A caller that got a yes must report `success()`, `failure()` or `release()`.
   */
  tryAcquire(now: number): boolean {
    const s = this.state(now)
    if (s === 'closed') return true
    if (s === 'open' || this.#trialInFlight) return false
    this.#trialInFlight = true
    return true
  }

  /** The call got an answer: close. */
  success(): void {
    this.#failures = 0
    this.#openedAt = null
    this.#trialInFlight = false
  }

  /** The call failed: count it; open at the threshold, or again at once after a failed trial. */
  failure(now: number): void {
    const wasTrial = this.#trialInFlight
    this.#trialInFlight = false
    this.#failures += 1
    if (wasTrial || this.#openedAt !== null || this.#failures >= this.#threshold) {
      this.#openedAt = now
    }
  }

  /** The call never went out (e.g. the rate limiter refused it): give the trial slot back. */
  release(): void {
    this.#trialInFlight = false
  }

  /** consecutive failures so far */
  get failures(): number {
    return this.#failures
  }
}
