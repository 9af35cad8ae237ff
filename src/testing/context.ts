/** A full appliance in a temp dir for tests: migrated app.db, datasets built by the real pipeline. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../app.ts'
import { fixedClock } from '../clock.ts'
import { loadConfig } from '../config.ts'
import { createDeps } from '../compose.ts'
import { pipelineDeps, type Deps } from '../deps.ts'
import { createAccount, type CreateAccountInput } from '../keys/accounts.ts'
import { createKey, type KeyMode } from '../keys/keys.ts'
import { silentLogger, type Logger } from '../log.ts'
import { importDir, type RunResult } from '../sync/pipeline.ts'

/** A fetch that fails loudly: no test may reach the network unless it injects its own. */
export const refuseFetch: typeof fetch = (input) =>
  Promise.reject(
    new Error(
      `network access in tests is not allowed: ${input instanceof Request ? input.url : String(input)}`,
    ),
  )

export interface TestContextOptions {
  /** ISO time the injected clock starts at */
  now?: string
  env?: Record<string, string>
  /** a directory of `<id>.csv` files to import as the sample channel */
  sampleDir?: string
  /** a directory of `<id>.csv` files to import as the live mirror */
  liveDir?: string
  fetch?: typeof fetch
  log?: Logger
  random?: () => number
}

export type TestContext = Awaited<ReturnType<typeof createTestContext>>

export async function createTestContext(opts: TestContextOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'cvk-test-'))
  const clock = fixedClock(opts.now ?? '2026-11-15T12:00:00Z')
  const config = loadConfig({
    DATA_DIR: dir,
    SYNC_ENABLED: 'false',
    LOG_LEVEL: 'silent',
    SAMPLE_DATA_DIR: opts.sampleDir ?? join(dir, 'no-sample'),
    // fixtures are small: the production floors and delays are tested where they matter
    SYNC_OOS_MIN_ROWS: '1',
    SYNC_MIN_FREE_MB: '1',
    SYNC_STALE_DELAY_MS: '20',
    ...opts.env,
  })
  const deps: Deps = createDeps(config, {
    clock,
    fetch: opts.fetch ?? refuseFetch,
    random: opts.random ?? (() => 0.5),
    log: opts.log ?? silentLogger(),
  })
  const imports: RunResult[] = []
  const signal = AbortSignal.timeout(60_000)
  if (opts.sampleDir)
    imports.push(
      ...(await importDir(pipelineDeps(deps), opts.sampleDir, {
        channel: 'sample',
        trigger: 'test',
        signal,
      })),
    )
  if (opts.liveDir)
    imports.push(
      ...(await importDir(pipelineDeps(deps), opts.liveDir, {
        channel: 'live',
        trigger: 'test',
        signal,
      })),
    )
  const failed = imports.filter((r) => r.status !== 'activated')
  if (failed.length) throw new Error(`fixture import failed: ${JSON.stringify(failed)}`)
  const app = createApp(deps)

  /** Creates an account on a plan and returns it with one key of each requested mode. */
  function account(
    plan: CreateAccountInput['plan'] = 'starter',
    over: Partial<CreateAccountInput> = {},
  ) {
    const acct = createAccount(deps.db, { name: `Test ${plan}`, plan, ...over }, clock().getTime())
    const key = (mode: KeyMode = 'live', scopes: string[] = []) =>
      createKey(deps.db, { accountId: acct.id, mode, scopes }, clock().getTime()).secret
    return { account: acct, key }
  }

  const auth = (key?: string): Record<string, string> =>
    key ? { authorization: `Bearer ${key}` } : {}
  return {
    dir,
    clock,
    config,
    deps,
    app,
    imports,
    account,
    get: async (path: string, key?: string, headers: Record<string, string> = {}) =>
      app.request(path, { headers: { ...auth(key), ...headers } }),
    post: async (path: string, body: unknown, key?: string, headers: Record<string, string> = {}) =>
      app.request(path, {
        method: 'POST',
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...auth(key), ...headers },
      }),
    close() {
      deps.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
