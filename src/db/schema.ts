/**
 * app.db: the appliance's own state (accounts, keys, usage, syncs, webhooks, reviews).
 * drizzle owns this file; `npm run db:generate` writes migrations/ from it. Timestamps are
 * Unix ms in UTC, enums are text with a CHECK.
 */
import { sql } from 'drizzle-orm'
import {
  check,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core'

const ts = (name?: string) => (name ? integer(name) : integer())

export const accounts = sqliteTable('accounts', {
  id: integer().primaryKey(),
  name: text().notNull(),
  email: text(),
  suspendedAt: ts(),
  suspendedReason: text(),
  createdAt: ts().notNull(),
})

export const subscriptions = sqliteTable(
  'subscriptions',
  {
    id: integer().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    plan: text().notNull(),
    interval: text().notNull(),
    status: text().notNull(),
    periodStart: ts().notNull(),
    /** null = no end (free plan) */
    periodEnd: ts(),
    /** enterprise: custom monthly included lookups and overage price */
    includedOverride: integer(),
    overageMillsOverride: integer(),
    createdAt: ts().notNull(),
    canceledAt: ts(),
    endedAt: ts(),
  },
  (t) => [
    index('subscriptions_account').on(t.accountId, t.endedAt),
    check(
      'subscriptions_plan',
      sql`${t.plan} IN ('free','starter','professional','scale','enterprise')`,
    ),
    check('subscriptions_interval', sql`${t.interval} IN ('none','monthly','yearly')`),
    check('subscriptions_status', sql`${t.status} IN ('active','canceled','past_due','none')`),
  ],
)

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: integer().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    mode: text().notNull(),
    hash: text().notNull(),
    start: text().notNull(),
    name: text(),
    createdAt: ts().notNull(),
    expiresAt: ts(),
    revokedAt: ts(),
    lastUsedAt: ts(),
    rotatedFromId: integer(),
    /** space-separated permissions beyond lookups: `override` (may override checks) */
    scopes: text().notNull().default(''),
  },
  (t) => [
    uniqueIndex('api_keys_hash').on(t.hash),
    index('api_keys_account').on(t.accountId),
    check('api_keys_mode', sql`${t.mode} IN ('live','test')`),
  ],
)

export const usageCounters = sqliteTable(
  'usage_counters',
  {
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    /** YYYY-MM (UTC) */
    period: text().notNull(),
    used: integer().notNull(),
    /** billed calls refused at the Free cap, for the usage report */
    refused: integer().notNull().default(0),
    updatedAt: ts(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.period] })],
)

export const quotaAlerts = sqliteTable(
  'quota_alerts',
  {
    id: integer().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    period: text().notNull(),
    kind: text().notNull(),
    used: integer().notNull(),
    quotaLimit: integer().notNull(),
    createdAt: ts().notNull(),
  },
  (t) => [
    uniqueIndex('quota_alerts_once').on(t.accountId, t.period, t.kind),
    check('quota_alerts_kind', sql`${t.kind} IN ('threshold_80','exhausted')`),
  ],
)

export const datasetVersions = sqliteTable(
  'dataset_versions',
  {
    id: integer().primaryKey(),
    dataset: text().notNull(),
    channel: text().notNull(),
    status: text().notNull(),
    path: text().notNull(),
    rows: integer(),
    rejects: integer(),
    /** JSON: up to 20 rejected rows {file, line, reason} */
    rejectSamples: text(),
    /** JSON: per source file {id, url, etag, lastModified, sha256, bytes, rows, rejects} */
    files: text(),
    /**
     * YYYY-MM-DD: the regulator's date of the data (the portal's Last-Modified of a download, the
     * file's own date of an import, a frozen file's freeze date)
     */
    asOf: text(),
    createdAt: ts().notNull(),
    finishedAt: ts(),
    activatedAt: ts(),
    error: text(),
    /** when the data arrived (the run that built it finished); a rollback does not change it */
    importedAt: ts(),
    /**
     * when the regulator last vouched for the data: the activation of a download, the file's own
     * date of an import (the freshness limit of trust_verified is measured from it)
     */
    confirmedAt: ts(),
  },
  (t) => [
    index('dataset_versions_active').on(t.dataset, t.channel, t.status),
    check('dataset_versions_channel', sql`${t.channel} IN ('live','sample')`),
    check(
      'dataset_versions_status',
      sql`${t.status} IN ('building','active','superseded','failed','deleted')`,
    ),
  ],
)

