/**
 * One-time codes to the e-mail address on a company's FMCSA record (never one the caller gives):
 * `createVerification` sends a 6-digit code (billed as one call, rate-limited per company and per
 * account, counted in the same transaction that queues the code), `confirmVerification` checks a
 * code (5 tries, 15 minutes). Codes are stored as HMAC-SHA256 under a random per-code salt.
 */
import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto'
import { HOUR } from '../clock.ts'
import { DotParam } from '../carriers/docket.ts'
import { notFoundForDot } from '../carriers/lookup.ts'
import { openRecords } from '../carriers/records.ts'
import { chargeCall } from '../keys/billing.ts'
import { notFoundFor } from '../carriers/mirror-state.ts'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Caller } from '../keys/keys.ts'
import type { Usage } from '../keys/usage.ts'
import { compose } from './compose.ts'
import { enqueueMail, unsubscribePath } from './queue.ts'
import { isSuppressed, newToken, parseAddress } from './recipients.ts'

export const CODE_TTL_MS = 15 * 60_000
export const MAX_TRIES = 5
/** Codes sent to one company (by every account together) per rolling hour. */
export const PER_COMPANY_PER_HOUR = 3
/** Codes one account sends per rolling hour. */
export const PER_ACCOUNT_PER_HOUR = 30
/** The code a sandbox key's verification accepts: sandbox data is not a real company, nothing is sent. */
export const SANDBOX_CODE = '000000'

export type VerificationStatus = 'pending' | 'verified' | 'locked'
export type ConfirmResult = 'verified' | 'wrong_code' | 'expired' | 'too_many_attempts'

const hashOf = (salt: string, code: string) =>
  createHmac('sha256', Buffer.from(salt, 'hex')).update(code).digest('hex')

/** `dispatch@acmefreight.com` → `d*****@acme…`: enough for the caller to recognise it, not to harvest it. */
export function maskAddress(email: string): string {
  const [local = '', domain = ''] = email.split('@')
  return `${local.slice(0, 1)}*****@${domain.slice(0, 4)}…`
}

export interface CreatedVerification {
  id: string
  dot_number: string
  channel: 'email'
  sent_to: string
  expires_at: string
  usage: Usage
}

/**
 * Reads the company's record in the caller's view, then in one immediate transaction: counts the
 * codes of the last hour (company, account), charges the call, stores the hashed code and queues
 * its message. The mail job sends it; the request never waits for the mail server.
 */
export async function createVerification(
  deps: Deps,
  caller: Caller,
  input: { dot: string | number },
): Promise<CreatedVerification> {
  const parsed = DotParam.safeParse(String(input.dot))
  if (!parsed.success)
    throw new AppError('invalid_dot', parsed.error.issues[0]?.message ?? 'invalid USDOT number')
  const dot = parsed.data
  const live = caller.mode === 'live'
  if (live && (!deps.config.mail.url || !deps.config.mail.from))
    throw new AppError('mail_unavailable')
  const records = openRecords(deps, caller.mode)
  const record = await records.record(dot)
  if (!record) throw notFoundFor(deps, records.view, caller, notFoundForDot(dot).message)
  const email = record.contact.email ? parseAddress(record.contact.email) : null
  if (!email)
    throw new AppError(
      'no_contact_email',
      `USDOT ${dot} has no usable e-mail address on its FMCSA record; verify the contact another way`,
    )
  if (isSuppressed(deps.db, email))
    throw new AppError(
      'no_contact_email',
      `The e-mail address on file for USDOT ${dot} asked not to receive verification codes`,
    )
  const code = live ? String(randomInt(0, 1_000_000)).padStart(6, '0') : SANDBOX_CODE
  const salt = randomBytes(16).toString('hex')
  const id = `cv_${randomBytes(12).toString('base64url')}`
  const now = deps.clock()
  const at = now.getTime()
  const expiresAt = at + CODE_TTL_MS
  const { db } = deps
  const usage = db
    .transaction((): Usage => {
      refuseOverRate(db, dot, caller.accountId, at)
      const usage = chargeCall(deps, caller, now) // 429 past a capped plan's quota: nothing is sent
      let messageId: number | null = null
      if (live) {
        messageId = queueCode(
          deps,
          { dot, legalName: record.legal_name, email, code, expiresAt },
          at,
        )
      }
      db.prepare(
        `INSERT INTO contact_verifications (id, account_id, api_key_id, dot_number, channel, sent_to,
           code_hash, salt, tries, status, message_id, created_at, expires_at)
         VALUES (?, ?, ?, ?, 'email', ?, ?, ?, 0, 'pending', ?, ?, ?)`,
      ).run(
        id,
        caller.accountId,
        caller.keyId,
        dot,
        email,
        hashOf(salt, code),
        salt,
        messageId,
        at,
        expiresAt,
      )
      return usage
    })
    .immediate()
  return {
    id,
    dot_number: String(dot),
    channel: 'email',
    sent_to: maskAddress(email),
    expires_at: new Date(expiresAt).toISOString(),
    usage,
  }
}

/** Refuses a code past the per-company or per-account hourly limit (429 with Retry-After). */
function refuseOverRate(db: Deps['db'], dot: number, accountId: number, at: number): void {
  const since = at - HOUR
  const forCompany = (
    db
      .prepare(
        'SELECT count(*) AS n FROM contact_verifications WHERE dot_number = ? AND created_at > ?',
      )
      .get(dot, since) as { n: number }
  ).n
  if (forCompany >= PER_COMPANY_PER_HOUR)
    throw rateLimited(
      `At most ${PER_COMPANY_PER_HOUR} codes an hour go to one company`,
      db,
      'dot_number',
      dot,
      since,
    )
  const forAccount = (
    db
      .prepare(
        'SELECT count(*) AS n FROM contact_verifications WHERE account_id = ? AND created_at > ?',
      )
      .get(accountId, since) as { n: number }
  ).n
  if (forAccount >= PER_ACCOUNT_PER_HOUR)
    throw rateLimited(
      `An account sends at most ${PER_ACCOUNT_PER_HOUR} codes an hour`,
      db,
      'account_id',
      accountId,
      since,
    )
}

