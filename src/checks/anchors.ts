/**
 * Anchors outside the broker: on a schedule (CHECKS_ANCHOR_SCHEDULE, daily by default) the head of
 * each account's chains (live and sandbox) is published to the destinations the account chose
 * (`checks anchors --account ID --webhook on --tsa URL`): a `checks.anchor` webhook event through
 * the outbox, and/or an RFC 3161 time-stamp authority. The signed statement and each answer are
 * stored in check_anchors and exported in anchors.json, so a later rewrite of the chain, even by
 * someone holding the signing key, no longer passes through a head published before it.
 */
import { createHash } from 'node:crypto'
import type { Sqlite } from '../db/open.ts'
import { enqueueEvent } from '../db/outbox.ts'
import type { Deps, Job } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Chain } from './ledger.ts'
import { currentSigner, publicKeys, verifySignature, publicKeyOf } from './signing.ts'
import { readTimeStampResponse, timeStamp } from './tsa.ts'

export interface AnchorSettings {
  account_id: number
  webhook: boolean
  tsa_url: string | null
  updated_at: string | null
}

/** What is published: the head of one chain of one account, signed by the appliance's key. */
export interface AnchorStatement {
  type: 'chain_anchor'
  account_id: number
  chain: Chain
  seq: number
  head_hash: string
  anchored_at: string
  key_id: string
  fingerprint: string
}

export type Destination = 'webhook' | 'tsa'

