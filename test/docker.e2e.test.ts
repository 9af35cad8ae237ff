/**
 * The Docker image end to end, as an operator runs it: build, `docker compose up`, an account and
 * a key created with `docker compose exec`, a lookup, stop, start, the same key still works.
 *
 * Runs where a Docker engine answers (`docker info`) and a compose command exists (`docker compose`
 * or `docker-compose`); skipped with the reason otherwise. The server runs with SYNC_ENABLED=false
 * on a free port of 127.0.0.1 under its own compose project, so it touches no network and no other
 * container; the project's containers and volume are removed at the end (the image is kept, so a
 * rebuild is quick).
 */
import { execFile, spawnSync } from 'node:child_process'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const PROJECT = `cv-e2e-${process.pid}`
const MINUTE = 60_000
const exec = promisify(execFile)

function ok(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore', timeout: 20_000 }).status === 0
}

/** The compose command (v2 plugin or v1 binary), or why the test cannot run. */
function detect(): { compose: string[] } | { skip: string } {
  if (!ok('docker', ['info'])) return { skip: '`docker info` fails (no Docker engine here)' }
  if (ok('docker', ['compose', 'version'])) return { compose: ['docker', 'compose'] }
  if (ok('docker-compose', ['version'])) return { compose: ['docker-compose'] }
  return { skip: 'neither `docker compose` nor `docker-compose` is installed' }
}

const found = detect()
const skip = 'skip' in found ? found.skip : null
if (skip) console.warn(`docker.e2e.test.ts skipped: ${skip}`)

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr ? addr.port : 0
      srv.close(() => resolve(port))
    })
  })
}

describe.skipIf(skip !== null)(
  `Docker image end to end${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    const compose = 'compose' in found ? found.compose : []
    let port = 0
    let env: NodeJS.ProcessEnv = {}

    async function run(args: string[], timeout = 2 * MINUTE): Promise<string> {
      const [cmd = 'docker', ...pre] = compose
      const { stdout } = await exec(cmd, [...pre, '-p', PROJECT, ...args], {
        cwd: ROOT,
        env,
        timeout,
        maxBuffer: 64 << 20,
      })
      return stdout
    }

    /** `carrier-verify …` inside the running container; its stdout, trimmed. */
    const cli = async (...args: string[]) =>
      (await run(['exec', '-T', 'api', 'carrier-verify', ...args])).trim()

    async function waitReady(): Promise<void> {
      const deadline = Date.now() + 3 * MINUTE
      for (;;) {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/readyz`, {
            signal: AbortSignal.timeout(2_000),
          })
          if (res.ok) return
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline) throw new Error(`the API did not become ready on port ${port}`)
        await new Promise((r) => setTimeout(r, 1_000))
      }
    }

    const lookup = (key: string) =>
      fetch(`http://127.0.0.1:${port}/v1/carrier/1000001`, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(10_000),
      })

    beforeAll(async () => {
      port = await freePort()
      // the compose command needs PATH, DOCKER_HOST…
      // COMPOSE_HTTP_TIMEOUT: creating a container can take minutes on a slow storage driver (vfs)
      env = {
        ...process.env,
        PORT: String(port),
        SYNC_ENABLED: 'false',
        LOG_LEVEL: 'warn',
        COMPOSE_HTTP_TIMEOUT: '600',
      }
      await run(['build'], 25 * MINUTE)
    }, 26 * MINUTE)

    afterAll(async () => {
      await run(['down', '--volumes', '--timeout', '10']).catch((err: unknown) => {
        console.warn(`docker.e2e.test.ts: compose down failed: ${String(err)}`)
      })
    }, 2 * MINUTE)

    test(
      'compose up, an account and a key by compose exec, a lookup; stop, start, the key still works',
      async () => {
        await run(['up', '-d'], 3 * MINUTE)
        await waitReady()

        // the runtime image carries compiled JavaScript only: no sources, no tsx
        await run([
          'exec',
          '-T',
          'api',
          'sh',
          '-c',
          'test ! -e /app/src && test ! -e /app/node_modules/tsx && test -f /app/dist/main.js',
        ])

        const account = await cli(
          'accounts',
          'create',
          '--name',
          'E2E Freight',
          '--plan',
          'starter',
        )
        expect(account).toMatch(/^\S+$/)
        const key = await cli('keys', 'create', '--account', account)
        expect(key).toMatch(/^cvk_live_\S+$/)

        const first = await lookup(key)
        expect(first.status).toBe(200)
        const body = (await first.json()) as { dot_number?: unknown; meta?: { source?: unknown } }
        expect(body.dot_number).toBe('1000001')
        expect(body.meta?.source).toBe('sample')

        await run(['stop', '--timeout', '20'])
        await expect(lookup(key)).rejects.toThrow()
        await run(['start'])
        await waitReady()

        const again = await lookup(key)
        expect(again.status).toBe(200)
        const unknownKey = await lookup('cvk_live_not_a_real_key_000000000000')
        expect(unknownKey.status).toBe(401)
      },
      10 * MINUTE,
    )
  },
)
