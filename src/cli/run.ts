import type { Config } from '../config.ts'
import { createDeps } from '../compose.ts'
import { type Deps } from '../deps.ts'
import { COMMANDS } from './commands.ts'
import { reportError, type CliContext, type CommandSpec, type Io } from './io.ts'

export function helpText(): string {
  const lines = COMMANDS.map((c) => `  ${c.usage}\n      ${c.summary}`)
  return `carrier-verify — self-hosted carrier and broker verification API

Usage: carrier-verify <command> [options]

  serve
      start the API server (the default)
${lines.join('\n')}

Options common to most commands: --json for machine-readable output on stdout.
Exit codes: 0 ok, 1 failure, 2 usage error.
`
}

/** `carrier-verify keys --help`: every command of the group with its summary. */
function groupHelp(group: string, specs: readonly CommandSpec[]): string {
  const lines = specs.map((c) => `  carrier-verify ${c.usage}\n      ${c.summary}`)
  return `carrier-verify ${group} — commands:\n\n${lines.join('\n')}\n\nAdd --help to one command for its usage; --json for machine-readable output.\n`
}

function find(argv: string[]): { spec: CommandSpec; rest: string[] } | null {
  const two = `${argv[0] ?? ''} ${argv[1] ?? ''}`
  const byTwo = COMMANDS.find((c) => c.name === two)
  if (byTwo) return { spec: byTwo, rest: argv.slice(2) }
  const byOne = COMMANDS.find((c) => c.name === argv[0])
  if (byOne) return { spec: byOne, rest: argv.slice(1) }
  return null
}

/**
 * Runs one CLI command and returns its exit code. Deps are opened lazily and closed at the end,
 * so the CLI shares the data directory safely with a running server (WAL + busy timeout + leases).
 */
export async function runCli(
  argv: string[],
  config: Config | (() => Config),
  io: Io,
  depsOverride?: () => Deps,
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    io.stdout(helpText())
    return 0
  }
  const found = find(argv)
  if (!found) {
    const group = COMMANDS.filter((c) => c.name.startsWith(`${argv[0]} `))
    if (group.length && ['--help', '-h', 'help'].includes(argv[1] ?? '')) {
      io.stdout(groupHelp(argv[0] ?? '', group))
      return 0
    }
    io.stderr(
      group.length
        ? `usage error: unknown ${argv[0]} command ${JSON.stringify(argv[1] ?? '')}; one of:\n${group.map((c) => `  ${c.usage}`).join('\n')}\n`
        : `usage error: unknown command ${JSON.stringify(argv[0])}; see carrier-verify --help\n`,
    )
    return 2
  }
  if (found.rest.includes('--help') || found.rest.includes('-h')) {
    io.stdout(`usage: carrier-verify ${found.spec.usage}\n  ${found.spec.summary}\n`)
    return 0
  }
  let deps: Deps | null = null
  const ctx: CliContext = {
    io,
    signal,
    deps: () =>
      (deps ??= depsOverride
        ? depsOverride()
        : createDeps(typeof config === 'function' ? config() : config)),
  }
  try {
    return await found.spec.run(found.rest, ctx)
  } catch (err) {
    return reportError(io, err)
  } finally {
    if (deps && !depsOverride) (deps as Deps).close()
  }
}
