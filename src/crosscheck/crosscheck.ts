/**
 * On-demand cross-check of a record against the regulator's QCMobile API
 * (docs/crosscheck.md). Every call to the regulator goes through one guard: circuit breaker, rate
 * limiter and timeout. Answers are cached per USDOT. The state lives per Deps instance.
 */
import type { CrosscheckJson } from './schema.ts'
import type { Deps } from '../deps.ts'
import { CircuitBreaker } from './breaker.ts'
import { TtlCache } from './cache.ts'
import { compareWithRegulator, type CrosscheckInput } from './compare.ts'
import { RateLimiter, sleep } from './limiter.ts'
import {
  createQcmobileClient,
  type QcFailure,
  type QcmobileClient,
  type RegulatorCarrier,
} from './qcmobile.ts'

/** Why `crosscheck.status` is `unavailable` (or, for `not_found_at_regulator`, a mismatch). */
export type CrosscheckReason =
  | QcFailure
  | 'disabled'
  | 'sample_data'
  | 'circuit_open'
  | 'internal_error'
  | 'not_found_at_regulator'

/** Consecutive failed calls that open the breaker. */
export const BREAKER_FAILURE_THRESHOLD = 5
/** How long an open breaker refuses calls before it lets one trial through. */
export const BREAKER_COOLDOWN_MS = 60_000
/** Most USDOTs (and, separately, dockets) kept in the answer cache. */
export const CACHE_MAX_ENTRIES = 5_000
/** A call needs at least this share of its timeout left after waiting for a rate-limit slot. */
const MIN_CALL_SHARE = 0.5

type Unavailable = Exclude<CrosscheckReason, 'not_found_at_regulator'>
type Guarded<T> = { ok: true; value: T } | { ok: false; reason: Unavailable }

interface CarrierAnswer {
  /** null: the regulator does not know the USDOT */
  carrier: RegulatorCarrier | null
  checkedAt: string
}

interface State {
  client: QcmobileClient
  breaker: CircuitBreaker
  limiter: RateLimiter
  carriers: TtlCache<number, CarrierAnswer>
  dockets: TtlCache<number, number[]>
  /** calls in flight by key, so concurrent lookups of one USDOT make one call */
  inflight: Map<string, Promise<Guarded<unknown>>>
}

const states = new WeakMap<Deps, State>()

function stateOf(deps: Deps): State {
  let s = states.get(deps)
  if (!s) {
    const cfg = deps.config.crosscheck
    const ttlMs = cfg.cacheSeconds * 1000
    s = {
      client: createQcmobileClient({
        fetch: deps.fetch,
        baseUrl: cfg.baseUrl,
        webKey: cfg.webKey,
        log: deps.log,
      }),
      breaker: new CircuitBreaker({
        failureThreshold: BREAKER_FAILURE_THRESHOLD,
        cooldownMs: BREAKER_COOLDOWN_MS,
      }),
      limiter: new RateLimiter({ minIntervalMs: cfg.minIntervalMs }),
      carriers: new TtlCache({ ttlMs, maxEntries: CACHE_MAX_ENTRIES }),
      dockets: new TtlCache({ ttlMs, maxEntries: CACHE_MAX_ENTRIES }),
      inflight: new Map(),
    }
    states.set(deps, s)
  }
  return s
}

const nowMs = (deps: Deps) => deps.clock().getTime()

/**
 * Runs one regulator call under the breaker, the rate limiter and the timeout (the wait for a
 * rate-limit slot counts against it). Resolves within `timeoutMs`; never rejects.
 */
async function guarded<T>(
  deps: Deps,
  state: State,
  call: (signal: AbortSignal) => Promise<Guarded<T>>,
): Promise<Guarded<T>> {
  const { timeoutMs } = deps.config.crosscheck
  if (!state.breaker.tryAcquire(nowMs(deps))) return { ok: false, reason: 'circuit_open' }
  const wait = state.limiter.reserve(timeoutMs * (1 - MIN_CALL_SHARE))
  if (wait === null) {
    state.breaker.release()
    return { ok: false, reason: 'rate_limited' }
  }
  const ac = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<Guarded<T>>((resolve) => {
    timer = setTimeout(() => {
      ac.abort()
      resolve({ ok: false, reason: 'timeout' })
    }, timeoutMs)
  })
  const run = async (): Promise<Guarded<T>> => {
    await sleep(wait, ac.signal)
    if (ac.signal.aborted) return { ok: false, reason: 'timeout' }
    return call(ac.signal)
  }
  let result: Guarded<T>
  try {
    result = await Promise.race([
      run().catch((): Guarded<T> => ({ ok: false, reason: 'internal_error' })),
      timedOut,
    ])
  } finally {
    clearTimeout(timer)
  }
  if (result.ok) state.breaker.success()
  else state.breaker.failure(nowMs(deps))
  return result
}

/** Joins a call already in flight under `key`, or starts one. */
function once<T>(state: State, key: string, start: () => Promise<Guarded<T>>): Promise<Guarded<T>> {
  const running = state.inflight.get(key) as Promise<Guarded<T>> | undefined
  if (running) return running
  const p = start().finally(() => state.inflight.delete(key))
  state.inflight.set(key, p)
  return p
}