/** Queues the e-mail carrying the code to the company's address; returns the message id. */
function queueCode(
  deps: Deps,
  to: { dot: number; legalName: string | null; email: string; code: string; expiresAt: number },
  at: number,
): number {
  const { db } = deps
  const token = newToken()
  const url = `${deps.config.publicUrl.replace(/\/+$/, '')}${unsubscribePath(token)}`
  return enqueueMail(
    db,
    {
      accountId: null,
      recipientId: null,
      kind: 'contact_code',
      to: to.email,
      composed: compose({
        subject: `Your verification code: ${to.code}`,
        heading: 'Confirm this is your company',
        blocks: [
          {
            p: `Someone arranging freight with ${to.legalName} (USDOT ${to.dot}) asked to confirm they are dealing with you. If you are talking with a broker or shipper now, give them this code:`,
          },
          { code: to.code },
          {
            p: 'It expires in 15 minutes. If you did not expect this, do not share the code: someone may be trying to book a load in your name.',
          },
        ],
        footer: 'Sent to the e-mail address on your FMCSA registration.',
        unsubscribeUrl: url,
      }),
      unsubscribeToken: token,
      expiresAt: to.expiresAt,
    },
    at,
  )
}

function rateLimited(
  message: string,
  db: Deps['db'],
  column: 'dot_number' | 'account_id',
  value: number,
  since: number,
): AppError {
  const oldest = (
    db
      .prepare(
        `SELECT min(created_at) AS at FROM contact_verifications WHERE ${column} = ? AND created_at > ?`,
      )
      .get(value, since) as { at: number }
  ).at
  // the oldest code of the window leaves it one hour after it was sent
  const retryAfter = Math.max(1, Math.ceil((oldest - since) / 1000))
  return new AppError('rate_limited', `${message}; try again in ${retryAfter} s`, {
    headers: { 'retry-after': String(retryAfter) },
  })
}

export interface VerificationJson {
  id: string
  dot_number: string
  channel: 'email'
  sent_to: string
  status: VerificationStatus
  tries_left: number
  created_at: string
  expires_at: string
  verified_at: string | null
}

interface Row {
  id: string
  accountId: number
  dotNumber: number
  sentTo: string
  codeHash: string
  salt: string
  tries: number
  status: VerificationStatus
  createdAt: number
  expiresAt: number
  verifiedAt: number | null
}

const rowOf = (db: Deps['db'], accountId: number, id: string): Row | undefined =>
  db
    .prepare(
      `SELECT id, account_id AS accountId, dot_number AS dotNumber, sent_to AS sentTo, code_hash AS codeHash,
         salt, tries, status, created_at AS createdAt, expires_at AS expiresAt, verified_at AS verifiedAt
       FROM contact_verifications WHERE id = ? AND account_id = ?`,
    )
    .get(id, accountId) as Row | undefined

const jsonOf = (r: Row): VerificationJson => ({
  id: r.id,
  dot_number: String(r.dotNumber),
  channel: 'email',
  sent_to: maskAddress(r.sentTo),
  status: r.status,
  tries_left: Math.max(0, MAX_TRIES - r.tries),
  created_at: new Date(r.createdAt).toISOString(),
  expires_at: new Date(r.expiresAt).toISOString(),
  verified_at: r.verifiedAt === null ? null : new Date(r.verifiedAt).toISOString(),
})

/** The account's verification (404 for another account's or an unknown id). */
export function getVerification(db: Deps['db'], accountId: number, id: string): VerificationJson {
  const r = rowOf(db, accountId, id)
  if (!r) throw new AppError('not_found', `No contact verification ${id.slice(0, 64)}`)
  return jsonOf(r)
}

/**
 * Checks a code in one immediate transaction (parallel guesses cannot pass the five tries). A
 * verified verification stays verified; a wrong code counts a try, the fifth locks it.
 */
export function confirmVerification(
  deps: Pick<Deps, 'db' | 'clock'>,
  accountId: number,
  id: string,
  code: string,
): { result: ConfirmResult; verification: VerificationJson } {
  const { db } = deps
  return db
    .transaction(() => {
      const r = rowOf(db, accountId, id)
      if (!r) throw new AppError('not_found', `No contact verification ${id.slice(0, 64)}`)
      const now = deps.clock().getTime()
      if (r.status === 'verified') return { result: 'verified' as const, verification: jsonOf(r) }
      if (r.status === 'locked' || r.tries >= MAX_TRIES)
        return { result: 'too_many_attempts' as const, verification: jsonOf(r) }
      if (now >= r.expiresAt) return { result: 'expired' as const, verification: jsonOf(r) }
      const given = Buffer.from(hashOf(r.salt, code), 'hex')
      const ok = /^\d{6}$/.test(code) && timingSafeEqual(given, Buffer.from(r.codeHash, 'hex'))
      const tries = r.tries + 1
      const status: VerificationStatus = ok ? 'verified' : tries >= MAX_TRIES ? 'locked' : 'pending'
      db.prepare(
        'UPDATE contact_verifications SET tries = ?, status = ?, verified_at = ? WHERE id = ?',
      ).run(tries, status, ok ? now : null, r.id)
      const updated = { ...r, tries, status, verifiedAt: ok ? now : null }
      return {
        result: ok ? ('verified' as const) : ('wrong_code' as const),
        verification: jsonOf(updated),
      }
    })
    .immediate()
}
