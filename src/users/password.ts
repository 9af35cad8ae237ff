/**
 * Console passwords: scrypt from node:crypto (memory-hard; N=2^15, r=8, p=1 ≈ 32 MiB per hash),
 * a random 16-byte salt per password, stored as `scrypt$N$r$p$salt$hash` so the cost can be raised
 * later without invalidating stored hashes. Comparison is constant-time.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { AppError } from '../errors.ts'
import { COMMON_PASSWORDS } from './common-passwords.ts'

const COST = { N: 2 ** 15, r: 8, p: 1 }
const KEY_LENGTH = 32
export const MIN_PASSWORD_LENGTH = 12
export const MAX_PASSWORD_LENGTH = 256

const derive = (password: string, salt: Buffer, o: { N: number; r: number; p: number }) =>
  new Promise<Buffer>((resolve, reject) => {
    const options: ScryptOptions = { N: o.N, r: o.r, p: o.p, maxmem: 256 * o.N * o.r }
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) =>
      err ? reject(err) : resolve(key),
    )
  })

/**
 * Why a password is easy to guess, or null: one character repeated (or only blanks), a short
 * pattern repeated ("abcabcabcabc"), or a common password with digits or symbols added around it.
 */
export function weakPasswordReason(password: string): string | null {
  const p = password.normalize('NFKC').toLowerCase()
  if (p.trim() === '') return 'it is only blanks'
  if (new Set(p).size === 1) return 'it is one character repeated'
  for (let n = 2; n <= 4; n++)
    if (p.length % n === 0 && p === p.slice(0, n).repeat(p.length / n))
      return 'it is a short pattern repeated'
  const core = p.replace(/^[\d\W_]+|[\d\W_]+$/g, '')
  if (
    COMMON_PASSWORDS.has(p) ||
    COMMON_PASSWORDS.has(core) ||
    COMMON_PASSWORDS.has(p.replace(/\s+/g, ''))
  )
    return 'it is a common password'
  if (/^\d+$/.test(p) && isRun(p)) return 'it is a run of digits'
  return null
}

/** Digits counting up or down by one ("123456789012", "987654321098"). */
function isRun(digits: string): boolean {
  const step = (i: number) => (Number(digits[i + 1]) - Number(digits[i]) + 10) % 10
  const first = step(0)
  if (first !== 1 && first !== 9) return false
  for (let i = 1; i < digits.length - 1; i++) if (step(i) !== first) return false
  return true
}

/** Refuses passwords that are too short, too long or easy to guess (a clear 400). */
export function checkPasswordRules(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new AppError(
      'invalid_request',
      `The password must have at least ${MIN_PASSWORD_LENGTH} characters`,
    )
  if (password.length > MAX_PASSWORD_LENGTH)
    throw new AppError(
      'invalid_request',
      `The password must have at most ${MAX_PASSWORD_LENGTH} characters`,
    )
  const weak = weakPasswordReason(password)
  if (weak)
    throw new AppError(
      'invalid_request',
      `The password is too easy to guess (${weak}); choose a longer phrase of unrelated words`,
    )
}

export async function hashPassword(password: string): Promise<string> {
  checkPasswordRules(password)
  return hashChecked(password)
}

async function hashChecked(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, COST)
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString('base64')}$${key.toString('base64')}`
}

/** A hash of a random password: verified against when the e-mail is unknown (same timing). */
let dummy: Promise<string> | null = null
const dummyHash = () => (dummy ??= hashChecked(randomBytes(24).toString('base64')))

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const target = stored ?? (await dummyHash())
  const [scheme, n, r, p, salt, hash] = target.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64')
  if (password.length > MAX_PASSWORD_LENGTH) return false
  const key = await derive(password, Buffer.from(salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  })
  return stored !== null && key.length === expected.length && timingSafeEqual(key, expected)
}
