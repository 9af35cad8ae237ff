import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { LOG_BATCH_BYTES } from './log.ts'

const ROOT = join(import.meta.dirname, '..')
const LOADER = join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')

interface Run {
  /** stderr as it arrives, with the ms since start at which each chunk came */
  chunks: { at: number; text: string }[]
  code: number | null
  stdout: string
}

/** A child process running `script` (an ES module body; `createLogger` in scope). */
const spawnLogging = (script: string) =>
  spawn(
    process.execPath,
    [
      '--import',
      `file://${LOADER}`,
      '--input-type=module',
      '-e',
      `import { createLogger } from ${JSON.stringify(join(ROOT, 'src', 'log.ts'))}\n${script}`,
    ],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  )

/** Runs `script` in a child process (spawnLogging) to its end. */
function run(script: string): Promise<Run> {
  const started = performance.now()
  const proc = spawnLogging(script)
  proc.stdin.end()
  const chunks: Run['chunks'] = []
  let stdout = ''
  proc.stdout.on('data', (d: Buffer) => void (stdout += d.toString()))
  proc.stderr.on('data', (d: Buffer) =>
    chunks.push({ at: performance.now() - started, text: d.toString() }),
  )
  return new Promise((resolve) => proc.on('close', (code) => resolve({ chunks, code, stdout })))
}

const lines = (r: Run) =>
  r.chunks
    .map((c) => c.text)
    .join('')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string; n?: number })

describe('the log destination: lines in batches, never held back long, none lost at exit', () => {
  test('a lone line is written within the flush interval while the process keeps running', async () => {
    // one short line (far below a batch), then 3 s of an idle but living process
    const r = await run(`
      const log = createLogger('info')
      const t0 = performance.now()
      log.info('lone')
      setTimeout(() => log.info({ at: performance.now() - t0 }, 'last'), 3000)
    `)
    expect(r.code).toBe(0)
    const at = (msg: string) => r.chunks.find((c) => c.text.includes(`"${msg}"`))
    const [first, end] = [at('lone'), at('last')]
    if (!first || !end) throw new Error(`a line is missing: ${JSON.stringify(r.chunks)}`)
    // it came long before the process ended (so not from the flush at exit), alone: the batch
    // size (far more than this one line) did not hold it back
    expect(end.at - first.at).toBeGreaterThan(2000)
    expect(first.text).not.toContain('"last"')
    expect(first.text.length).toBeLessThan(LOG_BATCH_BYTES)
  }, 30_000)

  test('lines written just before the process exits are all there, in order', async () => {
    const r = await run(`
      const log = createLogger('info')
      for (let n = 0; n < 1000; n++) log.info({ n }, 'line')
      process.exitCode = 3
    `)
    expect(r.code).toBe(3)
    expect(lines(r).map((l) => l.n)).toEqual(Array.from({ length: 1000 }, (_, n) => n))
  }, 30_000)

  test('and after an uncaught error: the lines a batch was holding back', async () => {
    // 20 lines, less than a batch: none written yet when the error ends the process. (A batch
    // already being written by the thread pool when a process dies may be cut short; that was
    // so before batching too, with a write per line.)
    const r = await run(`
      const log = createLogger('info')
      for (let n = 0; n < 20; n++) log.info({ n }, 'line')
      setImmediate(() => { throw new Error('boom') })
    `)
    expect(r.code).toBe(1)
    const text = r.chunks.map((c) => c.text).join('')
    expect(text.indexOf('"n":19')).toBeLessThan(LOG_BATCH_BYTES)
    expect(lines(r).map((l) => l.n)).toEqual(Array.from({ length: 20 }, (_, n) => n))
  }, 30_000)

  test('lines that keep coming go out in batches, not one write each', async () => {
    // 1,000 lines of ~100 bytes, one per turn of the event loop (a write per line finishes
    // between two of them): count the writes to stderr the destination makes
    const r = await run(`
      import fs from 'node:fs'
      const write = fs.write
      let writes = 0
      fs.write = function (fd, ...rest) {
        if (fd === 2) writes++
        return write.call(this, fd, ...rest)
      }
      process.on('exit', () => fs.writeSync(1, String(writes)))
      const log = createLogger('info')
      let n = 0
      const next = () => {
        log.info({ n: n++ }, 'line')
        if (n < 1000) setImmediate(next)
      }
      next()
    `)
    expect(r.code).toBe(0)
    expect(lines(r)).toHaveLength(1000)
    // at least ~30 lines a write (4 KB batches), against close to one write a line before
    expect(Number(r.stdout)).toBeGreaterThan(0)
    expect(Number(r.stdout)).toBeLessThan(1000 / 20)
  }, 30_000)

  test('a process whose stderr reader went away still exits, with its code', async () => {
    // lines buffered when the reader closes, then an exit before any write found the pipe broken:
    // sonic-boom 4's flushSync retried the write forever (a server orphaned by its supervisor
    // never exited); 5 gives up on EPIPE
    const proc = spawnLogging(
      `const log = createLogger('info')
      log.info('ready')
      process.stdin.once('data', () => {
        for (let n = 0; n < 10; n++) log.info({ n }, 'after the reader left')
        process.exit(4)
      })`,
    )
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)))
    proc.stderr.once('data', () => {
      proc.stderr.destroy()
      setTimeout(() => proc.stdin.write('go\n'), 50)
    })
    const timeout = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000))
    const outcome = await Promise.race([exited, timeout])
    if (outcome === 'hung') proc.kill('SIGKILL')
    expect(outcome).toBe(4)
  }, 30_000)
})
