import type { z } from 'zod'
import { AppError, type ErrorCode } from '../errors.ts'

/** Parses input with a zod schema; failures become one AppError with the first issue as message. */
export function parseOr<S extends z.ZodType>(
  schema: S,
  input: unknown,
  code: ErrorCode,
): z.infer<S> {
  const r = schema.safeParse(input)
  if (r.success) return r.data
  const first = r.error.issues[0]
  const where = first?.path.length ? `${first.path.join('.')}: ` : ''
  throw new AppError(code, `${where}${first?.message ?? 'invalid input'}`, {
    extra: { issues: r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) },
  })
}
