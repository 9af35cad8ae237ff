/**
 * The SMTP side of e-mail: a nodemailer transport built from SMTP_URL. smtp:// uses STARTTLS when
 * the server offers it (`?starttls=required` refuses to send without it), smtps:// is TLS from the
 * first byte; user and password come from the URL. Every wait is bounded by SMTP_TIMEOUT_MS.
 */
import type { ConnectionOptions } from 'node:tls'
import { createTransport } from 'nodemailer'
import type { Config } from '../config.ts'

export interface Outgoing {
  from: string
  to: string
  subject: string
  text: string
  html: string
  headers: Record<string, string>
}

/** What the delivery job needs of a mail server connection. */
export interface MailTransport {
  /** resolves with the server's final answer (e.g. `250 2.0.0 OK`); rejects with SendError */
  send(message: Outgoing): Promise<string>
  close(): void
}

/** A failed send: `permanent` when the server refused it with a 5xx answer. */
export class SendError extends Error {
  override readonly name = 'SendError'
  readonly permanent: boolean
  readonly response: string | null
  constructor(message: string, permanent: boolean, response: string | null) {
    super(message)
    this.permanent = permanent
    this.response = response
  }
}

export type MailConfig = Config['mail']

/** Tests reach a server with a self-signed certificate through `tls` (never the product). */
export type TransportFactory = (mail: MailConfig) => MailTransport

/** SMTP_URL with its password replaced, for status output and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return 'smtp://(unparsable)'
  }
}

/** nodemailer's options for an SMTP_URL. */
export function smtpOptions(url: string, timeoutMs: number, tls?: ConnectionOptions) {
  const u = new URL(url)
  const secure = u.protocol === 'smtps:'
  const requireTLS = u.searchParams.get('starttls') === 'required'
  const user = decodeURIComponent(u.username)
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    requireTLS,
    ...(user ? { auth: { user, pass: decodeURIComponent(u.password) } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    ...(tls ? { tls } : {}),
  }
}

const errorOf = (err: unknown): SendError => {
  const e = err as { message?: unknown; responseCode?: unknown; response?: unknown; code?: unknown }
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : null
  const response = typeof e.response === 'string' ? e.response.slice(0, 500) : null
  const message = typeof e.message === 'string' ? e.message : String(err)
  const code = typeof e.code === 'string' ? `${e.code}: ` : ''
  return new SendError(
    `${code}${message}`.slice(0, 500),
    responseCode !== null && responseCode >= 500,
    response,
  )
}

/** A transport over one SMTP connection per message (no pool: the queue is small and bursty). */
export function smtpTransport(mail: MailConfig, tls?: ConnectionOptions): MailTransport {
  if (!mail.url) throw new Error('SMTP_URL is not set')
  const transporter = createTransport(smtpOptions(mail.url, mail.timeoutMs, tls))
  return {
    async send(m) {
      try {
        const info = await transporter.sendMail(m)
        return info.response
      } catch (err) {
        throw errorOf(err)
      }
    },
    close: () => transporter.close(),
  }
}