export const syncRuns = sqliteTable(
  'sync_runs',
  {
    id: integer().primaryKey(),
    dataset: text().notNull(),
    trigger: text().notNull(),
    /** the dataset channel built ('live' mirror or bundled 'sample') */
    channel: text().notNull().default('live'),
    status: text().notNull(),
    /** the lease holder running it: a `running` run whose holder holds no lease is orphaned */
    holder: text(),
    startedAt: ts().notNull(),
    finishedAt: ts(),
    versionId: integer(),
    error: text(),
    /** JSON: counters and timings */
    stats: text(),
  },
  (t) => [
    index('sync_runs_dataset').on(t.dataset, t.startedAt),
    // every lookup asks when each daily dataset was last confirmed unchanged (carriers/data-check.ts):
    // an index seek instead of a scan of the dataset's whole run history
    index('sync_runs_confirmed').on(t.dataset, t.status, t.finishedAt),
    check(
      'sync_runs_status',
      sql`${t.status} IN ('running','activated','unchanged','not_yet','failed','skipped','interrupted')`,
    ),
  ],
)

/** Last seen state of each remote file: conditional requests and the raw copy kept for rebuilds. */
export const sourceFiles = sqliteTable('source_files', {
  fileId: text().primaryKey(),
  url: text().notNull(),
  path: text(),
  etag: text(),
  lastModified: text(),
  sha256: text(),
  bytes: integer(),
  checkedAt: ts(),
  changedAt: ts(),
})

export const leases = sqliteTable('leases', {
  name: text().primaryKey(),
  holder: text().notNull(),
  acquiredAt: ts().notNull(),
  expiresAt: ts().notNull(),
  /** the holder process: on its own host a dead pid frees the lease at once */
  pid: integer(),
  host: text(),
  /** last heartbeat of a heartbeating lease (dataset runs); a stale one frees the lease */
  heartbeatAt: ts(),
})

/** One row, rewritten by every `/readyz`: a real commit proves app.db can be written. */
export const healthProbe = sqliteTable('health_probe', {
  id: integer().primaryKey(),
  checkedAt: ts().notNull(),
})

export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: integer().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    url: text().notNull(),
    secret: text().notNull(),
    previousSecret: text(),
    previousSecretExpiresAt: ts(),
    /** JSON array of event types; null = all */
    events: text(),
    status: text().notNull(),
    disabledReason: text(),
    consecutiveFailures: integer().notNull().default(0),
    createdAt: ts().notNull(),
    disabledAt: ts(),
    removedAt: ts(),
  },
  (t) => [
    index('webhook_endpoints_account').on(t.accountId),
    check('webhook_endpoints_status', sql`${t.status} IN ('enabled','disabled')`),
  ],
)

/** The outbox: one row per event, written in the same transaction as its cause. */
export const webhookEvents = sqliteTable(
  'webhook_events',
  {
    id: text().primaryKey(),
    accountId: integer(),
    type: text().notNull(),
    /** JSON payload `data` */
    data: text().notNull(),
    createdAt: ts().notNull(),
    /** set once deliveries have been fanned out to the account's endpoints */
    dispatchedAt: ts(),
  },
  (t) => [index('webhook_events_pending').on(t.dispatchedAt)],
)

