/**
 * A real SMTP server on 127.0.0.1 for tests (the `smtp-server` package): it accepts, refuses
 * (5xx), answers slowly or offers STARTTLS with a self-signed certificate made at start, and keeps
 * every message it accepted, parsed.
 */
import type { AddressInfo } from 'node:net'
import { simpleParser, type ParsedMail } from 'mailparser'
import { generate } from 'selfsigned'
import { SMTPServer } from 'smtp-server'

export type SmtpMode = 'accept' | 'refuse' | 'tempfail' | 'slow'

export interface Received {
  mail: ParsedMail
  raw: string
  /** the connection was TLS when the message was sent */
  secure: boolean
  user: string | null
}

export interface TestSmtp {
  port: number
  /** SMTP_URL for this server (with `user:pass@` when it asks for authentication) */
  url: string
  received: Received[]
  mode: SmtpMode
  /** delay of the answer to DATA in `slow` mode */
  slowMs: number
  close(): Promise<void>
}

export async function startTestSmtp(
  opts: { tls?: boolean; auth?: { user: string; pass: string }; port?: number } = {},
): Promise<TestSmtp> {
  const pems = opts.tls
    ? await generate([{ name: 'commonName', value: 'localhost' }], {
        keySize: 2048,
        algorithm: 'sha256',
      })
    : null
  const state: TestSmtp = {
    port: 0,
    url: '',
    received: [],
    mode: 'accept',
    slowMs: 3000,
    close: () => Promise.resolve(),
  }
  const server = new SMTPServer({
    logger: false,
    disabledCommands: opts.tls ? [] : ['STARTTLS'],
    ...(pems ? { key: pems.private, cert: pems.cert } : {}),
    authOptional: !opts.auth,
    allowInsecureAuth: true,
    onAuth(auth, _session, cb) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass)
        cb(null, { user: auth.username })
      else cb(Object.assign(new Error('535 Authentication failed'), { responseCode: 535 }))
    },
    onRcptTo(_address, _session, cb) {
      if (state.mode === 'refuse')
        return cb(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }))
      if (state.mode === 'tempfail')
        return cb(Object.assign(new Error('Try again later'), { responseCode: 451 }))
      cb()
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8')
        const finish = () =>
          void simpleParser(raw).then((mail) => {
            state.received.push({
              mail,
              raw,
              secure: session.secure,
              user: typeof session.user === 'string' ? session.user : null,
            })
            cb(null)
          }, cb)
        if (state.mode === 'slow') setTimeout(finish, state.slowMs)
        else finish()
      })
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve())
  })
  server.on('error', () => undefined)
  state.port = (server.server.address() as AddressInfo).port
  const auth = opts.auth ? `${opts.auth.user}:${opts.auth.pass}@` : ''
  state.url = `smtp://${auth}127.0.0.1:${state.port}${opts.tls ? '?starttls=required' : ''}`
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()))
  return state
}
