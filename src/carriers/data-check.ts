/**
 * Whether the data behind a record can be vouched for (`trust.trust_verified`, docs/trust-score.md
 * "Verified"): every dataset the verdict needs is loaded and was confirmed current within its
 * freshness limit. Each shortfall is one reason in `trust.unverified_reasons`.
 */
import type { DataView } from '../db/datasets.ts'
import type { DatasetName } from '../db/names.ts'
import type { Sqlite } from '../db/open.ts'
import { lastUnchangedAt } from '../db/versions.ts'

export interface RequiredDataset {
  name: DatasetName
  /** `daily`: stale after the configured DATASET_MAX_AGE_HOURS; `frozen`: never stale */
  freshness: 'daily' | 'frozen'
  /** what the verdict reads from it */
  why: string
}

/**
 * The datasets every gate of the Trust Score reads. SMS (safety component only: missing safety
 * data is neutral, never a gate) and the SMS violations (information) are not required.
 */
export const REQUIRED_DATASETS: readonly RequiredDataset[] = [
  { name: 'census', freshness: 'daily', why: 'USDOT status, identity, safety rating' },
  {
    name: 'legacy',
    freshness: 'frozen',
    why: 'authority and insurance of companies with no Motus activity (frozen 2026-05-14)',
  },
  { name: 'motus', freshness: 'daily', why: 'current authority, insurance and bonds' },
  { name: 'oos', freshness: 'daily', why: 'out-of-service orders' },
]

export interface DataCheckDeps {
  /** app.db: sync runs that found a file unchanged confirm the active version */
  db: Sqlite
  /** ms */
  now: number
  /** freshness limit of a daily dataset (config DATASET_MAX_AGE_HOURS) */
  maxAgeHours: number
}

/**
 * When a dataset was last confirmed current (ms): its activation, or a later sync run that found
 * the regulator's file unchanged. Null when it has no activation time.
 */
export function confirmedAt(
  db: Sqlite,
  name: DatasetName,
  activatedAt: number | null,
): number | null {
  if (activatedAt === null) return null
  return Math.max(activatedAt, lastUnchangedAt(db, name) ?? 0)
}

/**
 * A verdict of a view that can only change with the clock: no dataset of it was stale, so until
 * the first of its daily datasets outlives its limit (`until`, ms), a later sync run confirming
 * a file again changes nothing (it only moves a confirmation later) and the verdict holds.
 * A verdict with a stale dataset is never kept: the next sync run may clear it at any moment.
 */
interface Verdict {
  db: Sqlite
  maxAgeHours: number
  until: number
  reasons: readonly string[]
}
/** Per view object: a dataset swap builds a new view, so a kept verdict never outlives its files. */
const verdicts = new WeakMap<DataView, Verdict>()

/**
 * Why the view's data cannot be vouched for: `sample_data` for the bundled sample,
 * `dataset_missing:<name>` for a required dataset not loaded, `dataset_stale:<name>` for a daily
 * one not confirmed current within the limit (mirror only). Empty when it can.
 *
 * Read on every lookup: a verdict without a stale dataset is kept per view until the clock
 * reaches its first dataset's limit (`Verdict`), so a lookup does not read the sync runs.
 */
export function dataReasons(deps: DataCheckDeps, view: DataView): string[] {
  const kept = verdicts.get(view)
  if (
    kept &&
    kept.db === deps.db &&
    kept.maxAgeHours === deps.maxAgeHours &&
    deps.now <= kept.until
  )
    return [...kept.reasons]
  const reasons: string[] = []
  if (view.source === 'sample') reasons.push('sample_data')
  const limitMs = deps.maxAgeHours * 3_600_000
  let until = Number.POSITIVE_INFINITY
  let stale = false
  for (const req of REQUIRED_DATASETS) {
    const ds = view.get(req.name)
    if (!ds) {
      reasons.push(`dataset_missing:${req.name}`)
      continue
    }
    if (view.source !== 'mirror' || req.freshness === 'frozen') continue
    const at = confirmedAt(deps.db, req.name, ds.confirmedAt ?? ds.activatedAt)
    if (at === null || deps.now - at > limitMs) {
      reasons.push(`dataset_stale:${req.name}`)
      stale = true
    } else until = Math.min(until, at + limitMs)
  }
  if (stale) verdicts.delete(view)
  else verdicts.set(view, { db: deps.db, maxAgeHours: deps.maxAgeHours, until, reasons })
  return [...reasons]
}
