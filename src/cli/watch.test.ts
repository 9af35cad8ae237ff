import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { runCliCaptured } from '../testing/cli.ts'

let ctx: TestContext
let dir: string
beforeAll(async () => {
  ctx = await createTestContext()
  dir = mkdtempSync(join(tmpdir(), 'cvk-watch-cli-'))
})
afterAll(() => {
  ctx.close()
  rmSync(dir, { recursive: true, force: true })
})

const cli = (argv: string[], stdin = '') => runCliCaptured(ctx, argv, stdin)

describe('watch CLI', () => {
  it('adds, lists and removes USDOT numbers', async () => {
    const id = String(ctx.account('starter').account.id)
    const add = await cli(['watch', 'add', '--account', id, '1000001', '1000002', '1000001'])
    expect(add).toMatchObject({
      code: 0,
      stdout: '2 added, 0 already watched, 0 invalid; 2 watched\n',
    })
    expect((await cli(['watch', 'add', '--account', id, '1000002'])).stdout).toMatch(
      /^0 added, 1 already/,
    )
    const list = JSON.parse((await cli(['watch', 'list', '--account', id, '--json'])).stdout) as {
      dot_number: string
    }[]
    expect(list.map((w) => w.dot_number)).toEqual(['1000001', '1000002'])
    expect((await cli(['watch', 'remove', '--account', id, '1000001', '5'])).stdout).toBe(
      '1 removed, 1 were not watched\n',
    )
    expect((await cli(['watch', 'list', '--account', id])).stdout).toMatch(/1000002/)
    expect((await cli(['watch', 'add', '--account', id, '12x'])).code).toBe(2)
    expect((await cli(['watch', 'add', '--account', id])).code).toBe(2)
  })

  it('loads thousands of numbers from a file and reports invalid lines', async () => {
    const id = String(ctx.account('starter').account.id)
    const lines = ['dot_number,name']
    for (let i = 0; i < 5000; i++) lines.push(`${2_000_000 + i},"Carrier ${i}, LLC"`)
    lines.push('', 'abc,x', '0', '123456789', '"3000000"')
    const path = join(dir, 'list.csv')
    writeFileSync(path, lines.join('\r\n'))
    const r = await cli(['watch', 'add', '--account', id, '--file', path, '--json'])
    expect(r.code).toBe(1)
    const out = JSON.parse(r.stdout) as {
      added: number
      invalid: number
      invalid_lines: { line: number; reason: string }[]
    }
    expect(out).toMatchObject({ added: 5001, invalid: 3 })
    expect(out.invalid_lines.map((l) => [l.line, l.reason])).toEqual([
      [5003, 'not a number'],
      [5004, 'zero is not a USDOT number'],
      [5005, 'more than 8 digits'],
    ])
    expect(r.stderr).toMatch(/line 5003: "abc": not a number/)
    const viaStdin = await cli(
      ['watch', 'add', '--account', id, '--file', '-'],
      '4000001\n4000002\n',
    )
    expect(viaStdin).toMatchObject({
      code: 0,
      stdout: '2 added, 0 already watched, 0 invalid; 5003 watched\n',
    })
  })

  it('a Free account cannot watch (exit 1)', async () => {
    const id = String(ctx.account('free').account.id)
    const r = await cli(['watch', 'add', '--account', id, '1000001'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/paid plans only/)
  })
})
