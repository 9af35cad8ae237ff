/** `carrier-verify policy …`: the vetting policy of an account or of the whole appliance. */
import { readFileSync } from 'node:fs'
import { userInfo } from 'node:os'
import { stringify as toYaml } from 'yaml'
import { z } from 'zod'
import {
  effectivePolicy,
  parsePolicyText,
  policyHistory,
  scopePolicy,
  setPolicy,
  bundledPolicy,
  type PolicyProblem,
  type PolicyVersion,
} from '../checks/policy.ts'
import {
  Id,
  json,
  parse,
  table,
  UsageError,
  validateArgs,
  type CommandSpec,
  type Io,
} from './io.ts'

const readText = async (file: string, io: Io) =>
  file === '-' ? io.readStdin() : readFileSync(file, 'utf8')

function reportProblems(io: Io, problems: readonly PolicyProblem[]) {
  for (const p of problems) io.stderr(`  ${p.path || '(document)'}: ${p.message}\n`)
}

const header = (v: PolicyVersion) =>
  `# policy ${v.id}${v.created_at ? ` set ${v.created_at}` : ' (bundled with the appliance)'}, sha256 ${v.sha256}\n`

const FileArgs = z.object({ file: z.string().min(1, '--file PATH (or - for stdin) is required') })

export const policyCommands: CommandSpec[] = [
  {
    name: 'policy show',
    usage: 'policy show [--account ID | --appliance | --bundled] [--json]',
    summary:
      "print the policy checks are judged by (an account's own, else the appliance default, else the bundled one) as YAML, or --json with its version",
    async run(argv, ctx) {
      const { values } = parse(argv, {
        account: { type: 'string' },
        appliance: { type: 'boolean' },
        bundled: { type: 'boolean' },
        json: { type: 'boolean' },
      })
      const { account } = validateArgs(z.object({ account: Id.optional() }), values)
      if ([account !== undefined, values.appliance, values.bundled].filter(Boolean).length > 1)
        throw new UsageError('give at most one of --account, --appliance, --bundled')
      const db = ctx.deps().db
      const v = values.bundled
        ? bundledPolicy()
        : values.appliance
          ? (scopePolicy(db, null) ?? bundledPolicy())
          : account !== undefined
            ? effectivePolicy(db, account)
            : (scopePolicy(db, null) ?? bundledPolicy())
      ctx.io.stdout(values.json ? json(v) : `${header(v)}${toYaml(v.document, { lineWidth: 100 })}`)
      return 0
    },
  },
  {
    name: 'policy validate',
    usage: 'policy validate --file PATH|- [--json]',
    summary: 'check a JSON or YAML policy file without saving it; lists every problem (exit 1)',
    async run(argv, ctx) {
      const { values } = parse(argv, { file: { type: 'string' }, json: { type: 'boolean' } })
      const { file } = validateArgs(FileArgs, values)
      const r = parsePolicyText(await readText(file, ctx.io))
      if (values.json)
        ctx.io.stdout(
          json(
            r.ok
              ? { valid: true, rules: r.policy.rules.length }
              : { valid: false, problems: r.problems },
          ),
        )
      if (!r.ok) {
        ctx.io.stderr(`${file}: not a valid policy (${r.problems.length} problem(s)):\n`)
        reportProblems(ctx.io, r.problems)
        return 1
      }
      if (!values.json) ctx.io.stdout(`${file}: valid, ${r.policy.rules.length} rules\n`)
      return 0
    },
  },
  {
    name: 'policy set',
    usage: 'policy set --file PATH|- [--account ID] [--author NAME] [--json]',
    summary:
      'validate a policy and save it as the next version for an account (or, without --account, the appliance default); old versions are kept',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        file: { type: 'string' },
        account: { type: 'string' },
        author: { type: 'string' },
        json: { type: 'boolean' },
      })
      const { file, account } = validateArgs(
        FileArgs.extend({ account: Id.optional(), author: z.string().min(1).max(200).optional() }),
        values,
      )
      const r = parsePolicyText(await readText(file, ctx.io))
      if (!r.ok) {
        ctx.io.stderr(
          `${file}: not a valid policy, nothing saved (${r.problems.length} problem(s)):\n`,
        )
        reportProblems(ctx.io, r.problems)
        return 1
      }
      const deps = ctx.deps()
      const { version, changed } = setPolicy(
        deps.db,
        account ?? null,
        r.policy,
        deps.clock().getTime(),
        { actor: `cli:${values.author ?? userInfo().username}` },
      )
      ctx.io.stdout(
        values.json
          ? json({ id: version.id, version: version.version, sha256: version.sha256, changed })
          : changed
            ? `saved ${version.id} (${r.policy.rules.length} rules)\n`
            : `unchanged: ${version.id} is already this policy\n`,
      )
      return 0
    },
  },
  {
    name: 'policy history',
    usage: 'policy history [--account ID] [--json]',
    summary: 'every saved version of an account policy (or of the appliance default)',
    async run(argv, ctx) {
      const { values } = parse(argv, { account: { type: 'string' }, json: { type: 'boolean' } })
      const { account } = validateArgs(z.object({ account: Id.optional() }), values)
      const rows = policyHistory(ctx.deps().db, account ?? null).map((v) => ({
        id: v.id,
        version: v.version,
        created_at: v.created_at,
        rules: v.document.rules.length,
        name: v.document.name,
        sha256: v.sha256,
      }))
      ctx.io.stdout(
        values.json
          ? json(rows)
          : rows.length
            ? table(rows)
            : 'no saved versions (the bundled policy applies)\n',
      )
      return 0
    },
  },
]
