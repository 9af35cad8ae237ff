/**
 * The checks ledger (app.db `checks`): append-only, one hash chain per account. Each row's hash is
 * sha256(prev_hash + "\n" + document) over the document text exactly as stored, and is signed with
 * the appliance's Ed25519 key. `verifyLedger` walks every chain and reports the first break;
 * `pruneLedger` deletes a chain's oldest rows past retention and records the last pruned hash as
 * the chain's anchor, so what remains still verifies.
 */
import { createHash } from 'node:crypto'
import type { Sqlite } from '../db/open.ts'
import type { KeyObject } from 'node:crypto'
import { proveKeys, publicKeys, verifySignature, type Signer } from './signing.ts'

export const GENESIS = '0'.repeat(64)

export const chainHash = (prevHash: string, document: string) =>
  createHash('sha256').update(`${prevHash}\n${document}`, 'utf8').digest('hex')

export type Chain = 'live' | 'test'

export interface LedgerEntry {
  kind: 'check' | 'override'
  /** the account's live chain, or its sandbox chain (checks made with test keys) */
  chain: Chain
  id: string
  checkId: string
  accountId: number
  apiKeyId: number | null
  dotNumber: number
  reference: string | null
  verdict: 'pass' | 'review' | 'fail'
  createdAt: number
  document: string
}

export interface LedgerRow extends LedgerEntry {
  seq: number
  prevHash: string
  hash: string
  signingKeyId: string
  signature: string
}

export const ROW_COLUMNS = `seq, id, kind, check_id AS checkId, account_id AS accountId, api_key_id AS apiKeyId,
  dot_number AS dotNumber, reference, verdict, created_at AS createdAt, document, prev_hash AS prevHash,
  hash, signing_key_id AS signingKeyId, signature, chain`

/** The hash a chain's next row chains to: its last row's, else its anchor's, else GENESIS. */
function headOf(db: Sqlite, accountId: number, chain: Chain): string {
  const last = db
    .prepare('SELECT hash FROM checks WHERE account_id = ? AND chain = ? ORDER BY seq DESC LIMIT 1')
    .get(accountId, chain) as { hash: string } | undefined
  if (last) return last.hash
  const anchor = db
    .prepare('SELECT hash FROM check_chain_anchors WHERE account_id = ? AND chain = ?')
    .get(accountId, chain) as { hash: string } | undefined
  return anchor?.hash ?? GENESIS
}

