/**
 * Contact verification: does the phone number or e-mail a broker was given belong to the company
 * FMCSA has on file? Phones are compared in E.164 (libphonenumber-js), e-mails case-insensitively
 * and by registrable domain (tldts, the public-suffix list). It also counts the *other* companies
 * registered with the same phone or e-mail (and how many of them are revoked or out of service),
 * and flags an e-mail domain that looks like the registered one (edit distance, homoglyphs,
 * the registered name inside a longer one, the same name under another suffix).
 */
import { domainToUnicode } from 'node:url'
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js'
import { getDomain, getDomainWithoutSuffix, getPublicSuffix } from 'tldts'
import { z } from 'zod'

/** How many other companies are examined for their status (the count covers all of them). */
export const OTHERS_EXAMINED = 25
const OTHERS_LISTED = 10

export const OtherCompanyJson = z.object({
  dot_number: z.string(),
  legal_name: z.string().nullable(),
  usdot_status: z.string().nullable(),
  authority_status: z.string().nullable(),
  revoked: z.boolean(),
  out_of_service: z.boolean(),
})
export type OtherCompanyJson = z.infer<typeof OtherCompanyJson>

const Shared = {
  other_companies: z.number().int().meta({ description: 'other companies registered with it' }),
  other_companies_revoked_or_oos: z
    .number()
    .int()
    .meta({ description: `of the first ${OTHERS_EXAMINED} examined: revoked or out of service` }),
  examined: z.number().int(),
  suppressed: z.boolean().optional().meta({
    description:
      'shared by more companies than the link index counts as a link (phone or e-mail > 20): counted, not examined (docs/identity.md); absent in checks made before the link index',
  }),
  others: z.array(OtherCompanyJson).meta({ description: `at most ${OTHERS_LISTED}` }),
}

export const PhoneCheckJson = z.object({
  given: z.string(),
  normalized: z.string().nullable().meta({ description: 'E.164, null when not a phone number' }),
  valid: z.boolean(),
  on_file: z.string().nullable(),
  matches_on_file: z
    .boolean()
    .nullable()
    .meta({ description: 'null when FMCSA has no phone on file' }),
  ...Shared,
})
export type PhoneCheckJson = z.infer<typeof PhoneCheckJson>

export const EmailCheckJson = z.object({
  given: z.string(),
  normalized: z.string().nullable(),
  valid: z.boolean(),
  on_file: z.string().nullable(),
  matches_on_file: z.boolean().nullable(),
  domain: z.string().nullable().meta({ description: 'registrable domain of the e-mail given' }),
  on_file_domain: z.string().nullable(),
  free_mail_domain: z.boolean().meta({
    description:
      'the registered domain is a public mailbox provider: a same-domain match proves nothing',
  }),
  same_domain: z.boolean().nullable(),
  lookalike_domain: z.boolean().nullable(),
  lookalike_reason: z.string().nullable(),
  ...Shared,
})
export type EmailCheckJson = z.infer<typeof EmailCheckJson>

export const ContactCheckJson = z.object({
  phone: PhoneCheckJson.nullable(),
  email: EmailCheckJson.nullable(),
})
export type ContactCheckJson = z.infer<typeof ContactCheckJson>

/** Public mailbox providers: a shared domain there says nothing about the company. */
const FREE_MAIL = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'ymail.com',
  'hotmail.com',
  'outlook.com',
  'live.com',
  'msn.com',
  'aol.com',
  'icloud.com',
  'me.com',
  'protonmail.com',
  'proton.me',
  'gmx.com',
  'mail.com',
  'zoho.com',
  'yandex.com',
])

/** What the check needs from the census: companies registered with these contact values. */
export interface ContactSources {
  /** `values` are phone digits as the census stores them, or lower-case e-mails */
  companiesWith(
    kind: 'phone' | 'email',
    values: readonly string[],
    limit: number,
  ): { total: number; dots: number[]; suppressed: boolean }
  /** the status of another company, or null when it cannot be read */
  statusOf(dot: number): OtherCompanyJson | null
}

export interface OnFile {
  dot_number: string
  country: string | null
  phone: string | null
  email: string | null
}

const COUNTRIES = new Set(['US', 'CA', 'MX'])
const countryOf = (c: string | null): CountryCode =>
  c && COUNTRIES.has(c) ? (c as CountryCode) : 'US'

/** E.164 of a phone in the company's country, or null. */
export function normalizePhone(raw: string, country: string | null): string | null {
  const n = parsePhoneNumberFromString(raw.trim(), countryOf(country))
  return n?.isPossible() ? n.number : null
}

/** The census phone keys for an E.164 number (the census keeps NANP numbers as 10 digits). */
function censusPhoneKeys(e164: string): string[] {
  const n = parsePhoneNumberFromString(e164)
  if (!n) return []
  return n.countryCallingCode === '1'
    ? [n.nationalNumber]
    : [`${n.countryCallingCode}${n.nationalNumber}`, n.nationalNumber]
}

type Others = Pick<
  PhoneCheckJson,
  'other_companies' | 'other_companies_revoked_or_oos' | 'examined' | 'suppressed' | 'others'
>

/** The other companies of a contact that could not be read (not a valid phone or e-mail). */
const noOthers = (): Others => ({
  other_companies: 0,
  other_companies_revoked_or_oos: 0,
  examined: 0,
  suppressed: false,
  others: [],
})

