/**
 * The appliance as a real child process (`carrier-verify serve` through tsx) on 127.0.0.1 for
 * tests of what only a process shows: how a start fails, what a restored data directory serves.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const LOADER = join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')

export interface ServerProcess {
  proc: ChildProcess
  stderr(): string
  stdout(): string
  /** the exit code (null when killed by a signal) */
  exited: Promise<number | null>
  /** ms from spawn to exit, once exited */
  exitedAfterMs(): number | null
  /** the port of the `listening` log line, once it was written */
  port(): number | null
  /** waits for the `listening` line (or the exit: then throws with stderr) */
  listening(ms?: number): Promise<number>
  stop(): Promise<void>
}

/** Starts `main.ts` with `args` and a minimal environment (`PATH`, `env` added). */
export function startProcess(
  path: string,
  args: string[],
  env: Record<string, string>,
  opts: { uid?: number; gid?: number } = {},
): ServerProcess {
  const started = performance.now()
  let err = ''
  let out = ''
  let exitedAt: number | null = null
  const proc = spawn(process.execPath, ['--import', `file://${LOADER}`, 'src/main.ts', ...args], {
    cwd: ROOT,
    env: {
      PATH: path,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      SYNC_ENABLED: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...opts,
  })
  proc.stderr?.on('data', (d: Buffer) => void (err += d.toString()))
  proc.stdout?.on('data', (d: Buffer) => void (out += d.toString()))
  const exited = new Promise<number | null>((r) =>
    proc.on('exit', (code) => {
      exitedAt = performance.now() - started
      r(code)
    }),
  )
  const port = () => {
    for (const line of err.split('\n'))
      if (line.includes('"listening"')) return (JSON.parse(line) as { port: number }).port
    return null
  }
  return {
    proc,
    stderr: () => err,
    stdout: () => out,
    exited,
    exitedAfterMs: () => exitedAt,
    port,
    async listening(ms = 60_000) {
      const until = Date.now() + ms
      for (;;) {
        const p = port()
        if (p !== null) return p
        if (exitedAt !== null) throw new Error(`the server exited:\n${err}`)
        if (Date.now() > until)
          throw new Error(`the server did not listen within ${ms} ms:\n${err}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    },
    async stop() {
      if (exitedAt === null) proc.kill('SIGTERM')
      await exited
    },
  }
}
