/**
 * Onboarding: a list of companies checked as one background job. Each company found becomes a
 * stored check made by the same function as POST /v1/checks (so billed exactly like it: one call
 * per company found, nothing for one not found); the job's state and every row's outcome live in
 * app.db, so a restart resumes where it stopped. At most one onboarding per account is queued or
 * running at a time.
 */
import { randomBytes } from 'node:crypto'
import { createCheck } from '../checks/checks.ts'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { getAccount, hasAccess, limitsOf } from '../keys/accounts.ts'
import type { Caller, KeyMode } from '../keys/keys.ts'
import type { OnboardingInput, ParsedList, RejectedRow } from './parse.ts'

export type OnboardingStatus = 'draft' | 'queued' | 'running' | 'done' | 'failed'
export type RowStatus = 'pending' | 'claimed' | 'checked' | 'not_found' | 'error'

export interface Starter {
  accountId: number
  /** the API key, or null from the console */
  apiKeyId: number | null
  mode: KeyMode
  /** who: `key 12` or a console user's e-mail */
  by: string
}

export interface OnboardingRow {
  row: number
  input: string
  kind: 'dot' | 'mc'
  reference: string | null
  status: Exclude<RowStatus, 'claimed'> | 'pending'
  check_id: string | null
  verdict: 'pass' | 'review' | 'fail' | null
  reasons: string[]
  message: string | null
}

export interface OnboardingJson {
  id: string
  status: OnboardingStatus
  mode: KeyMode
  file_name: string | null
  rows: number
  rejected: RejectedRow[]
  progress: {
    processed: number
    total: number
    checked: number
    not_found: number
    errors: number
    pass: number
    review: number
    fail: number
  }
  error: string | null
  created_at: string
  started_at: string | null
  finished_at: string | null
}

interface Head {
  id: string
  accountId: number
  apiKeyId: number | null
  mode: KeyMode
  status: OnboardingStatus
  fileName: string | null
  rows: number
  rejected: string
  error: string | null
  createdAt: number
  startedAt: number | null
  finishedAt: number | null
}

const HEAD = `id, account_id AS accountId, api_key_id AS apiKeyId, mode, status, file_name AS fileName,
  rows, rejected, error, created_at AS createdAt, started_at AS startedAt, finished_at AS finishedAt`

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** The onboarding queued or running for an account, if any. */
function active(deps: Deps, accountId: number): string | null {
  return (
    (deps.db
      .prepare(
        `SELECT id FROM onboardings WHERE account_id = ? AND status IN ('queued','running') LIMIT 1`,
      )
      .pluck()
      .get(accountId) as string | undefined) ?? null
  )
}

function busy(id: string): AppError {
  return new AppError(
    'conflict',
    `Onboarding ${id} of this account is still running; one runs at a time (GET /v1/onboarding/${id})`,
  )
}

/**
 * Stores a parsed list: `draft` (the console's preview, started later) or `queued`. 409 while
 * another onboarding of the account is queued or running; 400 when no row could be read.
 */
