/**
 * The standalone verifier written into every export as `verify.mjs`: Node 18+ and its built-in
 * crypto only, so an insurer, auditor or court expert can check an export without the appliance.
 * It is a string here (it is never imported); export.test.ts runs it on a real export.
 */
export const VERIFY_SCRIPT = `#!/usr/bin/env node
// Verifies a carrier-verify checks export without the appliance (Node 18+, no dependencies):
//   node verify.mjs [EXPORT_DIR]
// For every line of checks.jsonl: sha256(prev_hash + "\\n" + document) must equal hash, the
// Ed25519 signature of the hash must verify with the public key named by key_id (public-keys.json,
// whose key ids are recomputed from the keys), every line must chain to the line before it, and
// the signed document must name the same id and account as the line. Exit 0 when all hold.
import { createHash, createPublicKey, verify } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const dir = process.argv[2] ?? dirname(fileURLToPath(import.meta.url))
const keys = new Map()
for (const k of JSON.parse(readFileSync(join(dir, 'public-keys.json'), 'utf8'))) {
  const key = createPublicKey(k.public_key_pem)
  const id = createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16)
  if (id !== k.key_id) {
    console.error('public-keys.json: key ' + k.key_id + ' does not match its public key (' + id + ')')
    process.exit(1)
  }
  keys.set(id, key)
}
const lines = readFileSync(join(dir, 'checks.jsonl'), 'utf8').split('\\n').filter((l) => l.trim() !== '')
let prev = null
let problems = 0
for (const [i, line] of lines.entries()) {
  const e = JSON.parse(line)
  const where = 'line ' + (i + 1) + ' (' + e.id + ')'
  const fail = (msg) => {
    problems++
    console.error(where + ': ' + msg)
  }
  const hash = createHash('sha256').update(e.prev_hash + '\\n' + e.document, 'utf8').digest('hex')
  if (hash !== e.hash) fail('the document does not match its hash: it was changed')
  const key = keys.get(e.key_id)
  if (!key) fail('signed with unknown key ' + e.key_id)
  else if (!verify(null, Buffer.from(e.hash, 'hex'), key, Buffer.from(e.signature, 'base64')))
    fail('the signature does not verify')
  if (prev !== null && e.prev_hash !== prev) fail('not chained to the line before: an entry is missing or was inserted')
  let doc = null
  try {
    doc = JSON.parse(e.document)
  } catch {
    fail('the document is not JSON')
  }
  if (doc && (doc[e.kind === 'check' ? 'check_id' : 'override_id'] !== e.id || doc.account_id !== e.account_id))
    fail('the line names another id or account than its signed document')
  prev = e.hash
}
if (problems > 0) {
  console.error('FAILED: ' + problems + ' problem(s) in ' + lines.length + ' entries')
  process.exit(1)
}
const first = lines.length ? JSON.parse(lines[0]).prev_hash : null
console.log('OK: ' + lines.length + ' entries verified; the chain runs from ' + (first ?? '-') + ' to ' + (prev ?? '-'))
`