export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: integer().primaryKey(),
    eventId: text()
      .notNull()
      .references(() => webhookEvents.id),
    endpointId: integer()
      .notNull()
      .references(() => webhookEndpoints.id),
    status: text().notNull(),
    attempts: integer().notNull().default(0),
    nextAttemptAt: ts(),
    firstAttemptAt: ts(),
    lastAttemptAt: ts(),
    lastStatusCode: integer(),
    lastError: text(),
    createdAt: ts().notNull(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_once').on(t.eventId, t.endpointId),
    index('webhook_deliveries_due').on(t.status, t.nextAttemptAt),
    check(
      'webhook_deliveries_status',
      sql`${t.status} IN ('pending','delivering','succeeded','failed','abandoned')`,
    ),
  ],
)

export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: integer().primaryKey(),
    deliveryId: integer()
      .notNull()
      .references(() => webhookDeliveries.id),
    attemptedAt: ts().notNull(),
    statusCode: integer(),
    error: text(),
    durationMs: integer(),
  },
  (t) => [index('webhook_attempts_delivery').on(t.deliveryId)],
)

export const watchlist = sqliteTable(
  'watchlist',
  {
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    dotNumber: integer().notNull(),
    note: text(),
    createdAt: ts().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.dotNumber] }),
    index('watchlist_dot').on(t.dotNumber),
  ],
)

/** Snapshot of watched facts per USDOT at the last comparison, to diff against the next version. */
export const watchSnapshots = sqliteTable('watch_snapshots', {
  dotNumber: integer().primaryKey(),
  /** JSON of the watched fields */
  facts: text().notNull(),
  versionKey: text().notNull(),
  updatedAt: ts().notNull(),
})

export const reviews = sqliteTable(
  'reviews',
  {
    id: integer().primaryKey(),
    dotNumber: integer().notNull(),
    stars: integer().notNull(),
    title: text(),
    body: text(),
    reviewDate: text().notNull(),
    experienceType: text().notNull(),
    author: text(),
    verified: integer({ mode: 'boolean' }).notNull().default(true),
    source: text().notNull(),
    externalId: text(),
    createdAt: ts().notNull(),
  },
  (t) => [
    index('reviews_dot').on(t.dotNumber),
    uniqueIndex('reviews_external').on(t.source, t.externalId),
    check('reviews_stars', sql`${t.stars} BETWEEN 1 AND 5`),
  ],
)

export const externalReviews = sqliteTable(
  'external_reviews',
  {
    id: integer().primaryKey(),
    dotNumber: integer().notNull(),
    source: text().notNull(),
    overallRating: real(),
    totalReviews: integer().notNull(),
    latestReviewDate: text(),
    latestReviewText: text(),
    updatedAt: ts().notNull(),
  },
  (t) => [uniqueIndex('external_reviews_source').on(t.dotNumber, t.source)],
)

/** Billed calls per account and UTC day, for the console's daily chart (kept with usage_counters). */
export const usageDaily = sqliteTable(
  'usage_daily',
  {
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    /** YYYY-MM-DD (UTC) */
    day: text().notNull(),
    used: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day] })],
)

/** People who sign in to the console (never API keys). A member belongs to one account. */
export const consoleUsers = sqliteTable(
  'console_users',
  {
    id: integer().primaryKey(),
    /** lower-cased */
    email: text().notNull(),
    role: text().notNull(),
    accountId: integer().references(() => accounts.id),
    /** `scrypt$N$r$p$salt$hash` (base64); null until set through a one-time link */
    passwordHash: text(),
    createdAt: ts().notNull(),
    disabledAt: ts(),
    lastSignInAt: ts(),
  },
  (t) => [
    uniqueIndex('console_users_email').on(t.email),
    check('console_users_role', sql`${t.role} IN ('admin','member')`),
    check(
      'console_users_member_account',
      sql`(${t.role} = 'admin' AND ${t.accountId} IS NULL) OR (${t.role} = 'member' AND ${t.accountId} IS NOT NULL)`,
    ),
  ],
)

