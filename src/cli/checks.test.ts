import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BUNDLED_POLICY } from '../checks/policy-schema.ts'
import { runCliCaptured } from '../testing/cli.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'

let ctx: TestContext
let tmp: string
beforeAll(async () => {
  ctx = await createTestContext({ liveDir: LICENSING_FIXTURES, now: '2026-11-15T12:00:00Z' })
  tmp = mkdtempSync(join(tmpdir(), 'cvk-checks-cli-'))
})
afterAll(() => ctx.close())

const cli = (...argv: string[]) => runCliCaptured(ctx, argv)
const file = (name: string, text: string) => {
  const p = join(tmp, name)
  writeFileSync(p, text)
  return p
}

const POLICY_YAML = `policy_language: 1
name: Acme vetting
rules:
  - id: bipd
    description: BIPD at least $1,000,000
    require: { field: insurance.bipd_on_file, op: gte, value: 1000000 }
    otherwise: fail
  - id: not_conditional
    description: Conditional rating needs review
    require: { field: safety.safety_rating, op: ne, value: Conditional }
    otherwise: review
    missing: pass
    missing_pass_acknowledged: true
`

describe('policy', () => {
  test('validate lists every problem (exit 1); a good file is valid', async () => {
    const bad = await cli(
      'policy',
      'validate',
      '--file',
      file('bad.yaml', 'policy_language: 1\nname: x\nrules:\n  - id: X\n    require: {}\n'),
    )
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('rules.0.id')
    expect(bad.stderr).toContain('rules.0.description')
    const good = await cli('policy', 'validate', '--file', file('good.yaml', POLICY_YAML), '--json')
    expect(good.code).toBe(0)
    expect(good.json()).toEqual({ valid: true, rules: 2 })
    expect((await cli('policy', 'validate')).code).toBe(2)
  })

  test('set makes a new version each change and keeps the old; show falls back account → appliance → bundled', async () => {
    const { account } = ctx.account('starter')
    const shown = await cli('policy', 'show', '--account', String(account.id), '--json')
    expect(shown.json()).toMatchObject({ id: 'bundled@3', document: { name: BUNDLED_POLICY.name } })
    const yaml = await cli('policy', 'show', '--bundled')
    expect(yaml.stdout).toContain('# policy bundled@3')
    expect(yaml.stdout).toContain('id: no_pending_suspension')

    const path = file('acme.yaml', POLICY_YAML)
    expect((await cli('policy', 'set', '--file', path)).stdout).toBe(
      'saved appliance@1 (2 rules)\n',
    )
    expect(
      (await cli('policy', 'show', '--account', String(account.id), '--json')).json(),
    ).toMatchObject({ id: 'appliance@1' })
    const set = await cli(
      'policy',
      'set',
      '--file',
      path,
      '--account',
      String(account.id),
      '--json',
    )
    expect(set.json()).toMatchObject({ id: `account:${account.id}@1`, changed: true })
    expect(
      (
        await cli('policy', 'set', '--file', path, '--account', String(account.id), '--json')
      ).json(),
    ).toMatchObject({ changed: false })
    const v2 = await cli(
      'policy',
      'set',
      '--file',
      file('v2.yaml', POLICY_YAML.replace('1000000', '2000000')),
      '--account',
      String(account.id),
      '--json',
    )
    expect(v2.json()).toMatchObject({ id: `account:${account.id}@2`, version: 2 })
    const hist = await cli('policy', 'history', '--account', String(account.id), '--json')
    expect((hist.json() as unknown as { id: string }[]).map((h) => h.id)).toEqual([
      `account:${account.id}@1`,
      `account:${account.id}@2`,
    ])
    const invalid = await cli(
      'policy',
      'set',
      '--file',
      file('inv.yaml', 'name: x'),
      '--account',
      String(account.id),
    )
    expect(invalid.code).toBe(1)
    expect(invalid.stderr).toContain('nothing saved')
    expect((await cli('policy', 'set', '--file', path, '--account', '999999')).code).toBe(1)
  })
})

