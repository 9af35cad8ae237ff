/**
 * The export and its standalone verify.mjs, run as a real node process: every tamper case is
 * refused with a one-line reason, and the verifier names the key fingerprint it used.
 */
import { spawnSync } from 'node:child_process'
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'
import { exportChecks } from './export.ts'
import { currentSigner, publicKeys, rotateSigningKey } from './signing.ts'

let ctx: TestContext
let tmp: string
let good: string
let fingerprints: string[]
let checkIds: string[]
beforeAll(async () => {
  ctx = await createTestContext({ liveDir: LICENSING_FIXTURES, now: '2026-11-15T12:00:00Z' })
  tmp = mkdtempSync(join(tmpdir(), 'cvk-export-'))
  const { account, key } = ctx.account('starter')
  const k = key('live', ['override'])
  checkIds = []
  for (const body of [
    { dot: '1000001', reference: 'L-1' },
    { dot: '1000008', reference: 'L-2' },
    { dot: '1000009', reference: 'L-3' },
  ]) {
    const res = await ctx.post('/v1/checks', body, k)
    expect(res.status).toBe(201)
    checkIds.push(((await res.json()) as { check_id: string }).check_id)
  }
  await ctx.post(`/v1/checks/${checkIds[0] ?? ''}/override`, { by: 'QA', reason: 'known' }, k)
  // a rotation mid-way: the export carries two keys, the second introduced by the first
  rotateSigningKey(ctx.deps.db, ctx.config.paths.dataDir, ctx.clock().getTime())
  const res = await ctx.post('/v1/checks', { dot: '1000001', reference: 'L-4' }, k)
  checkIds.push(((await res.json()) as { check_id: string }).check_id)
  good = join(tmp, 'good')
  exportChecks(ctx.deps.db, {
    accountId: account.id,
    out: good,
    now: ctx.clock(),
    signer: currentSigner(ctx.deps.db, ctx.config.paths.dataDir, ctx.clock().getTime()),
  })
  // the first key (it introduces itself), then the key it introduced
  const keys = publicKeys(ctx.deps.db)
  fingerprints = [
    ...keys.filter((x) => x.introduced_by === x.key_id),
    ...keys.filter((x) => x.introduced_by !== x.key_id),
  ].map((x) => x.fingerprint)
})
afterAll(() => {
  ctx.close()
  rmSync(tmp, { recursive: true, force: true })
})

let n = 0
/** A fresh copy of the good export, changed by `edit`. */
function tampered(edit: (dir: string) => void): string {
  const dir = join(tmp, `case-${++n}`)
  cpSync(good, dir, { recursive: true })
  edit(dir)
  return dir
}

function verify(dir: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [join(dir, 'verify.mjs'), ...args], {
    encoding: 'utf8',
    timeout: 20_000,
  })
  const lastLine = r.stderr.trimEnd().split('\n').at(-1) ?? ''
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, reason: lastLine }
}

const lines = (dir: string) => readFileSync(join(dir, 'checks.jsonl'), 'utf8').trimEnd().split('\n')
const writeLines = (dir: string, ls: string[]) =>
  writeFileSync(join(dir, 'checks.jsonl'), `${ls.join('\n')}\n`)
const sha256 = (d: string | Buffer) => createHash('sha256').update(d).digest('hex')