/** Server-side console sessions: the cookie holds a random token, the row its SHA-256. */
export const consoleSessions = sqliteTable(
  'console_sessions',
  {
    id: text().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => consoleUsers.id),
    csrfToken: text().notNull(),
    address: text(),
    createdAt: ts().notNull(),
    lastSeenAt: ts().notNull(),
    expiresAt: ts().notNull(),
    /** one-shot message shown on the next page */
    flash: text(),
  },
  (t) => [index('console_sessions_user').on(t.userId)],
)

/** One-time set-password links (the token's SHA-256). */
export const passwordTokens = sqliteTable('password_tokens', {
  id: text().primaryKey(),
  userId: integer()
    .notNull()
    .references(() => consoleUsers.id),
  createdAt: ts().notNull(),
  expiresAt: ts().notNull(),
  usedAt: ts(),
})

/** Every console action (and user administration from the CLI): who, what, when, from where. */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer().primaryKey(),
    at: ts().notNull(),
    userId: integer(),
    /** the user's e-mail, or `cli` */
    actor: text().notNull(),
    action: text().notNull(),
    accountId: integer(),
    target: text(),
    /** JSON */
    detail: text(),
    address: text(),
  },
  (t) => [index('audit_log_at').on(t.at)],
)
/** Vetting policies (checks/): every change is a new version; account 0 = the appliance default. */
export const checkPolicies = sqliteTable(
  'check_policies',
  {
    id: integer().primaryKey(),
    /** 0 = the appliance default; otherwise the account it applies to */
    accountId: integer().notNull(),
    version: integer().notNull(),
    /** the validated policy as JSON */
    document: text().notNull(),
    /** sha256 of `document` */
    sha256: text().notNull(),
    createdAt: ts().notNull(),
    /** who set it: a console user's e-mail or `cli:<name>` */
    author: text(),
  },
  (t) => [uniqueIndex('check_policies_version').on(t.accountId, t.version)],
)

/**
 * The checks ledger: one signed JSON document per check (kind `check`) or recorded override
 * (kind `override`), hash-chained per account. Rows are never updated; retention deletes the
 * oldest prefix of a chain and records its last hash in check_chain_anchors.
 */
export const checks = sqliteTable(
  'checks',
  {
    seq: integer().primaryKey({ autoIncrement: true }),
    id: text().notNull(),
    kind: text().notNull(),
    /** the check this row is or overrides */
    checkId: text().notNull(),
    accountId: integer().notNull(),
    apiKeyId: integer(),
    dotNumber: integer().notNull(),
    reference: text(),
    verdict: text().notNull(),
    createdAt: ts().notNull(),
    /** the signed JSON document, byte for byte */
    document: text().notNull(),
    /** hash of the account's previous row (64 zeros for the first, or the anchor's hash) */
    prevHash: text().notNull(),
    /** sha256 hex of `prevHash + "\n" + document` */
    hash: text().notNull(),
    signingKeyId: text().notNull(),
    /** Ed25519 signature of `hash` (base64) */
    signature: text().notNull(),
    /** the account's chain: `live` checks, or `test` (sandbox keys), each chained on its own */
    chain: text().notNull().default('live'),
  },
  (t) => [
    uniqueIndex('checks_id').on(t.id),
    index('checks_account_seq').on(t.accountId, t.seq),
    index('checks_account_dot').on(t.accountId, t.dotNumber, t.createdAt),
    index('checks_account_reference').on(t.accountId, t.reference),
    index('checks_check').on(t.checkId),
    check('checks_kind', sql`${t.kind} IN ('check','override')`),
    check('checks_verdict', sql`${t.verdict} IN ('pass','review','fail')`),
    check('checks_chain', sql`${t.chain} IN ('live','test')`),
  ],
)

/** Public halves of the check signing keys (private halves are files in DATA_DIR, mode 0600). */
export const checkSigningKeys = sqliteTable('check_signing_keys', {
  keyId: text().primaryKey(),
  /** SPKI PEM */
  publicKey: text().notNull(),
  createdAt: ts().notNull(),
  retiredAt: ts(),
  /** sha256 hex of the SPKI DER public key (key_id is its first 16 digits) */
  fingerprint: text(),
  /** the key's introduction (JSON text), signed by the previous key (the first key by itself) */
  introduction: text(),
  /** Ed25519 signature (base64) of sha256(introduction) by `introducedBy` */
  introductionSignature: text(),
  introducedBy: text(),
})

