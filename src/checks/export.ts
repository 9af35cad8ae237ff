/**
 * `checks export`: an account's checks and overrides in a time range, as a folder a third party
 * can verify without the appliance: checks.jsonl (one ledger entry a line, the signed document as
 * its exact text), pages/<check_id>.html (one readable page per check, carrying the sha256 of its
 * signed document), public-keys.json and .pem files (with each key's signed introduction),
 * chain.json (the segment's place in the chain and the sha256 of every other file, signed),
 * verify.mjs and README.txt.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Sqlite } from '../db/open.ts'
import { AppError } from '../errors.ts'
import { anchorFiles } from './anchors.ts'
import { checkPage, type PageInput } from './html.ts'
import { checkReportPdf } from './pdf.ts'
import { ROW_COLUMNS, type LedgerRow } from './ledger.ts'
import { timeRange } from './list.ts'
import type { CheckDocument, OverrideDocument } from './schema.ts'
import { publicKeys, type Signer } from './signing.ts'
import { VERIFY_SCRIPT } from './verify-script.ts'

export interface ExportOptions {
  accountId: number
  /** the live chain (default) or the sandbox chain */
  chain?: 'live' | 'test'
  from?: string | undefined
  to?: string | undefined
  out: string
  now: Date
  /** signs chain.json */
  signer: Signer
  /** extra files to write into the export (path relative to it → contents) */
  extra?: ReadonlyMap<string, string | Buffer>
}

export interface ExportResult {
  dir: string
  entries: number
  checks: number
  overrides: number
  first_prev_hash: string | null
  last_hash: string | null
  key_fingerprint: string
}

/** chain.json without its signature; the signature covers sha256(JSON.stringify(this)). */
export interface ChainStatement {
  format: 'carrier-verify-checks-export/1'
  account_id: number
  chain: 'live' | 'test'
  from: string | null
  to: string | null
  exported_at: string
  entries: number
  first_seq: number | null
  last_seq: number | null
  first_prev_hash: string | null
  /** the hash of the last exported entry: the head of the segment */
  last_hash: string | null
  /** the account chain's head when exported (seq and hash), which may lie past the range */
  account_head: { seq: number; hash: string } | null
  /** the keys that signed the entries */
  key_ids: string[]
  /** sha256 of every file of the export but chain.json */
  files: Record<string, string>
}

const README = `carrier-verify checks export
============================

checks.jsonl      one signed entry a line (a check or a recorded override), in chain order:
                  {seq, kind, id, check_id, account_id, created_at, prev_hash, hash, key_id,
                   signature, document}; "document" is the signed JSON text, byte for byte.
pages/            one human-readable page per check (HTML, self-contained); each carries the
                  sha256 of the signed document it renders. The evidence is the line.
                  pages/<check_id>.pdf is the same report as a PDF to hand over (it
                  states the same sha256, in its text and its metadata); also a rendering.
public-keys.json  the appliance's Ed25519 public keys (also as keys/<key_id>.pem), each with its
                  introduction signed by the key before it (the first key by itself).
chain.json        the account, the range, the number of entries, first and last sequence and
                  hashes, the keys used and the sha256 of every other file, signed.
anchors.json      the chain heads published outside the appliance inside this range (a
                  checks.anchor webhook event or an RFC 3161 time-stamp, anchors/<id>.tsr),
                  each a statement signed by the appliance key.
verify.mjs        the verifier: run \`node verify.mjs [--expect-key FINGERPRINT]\` here
                  (Node 18 or newer, nothing else).

What verification proves: each document hashes to its line's hash; that hash is signed by an
appliance key the key history proves; every entry is chained to the one before it and the lines
are exactly those chain.json lists (none removed, added or reordered); no file was changed, added
or removed; every published head inside the range is an entry (the chain passes through it)
and every time-stamp token's message imprint is that head's hash. verify.mjs prints the fingerprint of every key it used: compare it with the one the
appliance operator publishes (carrier-verify checks keys), or pass it as --expect-key.
`

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')