/** What someone with the export but no appliance key does: a fresh key re-signs everything. */
function forge(dir: string, changeDocument: (doc: string) => string) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const fp = sha256(publicKey.export({ type: 'spki', format: 'der' }))
  const keyId = fp.slice(0, 16)
  const pem = String(publicKey.export({ type: 'spki', format: 'pem' }))
  const signHex = (key: KeyObject, hex: string) =>
    sign(null, Buffer.from(hex, 'hex'), key).toString('base64')
  const intro = JSON.stringify({
    type: 'signing_key',
    key_id: keyId,
    fingerprint: fp,
    algorithm: 'Ed25519',
    public_key_pem: pem,
    created_at: '2026-01-01T00:00:00.000Z',
    previous_key_id: null,
  })
  let prev: string | null = null
  const out = lines(dir).map((l) => {
    const e = JSON.parse(l) as Record<string, unknown>
    const document = changeDocument(String(e['document']))
    const prevHash = prev ?? String(e['prev_hash'])
    const hash = sha256(`${prevHash}\n${document}`)
    prev = hash
    return JSON.stringify({
      ...e,
      document,
      prev_hash: prevHash,
      hash,
      key_id: keyId,
      signature: signHex(privateKey, hash),
    })
  })
  writeLines(dir, out)
  const keys = [
    {
      key_id: keyId,
      fingerprint: fp,
      algorithm: 'Ed25519',
      public_key_pem: pem,
      created_at: '2026-01-01T00:00:00.000Z',
      retired_at: null,
      introduction: intro,
      introduction_signature: signHex(privateKey, sha256(intro)),
      introduced_by: keyId,
    },
  ]
  rmSync(join(dir, 'keys'), { recursive: true })
  writeFileSync(join(dir, 'public-keys.json'), JSON.stringify(keys))
  // the pages are rendered again by the forger: here their stated hash is brought along
  for (const l of out) {
    const e = JSON.parse(l) as { kind: string; id: string; document: string }
    if (e.kind !== 'check') continue
    const page = join(dir, 'pages', `${e.id}.html`)
    writeFileSync(
      page,
      readFileSync(page, 'utf8').replace(
        /(name="carrier-verify-document-sha256" content=")[0-9a-f]{64}/,
        `$1${sha256(e.document)}`,
      ),
    )
    // the PDF states it in its metadata (same length: the offsets stay right)
    const pdf = join(dir, 'pages', `${e.id}.pdf`)
    writeFileSync(
      pdf,
      Buffer.from(
        readFileSync(pdf)
          .toString('latin1')
          .replace(/(\n\d+ 0 obj\n\()[0-9a-f]{64}(\))/g, `$1${sha256(e.document)}$2`),
        'latin1',
      ),
    )
  }
  const chain = JSON.parse(readFileSync(join(dir, 'chain.json'), 'utf8')) as Record<string, unknown>
  delete chain['signature']
  const files: Record<string, string> = {}
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${name.name}` : name.name
      if (name.isDirectory()) walk(p)
      else if (p !== 'chain.json') files[p] = sha256(readFileSync(join(dir, p)))
    }
  }
  walk('')
  const statement = {
    ...chain,
    first_prev_hash: JSON.parse(out[0] ?? '{}').prev_hash,
    last_hash: prev,
    account_head: { seq: chain['last_seq'], hash: prev },
    key_ids: [keyId],
    files: Object.fromEntries(Object.entries(files).sort()),
  }
  writeFileSync(
    join(dir, 'chain.json'),
    JSON.stringify({
      ...statement,
      signature: {
        algorithm: 'Ed25519',
        key_id: keyId,
        fingerprint: fp,
        value: signHex(privateKey, sha256(JSON.stringify(statement))),
      },
    }),
  )
  return fp
}

describe('verify.mjs', () => {
  test('a good export verifies and names both keys; --expect-key pins the first', () => {
    const ok = verify(good)
    expect(ok.stderr).toBe('')
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain('OK: 5 entries verified')
    for (const fp of fingerprints) expect(ok.stdout).toContain(fp)
    expect(ok.stdout).toContain('not pinned')
    const pinned = verify(good, '--expect-key', fingerprints[0] ?? '')
    expect(pinned.code, pinned.stderr).toBe(0)
    expect(pinned.stdout).toContain('proven from the expected key')
    // the second key alone is trusted, but the entries the first key signed are then refused
    expect(verify(good, '--expect-key', fingerprints[1] ?? '').reason).toContain(
      'is not introduced by a trusted key',
    )
    const other = verify(good, '--expect-key', 'ab'.repeat(32))
    expect(other.code).toBe(1)
    expect(other.reason).toContain('no key of this export has fingerprint abab')
    expect(verify(good, '--expect-key', 'nope').code).toBe(2)
  })

  const cases: [string, (dir: string) => void, string | (() => string)][] = [
    [
      'the newest line removed',
      (d) => writeLines(d, lines(d).slice(0, -1)),
      'checks.jsonl: its sha256 is not the one chain.json lists',
    ],
    [
      'the oldest line removed',
      (d) => writeLines(d, lines(d).slice(1)),
      'checks.jsonl: its sha256 is not the one chain.json lists',
    ],
    [
      'two lines swapped',
      (d) => {
        const l = lines(d)
        writeLines(d, [l[0] ?? '', l[2] ?? '', l[1] ?? '', ...l.slice(3)])
      },
      'checks.jsonl: its sha256',
    ],
    [
      'a line added (a copy of the last)',
      (d) => writeLines(d, [...lines(d), lines(d).at(-1) ?? '']),
      'checks.jsonl: its sha256',
    ],
    [
      'a page edited (REVIEW badge to PASS)',
      (d) => {
        const p = join(d, 'pages', `${checkIds[1] ?? ''}.html`)
        writeFileSync(p, readFileSync(p, 'utf8').replace('>REVIEW<', '>PASS<'))
      },
      () => `pages/${checkIds[1] ?? ''}.html: its sha256 is not the one chain.json lists`,
    ],
    [
      'chain.json edited (one entry fewer)',
      (d) => {
        const p = join(d, 'chain.json')
        writeFileSync(p, readFileSync(p, 'utf8').replace('"entries": 5', '"entries": 4'))
      },
      'chain.json: the signature does not verify (chain.json was changed)',
    ],
    [
      'a page missing',
      (d) => unlinkSync(join(d, 'pages', `${checkIds[2] ?? ''}.html`)),
      () => `missing file: pages/${checkIds[2] ?? ''}.html`,
    ],
    [
      'an extra file',
      (d) => writeFileSync(join(d, 'pages', 'extra.html'), '<p>hello</p>'),
      'unexpected file: pages/extra.html (not listed in chain.json)',
    ],
    [
      'a PDF report missing',
      (d) => unlinkSync(join(d, 'pages', `${checkIds[0] ?? ''}.pdf`)),
      () => `missing file: pages/${checkIds[0] ?? ''}.pdf`,
    ],
    [
      'a PDF report edited (a byte of its metadata)',
      (d) => {
        const p = join(d, 'pages', `${checkIds[1] ?? ''}.pdf`)
        writeFileSync(
          p,
          Buffer.from(
            readFileSync(p).toString('latin1').replace('carrier-verify', 'carrier-verifx'),
            'latin1',
          ),
        )
      },
      () => `pages/${checkIds[1] ?? ''}.pdf: its sha256 is not the one chain.json lists`,
    ],
    ['chain.json missing', (d) => unlinkSync(join(d, 'chain.json')), 'missing file: chain.json'],
    [
      'public-keys.json: the second key replaced under its id',
      (d) => {
        const p = join(d, 'public-keys.json')
        const keys = JSON.parse(readFileSync(p, 'utf8')) as { public_key_pem: string }[]
        const fresh = generateKeyPairSync('ed25519').publicKey
        if (keys[1]) keys[1].public_key_pem = String(fresh.export({ type: 'spki', format: 'pem' }))
        writeFileSync(p, JSON.stringify(keys))
      },
      'not this key id (the key was replaced)',
    ],
  ]
  test.each(cases)('refused: %s', (_, edit, reason) => {
    expect(verify(good).code).toBe(0)
    const r = verify(tampered(edit))
    expect(r.code).toBe(1)
    expect(r.reason).toMatch(/^FAILED: /)
    expect(r.reason).toContain(typeof reason === 'function' ? reason() : reason)
  })

  test('removed or reordered lines are named in detail', () => {
    const newest = verify(tampered((d) => writeLines(d, lines(d).slice(0, -1))))
    expect(newest.stderr).toContain('the newest lines were removed or added')
    const oldest = verify(tampered((d) => writeLines(d, lines(d).slice(1))))
    expect(oldest.stderr).toContain('the oldest lines were removed or added')
    const swapped = verify(
      tampered((d) => {
        const l = lines(d)
        writeLines(d, [l[0] ?? '', l[2] ?? '', l[1] ?? '', ...l.slice(3)])
      }),
    )
    expect(swapped.stderr).toContain('lines reordered')
    const added = verify(tampered((d) => writeLines(d, [...lines(d), lines(d).at(-1) ?? ''])))
    expect(added.stderr).toContain('checks.jsonl has 6 entries, chain.json states 5')
  })

  test('a forged chain under a fresh key verifies only as that key, and is refused when pinned', () => {
    let forgedFp = ''
    const dir = tampered((d) => {
      forgedFp = forge(d, (doc) => doc.replace('"verdict":"review"', '"verdict":"pass"'))
    })
    const unpinned = verify(dir)
    expect(unpinned.code).toBe(0)
    expect(unpinned.stdout).toContain(forgedFp)
    for (const fp of fingerprints) expect(unpinned.stdout).not.toContain(fp)
    const pinned = verify(dir, '--expect-key', fingerprints[0] ?? '')
    expect(pinned.code).toBe(1)
    expect(pinned.reason).toContain(
      `no key of this export has fingerprint ${fingerprints[0] ?? ''}`,
    )
  })
})
