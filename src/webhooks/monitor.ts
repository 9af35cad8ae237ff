/**
 * carrier.changed: after a live dataset activation, compares the watched facts of every watched
 * (authority, insurance, safety, and identity: phone, e-mail, officers, address, predecessors)
 * USDOT with its snapshot from the previous comparison and enqueues one event per (account, USDOT)
 * with `changes: [{field, previous, current}]`. The first sight of a USDOT only records a snapshot.
 */
import { isoDate, type Clock } from '../clock.ts'
import type { CompanyRecord } from '../carriers/record.ts'
import { openRecords, type RecordPort } from '../carriers/records.ts'
import type { Config } from '../config.ts'
import type { DataView, DatasetRegistry } from '../db/datasets.ts'
import { acquireLease } from '../db/leases.ts'
import type { Sqlite } from '../db/open.ts'
import type { Activation } from '../db/versions.ts'
import type { Logger } from '../log.ts'
import type { DatasetName } from '../db/names.ts'
import { enqueueEvent } from '../db/outbox.ts'
import { mismatchedNames } from '../equipment/record.ts'

type Scalar = string | number | boolean | null

interface WatchedField {
  /** the path of the value in the record JSON */
  field: string
  /** datasets that supply it: a change from null when one of them just appeared is not reported */
  sources: readonly DatasetName[]
  get(r: CompanyRecord): Scalar
  /** a count reported only when it grows (a fall is not news: old sightings leave the window) */
  grows?: true
  /** what a change of it carries besides the two values: the facts behind the new value */
  detail?(r: CompanyRecord): unknown
}

const LICENSING: readonly DatasetName[] = ['motus', 'legacy']
const SAFETY: readonly DatasetName[] = ['sms', 'oos']
const EQUIPMENT: readonly DatasetName[] = ['equipment']

/**
 * The facts a watchlist follows: authority, insurance and bond, OOS orders, safety rating, and
 * the roadside identity (names officers wrote that are not the carrier's, its VINs seen under
 * other carriers) when those grow.
 */
export const WATCHED_FIELDS: readonly WatchedField[] = [
  { field: 'identity.usdot_status', sources: ['census'], get: (r) => r.identity.usdot_status },
  { field: 'authority.status', sources: ['census', ...LICENSING], get: (r) => r.authority.status },
  {
    field: 'authority.common_authority',
    sources: LICENSING,
    get: (r) => r.authority.common_authority,
  },
  {
    field: 'authority.contract_authority',
    sources: LICENSING,
    get: (r) => r.authority.contract_authority,
  },
  {
    field: 'authority.broker_authority',
    sources: LICENSING,
    get: (r) => r.authority.broker_authority,
  },
  {
    field: 'authority.allowed_to_operate',
    sources: ['census', ...LICENSING, ...SAFETY],
    get: (r) => r.authority.allowed_to_operate,
  },
  {
    field: 'authority.revocation_pending',
    sources: LICENSING,
    get: (r) => r.authority.revocation_pending,
  },
  /** the effective date of a suspension or revocation order that is due (issue 12) */
  {
    field: 'authority.pending_suspension',
    sources: LICENSING,
    get: (r) => r.authority.pending_suspension?.effective_date ?? null,
  },
  /** per docket and authority type, e.g. `MC-123456 carrier suspended` (comma-joined) */
  {
    field: 'authority.states',
    sources: LICENSING,
    get: (r) =>
      r.authority.states.length
        ? r.authority.states
            .map((s) => `${s.docket_number} ${s.authority_type} ${s.state}`)
            .join(', ')
        : null,
  },
  { field: 'insurance.bipd_on_file', sources: LICENSING, get: (r) => r.insurance.bipd_on_file },
  { field: 'insurance.cargo_on_file', sources: LICENSING, get: (r) => r.insurance.cargo_on_file },
  { field: 'insurance.bond_on_file', sources: LICENSING, get: (r) => r.insurance.bond_on_file },
  {
    field: 'insurance.pending_cancellation',
    sources: LICENSING,
    get: (r) => r.insurance.pending_cancellation,
  },
  /** the cancellation effective date while a cancellation is pending */
  { field: 'insurance.expiry_date', sources: LICENSING, get: (r) => r.insurance.expiry_date },
  { field: 'identity.out_of_service', sources: SAFETY, get: (r) => r.identity.out_of_service },
  {
    field: 'identity.out_of_service_date',
    sources: SAFETY,
    get: (r) => r.identity.out_of_service_date,
  },
  // identity: the contact details, officers and address an impersonator rewrites, and a new
  // predecessor by the link index's time gate (docs/identity.md)
  { field: 'contact.phone', sources: ['census'], get: (r) => r.contact.phone },
  { field: 'contact.email', sources: ['census'], get: (r) => r.contact.email },
  {
    field: 'contact.physical_address',
    sources: ['census'],
    get: (r) => {
      const a = r.contact.physical_address
      return a ? [a.street, a.city, a.state, a.zip].filter(Boolean).join(', ') : null
    },
  },
  /** COMPANY_OFFICER_1 and _2 of the census, `; `-joined */
  { field: 'officers', sources: ['census'], get: (r) => r.facts.officers },
  {
    field: 'identity.links.predecessors',
    sources: ['census'],
    get: (r) => r.identity.links.predecessors,
  },
  { field: 'safety.safety_rating', sources: ['census'], get: (r) => r.safety.safety_rating },
  {
    field: 'safety.safety_rating_date',
    sources: ['census'],
    get: (r) => r.safety.safety_rating_date,
  },
  {
    field: 'equipment.roadside.name_mismatches',
    sources: EQUIPMENT,
    get: (r) => r.equipment.roadside?.name_mismatches ?? null,
    grows: true,
    detail: (r) => ({ names: mismatchedNames(r.equipment, [r.legal_name, r.dba_name]) }),
  },
  {
    field: 'equipment.vins_seen_under_other_carriers',
    sources: EQUIPMENT,
    get: (r) => r.equipment.vins_seen_under_other_carriers,
    grows: true,
    detail: (r) => ({
      power_units_seen: r.equipment.power_units_seen,
      trailers_seen: r.equipment.trailers_seen,
      window: r.equipment.window,
    }),
  },
]

