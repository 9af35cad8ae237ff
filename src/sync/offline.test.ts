/**
 * No internet is a state (issue 54 item 5): a sync against a portal address where nothing listens
 * (a real refused connection on 127.0.0.1) leaves one sentence in `sync status`, the console's
 * data page and the log; the full error stays in --verbose, --json and the run.
 */
import { createServer } from 'node:net'
import { afterEach, describe, expect, test } from 'vitest'
import { createLogger } from '../log.ts'
import { setPassword, createUser } from '../users/users.ts'
import { consoleClient } from '../testing/console-client.ts'
import { runCliCaptured } from '../testing/cli.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { sampleCensusDir } from '../testing/fixture-dirs.ts'
import { isUnreachable, offlineSentence } from './offline.ts'
import { syncAll } from './sync.ts'

let ctx: TestContext | null = null
afterEach(() => {
  ctx?.close()
  ctx = null
})

/** A loopback port with nothing listening on it (connections are refused). */
async function closedPort(): Promise<number> {
  const srv = createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const port = (srv.address() as { port: number }).port
  await new Promise((r) => srv.close(r))
  return port
}

describe('the regulator cannot be reached', () => {
  test('sync status, the log and the console say it in one sentence; the full error stays', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`
    const lines: { level: number; msg: string }[] = []
    const log = createLogger('info', {
      write: (s: string) => void lines.push(JSON.parse(s) as (typeof lines)[number]),
    })
    ctx = await createTestContext({
      sampleDir: sampleCensusDir(),
      fetch: globalThis.fetch, // loopback only: a refused connection
      log,
      env: { FMCSA_BASE_URL: url, SYNC_RETRIES: '0', SYNC_TIMEOUT_MS: '2000' },
    })
    const results = await syncAll(ctx.deps, {
      signal: AbortSignal.timeout(20_000),
      trigger: 'test',
      retryBaseMs: 1,
      only: ['census'],
    })
    expect(results[0]?.status).toBe('failed')
    expect(isUnreachable(results[0]?.error ?? null)).toBe(true)
    const sentence = offlineSentence(url, '2026-11-15T12:00:00.000Z', {
      source: 'sample',
      as_of: '2026-11-15',
    })
    expect(sentence).toBe(
      `The regulator's portal (${url}) cannot be reached since 2026-11-15 12:00 UTC; only the bundled SAMPLE data (fictitious companies, as of 2026-11-15) is served. Either import files carried in by hand (\`carrier-verify import --dir PATH\`, docs/data.md "Air-gapped networks") or check this host's network and FMCSA_BASE_URL.`,
    )
    // the log: one warning with the sentence
    expect(lines.filter((l) => l.msg === sentence)).toHaveLength(1)

    const status = await runCliCaptured(ctx, ['sync', 'status'])
    expect(status.stdout.split('\n')[0]).toBe(sentence)
    const census = status.stdout.split('\n').find((l) => l.startsWith('census')) ?? ''
    expect(census).toContain('the portal cannot be reached')
    expect(census).not.toContain('ECONNREFUSED')
    expect(status.stdout).toContain('(full errors: sync status --verbose)')
    const verbose = await runCliCaptured(ctx, ['sync', 'status', '--verbose'])
    expect(verbose.stdout).toMatch(/census \(.+\):\n {2}az4n-8mr2: .*ECONNREFUSED/)
    const json = JSON.parse((await runCliCaptured(ctx, ['sync', 'status', '--json'])).stdout) as {
      regulator: { reachable: boolean; since: string; sentence: string }
    }
    expect(json.regulator).toMatchObject({ reachable: false, sentence })

    const admin = createUser(ctx.deps.db, { email: 'admin@example.com', role: 'admin' }, 0)
    await setPassword(ctx.deps.db, admin.id, 'amber kettle drifts north')
    const client = consoleClient(ctx)
    await client.signIn('admin@example.com', 'amber kettle drifts north')
    const page = await (await client.get('/console/admin/data')).text()
    expect(page).toContain('id="regulator-offline"')
    expect(page).toContain('cannot be reached since 2026-11-15 12:00 UTC')
    expect(page).toContain('the portal cannot be reached</span>')
  })
})
