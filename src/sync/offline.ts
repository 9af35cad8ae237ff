/**
 * No internet is a state, not an error dump: when the newest sync runs failed because the portal
 * could not be reached (DNS, refused or reset connections, connect timeouts, TLS trust), `sync
 * status`, the console's data page and the log say so in one sentence: since when, what serves
 * meanwhile, and the two ways forward. The full errors stay in the runs (`sync status --verbose`,
 * `--json`, the console's run history).
 */
import type { Config } from '../config.ts'
import type { Sqlite } from '../db/open.ts'
import { failuresSinceLastSuccess } from './runs.ts'

/** Error texts of a connection that never reached the portal (Node and undici codes). */
const UNREACHABLE =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENETDOWN|ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_SOCKET|CERT_HAS_EXPIRED|UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|fetch failed)\b/

/** Whether a run's error says the portal could not be reached at all. */
export const isUnreachable = (message: string | null): boolean =>
  message !== null && UNREACHABLE.test(message)

/** What serves meanwhile (SyncOverview.serving). */
export interface Serving {
  source: 'mirror' | 'sample' | 'none'
  as_of: string | null
}

export interface RegulatorState {
  /** false while the newest finished sync runs could not reach the portal */
  reachable: boolean
  /** the first unreachable run since the last successful one (ISO), when unreachable */
  since: string | null
  /** the portal (FMCSA_BASE_URL) */
  url: string
  /** the one sentence to show (null when reachable) */
  sentence: string | null
}

/**
 * The portal's state from the live sync runs: unreachable when the newest finished run failed to
 * reach it, since the first such failure after the last success.
 */
export function regulatorState(
  db: Sqlite,
  config: Pick<Config, 'sync'>,
  serving: Serving,
): RegulatorState {
  const url = config.sync.baseUrl
  const failures = failuresSinceLastSuccess(db)
  const newest = failures[failures.length - 1]
  if (!newest || !isUnreachable(newest.error))
    return { reachable: true, since: null, url, sentence: null }
  const first = failures.find((f) => isUnreachable(f.error)) ?? newest
  const since = new Date(first.startedAt).toISOString()
  return { reachable: false, since, url, sentence: offlineSentence(url, since, serving) }
}

/** The one sentence: the portal, since when, what serves, and the two ways forward. */
export function offlineSentence(url: string, since: string, serving: Serving): string {
  const what =
    serving.source === 'mirror'
      ? `the mirror as of ${serving.as_of ?? '?'} is still served`
      : serving.source === 'sample'
        ? `only the bundled SAMPLE data (fictitious companies, as of ${serving.as_of ?? '?'}) is served`
        : 'no data is served'
  return (
    `The regulator's portal (${url}) cannot be reached since ${since.slice(0, 16).replace('T', ' ')} UTC; ` +
    `${what}. Either import files carried in by hand (\`carrier-verify import --dir PATH\`, ` +
    `docs/data.md "Air-gapped networks") or check this host's network and FMCSA_BASE_URL.`
  )
}
