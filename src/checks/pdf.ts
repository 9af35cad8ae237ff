/**
 * The check report as a PDF a person can hand over (pdfkit, pure JavaScript, the PDF standard
 * fonts: nothing to download, no browser): the effective verdict first, the company, who ran it
 * and when, every rule with the values found in words, the data sources with the regulator's
 * dates and file hashes, overrides with their authors, the signature and how to verify, and the
 * policy as an appendix. The PDF is a rendering, not the evidence; it states the sha256 of the
 * signed document in its text and in its metadata (`CarrierVerifyDocumentSha256`), which the
 * export's verify.mjs compares with the document's line.
 */
import { createHash } from 'node:crypto'
import PDFDocument from 'pdfkit'
import { stringify } from 'yaml'
import type { PageInput } from './html.ts'
import type { CheckDocument, OverrideDocument } from './schema.ts'
import { dateInWords, rulesInWords, warningsOf, whoInWords } from './words.ts'

/** The PDF metadata key carrying the sha256 of the signed document (read by verify.mjs). */
export const PDF_HASH_KEY = 'CarrierVerifyDocumentSha256'

const COLOR: Record<string, string> = {
  pass: '#1b7f3b',
  review: '#a15c00',
  fail: '#b3261e',
  'n/a': '#6b6b70',
}
const INK = '#1d1d1f'
const MUTED = '#55555a'
const MARGIN = 50
const FOOTER = 46

/** The standard PDF fonts cover WinAnsi only: other characters get a plain equivalent. */
const PLAIN: Record<string, string> = {
  '≥': '>=',
  '≤': '<=',
  '≠': '!=',
  '→': '->',
  '←': '<-',
  '✓': 'yes',
  '×': 'x',
}
const pdfText = (s: string): string =>
  s.replace(
    /[^\t\n -\u00ff\u2013\u2014\u2018\u2019\u201c\u201d\u2022\u2026\u20ac]/g,
    (c) => PLAIN[c] ?? '?',
  )

/** A PDFDocument whose bytes are collected as they are written, so rendering is synchronous. */
function collected(options: PDFKit.PDFDocumentOptions) {
  const parts: Buffer[] = []
  class Collected extends PDFDocument {
    override push(chunk: unknown): boolean {
      if (chunk instanceof Uint8Array) parts.push(Buffer.from(chunk))
      return true
    }
  }
  return { pdf: new Collected(options), parts }
}

type Doc = InstanceType<typeof PDFDocument>

function heading(pdf: Doc, text: string) {
  if (pdf.y > pdf.page.height - pdf.page.margins.bottom - 60) pdf.addPage()
  pdf.moveDown(0.8).font('Helvetica-Bold').fontSize(13).fillColor(INK).text(text)
  pdf.moveDown(0.3).font('Helvetica').fontSize(10)
}

/** "Label: value" rows with the label in a fixed column. */
function rows(pdf: Doc, items: readonly [string, string][]) {
  const x = MARGIN
  const labelWidth = 130
  const width = pdf.page.width - 2 * MARGIN - labelWidth
  for (const [k, v] of items) {
    const h = Math.max(pdf.font('Helvetica').fontSize(10).heightOfString(pdfText(v), { width }), 12)
    if (pdf.y + h > pdf.page.height - pdf.page.margins.bottom) pdf.addPage()
    const y = pdf.y
    pdf
      .font('Helvetica-Bold')
      .fillColor(MUTED)
      .text(pdfText(k), x, y, { width: labelWidth - 8 })
    pdf
      .font('Helvetica')
      .fillColor(INK)
      .text(pdfText(v), x + labelWidth, y, { width })
    pdf.x = x
    pdf.y = Math.max(pdf.y, y + h) + 3
  }
}

function banner(pdf: Doc, warnings: readonly string[]) {
  if (!warnings.length) return
  const width = pdf.page.width - 2 * MARGIN
  const text = pdfText(`Warning: ${warnings.join('; ')}.`)
  const h =
    pdf
      .font('Helvetica-Bold')
      .fontSize(10)
      .heightOfString(text, { width: width - 16 }) + 12
  const y = pdf.y
  pdf.save().rect(MARGIN, y, width, h).fillAndStroke('#fff4e5', '#a15c00').restore()
  pdf.fillColor('#7a4500').text(text, MARGIN + 8, y + 6, { width: width - 16 })
  pdf.x = MARGIN
  pdf.y = y + h + 10
}

