/** GET /v1/checks: an account's checks, newest first, filtered and paged with an opaque cursor. */
import { z } from 'zod'
import type { Sqlite } from '../db/open.ts'
import { AppError } from '../errors.ts'
import type { CheckListJson } from './schema.ts'

export const MAX_LIST = 100

const day = z
  .string()
  .regex(
    /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/,
    'a date YYYY-MM-DD or an ISO 8601 time',
  )
  .refine((v) => !Number.isNaN(Date.parse(v)), 'not a real date')

export const CheckListQuery = z.strictObject({
  dot: z
    .string()
    .trim()
    .regex(/^\d{1,8}$/, 'dot must be 1 to 8 digits')
    .transform(Number)
    .optional(),
  reference: z.string().trim().min(1).max(200).optional(),
  from: day.optional().meta({ description: 'created at or after (a date means 00:00 UTC)' }),
  to: day
    .optional()
    .meta({ description: 'created at or before (a date means the whole day, UTC)' }),
  limit: z.coerce.number().int().min(1).max(MAX_LIST).default(50),
  cursor: z.string().max(100).optional(),
})
export type CheckListQuery = z.infer<typeof CheckListQuery>

/** `from`/`to` as Unix ms: a bare date covers its whole UTC day. */
export function timeRange(from?: string, to?: string): { from: number; to: number } {
  const start = from === undefined ? 0 : Date.parse(from.length === 10 ? `${from}T00:00:00Z` : from)
  const end =
    to === undefined
      ? Number.MAX_SAFE_INTEGER
      : to.length === 10
        ? Date.parse(`${to}T00:00:00Z`) + 86_400_000 - 1
        : Date.parse(to)
  if (start > end) throw new AppError('invalid_request', '`from` is after `to`')
  return { from: start, to: end }
}

const encodeCursor = (seq: number) => Buffer.from(`c1:${seq}`).toString('base64url')
function decodeCursor(c: string): number {
  const m = /^c1:(\d+)$/.exec(Buffer.from(c, 'base64url').toString('utf8'))
  if (!m) throw new AppError('invalid_request', 'cursor is not one this API returned')
  return Number(m[1])
}

interface Row {
  seq: number
  id: string
  createdAt: number
  dotNumber: number
  reference: string | null
  verdict: 'pass' | 'review' | 'fail'
  chain: 'live' | 'test'
  document: string
  overrides: number
  lastOverride: string | null
}

/** An account's checks of one chain (live, or sandbox), or of both (`chain` undefined: the console). */
export function listChecks(
  db: Sqlite,
  accountId: number,
  q: CheckListQuery,
  chain?: 'live' | 'test',
): CheckListJson {
  const { from, to } = timeRange(q.from, q.to)
  const before = q.cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(q.cursor)
  const where = [
    'c.account_id = ?',
    "c.kind = 'check'",
    'c.seq < ?',
    'c.created_at BETWEEN ? AND ?',
  ]
  const args: (string | number)[] = [accountId, before, from, to]
  if (chain !== undefined) {
    where.push('c.chain = ?')
    args.push(chain)
  }
  if (q.dot !== undefined) {
    where.push('c.dot_number = ?')
    args.push(q.dot)
  }
  if (q.reference !== undefined) {
    where.push('c.reference = ?')
    args.push(q.reference)
  }
  const rows = db
    .prepare(
      `SELECT c.seq, c.id, c.created_at AS createdAt, c.dot_number AS dotNumber, c.reference, c.verdict, c.chain, c.document,
         (SELECT count(*) FROM checks o WHERE o.check_id = c.id AND o.kind = 'override') AS overrides,
         (SELECT o.verdict FROM checks o WHERE o.check_id = c.id AND o.kind = 'override' ORDER BY o.seq DESC LIMIT 1) AS lastOverride
       FROM checks c WHERE ${where.join(' AND ')} ORDER BY c.seq DESC LIMIT ?`,
    )
    .all(...args, q.limit + 1) as Row[]
  const page = rows.slice(0, q.limit)
  return {
    checks: page.map((r) => {
      const doc = JSON.parse(r.document) as { legal_name: string | null; policy: { id: string } }
      return {
        check_id: r.id,
        created_at: new Date(r.createdAt).toISOString(),
        dot_number: String(r.dotNumber),
        legal_name: doc.legal_name,
        reference: r.reference,
        verdict: r.verdict,
        effective_verdict: (r.lastOverride ?? r.verdict) as Row['verdict'],
        overrides: r.overrides,
        policy_id: doc.policy.id,
        mode: r.chain,
      }
    }),
    next_cursor:
      rows.length > q.limit && page.length ? encodeCursor((page.at(-1) as Row).seq) : null,
  }
}
