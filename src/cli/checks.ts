/** `carrier-verify checks …`: verify the signed chains, export for a third party, keys, retention. */
import { resolve } from 'node:path'
import { z } from 'zod'
import {
  anchorSettings,
  publishAnchors,
  setAnchorSettings,
  verifyAnchors,
} from '../checks/anchors.ts'
import { exportChecks } from '../checks/export.ts'
import { verifyLedger } from '../checks/ledger.ts'
import { pruneChecks } from '../checks/retention.ts'
import {
  currentSigner,
  formatFingerprint,
  proveKeys,
  publicKeys,
  rotateSigningKey,
  trustPins,
} from '../checks/signing.ts'
import type { Deps } from '../deps.ts'
import { Id, json, parse, table, validateArgs, type CommandSpec } from './io.ts'

const DateArg = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T.+)?$/, 'a date YYYY-MM-DD or an ISO 8601 time')
  .refine((v) => !Number.isNaN(Date.parse(v)), 'not a real date')

const pinsOf = (deps: Deps) => trustPins(deps.config.paths.dataDir, deps.config.checks.trustedKey)

export const checksCommands: CommandSpec[] = [
  {
    name: 'checks verify',
    usage: 'checks verify [--account ID] [--json]',
    summary:
      "walk every account's chain of stored checks (hashes, links, signatures) and report the first break (exit 1)",
    async run(argv, ctx) {
      const { values } = parse(argv, { account: { type: 'string' }, json: { type: 'boolean' } })
      const { account } = validateArgs(z.object({ account: Id.optional() }), values)
      const deps = ctx.deps()
      const ledger = verifyLedger(deps.db, account, pinsOf(deps))
      const anchorProblems = verifyAnchors(deps.db, account)
      const r = {
        ...ledger,
        ok: ledger.ok && !anchorProblems.length,
        anchor_problems: anchorProblems,
      }
      if (values.json) ctx.io.stdout(json(r))
      else if (r.ok) {
        ctx.io.stdout(`OK: ${r.rows} entries in ${r.accounts} chain(s) verified\n`)
        for (const k of r.keys)
          ctx.io.stdout(`key ${k.key_id} fingerprint ${formatFingerprint(k.fingerprint)}\n`)
        if (!r.pinned)
          ctx.io.stdout(
            'the key history is not pinned: set CHECKS_TRUSTED_KEY to the first key fingerprint\n',
          )
      }
      for (const p of r.key_problems) ctx.io.stderr(`UNPROVEN: ${p}\n`)
      for (const p of anchorProblems) ctx.io.stderr(`ANCHOR: ${p}\n`)
      const b = r.first_break
      if (b)
        ctx.io.stderr(
          `BROKEN: account ${b.account_id} (${b.chain} chain), entry ${b.seq} (${b.id}): ${b.problem}\n`,
        )
      return r.ok ? 0 : 1
    },
  },
  {
    name: 'checks export',
    usage: 'checks export --account ID [--sandbox] [--from DATE] [--to DATE] --out DIR [--json]',
    summary:
      'write checks.jsonl, one HTML page per check, the public keys and a standalone verify.mjs (node, no dependencies) for a third party',
    async run(argv, ctx) {
      const { values } = parse(argv, {
        account: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        out: { type: 'string' },
        sandbox: { type: 'boolean' },
        json: { type: 'boolean' },
      })
      const a = validateArgs(
        z.object({
          account: Id,
          from: DateArg.optional(),
          to: DateArg.optional(),
          out: z.string().min(1, '--out DIR is required'),
        }),
        values,
      )
      const deps = ctx.deps()
      const now = deps.clock()
      const r = exportChecks(deps.db, {
        accountId: a.account,
        chain: values.sandbox ? 'test' : 'live',
        from: a.from,
        to: a.to,
        out: resolve(a.out),
        now,
        signer: currentSigner(deps.db, deps.config.paths.dataDir, now.getTime()),
      })
      ctx.io.stdout(
        values.json
          ? json(r)
          : `exported ${r.checks} checks and ${r.overrides} overrides to ${r.dir}\nverify: node ${r.dir}/verify.mjs --expect-key ${r.key_fingerprint}\n`,
      )
      return 0
    },
  },
  {
    name: 'checks anchors',
    usage: 'checks anchors --account ID [--webhook on|off] [--tsa URL|none] [--json]',
    summary:
      "where the account's chain heads are published each day: a checks.anchor webhook event and/or an RFC 3161 time-stamp authority (no option: show)",
    async run(argv, ctx) {
      const { values } = parse(argv, {
        account: { type: 'string' },
        webhook: { type: 'string' },
        tsa: { type: 'string' },
        json: { type: 'boolean' },
      })
      const a = validateArgs(
        z.object({
          account: Id,
          webhook: z.enum(['on', 'off']).optional(),
          tsa: z.string().min(1, '--tsa URL (or none)').optional(),
        }),
        values,
      )
      const deps = ctx.deps()
      const s =
        a.webhook === undefined && a.tsa === undefined
          ? anchorSettings(deps.db, a.account)
          : setAnchorSettings(
              deps.db,
              a.account,
              {
                ...(a.webhook === undefined ? {} : { webhook: a.webhook === 'on' }),
                ...(a.tsa === undefined ? {} : { tsaUrl: a.tsa === 'none' ? null : a.tsa }),
              },
              deps.clock().getTime(),
            )
      ctx.io.stdout(
        values.json
          ? json(s)
          : `account ${s.account_id}: webhook checks.anchor ${s.webhook ? 'on' : 'off'}; time-stamp authority ${s.tsa_url ?? 'none'}\n`,
      )
      return 0
    },
  },
  {
    name: 'checks anchor',
    usage: 'checks anchor [--account ID] [--json]',
    summary:
      "publish the chain heads not yet published to their accounts' destinations now (the CHECKS_ANCHOR_SCHEDULE job does this daily); exit 1 if one failed",
    async run(argv, ctx) {
      const { values } = parse(argv, { account: { type: 'string' }, json: { type: 'boolean' } })
      const { account } = validateArgs(z.object({ account: Id.optional() }), values)
      const r = await publishAnchors(ctx.deps(), account)
      if (values.json) ctx.io.stdout(json(r))
      else {
        for (const p of r.published)
          ctx.io.stdout(
            `account ${p.account_id} ${p.chain} chain: head ${p.seq} published (${p.destination})\n`,
          )
        for (const f of r.failed)
          ctx.io.stderr(
            `account ${f.account_id} ${f.chain} chain: ${f.destination} failed: ${f.error}\n`,
          )
        ctx.io.stdout(
          `${r.published.length} published, ${r.failed.length} failed, ${r.unchanged} already published\n`,
        )
      }
      return r.failed.length ? 1 : 0
    },
  },
  {
    name: 'checks keys',
    usage: 'checks keys [--json]',
    summary:
      'the public keys that sign checks (publish their ids so third parties can trust an export)',
    async run(argv, ctx) {
      const { values } = parse(argv, { json: { type: 'boolean' } })
      const deps = ctx.deps()
      const keys = publicKeys(deps.db)
      const proof = proveKeys(keys, pinsOf(deps))
      const rows = keys.map((k) => ({
        key_id: k.key_id,
        fingerprint: k.fingerprint,
        created_at: k.created_at,
        retired_at: k.retired_at,
        introduced_by: k.introduced_by,
        proven: proof.proven.has(k.key_id),
      }))
      ctx.io.stdout(
        values.json
          ? json({
              keys: rows,
              trusted_from: proof.roots,
              pinned: proof.pinned,
              problems: proof.problems,
            })
          : keys.length
            ? `${table(rows.map(({ fingerprint: _, ...r }) => r))}${rows
                .map((k) => `${k.key_id} fingerprint ${formatFingerprint(k.fingerprint)}\n`)
                .join('')}`
            : 'no signing key yet (one is made with the first check)\n',
      )
      for (const p of proof.problems) ctx.io.stderr(`UNPROVEN: ${p}\n`)
      return proof.problems.length ? 1 : 0
    },
  },
  {
    name: 'checks rotate-key',
    usage: 'checks rotate-key [--json]',
    summary:
      'retire the signing key and make a new one (old checks keep verifying with the old public key)',
    async run(argv, ctx) {
      const { values } = parse(argv, { json: { type: 'boolean' } })
      const deps = ctx.deps()
      const r = rotateSigningKey(deps.db, deps.config.paths.dataDir, deps.clock().getTime())
      ctx.io.stdout(
        values.json
          ? json({
              key_id: r.keyId,
              fingerprint: r.fingerprint,
              introduced_by: r.introducedBy,
              retired: r.retired,
            })
          : `new signing key ${r.keyId}, fingerprint ${formatFingerprint(r.fingerprint)}, introduced by ${r.introducedBy ?? 'itself (a new first key: pin it with CHECKS_TRUSTED_KEY)'}; retired ${r.retired.join(', ') || 'none'}\n`,
      )
      return 0
    },
  },
  {
    name: 'checks prune',
    usage: 'checks prune [--json]',
    summary:
      'delete checks past CHECKS_RETENTION_YEARS now (the daily job does this too); chains stay verifiable',
    async run(argv, ctx) {
      const { values } = parse(argv, { json: { type: 'boolean' } })
      const r = pruneChecks(ctx.deps())
      ctx.io.stdout(values.json ? json(r) : `${r.deleted} entries older than ${r.cutoff} deleted\n`)
      return 0
    },
  },
]
