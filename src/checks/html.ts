/**
 * One self-contained HTML page per check (inline styles, no scripts, no external assets): what a
 * broker hands an insurer or a court. The signed document itself is embedded verbatim at the end.
 */
import { createHash } from 'node:crypto'
import type { CheckDocument, OverrideDocument } from './schema.ts'
import { rulesInWords, warningsOf, whoInWords } from './words.ts'

const esc = (v: string | number | boolean | null | undefined): string =>
  String(v ?? '—')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')

const COLOR = { pass: '#1b7f3b', review: '#a15c00', fail: '#b3261e' } as const

const badge = (v: 'pass' | 'review' | 'fail') =>
  `<span style="color:#fff;background:${COLOR[v]};padding:2px 8px;border-radius:4px;font-weight:600">${v.toUpperCase()}</span>`

const NA =
  '<span style="color:#1d1d1f;background:#e4e4e8;padding:2px 8px;border-radius:4px;font-weight:600">N/A</span>'

const row = (k: string, v: string | number | null | undefined) =>
  `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`

/** Each rule with what was found and what was required, in words (the PDF says the same). */
function rules(d: CheckDocument): string {
  return rulesInWords(d)
    .map(
      (r) =>
        `<tr><td>${r.result === 'n/a' ? NA : badge(r.result)}</td><td><b>${esc(r.description)}</b><br><small>${esc(r.rule_id)}</small></td><td>${esc(r.sentence)}</td></tr>`,
    )
    .join('\n')
}

/** A warning above everything when the data was the sample or stale, or the check a sandbox one. */
function banner(d: CheckDocument): string {
  const warnings = warningsOf(d)
  return warnings.length
    ? `<p role="alert" style="background:#fff4e5;border:2px solid #a15c00;padding:8px 12px"><b>Warning:</b> ${warnings.map(esc).join('; ')}</p>`
    : ''
}

export interface PageInput {
  doc: CheckDocument
  document: string
  signature: {
    key_id: string
    fingerprint: string
    hash: string
    prev_hash: string
    value: string
    seq: number
  }
  overrides: readonly OverrideDocument[]
}

/** The sha256 of the signed document a page renders, as the page states it for verify.mjs. */
export const PAGE_HASH_META = 'carrier-verify-document-sha256'

export function checkPage(p: PageInput): string {
  const d = p.doc
  const docHash = createHash('sha256').update(p.document, 'utf8').digest('hex')
  const effective = p.overrides.at(-1)?.verdict ?? d.verdict
  const r = d.record
  const contact = d.contact_check
  const contactRows = [
    contact?.phone
      ? row(
          'Phone given',
          `${contact.phone.given} → ${contact.phone.normalized ?? 'not a phone number'}; on file ${contact.phone.on_file ?? 'none'}; matches: ${String(contact.phone.matches_on_file)}; other companies with it: ${contact.phone.other_companies} (${contact.phone.other_companies_revoked_or_oos} revoked or out of service)`,
        )
      : '',
    contact?.email
      ? row(
          'E-mail given',
          `${contact.email.given}; on file ${contact.email.on_file ?? 'none'}; matches: ${String(contact.email.matches_on_file)}; same domain: ${String(contact.email.same_domain)}; look-alike domain: ${String(contact.email.lookalike_domain)}${contact.email.lookalike_reason ? ` (${contact.email.lookalike_reason})` : ''}; other companies with it: ${contact.email.other_companies} (${contact.email.other_companies_revoked_or_oos} revoked or out of service)`,
        )
      : '',
  ].join('')
  const overrides = p.overrides.length
    ? `<h2>Overrides</h2><table>${p.overrides
        .map((o) =>
          row(
            o.created_at,
            `${o.verdict.toUpperCase()} by ${o.by}: ${o.reason} (original verdict ${o.original_verdict})`,
          ),
        )
        .join('')}</table>`
    : ''
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Carrier check ${esc(d.check_id)}</title>
<meta name="${PAGE_HASH_META}" content="${docHash}">
<style>
body{font:14px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}
th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f6;width:14rem}
pre{white-space:pre-wrap;word-break:break-all;background:#f4f4f6;padding:8px;font-size:11px}
</style></head><body>
<h1>Carrier check ${badge(effective)}${d.api_key.mode === 'test' ? ' <span style="color:#fff;background:#555;padding:2px 8px;border-radius:4px">SANDBOX</span>' : ''}</h1>
${banner(d)}
<p><b>This page is a rendering, not the evidence.</b> The evidence is the signed document whose sha256 is
<code>${docHash}</code> (line ${esc(p.signature.seq)} of checks.jsonl), signed with the key with fingerprint
<code>${esc(p.signature.fingerprint)}</code>; <code>node verify.mjs</code> checks that this page belongs to it.</p>
<table>
${row('Effective verdict', effective === d.verdict ? `${effective.toUpperCase()} (no override)` : `${effective.toUpperCase()} (overridden; the policy's verdict was ${d.verdict.toUpperCase()})`)}
${row("Policy's verdict", d.verdict.toUpperCase())}
${row('Check id', d.check_id)}
${row('Checked at (UTC)', d.created_at)}
${row('Company', `${r.legal_name ?? ''}${r.dba_name ? ` (DBA ${r.dba_name})` : ''}`)}
${row('USDOT number', r.dot_number)}
${row('MC number', r.mc_number)}
${row('Reference', d.request.reference)}
${row('Run by', whoInWords(d))}
${row('Policy', `${d.policy.document.name} — ${d.policy.id} (sha256 ${d.policy.sha256})`)}
${row('Trust Score', `${r.trust.trust_score ?? '—'} (method ${d.trust_version ?? '—'})`)}
${row('Data source', d.source)}
${Object.entries(d.data_as_of)
  .map(([k, v]) => row(`Data as of: ${k}`, v))
  .join('\n')}
</table>
<h2>Rules</h2>
<table><tr><th style="width:6rem">Result</th><th>Rule</th><th>Found, and required</th></tr>
${rules(d)}
</table>
${contactRows ? `<h2>Contact verification</h2><table>${contactRows}</table>` : ''}
${overrides}
<h2>Signature</h2>
<table>
${row('Algorithm', 'Ed25519 over sha256(prev_hash + "\\n" + document)')}
${row('Signing key id', p.signature.key_id)}
${row('Signing key fingerprint (sha256)', p.signature.fingerprint)}
${row('Document sha256', docHash)}
${row('Position in the account chain', p.signature.seq)}
${row('Previous hash', p.signature.prev_hash)}
${row('Hash', p.signature.hash)}
${row('Signature (base64)', p.signature.value)}
</table>
<p>Verify with <code>node verify.mjs</code> in the export folder (Node 18+, no other software), which checks this
document's hash, signature and place in the chain against checks.jsonl and public-keys.json.</p>
<h2>Signed document</h2>
<pre>${esc(p.document)}</pre>
</body></html>
`
}
