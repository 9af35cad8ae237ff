import { describe, expect, test } from 'vitest'
import {
  checkContact,
  editDistance,
  lookalike,
  normalizeEmail,
  normalizePhone,
  skeleton,
  type ContactSources,
  type OnFile,
} from './contact.ts'

const onFile: OnFile = {
  dot_number: '100',
  country: 'US',
  phone: '+17124392831',
  email: 'dispatch@acmefreight.com',
}

/** A census of contact values: 100 (the company), 200 (revoked), 300 (out of service), 400 (fine). */
function sources(byValue: Record<string, number[]>): ContactSources {
  return {
    companiesWith(_kind, values, limit) {
      const dots = [...new Set(values.flatMap((v) => byValue[v] ?? []))].sort()
      return { total: dots.length, dots: dots.slice(0, limit), suppressed: false }
    },
    statusOf: (dot) => ({
      dot_number: String(dot),
      legal_name: `CO ${dot}`,
      usdot_status: 'active',
      authority_status: dot === 200 ? 'INACTIVE' : 'ACTIVE',
      revoked: dot === 200,
      out_of_service: dot === 300,
    }),
  }
}

describe('contact verification', () => {
  test('phones compare in E.164 whatever the formatting', () => {
    expect(normalizePhone('(712) 439-2831', 'US')).toBe('+17124392831')
    expect(normalizePhone('1-712-439-2831 ', 'US')).toBe('+17124392831')
    expect(normalizePhone('+52 55 1234 5678', 'US')).toBe('+525512345678')
    expect(normalizePhone('55 1234 5678', 'MX')).toBe('+525512345678')
    expect(normalizePhone('12', 'US')).toBeNull()
    const r = checkContact(
      { phone: '712.439.2831' },
      onFile,
      sources({ '7124392831': [100, 200, 300, 400] }),
    )
    expect(r.email).toBeNull()
    expect(r.phone).toMatchObject({
      normalized: '+17124392831',
      matches_on_file: true,
      other_companies: 3,
      other_companies_revoked_or_oos: 2,
      examined: 3,
    })
    expect(r.phone?.others.map((o) => o.dot_number)).toEqual(['200', '300', '400'])
    const none = checkContact({ phone: '712 439 2831' }, { ...onFile, phone: null }, sources({}))
    expect(none.phone?.matches_on_file).toBeNull()
    const invalid = checkContact({ phone: 'call me' }, onFile, sources({}))
    expect(invalid.phone).toMatchObject({
      valid: false,
      matches_on_file: false,
      other_companies: 0,
    })
  })

  test('e-mails: case-insensitive, registrable domain, free mail, shared with others', () => {
    expect(normalizeEmail(' Dispatch@AcmeFreight.COM ')).toBe('dispatch@acmefreight.com')
    expect(normalizeEmail('nope')).toBeNull()
    const same = checkContact({ email: 'Dispatch@AcmeFreight.com' }, onFile, sources({}))
    expect(same.email).toMatchObject({
      matches_on_file: true,
      same_domain: true,
      lookalike_domain: false,
    })
    const sub = checkContact({ email: 'bob@mail.acmefreight.com' }, onFile, sources({}))
    expect(sub.email).toMatchObject({
      matches_on_file: false,
      same_domain: true,
      domain: 'acmefreight.com',
    })
    const gmail = checkContact(
      { email: 'someone@gmail.com' },
      { ...onFile, email: 'acme.freight@gmail.com' },
      sources({ 'someone@gmail.com': [200] }),
    )
    expect(gmail.email).toMatchObject({
      free_mail_domain: true,
      same_domain: false,
      lookalike_domain: null,
      other_companies: 1,
      other_companies_revoked_or_oos: 1,
    })
  })

  test('look-alike domains', () => {
    expect(lookalike('acmefreight.co', 'acmefreight.com')).toMatchObject({
      lookalike: true,
      reason: expect.stringContaining('suffix'),
    })
    expect(lookalike('acmefre1ght.com', 'acmefreight.com').lookalike).toBe(true)
    expect(lookalike('acrnefreight.com', 'acmefreight.com').lookalike).toBe(true)
    expect(lookalike('acmefriegth.com', 'acmefreight.com').lookalike).toBe(true)
    expect(lookalike('acmefreight-dispatch.com', 'acmefreight.com')).toMatchObject({
      lookalike: true,
      reason: expect.stringContaining('contains'),
    })
    expect(lookalike('xn--acmefreght-q8a.com', 'acmefreight.com').lookalike).toBe(true)
    expect(lookalike('аcmefreight.com', 'acmefreight.com').lookalike).toBe(true) // Cyrillic а
    expect(lookalike('bluewavelogistics.com', 'acmefreight.com')).toEqual({
      lookalike: false,
      reason: null,
    })
    expect(lookalike('acmefreight.com', 'acmefreight.com').lookalike).toBe(false)
    expect(skeleton('rnicro5oft')).toBe('mlcrosoft')
    expect(editDistance('freight', 'frieght')).toBe(1)
    expect(editDistance('', 'abc')).toBe(3)
  })
})
