/**
 * National out-of-service averages shown beside a carrier's OOS rates (docs/safety.md). FMCSA
 * publishes no machine-readable file of them; these are the figures QCMobile and SAFER return
 * (`driverOosRateNationalAverage` 5.51 …, period `2009-2010`). Deployments can override them.
 */

export interface NationalAverages {
  /** percent, e.g. 5.51 */
  driver: number
  vehicle: number
  hazmat: number
  /** the period the averages describe, as FMCSA labels it */
  period: string
}

export const DEFAULT_NATIONAL_AVERAGES: Readonly<NationalAverages> = Object.freeze({
  driver: 5.51,
  vehicle: 20.72,
  hazmat: 4.5,
  period: '2009-2010',
})

const isPercent = (n: unknown): n is number =>
  typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= 100

/**
 * The defaults with any valid override applied (a percent 0–100, a non-empty period). Invalid
 * overrides throw, so a bad configuration fails at startup rather than in a response.
 */
export function nationalAverages(overrides: Partial<NationalAverages> = {}): NationalAverages {
  const out: NationalAverages = { ...DEFAULT_NATIONAL_AVERAGES }
  for (const k of ['driver', 'vehicle', 'hazmat'] as const) {
    const v = overrides[k]
    if (v === undefined) continue
    if (!isPercent(v))
      throw new RangeError(`national average ${k} must be a percent 0-100, got ${String(v)}`)
    out[k] = v
  }
  if (overrides.period !== undefined) {
    const p = overrides.period.trim()
    if (p === '') throw new RangeError('national average period must not be empty')
    out.period = p
  }
  return out
}