export function exportChecks(db: Sqlite, o: ExportOptions): ExportResult {
  const { from, to } = timeRange(o.from, o.to)
  const chain = o.chain ?? 'live'
  if (existsSync(o.out) && readdirSync(o.out).length > 0)
    throw new AppError('conflict', `${o.out} is not empty: export into a new folder`)
  const rows = db
    .prepare(
      `SELECT ${ROW_COLUMNS} FROM checks WHERE account_id = ? AND chain = ? AND created_at BETWEEN ? AND ? ORDER BY seq`,
    )
    .all(o.accountId, chain, from, to) as LedgerRow[]
  const files = new Map<string, string | Buffer>()
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
  files.set('checks.jsonl', lines.length ? `${lines.join('\n')}\n` : '')

  const keys = publicKeys(db)
  const fingerprints = new Map(keys.map((k) => [k.key_id, k.fingerprint]))
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
    const page: PageInput = {
      doc: JSON.parse(r.document) as CheckDocument,
      document: r.document,
      signature: {
        key_id: r.signingKeyId,
        fingerprint: fingerprints.get(r.signingKeyId) ?? '',
        hash: r.hash,
        prev_hash: r.prevHash,
        value: r.signature,
        seq: r.seq,
      },
      overrides,
    }
    files.set(`pages/${r.id}.html`, checkPage(page))
    files.set(`pages/${r.id}.pdf`, checkReportPdf(page))
  }
  files.set('public-keys.json', `${JSON.stringify(keys, null, 2)}\n`)
  for (const k of keys) files.set(`keys/${k.key_id}.pem`, k.public_key_pem)
  for (const [path, data] of anchorFiles(db, o.accountId, chain, rows[0]?.seq, rows.at(-1)?.seq))
    files.set(path, data)
  for (const [path, data] of o.extra ?? []) files.set(path, data)
  files.set('verify.mjs', VERIFY_SCRIPT)
  files.set('README.txt', README)

  const head = db
    .prepare(
      'SELECT seq, hash FROM checks WHERE account_id = ? AND chain = ? ORDER BY seq DESC LIMIT 1',
    )
    .get(o.accountId, chain) as { seq: number; hash: string } | undefined
  const statement: ChainStatement = {
    format: 'carrier-verify-checks-export/1',
    account_id: o.accountId,
    chain,
    from: o.from ?? null,
    to: o.to ?? null,
    exported_at: o.now.toISOString(),
    entries: rows.length,
    first_seq: rows[0]?.seq ?? null,
    last_seq: rows.at(-1)?.seq ?? null,
    first_prev_hash: rows[0]?.prevHash ?? null,
    last_hash: rows.at(-1)?.hash ?? null,
    account_head: head ?? null,
    key_ids: [...new Set(rows.map((r) => r.signingKeyId))].sort(),
    files: Object.fromEntries(
      [...files]
        .map(([p, d]): [string, string] => [p, sha256(d)])
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    ),
  }
  const signed = JSON.stringify(statement)
  const chainFile = {
    ...statement,
    signature: {
      algorithm: 'Ed25519',
      key_id: o.signer.keyId,
      fingerprint: o.signer.fingerprint,
      value: o.signer.sign(sha256(signed)),
    },
  }
  for (const [path, data] of files) {
    mkdirSync(join(o.out, path, '..'), { recursive: true })
    writeFileSync(join(o.out, path), data, path === 'verify.mjs' ? { mode: 0o755 } : {})
  }
  writeFileSync(join(o.out, 'chain.json'), `${JSON.stringify(chainFile, null, 2)}\n`)
  return {
    dir: o.out,
    entries: rows.length,
    checks,
    overrides: rows.length - checks,
    first_prev_hash: statement.first_prev_hash,
    last_hash: statement.last_hash,
    key_fingerprint: o.signer.fingerprint,
  }
}
