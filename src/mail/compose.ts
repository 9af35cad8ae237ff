/**
 * The messages: plain text plus simple HTML (inline styles only, no images or scripts), built from
 * blocks so both parts say the same thing.
 */

export type Block =
  | { p: string }
  | { code: string }
  | { list: string[] }
  | { table: { head: string[]; rows: string[][] } }

export interface Composed {
  subject: string
  text: string
  html: string
}

const esc = (s: string) =>
  s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')

const textOf = (b: Block): string => {
  if ('p' in b) return b.p
  if ('code' in b) return `    ${b.code}`
  if ('list' in b) return b.list.map((l) => `- ${l}`).join('\n')
  return [b.table.head.join(' | '), ...b.table.rows.map((r) => r.join(' | '))].join('\n')
}

const CELL = 'style="border:1px solid #d0d7de;padding:4px 8px;text-align:left"'
const htmlOf = (b: Block): string => {
  if ('p' in b) return `<p style="margin:0 0 12px">${esc(b.p)}</p>`
  if ('code' in b)
    return `<p style="font:bold 28px monospace;letter-spacing:6px;margin:8px 0 16px">${esc(b.code)}</p>`
  if ('list' in b)
    return `<ul style="margin:0 0 12px;padding-left:20px">${b.list.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`
  return `<table style="border-collapse:collapse;margin:0 0 12px;font-size:14px"><thead><tr>${b.table.head
    .map((h) => `<th ${CELL}>${esc(h)}</th>`)
    .join('')}</tr></thead><tbody>${b.table.rows
    .map((r) => `<tr>${r.map((c) => `<td ${CELL}>${esc(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`
}

/**
 * A message from a subject, a heading, blocks and a footer line (why the reader gets it and how to
 * stop it, the unsubscribe link when there is one).
 */
export function compose(input: {
  subject: string
  heading: string
  blocks: readonly Block[]
  footer: string
  unsubscribeUrl: string | null
}): Composed {
  const footer = input.unsubscribeUrl
    ? `${input.footer} Unsubscribe: ${input.unsubscribeUrl}`
    : input.footer
  const text = [
    input.heading,
    '',
    ...input.blocks.map(textOf).flatMap((t) => [t, '']),
    '--',
    footer,
  ]
    .join('\n')
    .concat('\n')
  const unsubscribe = input.unsubscribeUrl
    ? ` <a href="${esc(input.unsubscribeUrl)}" style="color:#57606a">Unsubscribe</a>`
    : ''
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(input.subject)}</title></head>
<body style="margin:0;padding:24px;background:#f6f8fa;font:15px/1.5 -apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#1f2328">
<div style="max-width:640px;margin:0 auto;background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:24px">
<p style="margin:0 0 4px;font-size:12px;color:#57606a;text-transform:uppercase;letter-spacing:1px">carrier-verify</p>
<h1 style="font-size:20px;margin:0 0 16px">${esc(input.heading)}</h1>
${input.blocks.map(htmlOf).join('\n')}
<p style="margin:24px 0 0;font-size:12px;color:#57606a;border-top:1px solid #d0d7de;padding-top:12px">${esc(input.footer)}${unsubscribe}</p>
</div></body></html>
`
  return { subject: input.subject, text, html }
}