/** A snapshot: the watched values, whether the record was found, and which datasets were loaded. */
export interface WatchFacts {
  found: boolean
  datasets: DatasetName[]
  values: Record<string, Scalar>
  /** per field with a `detail`: the facts behind its current value (absent in older snapshots) */
  details?: Record<string, unknown>
}

export interface Change {
  field: string
  previous: Scalar
  current: Scalar
  /** the facts behind the new value, for the fields that have them (the roadside names) */
  detail?: unknown
}

const ALL_DATASETS: readonly DatasetName[] = [
  'census',
  'legacy',
  'motus',
  'sms',
  'oos',
  'equipment',
]

export function factsOf(record: CompanyRecord | null, view: DataView): WatchFacts {
  const values: Record<string, Scalar> = {}
  const details: Record<string, unknown> = {}
  for (const f of WATCHED_FIELDS) {
    values[f.field] = record ? f.get(record) : null
    if (record && f.detail) details[f.field] = f.detail(record)
  }
  return {
    found: record !== null,
    datasets: ALL_DATASETS.filter((n) => view.get(n) !== null),
    values,
    details,
  }
}

/**
 * The watched values that differ between two snapshots. A field missing from the older snapshot
 * is not compared, and a value appearing from null because its dataset was first loaded is the
 * first sight of that data, not a change.
 */
export function diffFacts(prev: WatchFacts, cur: WatchFacts): Change[] {
  const changes: Change[] = []
  if (prev.found !== cur.found)
    changes.push({ field: 'found', previous: prev.found, current: cur.found })
  for (const f of WATCHED_FIELDS) {
    if (!(f.field in prev.values)) continue
    const previous = prev.values[f.field] ?? null
    const current = cur.values[f.field] ?? null
    if (previous === current) continue
    const newSource = f.sources.some((s) => cur.datasets.includes(s) && !prev.datasets.includes(s))
    if (previous === null && newSource) continue
    if (
      f.grows &&
      !(typeof previous === 'number' && typeof current === 'number' && current > previous)
    )
      continue
    const detail = cur.details?.[f.field]
    changes.push({ field: f.field, previous, current, ...(detail === undefined ? {} : { detail }) })
  }
  return changes
}

export interface MonitorDeps {
  db: Sqlite
  datasets: DatasetRegistry
  clock: Clock
  log: Logger
  config: Pick<Config, 'sync' | 'safety' | 'records'>
  records: RecordPort
  /**
   * Extra data for one account's carrier.changed event (the composition root wires checks/: the
   * account's checks whose verdict would now differ). Runs inside the comparison's transaction.
   */
  annotate?: (
    accountId: number,
    dot: number,
    record: CompanyRecord | null,
  ) => Record<string, unknown>
}

export type MonitorResult =
  | {
      status: 'done'
      versionKey: string
      checked: number
      firstSeen: number
      changed: number
      events: number
      /** records that could not be read (retried on the next run) */
      failed: number
    }
  | { status: 'skipped'; reason: string }

const BATCH = 200

/**
 * Compares every watched USDOT whose snapshot predates the live view, in batches: one transaction
 * per batch re-reads the snapshots, enqueues carrier.changed events and updates the snapshots, so
 * a change is reported once even if two processes run this at the same time. Safe to call after
 * every activation and on a schedule (it does nothing when no watched snapshot is stale).
 */
