/**
 * A start that cannot serve fails loudly with real processes: one line naming the cause and the
 * fix, no stack trace at the default log level, a non-zero exit within seconds. A full volume
 * with data already there serves read-only instead.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startProcess } from './testing/server-process.ts'

const isRoot = process.getuid?.() === 0
/** the unprivileged user an unwritable-directory test runs as when the tests run as root */
const NOBODY = 65534

let work: string
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cvk-start-'))
  chmodSync(work, 0o755)
})
afterAll(() => rmSync(work, { recursive: true, force: true }))

const env = (dataDir: string) => ({ DATA_DIR: dataDir, SAMPLE_DATA_DIR: join(work, 'no-sample') })

/** Runs a start that must fail; returns its one line of stderr. */
async function failedStart(
  dataDir: string,
  extra: Record<string, string> = {},
  opts: { uid?: number; gid?: number } = {},
): Promise<string> {
  const p = startProcess(process.env.PATH ?? '', ['serve'], { ...env(dataDir), ...extra }, opts)
  const code = await p.exited
  expect(code, p.stderr()).not.toBe(0)
  expect(p.exitedAfterMs()).toBeLessThan(10_000)
  const lines = p.stderr().trim().split('\n')
  expect(lines, p.stderr()).toHaveLength(1)
  expect(p.stderr()).not.toMatch(/^\s+at /m)
  return lines[0] ?? ''
}

describe('a start that cannot serve fails loudly', () => {
  let taken: Server
  let port = 0
  beforeAll(async () => {
    taken = createServer()
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r))
    port = (taken.address() as { port: number }).port
  })
  afterAll(() => new Promise<void>((r) => taken.close(() => r())))

  test('the port is in use', async () => {
    const line = await failedStart(join(work, 'port'), { PORT: String(port) })
    expect(line).toBe(
      `cannot start: port ${port} is already in use (127.0.0.1:${port}); stop the process that holds it or set PORT to a free port`,
    )
  })

  test('DATA_DIR is a file', async () => {
    const file = join(work, 'a-file')
    writeFileSync(file, 'x')
    const line = await failedStart(file)
    expect(line).toContain(`cannot start: DATA_DIR ${file} is not a directory`)
  })

  test('the data directory is not writable: names the uid that must own it', async () => {
    const dir = join(work, 'locked')
    mkdirSync(dir)
    chmodSync(dir, 0o555)
    const as = isRoot ? { uid: NOBODY, gid: NOBODY } : {}
    const uid = isRoot ? NOBODY : process.getuid?.()
    const line = await failedStart(join(dir, 'data'), {}, as)
    expect(line).toContain(
      `the data directory ${join(dir, 'data')} is not writable by this process (uid ${uid}`,
    )
    expect(line).toContain('the Docker image runs as uid 1000')
  })

  test.skipIf(!isRoot)(
    'a full volume: no data yet fails; with data it serves read-only',
    async () => {
      const mnt = join(work, 'full')
      mkdirSync(mnt)
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mnt])
      try {
        const dir = join(mnt, 'data')
        // a first start writes app.db, then the volume fills up
        const first = startProcess(process.env.PATH ?? '', ['serve'], env(dir))
        await first.listening()
        await first.stop()
        expect(statSync(dir).mode & 0o777).toBe(0o700)
        expect(statSync(join(dir, 'app.db')).mode & 0o777).toBe(0o600)
        try {
          execFileSync('dd', ['if=/dev/zero', `of=${join(mnt, 'filler')}`, 'bs=64k'], {
            stdio: 'ignore',
          })
        } catch {
          // dd stops at "no space left on device"
        }
        const again = startProcess(process.env.PATH ?? '', ['serve'], env(dir))
        const p = await again.listening(20_000)
        expect(again.stderr()).toContain(
          'the volume of the data directory is full: serving read-only',
        )
        expect((await fetch(`http://127.0.0.1:${p}/healthz`)).status).toBe(200)
        const ready = await fetch(`http://127.0.0.1:${p}/readyz`)
        expect(ready.status).toBe(503)
        const page = await fetch(`http://127.0.0.1:${p}/console/sign-in`)
        expect(page.status).toBe(200)
        await again.stop()
        expect(await again.exited).toBe(0)

        // an empty data directory on the full volume cannot be used
        const line = await failedStart(join(mnt, 'empty'))
        expect(line).toContain('cannot start: no space left on the volume of the data directory')
      } finally {
        execFileSync('umount', ['-l', mnt])
      }
    },
  )
})
