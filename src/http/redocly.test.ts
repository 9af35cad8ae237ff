/** Redocly CLI's lint (recommended ruleset, redocly.yaml) on the document the server serves. */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const REDOCLY = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js')

let ctx: TestContext
let dir: string
beforeAll(async () => {
  // as a deployment serves it: servers[0] is PUBLIC_URL (http://localhost:PORT when unset, which
  // the no-server-example.com rule would rightly flag in a published document)
  ctx = await createTestContext({ env: { PUBLIC_URL: 'https://verify.broker.test' } })
  dir = mkdtempSync(join(tmpdir(), 'cvk-redocly-'))
})
afterAll(() => {
  ctx.close()
  rmSync(dir, { recursive: true, force: true })
})

interface LintReport {
  totals: { errors: number; warnings: number }
  problems: { ruleId: string; message: string; location?: { pointer?: string }[] }[]
}

async function lint(document: unknown): Promise<LintReport> {
  const file = join(dir, 'openapi.json')
  writeFileSync(file, JSON.stringify(document))
  const out = await promisify(execFile)(
    process.execPath,
    [REDOCLY, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format=json'],
    {
      cwd: ROOT,
      env: { PATH: '', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  ).then(
    (r) => r.stdout,
    (err: { stdout?: string }) => err.stdout ?? '',
  )
  return JSON.parse(out.slice(out.indexOf('{'))) as LintReport
}

test('the served /openapi.json has no Redocly error or warning', async () => {
  const res = await ctx.get('/openapi.json')
  const report = await lint(await res.json())
  const problems = report.problems.map((p) => `${p.ruleId} ${p.location?.[0]?.pointer ?? ''}`)
  expect(problems).toEqual([])
  expect(report.totals).toMatchObject({ errors: 0, warnings: 0 })
}, 60_000)

test('negative control: a broken document is reported', async () => {
  const document = (await (await ctx.get('/openapi.json')).json()) as {
    paths: Record<string, Record<string, { operationId?: string }>>
  }
  const carrier = document.paths['/v1/carrier/{dot}']?.get
  if (carrier) delete carrier.operationId
  const report = await lint(document)
  expect(report.problems.map((p) => p.ruleId)).toContain('operation-operationId')
}, 60_000)
