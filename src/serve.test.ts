import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { loadConfig } from './config.ts'
import { createDeps } from './compose.ts'
import { createAccount } from './keys/accounts.ts'
import { createKey } from './keys/keys.ts'
import { silentLogger } from './log.ts'
import { startServer, type Running } from './serve.ts'
import { startFmcsaServer, type FmcsaServer } from './testing/fmcsa-server.ts'

/** The real server on 127.0.0.1: listens, serves the bundled sample at once, mirrors in the background, stops cleanly. */
describe('server', () => {
  let fmcsa: FmcsaServer
  let running: Running
  let dir: string
  let key: string
  beforeAll(async () => {
    // the regulator: a local server publishing the sample files in the real URL layout
    fmcsa = await startFmcsaServer({ dir: 'data/sample' })
    dir = mkdtempSync(join(tmpdir(), 'cvk-serve-'))
    const config = loadConfig({
      DATA_DIR: dir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      SAMPLE_DATA_DIR: 'data/sample',
      SYNC_ENABLED: 'true',
      FMCSA_BASE_URL: fmcsa.url,
    })
    const deps = createDeps(config, { log: silentLogger() })
    const account = createAccount(deps.db, { name: 'serve test', plan: 'starter' }, Date.now())
    key = createKey(deps.db, { accountId: account.id, mode: 'live' }, Date.now()).secret
    running = await startServer(config, deps)
  }, 120_000)
  afterAll(async () => {
    await running.stop()
    await fmcsa.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const get = (path: string, auth = true) =>
    fetch(`http://127.0.0.1:${running.port}${path}`, {
      headers: auth ? { authorization: `Bearer ${key}` } : {},
    })

  test('ready at once on the sample, then the background sync makes the mirror live', async () => {
    expect((await get('/healthz', false)).status).toBe(200)
    expect((await get('/readyz', false)).status).toBe(200)
    const deadline = Date.now() + 90_000
    let source = ''
    while (Date.now() < deadline) {
      const res = await get('/v1/carrier/1000001')
      expect(res.status).toBe(200)
      source = ((await res.json()) as { meta: { source: string } }).meta.source
      if (source === 'mirror') break
      await new Promise((r) => setTimeout(r, 250))
    }
    expect(source).toBe('mirror')
    const paths = fmcsa.requests.map((r) => r.path)
    expect(paths).toContain('/api/views/az4n-8mr2/rows.csv?accessType=DOWNLOAD')
  }, 120_000)

  test('metrics expose the datasets', async () => {
    const text = await (await get('/metrics', false)).text()
    expect(text).toMatch(/cvk_dataset_rows\{dataset="census",channel="sample"\} \d+/)
    expect(text).toContain('cvk_http_requests_total')
  })

  test('stop() closes the server and resolves', async () => {
    await running.stop()
    await expect(get('/healthz', false)).rejects.toThrow()
  })
})
