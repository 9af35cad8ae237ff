/** The CLI adapter's contract: commands take argv and an Io, return an exit code (0 ok, 1 failure, 2 usage). */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { z } from 'zod'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'

export interface Io {
  stdout(s: string): void
  stderr(s: string): void
  /** stderr is a terminal: progress may redraw a line */
  isTTY: boolean
  /** reads all of stdin (for `-` file arguments) */
  readStdin(): Promise<string>
  /** asks for a secret on the terminal without echoing it; absent when stdin is not a terminal */
  promptSecret?: (question: string) => Promise<string>
}

export interface CliContext {
  /** opens app.db and the registry on first use (so `--help` needs no data dir) */
  deps(): Deps
  io: Io
  signal: AbortSignal
}

export type Command = (argv: string[], ctx: CliContext) => Promise<number>

export interface CommandSpec {
  /** e.g. "accounts create" */
  name: string
  usage: string
  summary: string
  run: Command
}

export class UsageError extends Error {
  override readonly name = 'UsageError'
}

/** node:util parseArgs, strict, with usage errors turned into UsageError. */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: T,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals })
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
}

/** Validates parsed values with a zod schema; failures are usage errors (exit 2). */
export function validateArgs<S extends z.ZodType>(schema: S, values: unknown): z.infer<S> {
  const r = schema.safeParse(values)
  if (!r.success) throw new UsageError(z.prettifyError(r.error))
  return r.data
}

export const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`

/** Prints rows as an aligned text table. */
export function table(rows: readonly object[], columns?: string[]): string {
  if (rows.length === 0) return '(none)\n'
  const recs = rows as readonly Record<string, unknown>[]
  const cols = columns ?? Object.keys(recs[0] ?? {})
  const cell = (v: unknown): string => {
    if (v === null || v === undefined) return '-'
    if (typeof v === 'string') return v
    if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v)
    return JSON.stringify(v)
  }
  const widths = cols.map((c) => Math.max(c.length, ...recs.map((r) => cell(r[c]).length)))
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()
  return `${[line(cols), line(widths.map((w) => '-'.repeat(w))), ...recs.map((r) => line(cols.map((c) => cell(r[c]))))].join('\n')}\n`
}

/** Positive integer id argument. */
export const Id = z.coerce.number().int().positive()

/** Maps a thrown error to an exit code and a message on stderr. */
export function reportError(io: Io, err: unknown): number {
  if (err instanceof UsageError) {
    io.stderr(`usage error: ${err.message}\n`)
    return 2
  }
  if (err instanceof AppError) {
    io.stderr(`error: ${err.message}\n`)
    return err.status === 400 ? 2 : 1
  }
  io.stderr(`error: ${err instanceof Error ? err.message : String(err)}\n`)
  return 1
}

export const iso = (ms: number | null | undefined) =>
  ms == null ? null : new Date(ms).toISOString()