function verdictBlock(pdf: Doc, d: CheckDocument, overrides: readonly OverrideDocument[]) {
  const last = overrides.at(-1)
  const effective = last?.verdict ?? d.verdict
  const width = pdf.page.width - 2 * MARGIN
  const y = pdf.y
  pdf
    .save()
    .rect(MARGIN, y, width, 54)
    .fill(COLOR[effective] ?? INK)
    .restore()
  pdf
    .fillColor('#ffffff')
    .font('Helvetica-Bold')
    .fontSize(11)
    .text('EFFECTIVE VERDICT', MARGIN + 12, y + 8)
    .fontSize(24)
    .text(effective.toUpperCase(), MARGIN + 12, y + 22)
  const note = last
    ? `overridden by ${last.by} on ${dateInWords(last.created_at)}; the policy's verdict was ${d.verdict.toUpperCase()}`
    : "the policy's verdict (no override)"
  pdf
    .font('Helvetica')
    .fontSize(10)
    .text(pdfText(note), MARGIN + 150, y + 30, { width: width - 162, align: 'right' })
  pdf.fillColor(INK)
  pdf.x = MARGIN
  pdf.y = y + 64
}

function company(pdf: Doc, d: CheckDocument) {
  const r = d.record
  const a = r.contact.physical_address
  const address = a
    ? [a.street, a.city, [a.state, a.zip].filter(Boolean).join(' '), a.country]
        .filter(Boolean)
        .join(', ')
    : 'none on file'
  pdf
    .font('Helvetica-Bold')
    .fontSize(16)
    .text(pdfText(r.legal_name ?? `USDOT ${d.dot_number}`))
  pdf.moveDown(0.3)
  rows(pdf, [
    ...(r.dba_name ? [['Doing business as', r.dba_name] as [string, string]] : []),
    ['USDOT number', r.dot_number],
    ['MC number', r.mc_number ?? 'none'],
    ['Address on file', address],
    ['Your reference', d.request.reference ?? 'none given'],
  ])
}

function who(pdf: Doc, d: CheckDocument) {
  heading(pdf, 'Who ran it, and when')
  const at = `${dateInWords(d.created_at)}, ${d.created_at.slice(11, 19)} UTC`
  rows(pdf, [
    ['Checked at', at],
    ['Run by', whoInWords(d)],
    ['Policy', `${d.policy.document.name} (${d.policy.id}, sha256 ${d.policy.sha256})`],
  ])
}

function rules(pdf: Doc, d: CheckDocument) {
  heading(pdf, 'Rules')
  const width = pdf.page.width - 2 * MARGIN - 60
  for (const r of rulesInWords(d)) {
    const text = pdfText(r.sentence)
    const title = pdfText(r.description)
    const h =
      pdf.font('Helvetica-Bold').fontSize(10).heightOfString(title, { width }) +
      pdf.font('Helvetica').fontSize(9).heightOfString(text, { width }) +
      6
    if (pdf.y + h > pdf.page.height - pdf.page.margins.bottom) pdf.addPage()
    const y = pdf.y
    pdf
      .save()
      .roundedRect(MARGIN, y, 50, 14, 3)
      .fill(COLOR[r.result] ?? INK)
      .restore()
    pdf
      .fillColor('#ffffff')
      .font('Helvetica-Bold')
      .fontSize(8)
      .text(r.result.toUpperCase(), MARGIN, y + 3.5, { width: 50, align: 'center' })
    pdf
      .fillColor(INK)
      .fontSize(10)
      .text(title, MARGIN + 60, y, { width })
    pdf
      .font('Helvetica')
      .fontSize(9)
      .fillColor(MUTED)
      .text(text, MARGIN + 60, pdf.y, { width })
    pdf.fillColor(INK)
    pdf.x = MARGIN
    pdf.y = Math.max(pdf.y, y + 16) + 6
  }
}

function sources(pdf: Doc, d: CheckDocument) {
  heading(pdf, 'Data sources')
  if (!d.data_sources?.length) {
    rows(
      pdf,
      Object.entries(d.data_as_of).map(([k, v]) => [
        k,
        v ? `data as of ${dateInWords(v)}` : 'none',
      ]),
    )
    return
  }
  for (const s of d.data_sources) {
    const files = s.files
      .map((f) => `${f.id ?? f.url ?? 'file'}: sha256 ${f.sha256 ?? 'not recorded'}`)
      .join('\n')
    rows(pdf, [
      [
        s.dataset,
        `regulator's date ${s.regulator_date ? dateInWords(s.regulator_date) : 'unknown'}; version ${s.version_id} (${s.channel})${s.rows === null ? '' : `, ${s.rows.toLocaleString('en-US')} rows`}; imported ${s.imported_at ? dateInWords(s.imported_at) : 'unknown'}${files ? `\n${files}` : ''}`,
      ],
    ])
  }
}

