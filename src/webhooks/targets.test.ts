import { describe, expect, it } from 'vitest'
import { AppError } from '../errors.ts'
import { checkTarget, compileAllowlist, parseTargetUrl, type LookupAll } from './targets.ts'

const dns =
  (table: Record<string, string[]>): LookupAll =>
  async (host) => {
    const addrs = table[host]
    if (!addrs)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
    return addrs.map((address) => ({ address }))
  }

const lookup = dns({
  'hooks.corp.local': ['10.1.2.3'],
  'tms.example.com': ['203.0.113.10'],
  'api.partner.example': ['198.51.100.7'],
  'metadata.evil.test': ['169.254.169.254'],
  'mapped.test': ['::ffff:10.9.9.9'],
  'dual.test': ['10.0.0.5', '203.0.113.99'],
  'partner.example': ['198.51.100.8'],
})

describe('parseTargetUrl', () => {
  it('accepts http and https, drops the fragment', () => {
    expect(parseTargetUrl(' https://tms.example.com/hooks#x ')).toBe(
      'https://tms.example.com/hooks',
    )
    expect(parseTargetUrl('http://10.1.2.3:8080/in')).toBe('http://10.1.2.3:8080/in')
  })

  it.each([
    ['ftp://tms.example.com/', /http or https/],
    ['tms.example.com/hooks', /valid absolute URL/],
    ['https://user:pw@tms.example.com/', /credentials/],
    [`https://tms.example.com/${'a'.repeat(2100)}`, /at most 2048/],
  ])('refuses %s', (url, message) => {
    expect(() => parseTargetUrl(url)).toThrow(message)
    expect(() => parseTargetUrl(url)).toThrow(AppError)
  })
})

describe('checkTarget without an allowlist', () => {
  it.each([
    'http://127.0.0.1:9000/hook',
    'http://10.1.2.3/hook',
    'http://hooks.corp.local/hook',
    'https://tms.example.com/hook',
    'http://[::1]:9000/hook',
  ])('allows private, loopback and public targets: %s', async (url) => {
    expect(await checkTarget(url, null, lookup, 'send')).toEqual({ ok: true })
  })

  it.each([
    'http://169.254.169.254/latest/meta-data',
    'http://metadata.evil.test/',
    'http://0.0.0.0:80/',
    'http://224.0.0.1/',
    'http://[fe80::1]/',
  ])('refuses link-local, unspecified and multicast targets: %s', async (url) => {
    const r = await checkTarget(url, null, lookup, 'send')
    expect(r.ok).toBe(false)
  })

  it('tolerates an unresolvable name when saving, not when sending', async () => {
    expect(await checkTarget('http://nowhere.test/', null, lookup, 'save')).toEqual({ ok: true })
    expect(await checkTarget('http://nowhere.test/', null, lookup, 'send')).toEqual({
      ok: false,
      reason: 'cannot resolve nowhere.test (ENOTFOUND)',
    })
  })
})

describe('checkTarget with WEBHOOK_ALLOWED_TARGETS', () => {
  const allow = ['10.0.0.0/8', 'tms.example.com', '*.partner.example', '2001:db8::/32']

  it.each([
    'http://hooks.corp.local/x', // resolves into 10/8
    'http://10.200.0.1/x',
    'https://tms.example.com/x', // by name
    'https://api.partner.example/x', // by wildcard
    'http://mapped.test/x', // ::ffff:10.9.9.9 is 10.9.9.9
    'http://[2001:db8::5]/x',
  ])('allows %s', async (url) => {
    expect(await checkTarget(url, allow, lookup, 'send')).toEqual({ ok: true })
  })

  it.each([
    ['http://127.0.0.1:9000/x', /127\.0\.0\.1 is not in WEBHOOK_ALLOWED_TARGETS/],
    ['http://192.168.1.10/x', /not in WEBHOOK_ALLOWED_TARGETS/],
    ['http://dual.test/x', /dual\.test \(203\.0\.113\.99\) is not in/], // every address must match
    ['http://partner.example/x', /not in/], // *.suffix does not match the bare domain
    ['http://nowhere.test/x', /cannot resolve/],
  ])('refuses %s', async (url, reason) => {
    const r = await checkTarget(url, allow, lookup, 'save')
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toMatch(reason)
  })

  it('an explicit CIDR admits an otherwise refused range', async () => {
    expect(await checkTarget('http://169.254.10.10/', ['169.254.10.0/24'], lookup, 'send')).toEqual(
      { ok: true },
    )
  })

  it('rejects malformed entries', () => {
    expect(() => compileAllowlist(['10.0.0.0/33'])).toThrow(/invalid CIDR/)
    expect(() => compileAllowlist(['bad host!'])).toThrow(/invalid entry/)
  })
})