export interface StoredAnchor {
  id: number
  account_id: number
  chain: Chain
  seq: number
  head_hash: string
  anchored_at: string
  destination: Destination
  status: 'sent' | 'failed'
  /** the statement's JSON text, as signed */
  statement: string
  key_id: string
  signature: string
  event_id: string | null
  tsa_url: string | null
  tsa_time: string | null
  /** the TimeStampResp, DER as base64 */
  tsa_response: string | null
  error: string | null
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

export function anchorSettings(db: Sqlite, accountId: number): AnchorSettings {
  const r = db
    .prepare('SELECT webhook, tsa_url, updated_at FROM check_anchor_settings WHERE account_id = ?')
    .get(accountId) as { webhook: number; tsa_url: string | null; updated_at: number } | undefined
  return {
    account_id: accountId,
    webhook: r?.webhook === 1,
    tsa_url: r?.tsa_url ?? null,
    updated_at: r ? new Date(r.updated_at).toISOString() : null,
  }
}

/** Validates a TSA URL: http or https, no credentials. */
function tsaUrl(v: string): string {
  let u: URL
  try {
    u = new URL(v)
  } catch {
    throw new AppError('invalid_request', `--tsa: not a URL: ${v}`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new AppError('invalid_request', '--tsa: a time-stamp authority is an http(s) URL')
  if (u.username || u.password)
    throw new AppError('invalid_request', '--tsa: the URL may not carry credentials')
  return u.toString()
}

/** Changes where an account's chain heads go (`tsaUrl` null removes the TSA). */
export function setAnchorSettings(
  db: Sqlite,
  accountId: number,
  change: { webhook?: boolean; tsaUrl?: string | null },
  now: number,
): AnchorSettings {
  if (!db.prepare('SELECT 1 FROM accounts WHERE id = ?').get(accountId))
    throw new AppError('not_found', `No account ${accountId}`)
  const cur = anchorSettings(db, accountId)
  const webhook = change.webhook ?? cur.webhook
  const url = change.tsaUrl === undefined ? cur.tsa_url : change.tsaUrl && tsaUrl(change.tsaUrl)
  db.prepare(
    `INSERT INTO check_anchor_settings (account_id, webhook, tsa_url, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (account_id) DO UPDATE SET webhook = excluded.webhook, tsa_url = excluded.tsa_url,
       updated_at = excluded.updated_at`,
  ).run(accountId, webhook ? 1 : 0, url || null, now)
  return anchorSettings(db, accountId)
}

const ANCHOR_COLUMNS = `id, account_id, chain, seq, head_hash, anchored_at, destination, status,
  statement, key_id, signature, event_id, tsa_url, tsa_time, tsa_response, error`

type AnchorRow = Omit<StoredAnchor, 'anchored_at'> & { anchored_at: number }
const toAnchor = (r: AnchorRow): StoredAnchor => ({
  ...r,
  anchored_at: new Date(r.anchored_at).toISOString(),
})

/** An account chain's anchors, oldest first (`sent` only unless `all`). */
export function anchorsOf(
  db: Sqlite,
  accountId: number,
  chain: Chain,
  opts: { all?: boolean; fromSeq?: number; toSeq?: number } = {},
): StoredAnchor[] {
  return (
    db
      .prepare(
        `SELECT ${ANCHOR_COLUMNS} FROM check_anchors WHERE account_id = ? AND chain = ?
           AND seq BETWEEN ? AND ? ${opts.all ? '' : "AND status = 'sent'"} ORDER BY id`,
      )
      .all(
        accountId,
        chain,
        opts.fromSeq ?? 0,
        opts.toSeq ?? Number.MAX_SAFE_INTEGER,
      ) as AnchorRow[]
  ).map(toAnchor)
}

interface Head {
  account_id: number
  chain: Chain
  seq: number
  hash: string
}

function heads(db: Sqlite, accountId: number | undefined): (Head & AnchorSettings)[] {
  const accounts = db
    .prepare(
      `SELECT account_id FROM check_anchor_settings WHERE (webhook = 1 OR tsa_url IS NOT NULL)
         AND (? IS NULL OR account_id = ?) ORDER BY account_id`,
    )
    .all(accountId ?? null, accountId ?? null) as { account_id: number }[]
  const head = db.prepare(
    'SELECT seq, hash FROM checks WHERE account_id = ? AND chain = ? ORDER BY seq DESC LIMIT 1',
  )
  return accounts.flatMap(({ account_id }) =>
    (['live', 'test'] as const).flatMap((chain) => {
      const h = head.get(account_id, chain) as { seq: number; hash: string } | undefined
      return h ? [{ ...anchorSettings(db, account_id), ...h, chain }] : []
    }),
  )
}

export interface AnchorRunResult {
  published: { account_id: number; chain: Chain; seq: number; destination: Destination }[]
  failed: { account_id: number; chain: Chain; destination: Destination; error: string }[]
  unchanged: number
}

/**
 * Publishes the head of every chain of the accounts with anchor destinations (or of one account)
 * that was not yet published there. A TSA that fails is stored as `failed` and tried again on the
 * next run.
 */
export async function publishAnchors(deps: Deps, accountId?: number): Promise<AnchorRunResult> {
  const out: AnchorRunResult = { published: [], failed: [], unchanged: 0 }
  const done = deps.db.prepare(
    `SELECT 1 FROM check_anchors WHERE account_id = ? AND chain = ? AND destination = ? AND seq = ? AND status = 'sent'`,
  )
  const insert = deps.db.prepare(
    `INSERT INTO check_anchors (account_id, chain, seq, head_hash, anchored_at, destination, status,
       statement, key_id, signature, event_id, tsa_url, tsa_time, tsa_response, error)
     VALUES (@account_id, @chain, @seq, @head_hash, @anchored_at, @destination, @status,
       @statement, @key_id, @signature, @event_id, @tsa_url, @tsa_time, @tsa_response, @error)`,
  )
  for (const h of heads(deps.db, accountId)) {
    const dests: Destination[] = [
      ...(h.webhook ? (['webhook'] as const) : []),
      ...(h.tsa_url ? (['tsa'] as const) : []),
    ]
    for (const destination of dests) {
      if (done.get(h.account_id, h.chain, destination, h.seq)) {
        out.unchanged++
        continue
      }
      const now = deps.clock().getTime()
      const signer = currentSigner(deps.db, deps.config.paths.dataDir, now)
      const statement: AnchorStatement = {
        type: 'chain_anchor',
        account_id: h.account_id,
        chain: h.chain,
        seq: h.seq,
        head_hash: h.hash,
        anchored_at: new Date(now).toISOString(),
        key_id: signer.keyId,
        fingerprint: signer.fingerprint,
      }
      const text = JSON.stringify(statement)
      const row = {
        account_id: h.account_id,
        chain: h.chain,
        seq: h.seq,
        head_hash: h.hash,
        anchored_at: now,
        destination,
        status: 'sent',
        statement: text,
        key_id: signer.keyId,
        signature: signer.sign(sha256(text)),
        event_id: null as string | null,
        tsa_url: null as string | null,
        tsa_time: null as string | null,
        tsa_response: null as string | null,
        error: null as string | null,
      }
      if (destination === 'webhook') {
        deps.db.transaction(() => {
          row.event_id = enqueueEvent(
            deps.db,
            {
              accountId: h.account_id,
              type: 'checks.anchor',
              data: {
                ...statement,
                statement: text,
                signature: { algorithm: 'Ed25519', key_id: signer.keyId, value: row.signature },
              },
            },
            now,
          )
          insert.run(row)
        })()
      } else {
        row.tsa_url = h.tsa_url
        try {
          const r = await timeStamp(
            deps.fetch,
            h.tsa_url ?? '',
            h.hash,
            deps.config.checks.anchorTimeoutMs,
          )
          row.tsa_response = r.response.toString('base64')
          row.tsa_time = r.stamp.gen_time
        } catch (err) {
          row.status = 'failed'
          row.error = err instanceof Error ? err.message : String(err)
          deps.log.warn(
            { account_id: h.account_id, chain: h.chain, tsa: h.tsa_url, err: row.error },
            'chain head not time-stamped',
          )
        }
        insert.run(row)
      }
      if (row.status === 'sent')
        out.published.push({ account_id: h.account_id, chain: h.chain, seq: h.seq, destination })
      else
        out.failed.push({
          account_id: h.account_id,
          chain: h.chain,
          destination,
          error: row.error ?? '',
        })
    }
  }
  return out
}

/** The scheduled publication (CHECKS_ANCHOR_SCHEDULE). */
export const anchorJob = (deps: Deps): Job => ({
  name: 'checks:anchor',
  schedule: deps.config.checks.anchorSchedule,
  run: async () => {
    const r = await publishAnchors(deps)
    if (r.published.length || r.failed.length)
      deps.log.info(
        { published: r.published.length, failed: r.failed.length },
        'chain heads published',
      )
    return r
  },
})

/**
 * The stored anchors against the ledger: each statement is signed by its key and names its row,
 * each anchored head is still a row of its chain (or was pruned by retention), and each TSA
 * answer time-stamps the head hash. Answers one line per problem.
 */
export function verifyAnchors(db: Sqlite, accountId?: number): string[] {
  const problems: string[] = []
  const keys = new Map(publicKeys(db).map((k) => [k.key_id, publicKeyOf(k.public_key_pem)]))
  const rowAt = db.prepare('SELECT hash FROM checks WHERE account_id = ? AND chain = ? AND seq = ?')
  const prunedTo = db.prepare(
    'SELECT seq FROM check_chain_anchors WHERE account_id = ? AND chain = ?',
  )
  const rows = db
    .prepare(
      `SELECT ${ANCHOR_COLUMNS} FROM check_anchors WHERE status = 'sent' AND (? IS NULL OR account_id = ?) ORDER BY id`,
    )
    .all(accountId ?? null, accountId ?? null) as AnchorRow[]
  for (const r of rows) {
    const where = `anchor ${r.id} (account ${r.account_id}, ${r.chain} chain, sequence ${r.seq}, ${r.destination})`
    const key = keys.get(r.key_id)
    let st: Partial<AnchorStatement> = {}
    try {
      st = JSON.parse(r.statement) as AnchorStatement
    } catch {
      /* reported below */
    }
    if (!key || !verifySignature(key, sha256(r.statement), r.signature))
      problems.push(`${where}: the statement's signature does not verify`)
    if (st.seq !== r.seq || st.head_hash !== r.head_hash || st.account_id !== r.account_id)
      problems.push(`${where}: the stored row does not match its signed statement`)
    const pruned = (prunedTo.get(r.account_id, r.chain) as { seq: number } | undefined)?.seq ?? 0
    const at = rowAt.get(r.account_id, r.chain, r.seq) as { hash: string } | undefined
    if (r.seq > pruned && at?.hash !== r.head_hash)
      problems.push(
        `${where}: the chain no longer passes through the head published at ${toAnchor(r).anchored_at} (hash ${r.head_hash.slice(0, 12)}…): it was rewritten`,
      )
    if (r.destination === 'tsa')
      try {
        readTimeStampResponse(Buffer.from(r.tsa_response ?? '', 'base64'), r.head_hash)
      } catch (err) {
        problems.push(`${where}: ${err instanceof Error ? err.message : String(err)}`)
      }
  }
  return problems
}

/**
 * The export's anchors.json (the sent anchors of the exported range) and each TSA answer as
 * anchors/<id>.tsr (DER); nothing when the range has none.
 */
export function anchorFiles(
  db: Sqlite,
  accountId: number,
  chain: Chain,
  fromSeq: number | undefined,
  toSeq: number | undefined,
): Map<string, string | Buffer> {
  const files = new Map<string, string | Buffer>()
  if (fromSeq === undefined || toSeq === undefined) return files
  const list = anchorsOf(db, accountId, chain, { fromSeq, toSeq }).map((a) => {
    const { tsa_response, error: _, status: __, ...rest } = a
    const file = tsa_response ? `anchors/${a.id}.tsr` : null
    if (file && tsa_response) files.set(file, Buffer.from(tsa_response, 'base64'))
    return { ...rest, tsa_token_file: file }
  })
  if (list.length) files.set('anchors.json', `${JSON.stringify(list, null, 2)}\n`)
  return files
}