function overridesPart(pdf: Doc, overrides: readonly OverrideDocument[]) {
  heading(pdf, 'Overrides')
  if (!overrides.length) {
    pdf.text('None: the effective verdict is the policy’s.')
    return
  }
  rows(
    pdf,
    overrides.map((o) => [
      `${dateInWords(o.created_at)} ${o.created_at.slice(11, 16)} UTC`,
      `${o.verdict.toUpperCase()} (was ${o.original_verdict.toUpperCase()}) by ${o.by}${o.by_verified ? ' (signed-in console user)' : ' (name given with the API key, unverified)'}${o.api_key ? `, API key ${o.api_key.name ?? o.api_key.id}` : ''}. Reason: ${o.reason}`,
    ]),
  )
}

function evidence(pdf: Doc, p: PageInput, docHash: string) {
  heading(pdf, 'The evidence, and how to verify it')
  pdf
    .font('Helvetica-Bold')
    .text('This PDF is a rendering, not the evidence.', { continued: true })
    .font('Helvetica')
    .text(
      ' The evidence is the signed JSON document of this check, a line of checks.jsonl in an export (carrier-verify checks export). Run node verify.mjs --expect-key FINGERPRINT in the export folder (Node 18+, nothing else): it checks the document hash, the Ed25519 signature and the chain, and that this PDF states the hash of that document.',
    )
  pdf.moveDown(0.5)
  rows(pdf, [
    ['Check id', p.doc.check_id],
    ['Document sha256', docHash],
    ['Signing key fingerprint', p.signature.fingerprint],
    ['Signing key id', p.signature.key_id],
    ['Place in the chain', `sequence ${p.signature.seq}, hash ${p.signature.hash}`],
    ['Previous hash', p.signature.prev_hash],
  ])
}

function appendix(pdf: Doc, d: CheckDocument) {
  pdf.addPage()
  pdf.font('Helvetica-Bold').fontSize(13).text('Appendix: the policy as applied')
  pdf
    .font('Helvetica')
    .fontSize(9)
    .fillColor(MUTED)
    .text(`${d.policy.id}, sha256 ${d.policy.sha256}`)
  pdf.moveDown(0.5).fillColor(INK).font('Courier').fontSize(8)
  pdf.text(pdfText(stringify(d.policy.document, { lineWidth: 100 })), {
    width: pdf.page.width - 2 * MARGIN,
  })
}

/** The footer on every page: check id, document hash, key fingerprint, how to verify. */
function footers(pdf: Doc, p: PageInput, docHash: string) {
  const range = pdf.bufferedPageRange()
  for (let i = range.start; i < range.start + range.count; i++) {
    pdf.switchToPage(i)
    const bottom = pdf.page.margins.bottom
    pdf.page.margins.bottom = 0
    const y = pdf.page.height - FOOTER
    const width = pdf.page.width - 2 * MARGIN
    pdf
      .moveTo(MARGIN, y - 6)
      .lineTo(pdf.page.width - MARGIN, y - 6)
      .strokeColor('#cccccc')
      .stroke()
    pdf
      .font('Helvetica')
      .fontSize(7)
      .fillColor(MUTED)
      .text(`Check ${p.doc.check_id} · page ${i + 1} of ${range.count}`, MARGIN, y, {
        width,
        lineBreak: false,
      })
      .text(`Document sha256 ${docHash}`, MARGIN, y + 9, { width, lineBreak: false })
      .text(
        `Signing key fingerprint ${p.signature.fingerprint} · not the evidence: verify with node verify.mjs`,
        MARGIN,
        y + 18,
        { width, lineBreak: false },
      )
    pdf.page.margins.bottom = bottom
  }
}

/** The report of one check as PDF bytes. */
export function checkReportPdf(p: PageInput, now: Date = new Date(p.doc.created_at)): Buffer {
  const d = p.doc
  const docHash = createHash('sha256').update(p.document, 'utf8').digest('hex')
  // the hash under its own key too (a variable: DocumentInfo does not name it)
  const info = {
    Title: pdfText(`Carrier check ${d.check_id}: ${d.legal_name ?? d.dot_number}`),
    Subject: `A rendering of the signed check document with sha256 ${docHash}`,
    Creator: 'carrier-verify',
    CreationDate: now,
    [PDF_HASH_KEY]: docHash,
  }
  const { pdf, parts } = collected({
    size: 'LETTER',
    margins: { top: MARGIN, left: MARGIN, right: MARGIN, bottom: FOOTER + 20 },
    bufferPages: true,
    info,
  })
  pdf.font('Helvetica').fontSize(9).fillColor(MUTED).text('CARRIER CHECK REPORT')
  pdf.moveDown(0.3)
  banner(pdf, warningsOf(d))
  verdictBlock(pdf, d, p.overrides)
  company(pdf, d)
  who(pdf, d)
  rules(pdf, d)
  sources(pdf, d)
  overridesPart(pdf, p.overrides)
  evidence(pdf, p, docHash)
  appendix(pdf, d)
  footers(pdf, p, docHash)
  pdf.end()
  return Buffer.concat(parts)
}
