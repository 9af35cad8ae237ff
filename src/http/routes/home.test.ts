import { afterEach, describe, expect, test } from 'vitest'
import { liveCensusDir, sampleCensusDir } from '../../testing/fixture-dirs.ts'
import { createTestContext, type TestContext } from '../../testing/context.ts'

let ctx: TestContext | null = null
afterEach(() => {
  ctx?.close()
  ctx = null
})

describe('GET / (the front door)', () => {
  test('a page naming the service, its version, the sample it serves, and the links', async () => {
    ctx = await createTestContext({ sampleDir: sampleCensusDir() })
    const res = await ctx.get('/')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    const page = await res.text()
    expect(page).toContain('<h1>Carrier and Broker Verification API</h1>')
    expect(page).toMatch(/version \d+\.\d+\.\d+/)
    expect(page).toContain(
      'Serving: the bundled SAMPLE data (fictitious companies, as of 2026-11-15)',
    )
    expect(page).toContain('href="/docs"')
    expect(page).toContain('href="/console"')
  })

  test('JSON for Accept: application/json, saying the mirror serves once it has a census', async () => {
    ctx = await createTestContext({ sampleDir: sampleCensusDir(), liveDir: liveCensusDir() })
    const res = await ctx.get('/', undefined, { accept: 'application/json' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      service: 'Carrier and Broker Verification API',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      serving: { source: 'mirror', as_of: '2026-11-15' },
      links: { docs: '/docs', openapi: '/openapi.json', console: '/console' },
    })
    const html = await ctx.get('/', undefined, { accept: 'text/html,application/json;q=0.9' })
    expect(html.headers.get('content-type')).toMatch(/^text\/html/)
  })
})
