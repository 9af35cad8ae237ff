import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { generateSecret, sign, signatureHeader } from './sign.ts'

describe('sign', () => {
  it('matches the Standard Webhooks spec test vector', () => {
    expect(
      sign(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=')
  })

  it('agrees with the independent standardwebhooks implementation', () => {
    const secret = generateSecret()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const ts = Math.floor(Date.now() / 1000)
    const body = JSON.stringify({
      type: 'webhook.test',
      timestamp: new Date().toISOString(),
      data: {},
    })
    const headers = {
      'webhook-id': 'msg_abc',
      'webhook-timestamp': String(ts),
      'webhook-signature': sign(secret, 'msg_abc', ts, body),
    }
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
  })

  it('signs with every secret during a rotation; either one verifies', () => {
    const [oldSecret, newSecret] = [generateSecret(), generateSecret()]
    const ts = Math.floor(Date.now() / 1000)
    const header = signatureHeader([newSecret, oldSecret], 'msg_1', ts, '{}')
    expect(header.split(' ')).toHaveLength(2)
    for (const s of [oldSecret, newSecret])
      expect(() =>
        new Webhook(s).verify('{}', {
          'webhook-id': 'msg_1',
          'webhook-timestamp': String(ts),
          'webhook-signature': header,
        }),
      ).not.toThrow()
    expect(() =>
      new Webhook(generateSecret()).verify('{}', {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(ts),
        'webhook-signature': header,
      }),
    ).toThrow()
  })
})
