/** The server's own configuration: TLS (real HTTPS, bad files), explicit HTTP timeouts, file modes. */
import { execFile } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import type { Server as HttpServer } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ConfigError, loadConfig } from './config.ts'
import { createDeps } from './compose.ts'
import { runMaintenance } from './jobs/maintenance.ts'
import { silentLogger } from './log.ts'
import { startServer } from './serve.ts'

const CERT = resolve('test/fixtures/tls/cert.pem')
const KEY = resolve('test/fixtures/tls/key.pem')

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cvk-servecfg-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const env = (sub: string, extra: Record<string, string> = {}) => ({
  DATA_DIR: join(dir, sub),
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  SYNC_ENABLED: 'false',
  SAMPLE_DATA_DIR: join(dir, 'no-sample'),
  ...extra,
})

async function start(sub: string, extra: Record<string, string> = {}) {
  const config = loadConfig(env(sub, extra))
  return startServer(config, createDeps(config, { log: silentLogger() }))
}

describe('server configuration', () => {
  test('explicit HTTP timeouts from the environment', async () => {
    const running = await start('timeouts', {
      HTTP_HEADERS_TIMEOUT_MS: '7000',
      HTTP_REQUEST_TIMEOUT_MS: '9000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '3000',
    })
    try {
      const s = running.server as HttpServer
      expect([s.headersTimeout, s.requestTimeout, s.keepAliveTimeout]).toEqual([7000, 9000, 3000])
    } finally {
      await running.stop()
    }
    const defaults = loadConfig(env('d')).http
    expect(defaults).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
    })
    expect(() =>
      loadConfig(env('d', { HTTP_HEADERS_TIMEOUT_MS: '60000', HTTP_REQUEST_TIMEOUT_MS: '5000' })),
    ).toThrow(ConfigError)
  })

  test('app.db and its backups are created 0600; an existing 0644 app.db is narrowed', async () => {
    const config = loadConfig(env('modes'))
    const deps = createDeps(config, { log: silentLogger() })
    try {
      expect(statSync(config.paths.appDb).mode & 0o777).toBe(0o600)
      const { backup } = await runMaintenance(deps)
      expect(statSync(backup).mode & 0o777).toBe(0o600)
    } finally {
      deps.close()
    }
    chmodSync(config.paths.appDb, 0o644)
    const again = createDeps(config, { log: silentLogger() })
    again.close()
    expect(statSync(config.paths.appDb).mode & 0o777).toBe(0o600)
  })

  test('HTTPS: the server speaks TLS and the OpenAPI servers URL says https', async () => {
    const running = await start('tls', { TLS_CERT_FILE: CERT, TLS_KEY_FILE: KEY })
    try {
      const body = await new Promise<string>((ok, fail) => {
        const req = httpsRequest(
          {
            host: '127.0.0.1',
            port: running.port,
            path: '/openapi.json',
            ca: [readFileSync(CERT)],
          },
          (res) => {
            let s = ''
            res.on('data', (d: Buffer) => (s += d.toString()))
            res.on('end', () => ok(s))
          },
        )
        req.on('error', fail)
        req.end()
      })
      const doc = JSON.parse(body) as { servers: { url: string }[] }
      expect(doc.servers[0]?.url).toMatch(/^https:\/\/localhost:/)
    } finally {
      await running.stop()
    }
  })

  test('a bad certificate path or file is a one-line configuration error', async () => {
    await expect(
      start('badtls', { TLS_CERT_FILE: join(dir, 'nope.pem'), TLS_KEY_FILE: KEY }),
    ).rejects.toThrow(/^TLS_CERT_FILE: cannot read .*nope\.pem \(no such file\)$/)
    const garbage = join(dir, 'garbage.pem')
    writeFileSync(garbage, 'not a certificate')
    await expect(
      start('badtls2', { TLS_CERT_FILE: garbage, TLS_KEY_FILE: KEY }),
    ).rejects.toBeInstanceOf(ConfigError)
  })

  test('the process prints one line and exits 1 (no stack trace)', async () => {
    const r = await new Promise<{ code: number | null; stderr: string }>((ok) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/main.ts', 'serve'],
        {
          env: {
            ...env('proc', { TLS_CERT_FILE: join(dir, 'missing.pem'), TLS_KEY_FILE: KEY }),
            PATH: process.env.PATH,
          },
          timeout: 60_000,
        },
        (err, _stdout, stderr) => ok({ code: err ? (err.code as number) : 0, stderr }),
      )
    })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      /^configuration error: TLS_CERT_FILE: cannot read .*missing\.pem \(no such file\)\n$/,
    )
  }, 60_000)
})
