/**
 * Before the mirror's live census is active, a live key reads the bundled sample (db/datasets.ts
 * `view`): a company the sample lacks may well exist, so a live key's miss answers 503
 * mirror_not_ready (with Retry-After, never billed) instead of a false 404. Sandbox keys live in
 * the sample's world: their miss stays a 404.
 */
import type { DataView } from '../db/datasets.ts'
import { versionRows } from '../db/versions.ts'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { notFoundWithUsage, rateLimitHeaders } from '../keys/billing.ts'
import { peekUsage } from '../keys/usage.ts'
import type { Caller } from '../keys/keys.ts'

/** true when a live caller is answered from the sample because no live census is active yet */
export function awaitingMirror(view: DataView, caller: Pick<Caller, 'mode'>): boolean {
  return caller.mode === 'live' && view.source === 'sample'
}

/** The state in words: what is loaded while the mirror is not built. */
export function mirrorStateMessage(deps: Pick<Deps, 'db'>, view: DataView): string {
  const census = view.get('census')
  const rows = census ? versionRows(deps.db, census.versionId) : null
  const loaded =
    rows === null ? 'only the sample companies are' : `only the ${rows} sample companies are`
  return `the regulator's data is not mirrored yet (the mirror is not built): ${loaded} loaded`
}

/**
 * The error of a lookup that found nothing in `view`: 503 mirror_not_ready for a live caller
 * answered from the sample (the company may exist), else billing's unbilled 404. Both carry the
 * caller's RateLimit headers.
 */
export function notFoundFor(
  deps: Pick<Deps, 'db' | 'clock'>,
  view: DataView,
  caller: Caller,
  message: string,
): AppError {
  if (!awaitingMirror(view, caller)) return notFoundWithUsage(deps, caller, message)
  const at = deps.clock()
  return new AppError('mirror_not_ready', notReadyMessage(deps, view, message), {
    headers: rateLimitHeaders(peekUsage(deps.db, caller, at), at),
  })
}

/** `message` (the miss) followed by the state and what to do. */
export function notReadyMessage(deps: Pick<Deps, 'db'>, view: DataView, message: string): string {
  return `${message} yet: ${mirrorStateMessage(deps, view)}; try again once the mirror is built (GET /readyz says which data is served)`
}