describe('checks verify and export', () => {
  test('an export verifies with the standalone script; a changed or removed line does not', async () => {
    const { account, key } = ctx.account('starter')
    const k = key('live', ['override'])
    const ids: string[] = []
    for (const body of [
      { dot: '1000001', reference: 'L-1' },
      { dot: '1000008', reference: 'L-2', contact: { email: 'x@examp1e.com' } },
      { mc: 'MC-100002' },
    ]) {
      const res = await ctx.post('/v1/checks', body, k)
      expect(res.status).toBe(201)
      ids.push(String(((await res.json()) as { check_id: string }).check_id))
    }
    await ctx.post(`/v1/checks/${ids[0] ?? ''}/override`, { by: 'QA', reason: 'known carrier' }, k)
    // rotation mid-way: both keys go into the export
    expect((await cli('checks', 'rotate-key')).code).toBe(0)
    await ctx.post('/v1/checks', { dot: '1000009', reference: 'L-4' }, k)

    const verified = await cli('checks', 'verify', '--json')
    expect(verified.code).toBe(0)
    expect(verified.json()).toMatchObject({ ok: true, first_break: null })

    const out = join(tmp, 'export')
    const ex = await cli(
      'checks',
      'export',
      '--account',
      String(account.id),
      '--from',
      '2026-11-01',
      '--to',
      '2026-11-30',
      '--out',
      out,
      '--json',
    )
    expect(ex.code).toBe(0)
    expect(ex.json()).toMatchObject({ entries: 5, checks: 4, overrides: 1 })
    const pages = readdirSync(join(out, 'pages'))
    expect(pages).toHaveLength(4)
    for (const id of ids) expect(pages).toContain(`${id}.html`)
    const page = readFileSync(join(out, 'pages', `${ids[0] ?? ''}.html`), 'utf8')
    expect(page).toContain('TEST CARRIER 1000001 LLC')
    expect(page).toContain('L-1')
    expect(page).toContain('known carrier')
    expect(page).not.toMatch(/<script|https?:\/\/(?!json-schema)/)
    expect(JSON.parse(readFileSync(join(out, 'public-keys.json'), 'utf8'))).toHaveLength(2)

    const run = () => spawnSync(process.execPath, [join(out, 'verify.mjs')], { encoding: 'utf8' })
    const ok = run()
    expect(ok.stderr).toBe('')
    expect(ok.status).toBe(0)
    expect(ok.stdout).toContain('OK: 5 entries verified')

    const jsonl = join(out, 'checks.jsonl')
    const lines = readFileSync(jsonl, 'utf8').trimEnd().split('\n')
    writeFileSync(
      jsonl,
      `${lines.map((l, i) => (i === 1 ? l.replace('L-2', 'L-X') : l)).join('\n')}\n`,
    )
    const changed = run()
    expect(changed.status).toBe(1)
    expect(changed.stderr).toContain('line 2')
    expect(changed.stderr).toContain('was changed')
    writeFileSync(jsonl, `${lines.filter((_, i) => i !== 2).join('\n')}\n`)
    const removed = run()
    expect(removed.status).toBe(1)
    expect(removed.stderr).toContain('not chained')

    // the appliance's own chain: a changed stored check is reported with its place
    ctx.deps.db
      .prepare("UPDATE checks SET document = replace(document, 'L-2', 'L-X') WHERE id = ?")
      .run(ids[1])
    const broken = await cli('checks', 'verify')
    expect(broken.code).toBe(1)
    expect(broken.stderr).toContain(`BROKEN: account ${account.id}`)
    expect(broken.stderr).toContain(ids[1])
    expect((await cli('checks', 'export', '--out', out)).code).toBe(2)
    expect((await cli('checks', 'keys', '--json')).json()['keys']).toHaveLength(2)
  })
})