/** The regulator's answer for a USDOT, from the cache or one guarded call. */
async function regulatorCarrier(
  deps: Deps,
  dot: number,
): Promise<Guarded<CarrierAnswer & { cached: boolean }>> {
  const state = stateOf(deps)
  const hit = state.carriers.get(dot, nowMs(deps))
  if (hit) return { ok: true, value: { ...hit.value, cached: true } }
  const res = await once(state, `carrier:${dot}`, () =>
    guarded(deps, state, async (signal): Promise<Guarded<CarrierAnswer>> => {
      const r = await state.client.carrier(dot, signal)
      if (!r.ok) {
        if (r.retryAfterMs !== null) state.limiter.pause(r.retryAfterMs)
        return { ok: false, reason: r.reason }
      }
      const answer = { carrier: r.value, checkedAt: deps.clock().toISOString() }
      state.carriers.set(dot, answer, nowMs(deps))
      return { ok: true, value: answer }
    }),
  )
  return res.ok ? { ok: true, value: { ...res.value, cached: false } } : res
}

const unavailable = (reason: Unavailable): CrosscheckJson => ({
  status: 'unavailable',
  checked_at: null,
  reason,
  cached: false,
  differences: [],
})

/**
 * Cross-checks a record now (whatever the mode): `match`, `mismatch` with the differences, or
 * `unavailable` with a reason. Never throws; resolves within the configured timeout.
 */
export async function crosscheckRecord(
  deps: Deps,
  record: CrosscheckInput,
): Promise<CrosscheckJson> {
  try {
    // sample companies are fictitious or frozen: asking the regulator about them proves nothing
    if (record.source === 'sample') return unavailable('sample_data')
    if (!deps.config.crosscheck.webKey) return unavailable('webkey_missing')
    const answer = await regulatorCarrier(deps, record.dotNumber)
    if (!answer.ok) return unavailable(answer.reason)
    const { carrier, checkedAt, cached } = answer.value
    if (carrier === null) {
      deps.log.info({ dot_number: record.dotNumber }, 'crosscheck: USDOT unknown to the regulator')
      return {
        status: 'mismatch',
        checked_at: checkedAt,
        reason: 'not_found_at_regulator',
        cached,
        differences: [{ field: 'exists', mirror: true, regulator: false }],
      }
    }
    const differences = compareWithRegulator(record, carrier)
    if (differences.length > 0 && !cached) {
      // log every difference (public data, no secrets): docs/crosscheck.md
      deps.log.info({ dot_number: record.dotNumber, differences }, 'crosscheck: mismatch')
    }
    return {
      status: differences.length > 0 ? 'mismatch' : 'match',
      checked_at: checkedAt,
      reason: null,
      cached,
      differences,
    }
  } catch (err) {
    deps.log.error({ err, dot_number: record.dotNumber }, 'crosscheck failed')
    return unavailable('internal_error')
  }
}

/**
 * Whether a request that asked `requested` gets a cross-check block (`maybeCrosscheck`): when it
 * asked, and in mode `always` unless it opted out.
 */
export function crosscheckAnswered(
  mode: Deps['config']['crosscheck']['mode'],
  requested: boolean | undefined,
): boolean {
  return mode === 'always' ? requested !== false : requested === true
}

/**
 * The crosscheck block for a record when asked for (or CROSSCHECK_MODE=always), else undefined
 * (`crosscheckAnswered`); `record` is only read when a check runs. Mode `off` answers an explicit
 * `?crosscheck=true` with `unavailable` / `disabled`. Never throws and never takes longer than
 * the configured timeout.
 */
export async function maybeCrosscheck(
  deps: Deps,
  record: () => CrosscheckInput,
  requested: boolean | undefined,
): Promise<CrosscheckJson | undefined> {
  const mode = deps.config.crosscheck.mode
  if (!crosscheckAnswered(mode, requested)) return undefined
  return mode === 'off' ? unavailable('disabled') : crosscheckRecord(deps, record())
}

/**
 * The USDOT numbers the regulator lists for a docket (`carriers/docket-number/{n}`; MC only, as
 * QCMobile takes digits): [] when it knows none, null when it cannot be asked or gave no answer
 * (other prefix, mode off, no web key, breaker open, timeout, …). Never throws; cached like carriers.
 */
export async function resolveDocketViaQcmobile(
  deps: Deps,
  prefix: string,
  number: number,
): Promise<number[] | null> {
  const cfg = deps.config.crosscheck
  if (cfg.mode === 'off' || !cfg.webKey) return null
  if (prefix.trim().toUpperCase() !== 'MC' || !Number.isSafeInteger(number) || number <= 0) {
    return null
  }
  try {
    const state = stateOf(deps)
    const hit = state.dockets.get(number, nowMs(deps))
    if (hit) return [...hit.value]
    const res = await once(state, `docket:${number}`, () =>
      guarded(deps, state, async (signal): Promise<Guarded<number[]>> => {
        const r = await state.client.carriersByDocket(number, signal)
        if (!r.ok) {
          if (r.retryAfterMs !== null) state.limiter.pause(r.retryAfterMs)
          return { ok: false, reason: r.reason }
        }
        const dots = [...new Set(r.value.flatMap((c) => (c.dotNumber ? [c.dotNumber] : [])))]
        dots.sort((a, b) => a - b)
        state.dockets.set(number, dots, nowMs(deps))
        return { ok: true, value: dots }
      }),
    )
    if (!res.ok) deps.log.debug({ docket: `MC${number}`, reason: res.reason }, 'qcmobile docket')
    return res.ok ? [...res.value] : null
  } catch (err) {
    deps.log.error({ err, docket: `MC${number}` }, 'qcmobile docket resolution failed')
    return null
  }
}