/** Appends one signed row at the head of the account's chain (one IMMEDIATE transaction). */
export function appendEntry(db: Sqlite, signer: Signer, e: LedgerEntry): LedgerRow {
  return db
    .transaction(() => {
      const prevHash = headOf(db, e.accountId, e.chain)
      const hash = chainHash(prevHash, e.document)
      const signature = signer.sign(hash)
      const r = db
        .prepare(
          `INSERT INTO checks (id, kind, check_id, account_id, api_key_id, dot_number, reference, verdict,
             created_at, document, prev_hash, hash, signing_key_id, signature, chain)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          e.id,
          e.kind,
          e.checkId,
          e.accountId,
          e.apiKeyId,
          e.dotNumber,
          e.reference,
          e.verdict,
          e.createdAt,
          e.document,
          prevHash,
          hash,
          signer.keyId,
          signature,
          e.chain,
        )
      return {
        ...e,
        seq: Number(r.lastInsertRowid),
        prevHash,
        hash,
        signingKeyId: signer.keyId,
        signature,
      }
    })
    .immediate()
}

export interface ChainBreak {
  account_id: number
  chain: Chain
  seq: number
  id: string
  problem: string
}

export interface VerifyReport {
  ok: boolean
  accounts: number
  rows: number
  /** the first break found (accounts in id order, rows in chain order) */
  first_break: ChainBreak | null
  /** the keys the rows were verified with */
  keys: { key_id: string; fingerprint: string }[]
  /** the fingerprint(s) the key history was followed from, and whether they were pinned */
  trusted_from: string[]
  pinned: boolean
  /** keys or key changes that cannot be proven, each naming the key */
  key_problems: string[]
}

/** Problems of one row against the hash it should chain to (empty when sound). */
export function rowProblems(
  row: LedgerRow,
  expectedPrev: string,
  keys: ReadonlyMap<string, KeyObject | null>,
): string | null {
  if (row.prevHash !== expectedPrev)
    return `prev_hash ${row.prevHash.slice(0, 12)}… does not match the previous row's hash ${expectedPrev.slice(0, 12)}… (a row was deleted, inserted or reordered)`
  if (chainHash(row.prevHash, row.document) !== row.hash)
    return 'hash does not match the document (the document was changed)'
  const key = keys.get(row.signingKeyId)
  if (!key) return `unknown or unproven signing key ${row.signingKeyId}`
  if (!verifySignature(key, row.hash, row.signature)) return 'signature does not verify'
  let doc: Record<string, unknown>
  try {
    doc = JSON.parse(row.document) as Record<string, unknown>
  } catch {
    return 'document is not JSON'
  }
  const idKey = row.kind === 'check' ? 'check_id' : 'override_id'
  if (doc[idKey] !== row.id || doc['account_id'] !== row.accountId || doc['type'] !== row.kind)
    return 'indexed columns (id, kind, account) do not match the signed document'
  if (
    row.kind === 'check' &&
    (doc['verdict'] !== row.verdict || doc['dot_number'] !== String(row.dotNumber))
  )
    return 'indexed columns (verdict, dot_number) do not match the signed document'
  return null
}

/**
 * Walks every account's chain (or one account's) and reports the first break. Rows count only
 * when signed by a key the key history proves from `pins` (else from the single first key).
 */
export function verifyLedger(
  db: Sqlite,
  accountId?: number,
  pins: readonly string[] = [],
): VerifyReport {
  const proof = proveKeys(publicKeys(db), pins)
  const keys = new Map([...proof.proven].map(([id, k]) => [id, k.key]))
  const used = new Set<string>()
  const chains = db
    .prepare(
      `SELECT DISTINCT account_id AS a, chain FROM checks ${accountId === undefined ? '' : 'WHERE account_id = ?'} ORDER BY a, chain`,
    )
    .all(...(accountId === undefined ? [] : [accountId])) as { a: number; chain: Chain }[]
  const accounts = new Set(chains.map((c) => c.a)).size || (accountId === undefined ? 0 : 1)
  const rowsOf = db.prepare(
    `SELECT ${ROW_COLUMNS} FROM checks WHERE account_id = ? AND chain = ? ORDER BY seq`,
  )
  const anchorOf = db.prepare(
    'SELECT hash FROM check_chain_anchors WHERE account_id = ? AND chain = ?',
  )
  let rows = 0
  let firstBreak: ChainBreak | null = null
  outer: for (const { a, chain } of chains) {
    let prev = (anchorOf.get(a, chain) as { hash: string } | undefined)?.hash ?? GENESIS
    for (const row of rowsOf.iterate(a, chain) as IterableIterator<LedgerRow>) {
      rows++
      const problem = rowProblems(row, prev, keys)
      if (problem) {
        firstBreak = { account_id: a, chain, seq: row.seq, id: row.id, problem }
        break outer
      }
      used.add(row.signingKeyId)
      prev = row.hash
    }
  }
  return {
    ok: firstBreak === null && proof.problems.length === 0,
    accounts,
    rows,
    first_break: firstBreak,
    keys: [...used].sort().map((id) => ({
      key_id: id,
      fingerprint: proof.proven.get(id)?.fingerprint ?? '',
    })),
    trusted_from: proof.roots,
    pinned: proof.pinned,
    key_problems: proof.problems,
  }
}

/**
 * Deletes every account's rows created before `cutoff` (oldest first, stopping at the first newer
 * row so only a prefix of a chain goes) and moves the chain's anchor to the last deleted row.
 */
export function pruneLedger(
  db: Sqlite,
  cutoff: number,
  now: number,
): { deleted: number; accounts: number } {
  return db
    .transaction(() => {
      const chains = db
        .prepare('SELECT DISTINCT account_id AS a, chain FROM checks WHERE created_at < ?')
        .all(cutoff) as { a: number; chain: Chain }[]
      let deleted = 0
      for (const { a, chain } of chains) {
        const firstKept = db
          .prepare(
            'SELECT seq FROM checks WHERE account_id = ? AND chain = ? AND created_at >= ? ORDER BY seq LIMIT 1',
          )
          .get(a, chain, cutoff) as { seq: number } | undefined
        const last = db
          .prepare(
            'SELECT seq, hash FROM checks WHERE account_id = ? AND chain = ? AND seq < ? ORDER BY seq DESC LIMIT 1',
          )
          .get(a, chain, firstKept?.seq ?? Number.MAX_SAFE_INTEGER) as
          { seq: number; hash: string } | undefined
        if (!last) continue
        const n = db
          .prepare('DELETE FROM checks WHERE account_id = ? AND chain = ? AND seq <= ?')
          .run(a, chain, last.seq).changes
        deleted += n
        db.prepare(
          `INSERT INTO check_chain_anchors (account_id, chain, seq, hash, pruned, pruned_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (account_id, chain) DO UPDATE SET seq = excluded.seq, hash = excluded.hash,
             pruned = check_chain_anchors.pruned + excluded.pruned, pruned_at = excluded.pruned_at`,
        ).run(a, chain, last.seq, last.hash, n, now)
      }
      return { deleted, accounts: new Set(chains.map((c) => c.a)).size }
    })
    .immediate()
}
