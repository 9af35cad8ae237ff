import { readdirSync } from 'node:fs'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { DAY } from '../clock.ts'
import { openAppDb } from '../db/app-db.ts'
import { createTestContext, type TestContext } from '../testing/context.ts'
import { KEEP_BACKUPS, runMaintenance } from './maintenance.ts'

let ctx: TestContext
beforeEach(async () => {
  ctx = await createTestContext()
})
afterEach(() => ctx.close())

test('maintenance writes a readable backup of app.db and keeps only the newest ones', async () => {
  const { account } = ctx.account('starter')
  for (let i = 0; i < KEEP_BACKUPS + 2; i++) {
    await runMaintenance(ctx.deps)
    ctx.clock.advance(DAY)
  }
  const files = readdirSync(ctx.config.paths.backups)
  expect(files).toHaveLength(KEEP_BACKUPS)
  const newest = files.sort().at(-1) ?? ''
  const copy = openAppDb(`${ctx.config.paths.backups}/${newest}`)
  expect(copy.sqlite.prepare('SELECT name FROM accounts WHERE id = ?').get(account.id)).toEqual({
    name: 'Test starter',
  })
  copy.sqlite.close()
})
