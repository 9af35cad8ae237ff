/** app.db tables: vetting policies, stored checks and their signing chain (checks/). */
import { sql } from 'drizzle-orm'
import {
  check,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core'
import { ts } from './columns.ts'
import { accounts } from './keys.ts'

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