/** Where an account's chain starts after retention pruned its oldest rows. */
export const checkChainAnchors = sqliteTable(
  'check_chain_anchors',
  {
    accountId: integer().notNull(),
    chain: text().notNull().default('live'),
    /** the last pruned row */
    seq: integer().notNull(),
    hash: text().notNull(),
    pruned: integer().notNull(),
    prunedAt: ts().notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.chain] })],
)

/** Where an account publishes its chain heads (checks/anchors.ts): a webhook event, a TSA, both. */
export const checkAnchorSettings = sqliteTable('check_anchor_settings', {
  accountId: integer()
    .primaryKey()
    .references(() => accounts.id),
  /** publish `checks.anchor` through the webhook outbox */
  webhook: integer({ mode: 'boolean' }).notNull().default(false),
  /** an RFC 3161 time-stamp authority (http or https URL), or null */
  tsaUrl: text(),
  updatedAt: ts().notNull(),
})

/**
 * Each publication of an account chain's head: the signed statement (account, chain, sequence,
 * head hash, time) and the destination's answer (the outbox event id, or the TSA's
 * TimeStampResp), or why it failed. Never updated.
 */
export const checkAnchors = sqliteTable(
  'check_anchors',
  {
    id: integer().primaryKey(),
    accountId: integer().notNull(),
    chain: text().notNull(),
    seq: integer().notNull(),
    headHash: text().notNull(),
    anchoredAt: ts().notNull(),
    destination: text().notNull(),
    /** the statement's JSON text, signed: Ed25519 over sha256(statement) */
    statement: text().notNull(),
    keyId: text().notNull(),
    signature: text().notNull(),
    status: text().notNull(),
    /** the webhook_events id of a webhook anchor */
    eventId: text(),
    tsaUrl: text(),
    /** the TSA's TimeStampResp (DER, base64) */
    tsaResponse: text(),
    /** the token's genTime (ISO) */
    tsaTime: text(),
    error: text(),
  },
  (t) => [
    index('check_anchors_account').on(t.accountId, t.chain, t.seq),
    check('check_anchors_destination', sql`${t.destination} IN ('webhook','tsa')`),
    check('check_anchors_status', sql`${t.status} IN ('sent','failed')`),
  ],
)

/** Who receives which kind of e-mail for an account (mail/recipients.ts). */
export const mailRecipients = sqliteTable(
  'mail_recipients',
  {
    id: integer().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    email: text().notNull(),
    /** quota | watchlist | verdicts */
    kind: text().notNull(),
    /** the List-Unsubscribe link's secret */
    unsubscribeToken: text().notNull(),
    createdAt: ts().notNull(),
    removedAt: ts(),
  },
  (t) => [
    index('mail_recipients_account').on(t.accountId, t.kind),
    uniqueIndex('mail_recipients_token').on(t.unsubscribeToken),
    check('mail_recipients_kind', sql`${t.kind} IN ('quota','watchlist','verdicts')`),
  ],
)

/** The e-mail queue: one row per message and recipient, sent by the mail:deliver job. */
export const mailMessages = sqliteTable(
  'mail_messages',
  {
    id: integer().primaryKey(),
    /** null: a contact code (sent to a company, not to an account's recipient) */
    accountId: integer(),
    recipientId: integer(),
    /** quota | watchlist | verdicts | contact_code | test */
    kind: text().notNull(),
    toAddress: text().notNull(),
    subject: text().notNull(),
    text: text().notNull(),
    html: text().notNull(),
    unsubscribeToken: text(),
    status: text().notNull(),
    attempts: integer().notNull().default(0),
    nextAttemptAt: ts(),
    firstAttemptAt: ts(),
    lastAttemptAt: ts(),
    lastError: text(),
    /** the server's answer to the last attempt (e.g. `250 2.0.0 OK`) */
    lastResponse: text(),
    /** past it the message is given up (a contact code's expiry) */
    expiresAt: ts(),
    createdAt: ts().notNull(),
  },
  (t) => [
    index('mail_messages_due').on(t.status, t.nextAttemptAt),
    index('mail_messages_account').on(t.accountId),
    check(
      'mail_messages_status',
      sql`${t.status} IN ('pending','sending','sent','failed','abandoned')`,
    ),
  ],
)

