/** Runs a CLI command against a test context, capturing stdout and stderr. */
import type { Io } from '../cli/io.ts'
import { runCli } from '../cli/run.ts'
import type { TestContext } from './context.ts'

export async function runCliCaptured(
  ctx: Pick<TestContext, 'config' | 'deps'>,
  argv: string[],
  stdin = '',
) {
  let stdout = ''
  let stderr = ''
  const io: Io = {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    isTTY: false,
    readStdin: async () => stdin,
  }
  const code = await runCli(argv, ctx.config, io, () => ctx.deps)
  return { code, stdout, stderr, json: () => JSON.parse(stdout) as Record<string, unknown> }
}
