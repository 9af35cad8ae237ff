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