export const mailAttempts = sqliteTable(
  'mail_attempts',
  {
    id: integer().primaryKey(),
    messageId: integer()
      .notNull()
      .references(() => mailMessages.id),
    attemptedAt: ts().notNull(),
    error: text(),
    response: text(),
    durationMs: integer(),
  },
  (t) => [index('mail_attempts_message').on(t.messageId)],
)

/** Watchlist changes waiting for the account's next hourly digest. */
export const mailDigestItems = sqliteTable(
  'mail_digest_items',
  {
    id: integer().primaryKey(),
    accountId: integer().notNull(),
    /** the carrier.changed event's data (JSON) */
    data: text().notNull(),
    createdAt: ts().notNull(),
  },
  (t) => [index('mail_digest_items_account').on(t.accountId)],
)

/** How far the mail job has read a source (quota_alerts ids, webhook_events rowids). */
export const mailCursors = sqliteTable('mail_cursors', {
  source: text().primaryKey(),
  position: integer().notNull(),
})

/** Addresses that asked for no more contact codes (their List-Unsubscribe link). */
export const mailSuppressions = sqliteTable('mail_suppressions', {
  email: text().primaryKey(),
  createdAt: ts().notNull(),
})

/** One-time codes sent to the e-mail address on a company's FMCSA record. */
export const contactVerifications = sqliteTable(
  'contact_verifications',
  {
    id: text().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    apiKeyId: integer(),
    dotNumber: integer().notNull(),
    channel: text().notNull(),
    /** the address on file the code went to */
    sentTo: text().notNull(),
    /** HMAC-SHA256 of the code under `salt` (hex) */
    codeHash: text().notNull(),
    salt: text().notNull(),
    tries: integer().notNull().default(0),
    /** pending | verified | locked */
    status: text().notNull(),
    messageId: integer(),
    createdAt: ts().notNull(),
    expiresAt: ts().notNull(),
    verifiedAt: ts(),
  },
  (t) => [
    index('contact_verifications_dot').on(t.dotNumber, t.createdAt),
    index('contact_verifications_account').on(t.accountId, t.createdAt),
    check('contact_verifications_status', sql`${t.status} IN ('pending','verified','locked')`),
  ],
)

/**
 * The history of every carrier's identity and contact fields (identity/history.ts): one row per
 * field change, new USDOT number (`field` = 'usdot_number', from null) or vanished one (to null),
 * first seen in the census version of `seen_at` (its data date). Kept outside the dataset
 * versions so it survives swaps, rollbacks and restarts; pruned after HISTORY_RETENTION_YEARS.
 */
export const identityChanges = sqliteTable(
  'identity_changes',
  {
    id: integer().primaryKey(),
    /** 'live' or 'sample' */
    channel: text().notNull(),
    dotNumber: integer().notNull(),
    field: text().notNull(),
    fromValue: text(),
    toValue: text(),
    /** YYYY-MM-DD: the data date of the census version that first showed it */
    seenAt: text().notNull(),
    comparisonId: integer().notNull(),
  },
  (t) => [
    index('identity_changes_dot').on(t.channel, t.dotNumber, t.seenAt, t.id),
    index('identity_changes_seen').on(t.seenAt),
  ],
)

/**
 * Each census comparison the history made (which version pair, with what result), and the
 * baseline (a first version, `from_version` null) from which the history runs.
 */
