/** The CLI adapter's contract: commands take argv and an Io, return an exit code (0 ok, 1 failure, 2 usage). */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { z } from 'zod'
import type { Deps } from '../deps.ts'
import { AppError, clip, storageFailureCode } from '../errors.ts'

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

/**
 * Validates parsed values with a zod schema; a failure is a usage error (exit 2) with a one-line
 * message naming the option: `--name is required`, `--account: expected a positive integer, got "x"`.
 */
export function validateArgs<S extends z.ZodType>(schema: S, values: unknown): z.infer<S> {
  const r = schema.safeParse(values)
  if (!r.success) throw new UsageError(argIssue(r.error, values))
  return r.data
}

function argIssue(error: z.ZodError, values: unknown): string {
  const issue = error.issues[0]
  if (!issue) return 'invalid arguments'
  const key = issue.path[0]
  const given =
    key === undefined
      ? values
      : values !== null && typeof values === 'object'
        ? (values as Record<PropertyKey, unknown>)[key]
        : undefined
  const shown = typeof given === 'string' ? ` (got ${JSON.stringify(clip(given, 64))})` : ''
  if (key === undefined)
    return given === undefined ? 'an argument is missing' : `${describeIssue(issue)}${shown}`
  if (given === undefined) return `--${String(key)} is required`
  return `--${String(key)}: ${describeIssue(issue)}${shown}`
}

function describeIssue(issue: z.core.$ZodIssue): string {
  // a message the schema wrote itself says it best; zod's defaults start like these
  if (!/^(Invalid|Too (small|big)|Expected|Unrecognized)/.test(issue.message)) return issue.message
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected === 'number' || issue.expected === 'int'
        ? 'expected a number'
        : `expected ${issue.expected}`
    case 'too_small':
      return issue.origin === 'string'
        ? `must be at least ${String(issue.minimum)} characters`
        : issue.origin === 'number'
          ? `must be ${issue.inclusive ? 'at least' : 'more than'} ${String(issue.minimum)}`
          : issue.message
    case 'too_big':
      return issue.origin === 'string'
        ? `must be at most ${String(issue.maximum)} characters`
        : issue.origin === 'number'
          ? `must be ${issue.inclusive ? 'at most' : 'less than'} ${String(issue.maximum)}`
          : issue.message
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => String(v)).join(', ')}`
    case 'custom':
    case 'invalid_element':
    case 'invalid_format':
    case 'invalid_key':
    case 'invalid_union':
    case 'not_multiple_of':
    case 'unrecognized_keys':
      return issue.message
  }
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
  const storage = storageFailureCode(err)
  const message = err instanceof Error ? err.message : String(err)
  io.stderr(
    storage === null
      ? `error: ${message}\n`
      : `error: storage unavailable (${storage}): ${message}; check that the data directory is writable and has free space\n`,
  )
  return 1
}

export const iso = (ms: number | null | undefined) =>
  ms == null ? null : new Date(ms).toISOString()

/** One sentence about dataset runs: `2 datasets activated, 1 unchanged, 1 failed (census).` */
export function runSummary(results: readonly { dataset: string; status: string }[]): string {
  if (results.length === 0) return 'Nothing to do.'
  const by = new Map<string, string[]>()
  for (const r of results) by.set(r.status, [...(by.get(r.status) ?? []), r.dataset])
  const parts = [...by].map(([status, names]) =>
    status === 'activated' || status === 'unchanged'
      ? `${names.length} ${status}`
      : `${names.length} ${status} (${names.join(', ')})`,
  )
  return `Datasets: ${parts.join(', ')}.`
}