function others(
  src: ContactSources,
  kind: 'phone' | 'email',
  values: readonly string[],
  self: string,
): Others {
  const found = src.companiesWith(kind, values, OTHERS_EXAMINED + 1)
  const dots = found.dots.filter((d) => String(d) !== self).slice(0, OTHERS_EXAMINED)
  const selfIncluded = found.dots.some((d) => String(d) === self)
  const statuses = dots.flatMap((d) => {
    const s = src.statusOf(d)
    return s ? [s] : []
  })
  const bad = statuses.filter((s) => s.revoked || s.out_of_service)
  return {
    other_companies: Math.max(0, found.total - (selfIncluded ? 1 : 0)),
    other_companies_revoked_or_oos: bad.length,
    examined: statuses.length,
    suppressed: found.suppressed,
    // the revoked and out-of-service ones first: they are the reason to look
    others: [...bad, ...statuses.filter((s) => !s.revoked && !s.out_of_service)].slice(
      0,
      OTHERS_LISTED,
    ),
  }
}

export function checkPhone(given: string, onFile: OnFile, src: ContactSources): PhoneCheckJson {
  const normalized = normalizePhone(given, onFile.country)
  const fileE164 = onFile.phone ? normalizePhone(onFile.phone, onFile.country) : null
  return {
    given,
    normalized,
    valid: normalized !== null,
    on_file: fileE164 ?? onFile.phone,
    matches_on_file: onFile.phone === null ? null : normalized !== null && normalized === fileE164,
    ...(normalized
      ? others(src, 'phone', censusPhoneKeys(normalized), onFile.dot_number)
      : noOthers()),
  }
}

const EMAIL = /^[^@\s]+@([^@\s]+\.[^@\s]+)$/

/** Lower-case e-mail, or null when it is not an address. */
export function normalizeEmail(raw: string): string | null {
  const v = raw.trim().toLowerCase()
  return EMAIL.test(v) ? v : null
}

const registrable = (email: string | null): string | null => {
  if (!email) return null
  const host = email.slice(email.lastIndexOf('@') + 1)
  return getDomain(host, { allowPrivateDomains: false }) ?? null
}

/** Restricted Damerau-Levenshtein (optimal string alignment) distance. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  const at = (i: number, j: number) => d[i]?.[j] ?? 0
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, at(i - 2, j - 2) + 1)
      ;(d[i] as number[])[j] = v
    }
  return at(a.length, b.length)
}

/** Characters and sequences that read alike, folded to one form (after NFKD and diacritics). */
const HOMOGLYPHS: readonly [RegExp, string][] = [
  [/rn/g, 'm'],
  [/vv/g, 'w'],
  [/cl/g, 'd'],
  [/[0]/g, 'o'],
  [/[1!|i]/g, 'l'],
  [/3/g, 'e'],
  [/5/g, 's'],
  [/8/g, 'b'],
  [/-/g, ''],
  // Cyrillic and Greek letters that look Latin
  [/[а]/g, 'a'],
  [/[е]/g, 'e'],
  [/[оο]/g, 'o'],
  [/[р]/g, 'p'],
  [/[с]/g, 'c'],
  [/[х]/g, 'x'],
  [/[у]/g, 'y'],
  [/[і]/g, 'l'],
  [/[ѕ]/g, 's'],
]

/** The look-alike skeleton of a domain label. */
export function skeleton(label: string): string {
  let s = domainToUnicode(label) || label
  s = s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()
  for (const [re, to] of HOMOGLYPHS) s = s.replace(re, to)
  return s
}

/** Whether `given` (a registrable domain) imitates `registered`, and why. */
export function lookalike(
  given: string,
  registered: string,
): { lookalike: boolean; reason: string | null } {
  if (given === registered) return { lookalike: false, reason: null }
  const g = getDomainWithoutSuffix(given) ?? given
  const r = getDomainWithoutSuffix(registered) ?? registered
  if (g === r)
    return {
      lookalike: true,
      reason: `same name under another suffix (.${getPublicSuffix(given) ?? ''} for .${getPublicSuffix(registered) ?? ''})`,
    }
  if (skeleton(g) === skeleton(r))
    return { lookalike: true, reason: 'reads the same (look-alike characters)' }
  const dist = editDistance(skeleton(g), skeleton(r))
  const allowed = r.length >= 8 ? 2 : r.length >= 4 ? 1 : 0
  if (dist <= allowed)
    return {
      lookalike: true,
      reason: `${dist} character${dist === 1 ? '' : 's'} away from ${registered}`,
    }
  if (r.length >= 5 && skeleton(g).includes(skeleton(r)))
    return { lookalike: true, reason: `contains the registered name ${r}` }
  return { lookalike: false, reason: null }
}

export function checkEmail(given: string, onFile: OnFile, src: ContactSources): EmailCheckJson {
  const normalized = normalizeEmail(given)
  const file = onFile.email ? normalizeEmail(onFile.email) : null
  const domain = registrable(normalized)
  const fileDomain = registrable(file)
  const free = fileDomain !== null && FREE_MAIL.has(fileDomain)
  const look =
    domain && fileDomain && !free
      ? lookalike(domain, fileDomain)
      : { lookalike: null, reason: null }
  return {
    given,
    normalized,
    valid: normalized !== null,
    on_file: file ?? onFile.email,
    matches_on_file: onFile.email === null ? null : normalized !== null && normalized === file,
    domain,
    on_file_domain: fileDomain,
    free_mail_domain: free,
    same_domain: fileDomain === null ? null : !free && domain === fileDomain,
    lookalike_domain: look.lookalike,
    lookalike_reason: look.reason,
    ...(normalized ? others(src, 'email', [normalized], onFile.dot_number) : noOthers()),
  }
}

export function checkContact(
  given: { phone?: string | undefined; email?: string | undefined },
  onFile: OnFile,
  src: ContactSources,
): ContactCheckJson {
  return {
    phone: given.phone === undefined ? null : checkPhone(given.phone, onFile, src),
    email: given.email === undefined ? null : checkEmail(given.email, onFile, src),
  }
}
