/**
 * Anchors end to end: the chain heads go to a webhook receiver (through the outbox) and a real
 * RFC 3161 TSA on 127.0.0.1; the answers are stored and exported; verify.mjs and `checks verify`
 * catch a chain rewritten under the appliance's own key because it no longer passes through a
 * published head.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { runCliCaptured } from '../testing/cli.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'
import { startTsa } from '../testing/tsa-server.ts'
import { startReceiver, type Receiver } from '../testing/webhook-receiver.ts'
import { addEndpoint } from '../webhooks/endpoints.ts'
import { deliverDue } from '../webhooks/deliver.ts'
import {
  anchorsOf,
  anchorJob,
  publishAnchors,
  setAnchorSettings,
  verifyAnchors,
} from './anchors.ts'
import { exportChecks } from './export.ts'
import { chainHash } from './ledger.ts'
import { currentSigner } from './signing.ts'

let ctx: TestContext
let rx: Receiver
let tsa: Awaited<ReturnType<typeof startTsa>>
let tmp: string
let accountId: number
let liveKey: string

beforeAll(async () => {
  rx = await startReceiver()
  tsa = await startTsa()
  tmp = mkdtempSync(join(tmpdir(), 'cvk-anchor-'))
  ctx = await createTestContext({
    liveDir: LICENSING_FIXTURES,
    fetch: globalThis.fetch,
    now: '2026-11-15T12:00:00Z',
  })
  const { account, key } = ctx.account('starter')
  accountId = account.id
  liveKey = key('live')
  await addEndpoint(
    ctx.deps,
    { accountId, url: rx.url, events: ['checks.anchor'] },
    ctx.clock().getTime(),
  )
})
afterAll(async () => {
  ctx.close()
  await rx.close()
  await tsa.close()
  rmSync(tmp, { recursive: true, force: true })
})

const check = async (dot: string) => {
  const res = await ctx.post('/v1/checks', { dot }, liveKey)
  expect(res.status).toBe(201)
}
const head = () =>
  ctx.deps.db
    .prepare(
      "SELECT seq, hash FROM checks WHERE account_id = ? AND chain = 'live' ORDER BY seq DESC LIMIT 1",
    )
    .get(accountId) as { seq: number; hash: string }

function exportTo(name: string) {
  const out = join(tmp, name)
  exportChecks(ctx.deps.db, {
    accountId,
    out,
    now: ctx.clock(),
    signer: currentSigner(ctx.deps.db, ctx.config.paths.dataDir, ctx.clock().getTime()),
  })
  return out
}
function verify(dir: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [join(dir, 'verify.mjs'), ...args], {
    encoding: 'utf8',
    timeout: 20_000,
  })
  return { code: r.status, stdout: r.stdout, reason: r.stderr.trimEnd().split('\n').at(-1) ?? '' }
}

describe('anchors', () => {
  test('settings are validated and an account without destinations publishes nothing', async () => {
    await check('1000001')
    expect(await publishAnchors(ctx.deps)).toEqual({ published: [], failed: [], unchanged: 0 })
    expect(() => setAnchorSettings(ctx.deps.db, accountId, { tsaUrl: 'ftp://tsa' }, 0)).toThrow(
      /http\(s\) URL/,
    )
    expect(() => setAnchorSettings(ctx.deps.db, 999, { webhook: true }, 0)).toThrow(/No account/)
    const cli = await runCliCaptured(ctx, [
      'checks',
      'anchors',
      '--account',
      String(accountId),
      '--webhook',
      'on',
      '--tsa',
      tsa.url,
      '--json',
    ])
    expect(cli.code).toBe(0)
    expect(cli.json()).toMatchObject({ webhook: true, tsa_url: tsa.url })
    expect(anchorJob(ctx.deps).schedule).toBe('23 4 * * *')
  })

  test('the head goes to the webhook receiver and the TSA, once per head', async () => {
    await check('1000008')
    const h = head()
    const r = await publishAnchors(ctx.deps)
    expect(r.published.map((p) => p.destination).sort()).toEqual(['tsa', 'webhook'])
    expect(r.failed).toEqual([])
    expect(tsa.requests).toHaveLength(1)
    await deliverDue(ctx.deps)
    expect(rx.received).toHaveLength(1)
    const body = JSON.parse(rx.received[0]?.body ?? '{}') as {
      type: string
      data: Record<string, unknown>
    }
    expect(body.type).toBe('checks.anchor')
    expect(body.data).toMatchObject({ account_id: accountId, chain: 'live', seq: h.seq })
    expect(body.data['head_hash']).toBe(h.hash)
    const stored = anchorsOf(ctx.deps.db, accountId, 'live')
    const stamped = stored.find((a) => a.destination === 'tsa')
    expect(stamped?.tsa_response).toBeTruthy()
    expect(stamped?.tsa_time).toMatch(/^\d{4}-/)
    // nothing new: nothing published again
    expect(await publishAnchors(ctx.deps)).toMatchObject({ published: [], unchanged: 2 })
    expect(verifyAnchors(ctx.deps.db)).toEqual([])
  })

  test('a TSA answer that does not time-stamp the head is stored as failed with its reason', async () => {
    await check('1000009')
    for (const [mode, reason] of [
      ['wrong-imprint', /imprint 0707.* is not the head hash/],
      ['refuse', /the TSA refused \(status 2/],
      ['text', /text\/plain, not application\/timestamp-reply/],
    ] as const) {
      tsa.setMode(mode)
      const r = await publishAnchors(ctx.deps)
      expect(r.failed).toHaveLength(1)
      expect(r.failed[0]?.error).toMatch(reason)
    }
    tsa.setMode('good')
    // the webhook went once; the TSA is tried again until it answers
    const again = await publishAnchors(ctx.deps)
    expect(again.published.map((p) => p.destination)).toEqual(['tsa'])
    const failed = anchorsOf(ctx.deps.db, accountId, 'live', { all: true }).filter(
      (a) => a.status === 'failed',
    )
    expect(failed).toHaveLength(3)
  })

  test('the export carries anchors.json and the tokens; verify.mjs checks the chain passes through them', async () => {
    await check('1000001')
    const good = exportTo('good')
    const anchors = JSON.parse(readFileSync(join(good, 'anchors.json'), 'utf8')) as {
      seq: number
      head_hash: string
      tsa_token_file: string | null
    }[]
    expect(anchors).toHaveLength(4)
    const ok = verify(good)
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain('anchors: the chain passes through all 4 published heads')
    const first = anchors[0]
    expect(verify(good, '--anchor', first?.head_hash ?? '').code).toBe(0)
    expect(verify(good, '--anchor', 'ab'.repeat(32)).reason).toMatch(
      /^FAILED: --anchor: the chain does not pass through the head abababababab/,
    )

    // a time-stamp token of another hash (file and chain.json hash replaced together)
    const tok = join(tmp, 'token')
    cpSync(good, tok, { recursive: true })
    const file = anchors.find((a) => a.tsa_token_file)?.tsa_token_file ?? ''
    const der = readFileSync(join(tok, file))
    const at = der.indexOf(Buffer.from(`0420${anchors[1]?.head_hash ?? ''}`, 'hex'))
    expect(at).toBeGreaterThan(0)
    der[at + 5] = (der[at + 5] ?? 0) ^ 1
    writeFileSync(join(tok, file), der)
    expect(verify(tok).reason).toMatch(
      /^FAILED: .*(sha256 is not the one chain.json lists|time-stamp)/,
    )

    // deleting the lines before an anchored head
    const cut = join(tmp, 'cut')
    cpSync(good, cut, { recursive: true })
    const ls = readFileSync(join(cut, 'checks.jsonl'), 'utf8').trimEnd().split('\n')
    writeFileSync(join(cut, 'checks.jsonl'), `${ls.slice(1).join('\n')}\n`)
    const cutR = verify(cut)
    expect(cutR.code).toBe(1)
    expect(cutR.reason).toMatch(/^FAILED: /)
    expect(cutR.reason.split('\n')).toHaveLength(1)
  })

  test('a chain rewritten with the appliance key no longer passes through its published heads', async () => {
    const before = exportTo('before')
    const anchored = anchorsOf(ctx.deps.db, accountId, 'live')[0]
    // the operator's forgery: the first check deleted, every later row re-chained and re-signed
    const db = ctx.deps.db
    const rows = db
      .prepare(
        "SELECT seq, document FROM checks WHERE account_id = ? AND chain = 'live' ORDER BY seq",
      )
      .all(accountId) as { seq: number; document: string }[]
    const signer = currentSigner(db, ctx.config.paths.dataDir, ctx.clock().getTime())
    db.prepare('DELETE FROM checks WHERE seq = ?').run(rows[0]?.seq)
    let prev = '0'.repeat(64)
    for (const r of rows.slice(1)) {
      const hash = chainHash(prev, r.document)
      db.prepare('UPDATE checks SET prev_hash = ?, hash = ?, signature = ? WHERE seq = ?').run(
        prev,
        hash,
        signer.sign(hash),
        r.seq,
      )
      prev = hash
    }
    const cli = await runCliCaptured(ctx, ['checks', 'verify'])
    expect(cli.code).toBe(1)
    expect(cli.stderr).toMatch(
      /ANCHOR: anchor \d+ \(account \d+, live chain, sequence \d+, (webhook|tsa)\): the chain no longer passes through the head published at/,
    )
    const after = exportTo('after')
    const r = verify(after)
    expect(r.code).toBe(1)
    expect(r.reason).toMatch(
      /^FAILED: anchors.json: the head published at .* is not an entry of checks.jsonl: the chain was rewritten/,
    )
    // the same forgery with anchors.json left out is still caught by a head received by webhook
    expect(verify(before, '--anchor', anchored?.head_hash ?? '').code).toBe(0)
    const noAnchors = join(tmp, 'no-anchors')
    db.prepare('DELETE FROM check_anchors').run()
    exportChecks(db, {
      accountId,
      out: noAnchors,
      now: ctx.clock(),
      signer,
    })
    const r2 = verify(noAnchors, '--anchor', anchored?.head_hash ?? '')
    expect(r2.reason).toMatch(/^FAILED: --anchor: the chain does not pass through the head/)
  })
})
