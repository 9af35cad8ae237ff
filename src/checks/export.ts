/**
 * `checks export`: an account's checks and overrides in a time range, as a folder a third party
 * can verify without the appliance: checks.jsonl (one ledger entry a line, the signed document as
 * its exact text), pages/<check_id>.html (one readable page per check), public-keys.json and
 * .pem files, chain.json (where the exported segment sits in the chain), verify.mjs and README.txt.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Sqlite } from '../db/open.ts'
import { checkPage } from './html.ts'
import { ROW_COLUMNS, type LedgerRow } from './ledger.ts'
import { timeRange } from './list.ts'
import type { CheckDocument, OverrideDocument } from './schema.ts'
import { publicKeys } from './signing.ts'
import { VERIFY_SCRIPT } from './verify-script.ts'

export interface ExportOptions {
  accountId: number
  from?: string | undefined
  to?: string | undefined
  out: string
  now: Date
}

export interface ExportResult {
  dir: string
  entries: number
  checks: number
  overrides: number
  first_prev_hash: string | null
  last_hash: string | null
}

const README = `carrier-verify checks export
============================

checks.jsonl      one signed entry a line (a check or a recorded override), in chain order:
                  {seq, kind, id, check_id, account_id, created_at, prev_hash, hash, key_id,
                   signature, document}; "document" is the signed JSON text, byte for byte.
pages/            one human-readable page per check (HTML, self-contained).
public-keys.json  the appliance's Ed25519 public keys (also as keys/<key_id>.pem).
chain.json        the account, the time range, and the hashes the exported segment starts
                  from and ends at.
verify.mjs        the verifier: run \`node verify.mjs\` here (Node 18 or newer, nothing else).

What verification proves: each document hashes to its line's hash; that hash is signed by the
appliance key named (its key id is the sha256 of the public key); and every entry is chained to
the one before it, so no entry of the range was changed, removed or inserted after the fact.
Compare the key ids with the ones the appliance operator publishes (carrier-verify checks keys).
`

export function exportChecks(db: Sqlite, o: ExportOptions): ExportResult {
  const { from, to } = timeRange(o.from, o.to)
  const rows = db
    .prepare(
      `SELECT ${ROW_COLUMNS} FROM checks WHERE account_id = ? AND created_at BETWEEN ? AND ? ORDER BY seq`,
    )
    .all(o.accountId, from, to) as LedgerRow[]
  const pages = join(o.out, 'pages')
  const keysDir = join(o.out, 'keys')
  mkdirSync(pages, { recursive: true })
  mkdirSync(keysDir, { recursive: true })
  const lines = rows.map((r) =>
    JSON.stringify({
      seq: r.seq,
      kind: r.kind,
      id: r.id,
      check_id: r.checkId,
      account_id: r.accountId,
      created_at: new Date(r.createdAt).toISOString(),
      prev_hash: r.prevHash,
      hash: r.hash,
      key_id: r.signingKeyId,
      signature: r.signature,
      document: r.document,
    }),
  )
  writeFileSync(join(o.out, 'checks.jsonl'), lines.length ? `${lines.join('\n')}\n` : '')

  const overridesOf = db.prepare(
    `SELECT document FROM checks WHERE check_id = ? AND kind = 'override' ORDER BY seq`,
  )
  let checks = 0
  for (const r of rows) {
    if (r.kind !== 'check') continue
    checks++
    const overrides = (overridesOf.all(r.id) as { document: string }[]).map(
      (x) => JSON.parse(x.document) as OverrideDocument,
    )
    writeFileSync(
      join(pages, `${r.id}.html`),
      checkPage({
        doc: JSON.parse(r.document) as CheckDocument,
        document: r.document,
        signature: {
          key_id: r.signingKeyId,
          hash: r.hash,
          prev_hash: r.prevHash,
          value: r.signature,
          seq: r.seq,
        },
        overrides,
      }),
    )
  }
  const keys = publicKeys(db)
  writeFileSync(join(o.out, 'public-keys.json'), `${JSON.stringify(keys, null, 2)}\n`)
  for (const k of keys) writeFileSync(join(keysDir, `${k.key_id}.pem`), k.public_key_pem)
  const result: ExportResult = {
    dir: o.out,
    entries: rows.length,
    checks,
    overrides: rows.length - checks,
    first_prev_hash: rows[0]?.prevHash ?? null,
    last_hash: rows.at(-1)?.hash ?? null,
  }
  writeFileSync(
    join(o.out, 'chain.json'),
    `${JSON.stringify(
      {
        account_id: o.accountId,
        from: o.from ?? null,
        to: o.to ?? null,
        exported_at: o.now.toISOString(),
        entries: result.entries,
        first_prev_hash: result.first_prev_hash,
        last_hash: result.last_hash,
      },
      null,
      2,
    )}\n`,
  )
  writeFileSync(join(o.out, 'verify.mjs'), VERIFY_SCRIPT, { mode: 0o755 })
  writeFileSync(join(o.out, 'README.txt'), README)
  return result
}
