import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { loadConfig } from './config.ts'
import { createDeps } from './compose.ts'
import { pipelineDeps } from './deps.ts'
import { inflight } from './http/inflight.ts'
import { createAccount } from './keys/accounts.ts'
import { createKey } from './keys/keys.ts'
import { createLogger } from './log.ts'
import { startServer } from './serve.ts'
import { importDir } from './sync/pipeline.ts'
import { liveCensusDir } from './testing/fixture-dirs.ts'

/**
 * A stopping server waits for the handlers of requests whose client went away (their connection
 * is closed, so `server.close()` does not) before it closes the record workers and the databases.
 */
describe('stop() with a request still being handled', () => {
  let dir = ''
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  test('a stored check whose client left is finished and stored, not ended in a 500', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cvk-drain-'))
    const config = loadConfig({
      DATA_DIR: dir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SAMPLE_DATA_DIR: join(dir, 'no-sample'),
      SYNC_ENABLED: 'false',
      RECORD_WORKERS: '1',
      // every check asks the regulator: the test holds that call open
      CROSSCHECK_MODE: 'always',
      QCMOBILE_WEBKEY: 'test-key',
    })
    let asked!: () => void
    const regulatorAsked = new Promise<void>((r) => (asked = r))
    let release!: () => void
    const released = new Promise<void>((r) => (release = r))
    // the regulator's API: answers (with a network error) only when the test says so
    const regulator = async () => {
      asked()
      await released
      throw new Error('connection reset')
    }
    const lines: { msg: string; status?: number; route?: string }[] = []
    const log = createLogger('info', {
      write: (s: string) => {
        lines.push(JSON.parse(s) as (typeof lines)[number])
      },
    })
    const deps = createDeps(config, { log, fetch: regulator })
    // a mirror (the regulator is never asked about the sample's companies)
    const live = liveCensusDir()
    const built = await importDir(pipelineDeps(deps), live, {
      channel: 'live',
      trigger: 'test',
      signal: AbortSignal.timeout(60_000),
    })
    rmSync(live, { recursive: true, force: true })
    expect(built.map((r) => r.status)).toEqual(['activated'])
    const account = createAccount(deps.db, { name: 'drain', plan: 'starter' }, Date.now())
    const key = createKey(deps.db, { accountId: account.id, mode: 'live' }, Date.now()).secret
    const running = await startServer(config, deps)

    const client = new AbortController()
    const request = fetch(`http://127.0.0.1:${running.port}/v1/checks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ dot: '1000001', reference: 'drain' }),
      signal: client.signal,
    })
    await regulatorAsked
    // the client goes away while its check waits on the regulator
    client.abort()
    await expect(request).rejects.toThrow()

    let stopped = false
    const stopping = running.stop().then(() => (stopped = true))
    await new Promise((r) => setTimeout(r, 300))
    expect(stopped).toBe(false)
    release()
    await stopping

    const db = new Database(config.paths.appDb, { readonly: true })
    try {
      const stored = db
        .prepare('SELECT count(*) AS n FROM checks WHERE account_id = ?')
        .get(account.id) as { n: number }
      expect(stored.n).toBe(1)
    } finally {
      db.close()
    }
    const answered = lines.filter((l) => l.msg === 'request' && l.route === '/v1/checks')
    expect(answered.map((l) => l.status)).toEqual([201])
    expect(lines.some((l) => l.msg === 'requests still running at shutdown')).toBe(false)
  }, 60_000)
})

describe('inflight', () => {
  test('counts a handler until its promise settles, and says when none runs', async () => {
    const requests = inflight()
    let finish!: () => void
    const handler = requests.track((n: number) =>
      n === 0 ? 'now' : new Promise<string>((r) => (finish = () => r('later'))),
    )
    expect(handler(0)).toBe('now')
    expect(requests.running).toBe(0)
    expect(await requests.drained(10)).toBe(true)
    const later = handler(1)
    expect(requests.running).toBe(1)
    expect(await requests.drained(20)).toBe(false)
    const drained = requests.drained(5_000)
    finish()
    expect(await later).toBe('later')
    expect(await drained).toBe(true)
    expect(requests.running).toBe(0)
  })

  test('a handler that throws or rejects is no longer counted', async () => {
    const requests = inflight()
    const throws = requests.track(() => {
      throw new Error('sync')
    })
    expect(() => throws()).toThrow('sync')
    const rejects = requests.track(() => Promise.reject(new Error('async')))
    await expect(rejects()).rejects.toThrow('async')
    expect(requests.running).toBe(0)
  })
})
