/**
 * The consumer's side: a client generated from the served /openapi.json (openapi-typescript),
 * type-checked with `tsc --strict` together with examples/typescript-client/, then every operation
 * called through openapi-fetch against a real server on 127.0.0.1.
 */
import { execFile } from 'node:child_process'
import type { Server as HttpServer } from 'node:http'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { serve, type ServerType } from '@hono/node-server'
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { pipelineDeps } from '../deps.ts'
import { equipmentDataset } from '../equipment/equipment.ts'
import { filesInDir, inputsFor, runBuild } from '../sync/pipeline.ts'
import { SAFETY_FIXTURES, sampleCensusDir } from '../testing/fixture-dirs.ts'
import { startTestSmtp, type TestSmtp } from '../testing/smtp-server.ts'
import { LICENSING_FIXTURES } from '../testing/fmcsa-server.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const EXAMPLE = join(ROOT, 'examples/typescript-client')
const GENERATED = join(EXAMPLE, 'generated') // git-ignored
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc')

let ctx: TestContext
let server: ServerType
let base: string
let key: string
let document: Record<string, unknown>
let smtp: TestSmtp
beforeAll(async () => {
  smtp = await startTestSmtp()
  ctx = await createTestContext({
    env: { SMTP_URL: smtp.url, SMTP_FROM: 'verify@broker.test' },
    liveDir: LICENSING_FIXTURES,
    sampleDir: sampleCensusDir(),
    now: '2026-11-15T12:00:00Z',
  })
  // the equipment dataset from the SMS fixture files (one tractor under several carriers)
  const built = await runBuild(
    pipelineDeps(ctx.deps),
    equipmentDataset,
    inputsFor(equipmentDataset, filesInDir(SAFETY_FIXTURES)),
    { channel: 'live', trigger: 'test', signal: AbortSignal.timeout(30_000) },
  )
  if (built.status !== 'activated') throw new Error(`equipment build: ${built.status}`)
  key = ctx.account('starter').key('live', ['override'])
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: ctx.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
  })
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  document = (await (await fetch(`${base}/openapi.json`)).json()) as Record<string, unknown>
})
afterAll(async () => {
  ;(server as HttpServer).closeAllConnections()
  await new Promise((r) => server.close(r))
  ctx.close()
  await smtp.close()
})

/** Compile-time negative controls: each line must be a type error, or tsc fails on the directive. */
const TYPE_CHECKS = `import type { Api } from '../client.js'

export function typeChecks(api: Api): void {
  // @ts-expect-error limit is an integer, not text
  void api.GET('/v1/search', { params: { query: { q: 'acme', limit: '5' } } })
  // @ts-expect-error the USDOT parameter is a string (one schema), not unknown
  void api.GET('/v1/carrier/{dot}', { params: { path: { dot: { n: 1 } } } })
  // @ts-expect-error a check names a company by dot or mc
  void api.POST('/v1/checks', { body: { reference: 'LOAD-1' } })
  // @ts-expect-error a unit's VIN is text
  void api.POST('/v1/checks', { body: { dot: '1', equipment: [{ vin: 1 }] } })
  // @ts-expect-error no such path
  void api.GET('/v1/carriers', {})
}

export async function typedAnswers(api: Api): Promise<string> {
  const { data, error } = await api.GET('/openapi.json')
  if (error) return error.code
  const version: '3.1.0' = data.openapi
  return version
}
`

const run = promisify(execFile)

describe('a client generated from /openapi.json', () => {
  test('openapi-typescript generates it and tsc --strict accepts it with the example', async () => {
    const ast = await openapiTS(document as unknown as OpenAPI3)
    const types = astToString(ast)
    expect(types).toContain('"/v1/carrier/{dot}"')
    // what a generator could not type before: the USDOT parameter, search limit, /openapi.json
    expect(types).not.toMatch(/\bdot: unknown/)
    rmSync(GENERATED, { recursive: true, force: true })
    mkdirSync(GENERATED, { recursive: true })
    writeFileSync(join(GENERATED, 'api.d.ts'), types)
    writeFileSync(join(GENERATED, 'type-checks.ts'), TYPE_CHECKS)
    const result = await run(process.execPath, [TSC, '--strict', '--noEmit', '-p', EXAMPLE], {
      cwd: ROOT,
    }).then(
      () => '',
      (err: { stdout?: string; message: string }) => err.stdout || err.message,
    )
    expect(result).toBe('')
  }, 120_000)

  test('the controls fail to compile when a type is wrong', async () => {
    writeFileSync(
      join(GENERATED, 'type-checks.ts'),
      `${TYPE_CHECKS}\nexport const wrong: number = 'not a number'\n`,
    )
    const result = await run(process.execPath, [TSC, '--strict', '--noEmit', '-p', EXAMPLE], {
      cwd: ROOT,
    }).then(
      () => '',
      (err: { stdout?: string; message: string }) => err.stdout || err.message,
    )
    expect(result).toMatch(/type-checks\.ts.*TS2322/)
    writeFileSync(join(GENERATED, 'type-checks.ts'), TYPE_CHECKS)
  }, 120_000)

  test('every operation is called through openapi-fetch against a running server', async () => {
    const example = (await import(pathToFileURL(join(EXAMPLE, 'client.ts')).href)) as {
      apiClient: (baseUrl: string, key: string) => unknown
      tour: (
        api: unknown,
        company: { dot: string; mc: string; vin: string; plate: { plate: string; state: string } },
      ) => Promise<{ operationId: string; status: number }[]>
      carrierByDot: (api: unknown, dot: string) => Promise<{ legal_name: string } | null>
    }
    const api = example.apiClient(base, key)
    const calls = await example.tour(api, {
      dot: '1000002',
      mc: 'MC-100002',
      vin: '1FUJGLDR0CLBP1234',
      plate: { plate: 'P123456', state: 'IL' },
    })
    const documented = Object.values(document.paths as Record<string, Record<string, unknown>>)
      .flatMap((ops) => Object.values(ops))
      .map((op) => (op as { operationId: string }).operationId)
    expect(calls.map((c) => c.operationId).sort()).toEqual(documented.sort())
    for (const c of calls) expect(c.status, c.operationId).toBeGreaterThanOrEqual(200)
    for (const c of calls) expect(c.status, c.operationId).toBeLessThan(300)
    expect((await example.carrierByDot(api, '1000002'))?.legal_name).toEqual(expect.any(String))
    expect(await example.carrierByDot(api, '99999999')).toBeNull()
  })
})
