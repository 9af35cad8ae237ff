/**
 * Policy versions in app.db: an account's own policy, else the appliance default (account 0),
 * else the bundled default. Every change is a new version; old versions are kept and a check
 * names the exact version (and its sha256) it was judged by.
 */
import { createHash } from 'node:crypto'
import { parse as parseYaml } from 'yaml'
import type { Sqlite } from '../db/open.ts'
import { AppError } from '../errors.ts'
import { accountExists } from '../keys/accounts.ts'
import { recordAudit } from '../users/audit.ts'
import { policyProblems } from './fields.ts'
import { BUNDLED_POLICY, BUNDLED_POLICY_VERSION, PolicyDocument } from './policy-schema.ts'

/** account 0 in check_policies: the appliance default */
export const APPLIANCE = 0

export interface PolicyVersion {
  scope: 'account' | 'appliance' | 'bundled'
  account_id: number | null
  version: number
  /** `account:12@3`, `appliance@2`, `bundled@1` */
  id: string
  sha256: string
  created_at: string | null
  document: PolicyDocument
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

export interface PolicyProblem {
  path: string
  message: string
}

/** Parses a JSON or YAML policy text and validates it; `problems` lists every issue. */
export function parsePolicyText(
  text: string,
): { ok: true; policy: PolicyDocument } | { ok: false; problems: PolicyProblem[] } {
  let raw: unknown
  try {
    raw = parseYaml(text) as unknown
  } catch (err) {
    return {
      ok: false,
      problems: [{ path: '', message: `not JSON or YAML: ${(err as Error).message}` }],
    }
  }
  const r = PolicyDocument.safeParse(raw)
  if (r.success) {
    const problems = policyProblems(r.data)
    return problems.length ? { ok: false, problems } : { ok: true, policy: r.data }
  }
  return {
    ok: false,
    problems: r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
  }
}

const idOf = (accountId: number, version: number) =>
  accountId === APPLIANCE ? `appliance@${version}` : `account:${accountId}@${version}`

interface Row {
  accountId: number
  version: number
  document: string
  sha256: string
  createdAt: number
}

const SELECT = `SELECT account_id AS accountId, version, document, sha256, created_at AS createdAt FROM check_policies`

function fromRow(r: Row): PolicyVersion {
  return {
    scope: r.accountId === APPLIANCE ? 'appliance' : 'account',
    account_id: r.accountId === APPLIANCE ? null : r.accountId,
    version: r.version,
    id: idOf(r.accountId, r.version),
    sha256: r.sha256,
    created_at: new Date(r.createdAt).toISOString(),
    document: PolicyDocument.parse(JSON.parse(r.document)),
  }
}

const BUNDLED_TEXT = JSON.stringify(BUNDLED_POLICY)

export const bundledPolicy = (): PolicyVersion => ({
  scope: 'bundled',
  account_id: null,
  version: BUNDLED_POLICY_VERSION,
  id: `bundled@${BUNDLED_POLICY_VERSION}`,
  sha256: sha256(BUNDLED_TEXT),
  created_at: null,
  document: BUNDLED_POLICY,
})

function latest(db: Sqlite, accountId: number): PolicyVersion | null {
  const r = db
    .prepare(`${SELECT} WHERE account_id = ? ORDER BY version DESC LIMIT 1`)
    .get(accountId) as Row | undefined
  return r ? fromRow(r) : null
}

/** The policy a new check of this account is judged by. */
export function effectivePolicy(db: Sqlite, accountId: number): PolicyVersion {
  return latest(db, accountId) ?? latest(db, APPLIANCE) ?? bundledPolicy()
}

/** The policy of a scope as set (null account = the appliance default), without fallback. */
export function scopePolicy(db: Sqlite, accountId: number | null): PolicyVersion | null {
  return latest(db, accountId ?? APPLIANCE)
}

/** Every version of a scope, oldest first. */
export function policyHistory(db: Sqlite, accountId: number | null): PolicyVersion[] {
  return (
    db
      .prepare(`${SELECT} WHERE account_id = ? ORDER BY version`)
      .all(accountId ?? APPLIANCE) as Row[]
  ).map(fromRow)
}

/**
 * Stores a validated policy as the next version of its scope (null account = appliance default).
 * An identical document to the current version is not a change: that version is returned.
 */
export function setPolicy(
  db: Sqlite,
  accountId: number | null,
  policy: PolicyDocument,
  now: number,
  author: { actor: string; userId?: number | null; address?: string | null },
): { version: PolicyVersion; changed: boolean } {
  const scope = accountId ?? APPLIANCE
  if (accountId !== null) {
    if (!accountExists(db, accountId)) throw new AppError('not_found', `No account ${accountId}`)
  }
  const text = JSON.stringify(PolicyDocument.parse(policy))
  const hash = sha256(text)
  return db
    .transaction(() => {
      const cur = latest(db, scope)
      if (cur?.sha256 === hash) return { version: cur, changed: false }
      const version = (cur?.version ?? 0) + 1
      db.prepare(
        'INSERT INTO check_policies (account_id, version, document, sha256, created_at, author) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(scope, version, text, hash, now, author.actor)
      recordAudit(
        db,
        {
          userId: author.userId ?? null,
          actor: author.actor,
          action: 'policy.set',
          accountId: accountId,
          target: idOf(scope, version),
          detail: { sha256: hash, rules: policy.rules.length, name: policy.name },
          address: author.address ?? null,
        },
        now,
      )
      return {
        version: fromRow({
          accountId: scope,
          version,
          document: text,
          sha256: hash,
          createdAt: now,
        }),
        changed: true,
      }
    })
    .immediate()
}
