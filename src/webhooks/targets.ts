/**
 * Which URLs webhooks may be sent to. On-prem receivers usually live on the private network, so
 * private and loopback addresses are allowed by default; `WEBHOOK_ALLOWED_TARGETS` (hosts,
 * `*.suffix` wildcards, IPs and CIDRs) restricts targets to an allowlist. Link-local (cloud
 * metadata), unspecified, multicast and reserved addresses are always refused unless an allowlist
 * IP/CIDR names them. Checked when an endpoint is saved and again, after a DNS lookup, before
 * every send.
 */
import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'
import { AppError } from '../errors.ts'

/** Resolves a hostname to all its addresses (node:dns lookup, injectable for tests). */
export type LookupAll = (hostname: string) => Promise<readonly { address: string }[]>

export const systemLookup: LookupAll = (hostname) => lookup(hostname, { all: true, verbatim: true })

export const MAX_URL_LENGTH = 2048

export type TargetCheck = { ok: true } | { ok: false; reason: string }

/** Never a sensible receiver: refused unless an allowlist IP/CIDR names the address explicitly. */
const ALWAYS_REFUSED = (() => {
  const b = new BlockList()
  b.addSubnet('0.0.0.0', 8, 'ipv4') // "this network" / unspecified
  b.addSubnet('169.254.0.0', 16, 'ipv4') // link-local: cloud metadata services
  b.addSubnet('224.0.0.0', 4, 'ipv4') // multicast
  b.addSubnet('240.0.0.0', 4, 'ipv4') // reserved, broadcast
  b.addAddress('::', 'ipv6')
  b.addSubnet('fe80::', 10, 'ipv6') // link-local
  b.addSubnet('ff00::', 8, 'ipv6') // multicast
  return b
})()

interface Allowlist {
  /** exact host names and `.suffix` for `*.suffix` entries */
  hosts: string[]
  suffixes: string[]
  addresses: BlockList
}

const compiled = new Map<string, Allowlist>()

/** Parses WEBHOOK_ALLOWED_TARGETS entries; throws on an entry that is neither host, IP nor CIDR. */
export function compileAllowlist(entries: readonly string[]): Allowlist {
  const key = entries.join(',')
  const hit = compiled.get(key)
  if (hit) return hit
  const list: Allowlist = { hosts: [], suffixes: [], addresses: new BlockList() }
  for (const raw of entries) {
    const entry = raw
      .trim()
      .toLowerCase()
      .replace(/^\[|\]$/g, '')
    if (!entry) continue
    const slash = entry.indexOf('/')
    if (slash >= 0) {
      const net = entry.slice(0, slash)
      const bits = Number(entry.slice(slash + 1))
      const v = isIP(net)
      if (!v || !Number.isInteger(bits) || bits < 0 || bits > (v === 4 ? 32 : 128))
        throw new Error(`WEBHOOK_ALLOWED_TARGETS: invalid CIDR ${JSON.stringify(raw)}`)
      list.addresses.addSubnet(net, bits, v === 4 ? 'ipv4' : 'ipv6')
    } else if (isIP(entry)) {
      list.addresses.addAddress(entry, isIP(entry) === 4 ? 'ipv4' : 'ipv6')
    } else if (/^\*\.[a-z0-9.-]+$/.test(entry)) {
      list.suffixes.push(entry.slice(1))
    } else if (/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(entry)) {
      list.hosts.push(entry.replace(/\.$/, ''))
    } else {
      throw new Error(`WEBHOOK_ALLOWED_TARGETS: invalid entry ${JSON.stringify(raw)}`)
    }
  }
  compiled.set(key, list)
  return list
}

/** Host of a URL without IPv6 brackets or a trailing dot, lowercased. */
const hostOf = (url: URL) =>
  url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase()

/** `::ffff:10.0.0.1` is 10.0.0.1 for every rule. */
function normalizeAddress(address: string): { address: string; type: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped?.[1]) return { address: mapped[1], type: 'ipv4' }
  return { address, type: isIP(address) === 6 ? 'ipv6' : 'ipv4' }
}

/**
 * Validates the form of an endpoint URL: http or https (plain http is allowed because on-prem
 * receivers often have no TLS; the signature still authenticates every payload), a host, no
 * credentials, at most 2048 characters. Returns the normalised URL (fragment dropped).
 */
export function parseTargetUrl(raw: string): string {
  const text = raw.trim()
  if (text.length > MAX_URL_LENGTH)
    throw new AppError('invalid_request', `url must be at most ${MAX_URL_LENGTH} characters`)
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new AppError(
      'invalid_request',
      `url is not a valid absolute URL: ${JSON.stringify(text)}`,
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AppError('invalid_request', 'url must use http or https')
  if (url.username || url.password)
    throw new AppError('invalid_request', 'url must not contain credentials')
  if (!hostOf(url)) throw new AppError('invalid_request', 'url must name a host')
  url.hash = ''
  return url.toString()
}

/**
 * Checks a target against the policy. `phase: 'save'` tolerates a name that does not resolve yet
 * when no allowlist needs its addresses; `'send'` requires every resolved address to pass (the
 * lookup here and fetch's own lookup are separate, so allowlist by IP/CIDR for strict pinning).
 */
export async function checkTarget(
  rawUrl: string,
  allowed: readonly string[] | null,
  lookupAll: LookupAll,
  phase: 'save' | 'send',
): Promise<TargetCheck> {
  let url: URL
  try {
    url = new URL(parseTargetUrl(rawUrl))
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) }
  }
  const host = hostOf(url)
  let list: Allowlist | null
  try {
    list = allowed && allowed.length > 0 ? compileAllowlist(allowed) : null
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) }
  }
  const hostAllowed =
    list !== null && (list.hosts.includes(host) || list.suffixes.some((s) => host.endsWith(s)))

  let addresses: string[]
  if (isIP(host)) addresses = [host]
  else {
    try {
      addresses = (await lookupAll(host)).map((a) => a.address)
      if (addresses.length === 0) throw new Error('no addresses')
    } catch (err) {
      if (phase === 'save' && (list === null || hostAllowed)) return { ok: true }
      const code = (err as { code?: unknown }).code
      return {
        ok: false,
        reason: `cannot resolve ${host}${typeof code === 'string' ? ` (${code})` : ''}`,
      }
    }
  }
  for (const raw of addresses) {
    const { address, type } = normalizeAddress(raw)
    const explicitlyAllowed = list?.addresses.check(address, type) === true
    if (ALWAYS_REFUSED.check(address, type) && !explicitlyAllowed)
      return {
        ok: false,
        reason: `${host} resolves to ${address}, a link-local, multicast or reserved address`,
      }
    if (list && !hostAllowed && !explicitlyAllowed)
      return {
        ok: false,
        reason: `${host}${address === host ? '' : ` (${address})`} is not in WEBHOOK_ALLOWED_TARGETS`,
      }
  }
  return { ok: true }
}