export function createOnboarding(
  deps: Deps,
  who: Starter,
  list: ParsedList,
  opts: { fileName: string | null; start: boolean },
): OnboardingJson {
  const id = `onb_${randomBytes(12).toString('base64url')}`
  const now = deps.clock().getTime()
  deps.db.transaction(() => {
    if (opts.start) {
      if (list.rows.length === 0)
        throw new AppError(
          'invalid_request',
          `No row could be read (row ${list.rejected[0]?.row ?? 1}: ${list.rejected[0]?.reason ?? 'empty list'}); nothing was started`,
        )
      const other = active(deps, who.accountId)
      if (other) throw busy(other)
    }
    deps.db
      .prepare(
        `INSERT INTO onboardings (id, account_id, api_key_id, mode, status, file_name, rows, rejected, created_by, created_at, started_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        who.accountId,
        who.apiKeyId,
        who.mode,
        opts.start ? 'queued' : 'draft',
        opts.fileName,
        list.rows.length,
        JSON.stringify(list.rejected),
        who.by,
        now,
        opts.start ? now : null,
      )
    const insert = deps.db.prepare(
      `INSERT INTO onboarding_rows (onboarding_id, row, kind, value, reference, status) VALUES (?, ?, ?, ?, ?, 'pending')`,
    )
    for (const r of list.rows) insert.run(id, r.row, r.kind, r.value, r.reference)
  })()
  return getOnboarding(deps, who.accountId, id)
}

/** Starts a draft (the console's "Start"): 409 while another one of the account runs. */
export function startOnboarding(deps: Deps, accountId: number, id: string): OnboardingJson {
  deps.db.transaction(() => {
    const head = headOf(deps, accountId, id)
    if (head.status !== 'draft') return
    if (head.rows === 0)
      throw new AppError('invalid_request', 'No row of this file could be read; nothing to start')
    const other = active(deps, accountId)
    if (other) throw busy(other)
    deps.db
      .prepare(`UPDATE onboardings SET status = 'queued', started_at = ? WHERE id = ?`)
      .run(deps.clock().getTime(), id)
  })()
  return getOnboarding(deps, accountId, id)
}

function headOf(deps: Deps, accountId: number, id: string): Head {
  const head = deps.db
    .prepare(`SELECT ${HEAD} FROM onboardings WHERE id = ? AND account_id = ?`)
    .get(id, accountId) as Head | undefined
  // another account's onboarding is not found, like a missing one
  if (!head) throw new AppError('not_found', `No onboarding ${id}`)
  return head
}

/** Progress and counts of an account's onboarding (404 for another account's). */
export function getOnboarding(deps: Deps, accountId: number, id: string): OnboardingJson {
  const head = headOf(deps, accountId, id)
  const counts = deps.db
    .prepare(
      `SELECT
         SUM(status = 'checked') AS checked, SUM(status = 'not_found') AS notFound,
         SUM(status = 'error') AS errors, SUM(verdict = 'pass') AS pass,
         SUM(verdict = 'review') AS review, SUM(verdict = 'fail') AS fail
       FROM onboarding_rows WHERE onboarding_id = ?`,
    )
    .get(id) as Record<
    'checked' | 'notFound' | 'errors' | 'pass' | 'review' | 'fail',
    number | null
  >
  const n = (v: number | null) => v ?? 0
  const checked = n(counts.checked)
  const notFound = n(counts.notFound)
  const errors = n(counts.errors)
  return {
    id: head.id,
    status: head.status,
    mode: head.mode,
    file_name: head.fileName,
    rows: head.rows,
    rejected: JSON.parse(head.rejected) as RejectedRow[],
    progress: {
      processed: checked + notFound + errors,
      total: head.rows,
      checked,
      not_found: notFound,
      errors,
      pass: n(counts.pass),
      review: n(counts.review),
      fail: n(counts.fail),
    },
    error: head.error,
    created_at: new Date(head.createdAt).toISOString(),
    started_at: iso(head.startedAt),
    finished_at: iso(head.finishedAt),
  }
}

interface RowDb {
  row: number
  kind: 'dot' | 'mc'
  value: string
  reference: string | null
  status: RowStatus
  claimedAt: number | null
  checkId: string | null
  verdict: 'pass' | 'review' | 'fail' | null
  reasons: string | null
  message: string | null
}

const ROW_COLS = `row, kind, value, reference, status, claimed_at AS claimedAt, check_id AS checkId,
  verdict, reasons, message`

const toRow = (r: RowDb): OnboardingRow => ({
  row: r.row,
  input: r.value,
  kind: r.kind,
  reference: r.reference,
  status: r.status === 'claimed' ? 'pending' : r.status,
  check_id: r.checkId,
  verdict: r.verdict,
  reasons: r.reasons ? (JSON.parse(r.reasons) as string[]) : [],
  message: r.message,
})

/** Every row of an account's onboarding, in file order (404 for another account's). */
export function onboardingRows(deps: Deps, accountId: number, id: string): OnboardingRow[] {
  headOf(deps, accountId, id)
  return (
    deps.db
      .prepare(`SELECT ${ROW_COLS} FROM onboarding_rows WHERE onboarding_id = ? ORDER BY row`)
      .all(id) as RowDb[]
  ).map(toRow)
}

/** The account's onboardings, newest first. */
export function listOnboardings(deps: Deps, accountId: number, limit = 20): OnboardingJson[] {
  const ids = deps.db
    .prepare(`SELECT id FROM onboardings WHERE account_id = ? ORDER BY created_at DESC, id LIMIT ?`)
    .pluck()
    .all(accountId, limit) as string[]
  return ids.map((id) => getOnboarding(deps, accountId, id))
}

const csvField = (v: string | null) => {
  const s = v ?? ''
  // a value a spreadsheet would run as a formula is written as text
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

/** The results as CSV: one line per row (rejected rows included, with their reason). */
export function resultsCsv(deps: Deps, accountId: number, id: string): string {
  const head = getOnboarding(deps, accountId, id)
  const lines = [['row', 'input', 'reference', 'status', 'verdict', 'reasons', 'check_id']]
  const all: { row: number; line: string[] }[] = [
    ...onboardingRows(deps, accountId, id).map((r) => ({
      row: r.row,
      line: [
        String(r.row),
        r.input,
        r.reference,
        r.status,
        r.verdict,
        (r.message ? [r.message, ...r.reasons] : r.reasons).join('; '),
        r.check_id,
      ].map((v) => v ?? ''),
    })),
    ...head.rejected.map((r) => ({
      row: r.row,
      line: [String(r.row), r.input, '', 'rejected', '', r.reason, ''],
    })),
  ].sort((a, b) => a.row - b.row)
  for (const r of all) lines.push(r.line)
  return lines.map((l) => l.map(csvField).join(',')).join('\r\n') + '\r\n'
}

/** The caller a job bills: the account's plan and limits as they are now; null without access. */
function callerOf(deps: Deps, head: Head): Caller | string {
  const account = getAccount(deps.db, head.accountId)
  if (!account) return 'the account no longer exists'
  if (account.suspendedAt !== null) return 'the account is suspended'
  const sub = account.subscription
  if (!sub || !hasAccess(sub, deps.clock().getTime()))
    return 'the account has no active API subscription'
  const limits = limitsOf(sub)
  return {
    // 0: started from the console, with no API key (the checks record api_key.id 0)
    keyId: head.apiKeyId ?? 0,
    accountId: head.accountId,
    mode: head.mode,
    plan: sub.plan,
    included: limits.included,
    hardCap: limits.hardCap,
    overageMills: limits.overageMills,
    webhooks: limits.plan.webhooks,
  }
}

/** Rows checked at the same time (each is one awaited lookup and one ledger write). */
const PARALLEL = 4

/**
 * Works through every queued or running onboarding, oldest first, until each is done or
 * `signal` is aborted (a shutdown: the rows not yet done stay pending and the next run resumes).
 * A row claimed by a run that never finished (a crash) is first matched to the check that run may
 * have stored, so a company is never checked (or billed) twice.
 */
export async function runOnboardings(deps: Deps, signal?: AbortSignal): Promise<number> {
  const heads = deps.db
    .prepare(
      `SELECT ${HEAD} FROM onboardings WHERE status IN ('queued','running') ORDER BY created_at, id`,
    )
    .all() as Head[]
  let processed = 0
  for (const head of heads) {
    if (signal?.aborted) break
    processed += await runOne(deps, head, signal)
  }
  return processed
}

async function runOne(deps: Deps, head: Head, signal?: AbortSignal): Promise<number> {
  deps.db.prepare(`UPDATE onboardings SET status = 'running' WHERE id = ?`).run(head.id)
  recoverClaimed(deps, head)
  const caller = callerOf(deps, head)
  if (typeof caller === 'string') return (finish(deps, head.id, 'failed', `Stopped: ${caller}`), 0)
  const next = deps.db.prepare(
    `SELECT ${ROW_COLS} FROM onboarding_rows WHERE onboarding_id = ? AND status = 'pending' ORDER BY row LIMIT ?`,
  )
  let processed = 0
  for (;;) {
    if (signal?.aborted) return processed
    const batch = next.all(head.id, PARALLEL) as RowDb[]
    if (batch.length === 0) break
    const stop = await Promise.all(batch.map((r) => checkRow(deps, head, caller, r)))
    processed += batch.length
    if (stop.includes(PAUSE)) return processed
    const fatal = stop.find((s) => s !== null)
    if (fatal) return (finish(deps, head.id, 'failed', fatal), processed)
  }
  finish(deps, head.id, 'done', null)
  return processed
}

function finish(deps: Deps, id: string, status: 'done' | 'failed', error: string | null): void {
  deps.db
    .prepare(`UPDATE onboardings SET status = ?, error = ?, finished_at = ? WHERE id = ?`)
    .run(status, error, deps.clock().getTime(), id)
  deps.log.info({ onboarding: id, status, error }, 'onboarding finished')
}

const setRow = (deps: Deps, id: string, row: number, v: Partial<RowDb>) =>
  deps.db
    .prepare(
      `UPDATE onboarding_rows SET status = ?, check_id = ?, verdict = ?, reasons = ?, message = ?
       WHERE onboarding_id = ? AND row = ?`,
    )
    .run(
      v.status,
      v.checkId ?? null,
      v.verdict ?? null,
      v.reasons ?? null,
      v.message ?? null,
      id,
      row,
    )

/** A row's answer meaning "try again at the next run" (the data or the storage is unavailable). */
const PAUSE = 'pause'

/** Checks one row; returns why the whole onboarding must stop (quota), PAUSE, or null. */
async function checkRow(deps: Deps, head: Head, caller: Caller, r: RowDb): Promise<string | null> {
  const claimedAt = deps.clock().getTime()
  deps.db
    .prepare(
      `UPDATE onboarding_rows SET status = 'claimed', claimed_at = ? WHERE onboarding_id = ? AND row = ?`,
    )
    .run(claimedAt, head.id, r.row)
  const input: OnboardingInput = {
    row: r.row,
    kind: r.kind,
    value: r.value,
    reference: r.reference,
  }
  try {
    const { check } = await createCheck(
      deps,
      caller,
      input.kind === 'dot'
        ? { dot: input.value, reference: input.reference ?? undefined }
        : { mc: input.value, reference: input.reference ?? undefined },
      `${head.id}:${r.row}`,
    )
    setRow(deps, head.id, r.row, {
      status: 'checked',
      checkId: check.check_id,
      verdict: check.verdict,
      reasons: JSON.stringify(reasonsOf(check.rules)),
    })
    return null
  } catch (err) {
    if (!(err instanceof AppError)) {
      deps.log.error({ err, onboarding: head.id, row: r.row }, 'onboarding row failed')
      setRow(deps, head.id, r.row, { status: 'error', message: 'internal error (logged)' })
      return null
    }
    if (err.status >= 500 || err.code === 'quota_exceeded') {
      // an outage (data not imported, storage busy) pauses the run: the row waits for the next
      // one; a capped plan out of quota stops the onboarding (the rest stays pending, unbilled)
      deps.db
        .prepare(
          `UPDATE onboarding_rows SET status = 'pending' WHERE onboarding_id = ? AND row = ?`,
        )
        .run(head.id, r.row)
      return err.code === 'quota_exceeded' ? `Stopped: ${err.message}` : PAUSE
    }
    setRow(deps, head.id, r.row, {
      status: err.code === 'not_found' ? 'not_found' : 'error',
      message: err.message,
    })
    return null
  }
}

/** The reasons of the rules that did not pass, in the policy's order. */
const reasonsOf = (rules: readonly { result: string; applicable: boolean; reason: string }[]) =>
  rules.filter((x) => x.applicable && x.result !== 'pass').map((x) => x.reason)

/**
 * Rows left `claimed` by a run that stopped mid-row: the check that run stored (same account,
 * same company as given, same reference, stored after the claim, not already another row's)
 * is taken as the row's; without one the row is pending again.
 */
function recoverClaimed(deps: Deps, head: Head): void {
  const claimed = deps.db
    .prepare(
      `SELECT ${ROW_COLS} FROM onboarding_rows WHERE onboarding_id = ? AND status = 'claimed'`,
    )
    .all(head.id) as RowDb[]
  for (const r of claimed) {
    const found = deps.db
      .prepare(
        `SELECT id, verdict, document FROM checks
         WHERE account_id = ? AND kind = 'check' AND created_at >= ?
           AND json_extract(document, ?) = ? AND reference IS ?
           AND id NOT IN (SELECT check_id FROM onboarding_rows WHERE onboarding_id = ? AND check_id IS NOT NULL)
         ORDER BY seq LIMIT 1`,
      )
      .get(
        head.accountId,
        r.claimedAt ?? 0,
        r.kind === 'dot' ? '$.request.dot' : '$.request.mc',
        r.value,
        r.reference,
        head.id,
      ) as { id: string; verdict: 'pass' | 'review' | 'fail'; document: string } | undefined
    if (found) {
      const doc = JSON.parse(found.document) as {
        rules: { result: string; applicable: boolean; reason: string }[]
      }
      setRow(deps, head.id, r.row, {
        status: 'checked',
        checkId: found.id,
        verdict: found.verdict,
        reasons: JSON.stringify(reasonsOf(doc.rules)),
      })
    } else
      deps.db
        .prepare(
          `UPDATE onboarding_rows SET status = 'pending' WHERE onboarding_id = ? AND row = ?`,
        )
        .run(head.id, r.row)
  }
}