export function runWatchMonitor(
  deps: MonitorDeps,
  signal: AbortSignal = new AbortController().signal,
): MonitorResult {
  deps.datasets.reconcile()
  const view = deps.datasets.view('live')
  // the bundled sample is not the mirror: snapshots always describe live data
  if (view.source !== 'mirror') return { status: 'skipped', reason: 'no live census' }
  // the day is part of the key: facts that follow the clock (a suspension order taking effect, a
  // pending cancellation reaching its date) are compared once a day even without a new file
  const vk = `${view.versionKey}@${isoDate(deps.clock())}`
  const { db } = deps
  const stale = db
    .prepare(
      `SELECT DISTINCT w.dot_number AS dot FROM watchlist w LEFT JOIN watch_snapshots s ON s.dot_number = w.dot_number
       WHERE s.version_key IS NOT ? ORDER BY w.dot_number`,
    )
    .all(vk) as { dot: number }[]
  if (stale.length === 0)
    return {
      status: 'done',
      versionKey: vk,
      checked: 0,
      firstSeen: 0,
      changed: 0,
      events: 0,
      failed: 0,
    }
  const lease = acquireLease(db, 'watch:monitor', deps.clock, { ttlMs: 30 * 60_000 })
  if (!lease) return { status: 'skipped', reason: 'another monitor run holds the lease' }
  const result = {
    status: 'done' as const,
    versionKey: vk,
    checked: 0,
    firstSeen: 0,
    changed: 0,
    events: 0,
    failed: 0,
  }
  try {
    const getSnapshot = db.prepare(
      'SELECT facts, version_key AS versionKey FROM watch_snapshots WHERE dot_number = ?',
    )
    const upsert = db.prepare(
      `INSERT INTO watch_snapshots (dot_number, facts, version_key, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (dot_number) DO UPDATE SET facts = excluded.facts, version_key = excluded.version_key,
         updated_at = excluded.updated_at`,
    )
    const watchers = db.prepare(
      'SELECT account_id AS accountId FROM watchlist WHERE dot_number = ? ORDER BY account_id',
    )
    for (let i = 0; i < stale.length && !signal.aborted; i += BATCH) {
      const now = deps.clock()
      // a sweep reads each record once: not through the record cache
      const records = openRecords(deps, view, { uncached: true })
      // records are read outside the write transaction (dataset files, not app.db)
      const batch = stale.slice(i, i + BATCH).flatMap(({ dot }) => {
        try {
          const record = records.recordNow(dot)
          return [{ dot, record, facts: factsOf(record, view) }]
        } catch (err) {
          // one unreadable record must not stop the others; it is compared on the next run
          deps.log.error({ err, dot_number: dot }, 'watchlist monitor: record failed')
          result.failed++
          return []
        }
      })
      db.transaction(() => {
        for (const { dot, record, facts } of batch) {
          const snap = getSnapshot.get(dot) as { facts: string; versionKey: string } | undefined
          if (snap?.versionKey === vk) continue // another run got here first
          result.checked++
          if (!snap) result.firstSeen++
          else {
            const changes = diffFacts(JSON.parse(snap.facts) as WatchFacts, facts)
            if (changes.length > 0) {
              result.changed++
              for (const { accountId } of watchers.all(dot) as { accountId: number }[]) {
                enqueueEvent(
                  db,
                  {
                    accountId,
                    type: 'carrier.changed',
                    data: {
                      dot_number: String(dot),
                      legal_name: record?.legal_name ?? null,
                      mc_number: record?.mc_number ?? null,
                      changes,
                      data_as_of: record?.dataAsOf ?? null,
                      ...deps.annotate?.(accountId, dot, record),
                    },
                  },
                  now.getTime(),
                )
                result.events++
              }
            }
          }
          upsert.run(dot, JSON.stringify(facts), vk, now.getTime())
        }
      }).immediate()
      lease.renew()
    }
  } finally {
    lease.release()
  }
  deps.log.info(
    {
      version_key: vk,
      checked: result.checked,
      first_seen: result.firstSeen,
      changed: result.changed,
      events: result.events,
      failed: result.failed,
    },
    'watchlist monitor run',
  )
  return result
}

/**
 * The activation listener a composition root hands to dataset runs (`onActivated`): compares the
 * watchlists right after a live version became active, so carrier.changed does not wait for the
 * watch:monitor safety net. A failure is logged; the job retries it.
 */
export function watchOnActivation(deps: MonitorDeps): (activation: Activation) => void {
  return (activation) => {
    if (activation.channel !== 'live') return
    try {
      runWatchMonitor(deps)
    } catch (err) {
      deps.log.error(
        { err, dataset: activation.dataset },
        'watchlist comparison after activation failed; the watch:monitor job retries',
      )
    }
  }
}