export const identityComparisons = sqliteTable(
  'identity_comparisons',
  {
    id: integer().primaryKey(),
    channel: text().notNull(),
    fromVersion: integer(),
    toVersion: integer().notNull(),
    fromAsOf: text(),
    toAsOf: text().notNull(),
    changed: integer().notNull(),
    added: integer().notNull(),
    removed: integer().notNull(),
    changes: integer().notNull(),
    seconds: real().notNull(),
    comparedAt: ts().notNull(),
  },
  (t) => [index('identity_comparisons_channel').on(t.channel, t.id)],
)

/** An account's own blocked identifiers (blocklist/), each with its reason and who added it. */
export const blocklistEntries = sqliteTable(
  'blocklist_entries',
  {
    id: integer().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    type: text().notNull(),
    /** normalised: USDOT digits, MC number digits, E.164 phone, lower-case e-mail, upper-case VIN */
    value: text().notNull(),
    reason: text().notNull(),
    createdAt: ts().notNull(),
    /** `key:<start>`, `user:<email>` or `cli` */
    createdBy: text().notNull(),
  },
  (t) => [
    uniqueIndex('blocklist_entries_account_value').on(t.accountId, t.type, t.value),
    index('blocklist_entries_value').on(t.type, t.value),
    check(
      'blocklist_entries_type',
      sql`${t.type} IN ('usdot','mc','phone','email','vin','officer','address')`,
    ),
  ],
)

/**
 * Spreadsheet onboarding (onboarding/): one job per uploaded list of companies. `draft` is a
 * console upload shown for preview; `queued` and `running` are picked up by the onboarding job (at
 * most one of them per account); `done` and `failed` are final.
 */
export const onboardings = sqliteTable(
  'onboardings',
  {
    id: text().primaryKey(),
    accountId: integer().notNull(),
    /** the API key that started it; null when started from the console */
    apiKeyId: integer(),
    /** live | test: which data the checks read and whether they are billed */
    mode: text().notNull(),
    status: text().notNull(),
    /** the uploaded file's name, or null for a JSON request */
    fileName: text(),
    /** the accepted rows */
    rows: integer().notNull(),
    /** JSON array of the rows that could not be read: {row, input, reason} */
    rejected: text().notNull(),
    /** why a failed onboarding stopped (quota, account suspended) */
    error: text(),
    createdBy: text(),
    createdAt: ts().notNull(),
    startedAt: ts(),
    finishedAt: ts(),
  },
  (t) => [
    index('onboardings_account').on(t.accountId, t.createdAt),
    index('onboardings_status').on(t.status),
    check(
      'onboardings_status_check',
      sql`${t.status} IN ('draft','queued','running','done','failed')`,
    ),
    check('onboardings_mode', sql`${t.mode} IN ('live','test')`),
  ],
)

/** One company of an onboarding, with its outcome once processed. */
export const onboardingRows = sqliteTable(
  'onboarding_rows',
  {
    onboardingId: text().notNull(),
    /** the row number in the file (1 = the first data row) or the index in the JSON list + 1 */
    row: integer().notNull(),
    /** dot | mc */
    kind: text().notNull(),
    /** the normalised identifier (USDOT digits, or the docket as given: MC-123456) */
    value: text().notNull(),
    reference: text(),
    /** pending | claimed (in flight) | checked | not_found | error */
    status: text().notNull(),
    /** when it was claimed (ms): a check stored after it belongs to this row after a crash */
    claimedAt: ts(),
    checkId: text(),
    verdict: text(),
    /** JSON array of the reasons of the rules that did not pass */
    reasons: text(),
    message: text(),
  },
  (t) => [
    primaryKey({ columns: [t.onboardingId, t.row] }),
    index('onboarding_rows_status').on(t.onboardingId, t.status),
    check('onboarding_rows_kind', sql`${t.kind} IN ('dot','mc')`),
    check(
      'onboarding_rows_status_check',
      sql`${t.status} IN ('pending','claimed','checked','not_found','error')`,
    ),
  ],
)
