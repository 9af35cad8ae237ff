/**
 * Console passwords: scrypt from node:crypto (memory-hard; N=2^15, r=8, p=1 ≈ 32 MiB per hash),
 * a random 16-byte salt per password, stored as `scrypt$N$r$p$salt$hash` so the cost can be raised
 * later without invalidating stored hashes. Comparison is constant-time.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { AppError } from '../errors.ts'

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

/** Refuses passwords that are too short or too long (a clear 400). */
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
}

export async function hashPassword(password: string): Promise<string> {
  checkPasswordRules(password)
  const salt = randomBytes(16)
  const key = await derive(password, salt, COST)
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString('base64')}$${key.toString('base64')}`
}

/** A hash of a random password: verified against when the e-mail is unknown (same timing). */
let dummy: Promise<string> | null = null
const dummyHash = () => (dummy ??= hashPassword(randomBytes(24).toString('base64')))

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
