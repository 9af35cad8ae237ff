/**
 * The standalone verifier written into every export as `verify.mjs`: Node 18+ and its built-in
 * crypto only, so an insurer, auditor or court expert can check an export without the appliance.
 * It applies the same key-history rules as signing.ts `proveKeys`. It is a string here (it is
 * never imported); the export tests run it as a node process on real exports.
 */
export const VERIFY_SCRIPT = `#!/usr/bin/env node
// Verifies a carrier-verify checks export without the appliance (Node 18+, no dependencies):
//   node verify.mjs [EXPORT_DIR] [--expect-key FINGERPRINT]... [--anchor HEAD_HASH]...
// (--anchor: a head hash received outside the appliance, e.g. a checks.anchor webhook event)
// 1. public-keys.json: every key is proven by its introduction, signed by the key before it (the
//    first key by itself, or a key pinned with --expect-key); any other key is refused.
// 2. chain.json is signed by a proven key, and the folder holds exactly the files it lists, each
//    with the sha256 it lists.
// 3. checks.jsonl: every line's sha256(prev_hash + "\\n" + document) equals its hash, its Ed25519
//    signature verifies with a proven key, it chains to the line before, its signed document names
//    the same id and account, and the lines are exactly the entries, sequences and hashes that
//    chain.json states (none removed, added or reordered).
// 4. pages/<check_id>.html and .pdf: each page and report states the sha256 of the document of its
//    line (the PDF in its CarrierVerifyDocumentSha256 metadata entry), and every check has both.
// 5. anchors.json (when present): every published head is signed by a proven key, every one inside
//    the range is an entry of the chain, and every RFC 3161 token (anchors/<id>.tsr) holds the
//    message imprint SHA-256 = that head hash (the TSA's own signature is not checked here:
//    openssl ts -verify does that with the TSA's certificate).
// Prints the fingerprint of every key used; exit 0 when all hold, else 1 with one line per problem.
import { createHash, createPublicKey, verify } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const pins = []
const outside = []
let dir = null
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--expect-key') pins.push(String(args[++i] ?? '').replace(/[\\s:]/g, '').toLowerCase())
  else if (args[i].startsWith('--expect-key=')) pins.push(args[i].slice(13).replace(/[\\s:]/g, '').toLowerCase())
  else if (args[i] === '--anchor') outside.push(String(args[++i] ?? '').toLowerCase())
  else if (dir === null) dir = args[i]
  else {
    console.error('usage: node verify.mjs [EXPORT_DIR] [--expect-key FINGERPRINT]... [--anchor HEAD_HASH]...')
    process.exit(2)
  }
}
dir ??= dirname(fileURLToPath(import.meta.url))
for (const h of outside)
  if (!/^[0-9a-f]{64}$/.test(h)) {
    console.error('--anchor: a head hash is 64 hex digits, got "' + h + '"')
    process.exit(2)
  }
for (const p of pins)
  if (!/^[0-9a-f]{64}$/.test(p)) {
    console.error('--expect-key: a fingerprint is 64 hex digits, got "' + p + '"')
    process.exit(2)
  }

const problems = []
const stop = (msg) => {
  console.error('FAILED: ' + msg)
  process.exit(1)
}
const sha256 = (data) => createHash('sha256').update(data).digest('hex')
const readText = (name) => {
  if (!existsSync(join(dir, name))) stop('missing file: ' + name)
  return readFileSync(join(dir, name), 'utf8')
}
const parse = (name, text) => {
  try {
    return JSON.parse(text)
  } catch {
    return stop(name + ' is not JSON')
  }
}
const verifies = (key, hashHex, sig) => {
  try {
    return verify(null, Buffer.from(hashHex, 'hex'), key, Buffer.from(sig, 'base64'))
  } catch {
    return false
  }
}

// 1. the key history
const keyList = parse('public-keys.json', readText('public-keys.json'))
const candidates = new Map()
for (const k of Array.isArray(keyList) ? keyList : []) {
  let key
  try {
    key = createPublicKey(k.public_key_pem)
  } catch {
    problems.push('public-keys.json: key ' + k.key_id + ' is not a public key')
    continue
  }
  const fp = sha256(key.export({ type: 'spki', format: 'der' }))
  if (fp.slice(0, 16) !== k.key_id) {
    problems.push('public-keys.json: key ' + k.key_id + ' has fingerprint ' + fp + ', not this key id (the key was replaced)')
    continue
  }
  let intro = null
  try {
    intro = k.introduction === null ? null : JSON.parse(k.introduction)
  } catch {}
  if (intro && (intro.type !== 'signing_key' || intro.key_id !== k.key_id || intro.fingerprint !== fp ||
      intro.public_key_pem !== k.public_key_pem || (intro.previous_key_id ?? k.key_id) !== k.introduced_by)) {
    problems.push('public-keys.json: the introduction of key ' + k.key_id + ' names another key')
    continue
  }
  candidates.set(k.key_id, { key, fp, intro, k })
}
const proven = new Map()
const introducedBy = (id, by) => {
  const c = candidates.get(id)
  const signer = by === id ? c : proven.get(by)
  return Boolean(c && c.k.introduction && c.k.introduction_signature && signer &&
    verifies(signer.key, sha256(c.k.introduction), c.k.introduction_signature))
}
if (pins.length) {
  for (const fp of pins) {
    const c = [...candidates.values()].find((x) => x.fp === fp)
    if (!c) problems.push('--expect-key: no key of this export has fingerprint ' + fp)
    else proven.set(c.k.key_id, c)
  }
} else {
  const firsts = [...candidates.values()].filter((c) => c.intro && c.intro.previous_key_id === null && introducedBy(c.k.key_id, c.k.key_id))
  if (firsts.length > 1)
    problems.push('public-keys.json: more than one key introduces itself (' + firsts.map((c) => c.k.key_id).join(', ') + ')')
  else if (firsts.length === 1) proven.set(firsts[0].k.key_id, firsts[0])
}
for (let grew = true; grew; ) {
  grew = false
  for (const [id, c] of candidates) {
    if (proven.has(id) || !c.intro || !c.intro.previous_key_id) continue
    if (proven.has(c.intro.previous_key_id) && introducedBy(id, c.intro.previous_key_id)) {
      proven.set(id, c)
      grew = true
    }
  }
}
for (const [id, c] of candidates)
  if (!proven.has(id))
    problems.push('public-keys.json: key ' + id + ' (fingerprint ' + c.fp + ') is not introduced by a trusted key' + (pins.length ? '' : ' (or no key introduces itself)'))
if (problems.length) stop(problems[0] + (problems.length > 1 ? ' (and ' + (problems.length - 1) + ' more)' : ''))

// 2. chain.json and the files
const chain = parse('chain.json', readText('chain.json'))
const { signature: chainSig, ...statement } = chain ?? {}
const chainKey = chainSig && proven.get(chainSig.key_id)
if (!chainSig || !chainKey) stop('chain.json is not signed by a proven key')
if (!verifies(chainKey.key, sha256(JSON.stringify(statement)), chainSig.value))
  stop('chain.json: the signature does not verify (chain.json was changed)')
const files = statement.files ?? {}
const present = []
const walk = (rel) => {
  for (const name of readdirSync(join(dir, rel))) {
    const p = rel ? rel + '/' + name : name
    if (statSync(join(dir, p)).isDirectory()) walk(p)
    else present.push(p)
  }
}
walk('')
for (const p of present) if (p !== 'chain.json' && !(p in files)) stop('unexpected file: ' + p + ' (not listed in chain.json)')
for (const p of Object.keys(files)) if (!present.includes(p)) stop('missing file: ' + p)
for (const [p, h] of Object.entries(files))
  if (sha256(readFileSync(join(dir, p))) !== h) problems.push(p + ': its sha256 is not the one chain.json lists (the file was changed)')

// 3. the lines
const lines = readText('checks.jsonl').split('\\n').filter((l) => l.trim() !== '')
const used = new Set([chainSig.key_id])
const hashes = new Map()
const docHash = new Map()
let prev = null
let prevSeq = null
for (const [i, line] of lines.entries()) {
  let e
  try {
    e = JSON.parse(line)
  } catch {
    problems.push('checks.jsonl line ' + (i + 1) + ': not JSON')
    continue
  }
  const where = 'checks.jsonl line ' + (i + 1) + ' (' + e.id + ')'
  if (sha256(e.prev_hash + '\\n' + e.document) !== e.hash) problems.push(where + ': the document does not match its hash: it was changed')
  const key = proven.get(e.key_id)
  if (!key) problems.push(where + ': signed with key ' + e.key_id + ', which is not a proven key')
  else if (!verifies(key.key, e.hash, e.signature)) problems.push(where + ': the signature does not verify')
  else used.add(e.key_id)
  if (prev !== null && e.prev_hash !== prev) problems.push(where + ': not chained to the line before: an entry is missing, was inserted or reordered')
  if (prevSeq !== null && !(e.seq > prevSeq)) problems.push(where + ': sequence ' + e.seq + ' does not follow ' + prevSeq + ' (lines reordered)')
  let doc = null
  try {
    doc = JSON.parse(e.document)
  } catch {
    problems.push(where + ': the document is not JSON')
  }
  if (doc && (doc[e.kind === 'check' ? 'check_id' : 'override_id'] !== e.id || doc.account_id !== e.account_id || doc.type !== e.kind))
    problems.push(where + ': the line names another id, kind or account than its signed document')
  if (e.account_id !== statement.account_id) problems.push(where + ': another account than chain.json names')
  hashes.set(e.hash, e.seq)
  if (e.kind === 'check') docHash.set(e.id, sha256(e.document))
  prev = e.hash
  prevSeq = e.seq
}
const first = lines.length ? JSON.parse(lines[0]) : null
const last = lines.length ? JSON.parse(lines[lines.length - 1]) : null
if (lines.length !== statement.entries)
  problems.push('checks.jsonl has ' + lines.length + ' entries, chain.json states ' + statement.entries + ' (lines were removed or added)')
if ((first ? first.seq : null) !== statement.first_seq || (first ? first.prev_hash : null) !== statement.first_prev_hash)
  problems.push('checks.jsonl does not start where chain.json says (first sequence ' + statement.first_seq + '): the oldest lines were removed or added')
if ((last ? last.seq : null) !== statement.last_seq || (last ? last.hash : null) !== statement.last_hash)
  problems.push('checks.jsonl does not end at the head chain.json states (sequence ' + statement.last_seq + ', hash ' + String(statement.last_hash).slice(0, 12) + '...): the newest lines were removed or added')
const keyIds = [...new Set(lines.map((l) => { try { return JSON.parse(l).key_id } catch { return null } }))].filter(Boolean).sort()
if (JSON.stringify(keyIds) !== JSON.stringify(statement.key_ids)) problems.push('checks.jsonl is signed by keys ' + keyIds.join(', ') + ', chain.json states ' + (statement.key_ids ?? []).join(', '))

// 4. the pages
for (const p of present.filter((x) => x.startsWith('pages/') && x.endsWith('.html'))) {
  const id = p.slice(6, -5)
  const m = /<meta name="carrier-verify-document-sha256" content="([0-9a-f]{64})">/.exec(readFileSync(join(dir, p), 'utf8'))
  if (!docHash.has(id)) problems.push(p + ': no check ' + id + ' in checks.jsonl')
  else if (!m || m[1] !== docHash.get(id)) problems.push(p + ': the page does not state the sha256 of its signed document')
}
for (const p of present.filter((x) => x.startsWith('pages/') && x.endsWith('.pdf'))) {
  const id = p.slice(6, -4)
  const pdf = readFileSync(join(dir, p)).toString('latin1')
  const ref = /[/]CarrierVerifyDocumentSha256 (?:\\(([0-9a-f]{64})\\)|(\\d+) 0 R)/.exec(pdf)
  const obj = ref && ref[2] ? new RegExp('(?:^|\\n)' + ref[2] + ' 0 obj\\\\s*\\\\(([0-9a-f]{64})\\\\)').exec(pdf) : null
  const stated = ref ? ref[1] ?? (obj ? obj[1] : null) : null
  if (!docHash.has(id)) problems.push(p + ': no check ' + id + ' in checks.jsonl')
  else if (stated !== docHash.get(id)) problems.push(p + ': the report does not state the sha256 of its signed document')
}
for (const id of docHash.keys())
  for (const ext of ['.html', '.pdf']) if (!present.includes('pages/' + id + ext)) problems.push('missing file: pages/' + id + ext)

// 5. anchors: each is a statement signed by a proven key; each head inside the range is an entry
// of the chain; each time-stamp token holds the DER MessageImprint {SHA-256, head hash}
let anchorCount = 0
if (existsSync(join(dir, 'anchors.json'))) {
  const anchors = parse('anchors.json', readFileSync(join(dir, 'anchors.json'), 'utf8'))
  const oid = '0609608648016503040201'
  for (const a of Array.isArray(anchors) ? anchors : []) {
    anchorCount++
    const where = 'anchors.json: the head published at ' + a.anchored_at + ' (sequence ' + a.seq + ', hash ' + String(a.head_hash).slice(0, 12) + '..., ' + a.destination + ')'
    let st = null
    try {
      st = JSON.parse(a.statement)
    } catch {}
    const key = proven.get(a.key_id)
    if (!st || !key || !verifies(key.key, sha256(String(a.statement)), a.signature))
      problems.push(where + ': its statement is not signed by a proven key')
    else if (st.seq !== a.seq || st.head_hash !== a.head_hash || st.account_id !== statement.account_id || (st.chain ?? 'live') !== (statement.chain ?? 'live'))
      problems.push(where + ': does not match its signed statement')
    else used.add(a.key_id)
    const inRange = statement.first_seq !== null && a.seq >= statement.first_seq && a.seq <= statement.last_seq
    if (inRange && hashes.get(a.head_hash) !== a.seq)
      problems.push(where + ' is not an entry of checks.jsonl: the chain was rewritten')
    if (a.destination === 'tsa') {
      const tok = a.tsa_token_file && existsSync(join(dir, a.tsa_token_file)) ? readFileSync(join(dir, a.tsa_token_file)).toString('hex') : ''
      const imprint = '0420' + String(a.head_hash)
      if (!tok) problems.push(where + ': its time-stamp token file is missing')
      else if (!tok.includes('3031300d' + oid + '0500' + imprint) && !tok.includes('302f300b' + oid + imprint))
        problems.push(where + ': the time-stamp token ' + a.tsa_token_file + ' does not time-stamp this head hash')
    }
  }
}
for (const h of outside)
  if (!hashes.has(h)) problems.push('--anchor: the chain does not pass through the head ' + h.slice(0, 12) + '... published outside the appliance: the chain was rewritten (or the head lies outside this export)')

if (problems.length) {
  for (const p of problems.slice(1)) console.error(p)
  stop(problems[0] + (problems.length > 1 ? ' (and ' + (problems.length - 1) + ' more above)' : ''))
}
const fps = [...used].sort().map((id) => id + ' fingerprint ' + proven.get(id).fp)
console.log('OK: ' + lines.length + ' entries verified; the chain runs from ' + (first ? first.prev_hash : '-') + ' to ' + (prev ?? '-'))
console.log('keys used: ' + fps.join('; '))
console.log(anchorCount ? 'anchors: the chain passes through all ' + anchorCount + ' published heads of anchors.json' : 'anchors: none in this export')
console.log(pins.length ? 'the keys are proven from the expected key(s)' : 'the keys are proven from the first key ' + [...proven.values()].find((c) => !c.intro.previous_key_id)?.fp + ', which is not pinned: compare it with the fingerprint the appliance operator publishes, or pass --expect-key')
`
