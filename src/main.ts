/** Entry point: `serve` (the default) or a CLI command. The only place that sets process.exitCode. */
import { ConfigError, loadConfig } from './config.ts'
import { storageFailureCode } from './errors.ts'
import { runCli } from './cli/run.ts'
import type { Io } from './cli/io.ts'
import { explainStartFailure, startServer } from './serve.ts'

const io: Io = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  isTTY: process.stderr.isTTY === true,
  readStdin: async () => {
    const chunks: Buffer[] = []
    for await (const c of process.stdin) chunks.push(c as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  },
  ...(process.stdin.isTTY ? { promptSecret } : {}),
}

/** Reads one line from the terminal without echoing it (the console user's password). */
async function promptSecret(question: string): Promise<string> {
  const { createInterface } = await import('node:readline')
  const { Writable } = await import('node:stream')
  let muted = false
  const output = new Writable({
    write(chunk: Buffer, _enc, done) {
      if (!muted) process.stderr.write(chunk)
      done()
    },
  })
  const rl = createInterface({ input: process.stdin, output, terminal: true })
  try {
    return await new Promise<string>((resolve) => {
      rl.question(question, (answer) => {
        process.stderr.write('\n')
        resolve(answer)
      })
      muted = true
    })
  } finally {
    rl.close()
  }
}

function config() {
  // eslint-disable-next-line n/no-process-env -- main.ts hands the environment to loadConfig
  return loadConfig(process.env)
}

/** A start that failed ends the process: nothing still open (a worker, a timer) may keep it up. */
const EXIT_WITHIN_MS = 1_000

async function main(argv: string[]): Promise<number> {
  // everything the appliance writes (app.db, dataset files, downloads, backups, exports) is 0600
  // in 0700 folders: the data holds key hashes, signing keys and customer data
  process.umask(0o077)
  if (argv[0] === undefined || argv[0] === 'serve') {
    const cfg = config()
    const running = await startServer(cfg).catch((err: unknown) => {
      const line = explainStartFailure(err, cfg)
      if (line === null) throw err
      process.stderr.write(`${line}\n`)
      if (cfg.logLevel === 'debug' || cfg.logLevel === 'trace')
        process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
      setTimeout(() => process.exit(1), EXIT_WITHIN_MS).unref()
      return null
    })
    if (running === null) return 1
    const shutdown = (signal: string) => {
      running.deps.log.info({ signal }, 'signal received')
      void running.stop().then(() => {
        process.exitCode = 0
      })
    }
    process.once('SIGTERM', () => shutdown('SIGTERM'))
    process.once('SIGINT', () => shutdown('SIGINT'))
    return 0
  }
  const controller = new AbortController()
  process.once('SIGINT', () => controller.abort(new Error('interrupted')))
  process.once('SIGTERM', () => controller.abort(new Error('terminated')))
  return runCli(argv, config, io, undefined, controller.signal)
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code
  },
  (err: unknown) => {
    const storage = storageFailureCode(err)
    if (err instanceof ConfigError) process.stderr.write(`configuration error: ${err.message}\n`)
    else if (storage !== null)
      process.stderr.write(
        `storage error (${storage}): ${(err as Error).message}; check that the data directory exists, is writable and has free space\n`,
      )
    else
      process.stderr.write(
        `fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      )
    process.exitCode = 1
    setTimeout(() => process.exit(1), EXIT_WITHIN_MS).unref()
  },
)
